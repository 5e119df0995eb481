package store

import (
	"context"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"
)

// ConversationHit is a conversation that matched a search, with its
// relevance and a short extract of the best-matching text.
type ConversationHit struct {
	Conversation
	// Rank orders the hits, higher first: a match in the title counts most,
	// then step names, then messages, each weighted by ts_rank.
	Rank float32 `db:"rank"`
	// Headline is ts_headline's extract of the best-matching text (the
	// title, a message or the step names), with the matched words between
	// HeadlineStart and HeadlineStop.
	Headline string `db:"headline"`
}

// HeadlineStart and HeadlineStop enclose the matched words of a
// ConversationHit's Headline. They are characters of Unicode's private use
// area, which no message text uses, so splitting on them cannot cut the
// researcher's own words; HeadlineParts turns them into parts.
const (
	HeadlineStart = "\uE000"
	HeadlineStop  = "\uE001"
)

// HeadlinePart is a piece of a headline: matched words or the text between.
type HeadlinePart struct {
	Text  string
	Match bool
}

// HeadlineParts splits a headline into its matched and unmatched pieces.
func HeadlineParts(h string) []HeadlinePart {
	var parts []HeadlinePart
	for h != "" {
		before, rest, found := strings.Cut(h, HeadlineStart)
		if before != "" {
			parts = append(parts, HeadlinePart{Text: before})
		}
		if !found {
			break
		}
		match, after, _ := strings.Cut(rest, HeadlineStop)
		if match != "" {
			parts = append(parts, HeadlinePart{Text: match, Match: true})
		}
		h = after
	}
	return parts
}

// searchConversationsSQL finds a user's conversations whose title, user or
// assistant messages, or strategy step names match a web-search style
// query ($2: words, "quoted phrases", -exclusions, or), through the stored
// tsvector columns of migration 0004 and their GIN indexes; every part
// filters by the owner. Each conversation's score is the sum of its
// matches' weighted ranks; its headline is taken from its best match, and
// computed only for the hits returned.
const searchConversationsSQL = `
WITH q AS (SELECT websearch_to_tsquery('english', $2) AS query),
matched AS (
	SELECT c.id AS conversation_id, 4 + ts_rank(c.title_search, q.query) AS rank, 't' AS kind, c.id AS source
	FROM conversations c, q
	WHERE c.user_id = $1 AND c.title_search @@ q.query
	UNION ALL
	SELECT s.conversation_id, 2 + ts_rank(s.step_names_search, q.query), 's', s.id
	FROM strategies s JOIN conversations c ON c.id = s.conversation_id, q
	WHERE c.user_id = $1 AND s.step_names_search @@ q.query
	UNION ALL
	SELECT m.conversation_id, 1 + ts_rank(m.text_search, q.query), 'm', m.id
	FROM messages m JOIN conversations c ON c.id = m.conversation_id, q
	WHERE c.user_id = $1 AND m.text_search @@ q.query
),
best AS (
	SELECT DISTINCT ON (conversation_id) conversation_id, kind, source,
		sum(rank) OVER (PARTITION BY conversation_id) AS total
	FROM matched
	ORDER BY conversation_id, rank DESC
),
top AS (
	SELECT ` + prefixedConversationColumns + `, best.total, best.kind, best.source
	FROM best JOIN conversations c ON c.id = best.conversation_id
	ORDER BY best.total DESC, c.updated_at DESC, c.id
	LIMIT $3
)
SELECT top.id, top.user_id, top.site_id, top.title, top.title_set, top.mode, top.strategy_id, top.model,
	top.last_event_seq, top.created_at, top.updated_at, top.total::real AS rank,
	ts_headline('english', CASE top.kind
			WHEN 't' THEN top.title
			WHEN 's' THEN (SELECT string_agg(n, ' · ') FROM strategies s,
				jsonb_array_elements_text(jsonb_path_query_array(s.graph, '$.steps[*].displayName')) n WHERE s.id = top.source)
			ELSE (SELECT m.content FROM messages m WHERE m.id = top.source)
		END, q.query,
		'StartSel=` + HeadlineStart + `, StopSel=` + HeadlineStop + `, MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "') AS headline
FROM top, q
ORDER BY top.total DESC, top.updated_at DESC, top.id`

// prefixedConversationColumns are conversationColumns of the alias c.
const prefixedConversationColumns = `c.id, c.user_id, c.site_id, c.title, c.title_set, c.mode, c.strategy_id, c.model,
	c.last_event_seq, c.created_at, c.updated_at`

// SearchConversations finds the user's conversations matching query (words
// as a web search takes them), most relevant first, at most limit. Only the
// user's own conversations are searched. A conversation matches when its
// title, one of its user or assistant messages, or its strategy's step
// names (together) match the whole query: an exclusion ("-word") applies to
// each of these texts. A query of no searchable words
// (blank, or only words like "the") matches nothing.
func (db *DB) SearchConversations(ctx context.Context, userID, query string, limit int) ([]ConversationHit, error) {
	hits, err := collect(ctx, db, pgx.RowToStructByName[ConversationHit], searchConversationsSQL, userID, webSearchQuery(query), limit)
	return hits, translate("search conversations", err)
}

// webSearchQuery rewrites a researcher's query into the part of
// websearch_to_tsquery's syntax it means: words, hyphenated words,
// "quoted phrases", "or", and a "-" that excludes the word or phrase it
// starts. websearch_to_tsquery reads every other "-" that follows a space
// or punctuation as one more negation, and fails ("tsquery stack too
// small") on 33 of them in a row, so a run of minus signs before a term
// is one exclusion, and a minus sign that neither starts a term nor joins
// two words becomes a space. Other punctuation is left to the parser,
// which ignores what it cannot index.
func webSearchQuery(q string) string {
	var b strings.Builder
	for q != "" {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		negate := false
		for strings.HasPrefix(q, "-") {
			negate, q = true, q[1:]
		}
		var term string
		quoted := strings.HasPrefix(q, `"`)
		if quoted {
			q = q[1:]
			end := strings.IndexByte(q, '"')
			if end < 0 {
				end = len(q)
			}
			term, q = q[:end], q[min(end+1, len(q)):]
		} else {
			end := strings.IndexFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
			if end < 0 {
				end = len(q)
			}
			term, q = q[:end], q[end:]
		}
		term = strings.Join(strings.Fields(joiningHyphens(term)), " ")
		if !strings.ContainsFunc(term, isWordRune) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		// A negated term starts with a letter or digit, or is quoted: the
		// "-" then applies to it alone.
		if negate && (quoted || isWordRune([]rune(term)[0])) {
			b.WriteByte('-')
		}
		if quoted {
			b.WriteString(`"` + term + `"`)
		} else {
			b.WriteString(term)
		}
	}
	return b.String()
}

// joiningHyphens keeps the minus signs of s that join two letters or
// digits ("well-known") and turns every other one into a space.
func joiningHyphens(s string) string {
	rs := []rune(s)
	for i, r := range rs {
		if r == '-' && (i == 0 || i == len(rs)-1 || !isWordRune(rs[i-1]) || !isWordRune(rs[i+1])) {
			rs[i] = ' '
		}
	}
	return string(rs)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
