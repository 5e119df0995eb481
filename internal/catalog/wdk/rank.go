package wdk

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"

	"strategist/internal/catalog"
)

// defaultRankLimit is how many searches SearchForSearches returns when the
// caller gives no limit.
const defaultRankLimit = 20

// field weights: a match in the name a researcher sees counts most.
var rankFields = []struct {
	weight float64
	get    func(*SearchInfo) string
}{
	{3, func(s *SearchInfo) string { return s.DisplayName }},
	{2, func(s *SearchInfo) string { return s.ShortDisplayName }},
	{2, func(s *SearchInfo) string { return splitCamel(s.Name) }},
	{1, func(s *SearchInfo) string { return s.Summary }},
	{1, func(s *SearchInfo) string { return s.Description }},
	{0.5, func(s *SearchInfo) string { return s.Help }},
}

// rankStop are words that say nothing about which search fits.
var rankStop = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "by": true, "for": true, "from": true, "in": true,
	"is": true, "of": true, "on": true, "or": true, "the": true, "that": true, "to": true, "with": true,
	"find": true, "search": true, "searches": true, "which": true, "what": true, "all": true, "me": true,
}

// searchIndex is a list of searches tokenised once for ranking.
type searchIndex struct {
	docs []indexedSearch
	df   map[string]int // how many searches contain each token
}

type indexedSearch struct {
	s      *SearchInfo
	fields [][]string // tokens per rankFields entry
}

// newSearchIndex tokenises the searches a researcher may pick (internal
// ones are left out).
func newSearchIndex(list []SearchInfo) *searchIndex {
	ix := &searchIndex{df: map[string]int{}}
	for i := range list {
		s := &list[i]
		if s.Internal() {
			continue
		}
		d := indexedSearch{s: s, fields: make([][]string, len(rankFields))}
		seen := map[string]bool{}
		for fi, f := range rankFields {
			d.fields[fi] = tokens(f.get(s))
			for _, t := range d.fields[fi] {
				if !seen[t] {
					seen[t] = true
					ix.df[t]++
				}
			}
		}
		ix.docs = append(ix.docs, d)
	}
	return ix
}

// rank scores searches for a free-text query: each query word scores by
// where it matches (whole word, or a prefix of at least 3 letters at half
// weight), weighted by its rarity across the searches (IDF), and the whole
// query found in the display name adds a bonus. Ties go by display name.
// An empty query lists searches by display name.
func (ix *searchIndex) rank(query string, limit int) []catalog.SearchSummary {
	if limit <= 0 {
		limit = defaultRankLimit
	}
	words := rankWords(query)
	out := make([]catalog.SearchSummary, 0, min(limit, len(ix.docs)))
	if len(words) == 0 {
		docs := slices.Clone(ix.docs)
		slices.SortStableFunc(docs, func(a, b indexedSearch) int { return strings.Compare(a.s.DisplayName, b.s.DisplayName) })
		for _, d := range docs[:min(limit, len(docs))] {
			out = append(out, d.s.summary(d.s.Kind()))
		}
		return out
	}
	n := float64(len(ix.docs))
	idf := make([]float64, len(words))
	for i, w := range words {
		idf[i] = math.Log(1 + n/float64(1+ix.df[w]))
	}
	phrase := strings.ToLower(strings.TrimSpace(query))
	type scored struct {
		s     *SearchInfo
		score float64
	}
	// Match each distinct token of the index against the words once; the
	// searches then only look their tokens up.
	matches := map[string][]float64{}
	for tok := range ix.df {
		var ms []float64
		for wi, w := range words {
			if m := wordMatch(tok, w); m > 0 {
				if ms == nil {
					ms = make([]float64, len(words))
				}
				ms[wi] = m
			}
		}
		if ms != nil {
			matches[tok] = ms
		}
	}
	var hits []scored
	best := make([]float64, len(words))
	for _, d := range ix.docs {
		clear(best)
		for fi, toks := range d.fields {
			weight := rankFields[fi].weight
			for _, t := range toks {
				for wi, m := range matches[t] {
					best[wi] = max(best[wi], m*weight)
				}
			}
		}
		score := 0.0
		for wi := range words {
			score += best[wi] * idf[wi]
		}
		if score == 0 {
			continue
		}
		if strings.Contains(strings.ToLower(d.s.DisplayName), phrase) {
			score += 2
		}
		hits = append(hits, scored{d.s, score / float64(len(words))})
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.s.DisplayName, b.s.DisplayName)
	})
	for _, h := range hits[:min(limit, len(hits))] {
		sum := h.s.summary(h.s.Kind())
		sum.Score = math.Round(h.score*1000) / 1000
		out = append(out, sum)
	}
	return out
}

// wordMatch scores a token against a query word: 1 for the same word, 0.5
// when one is a prefix (3+ letters) of the other.
func wordMatch(token, word string) float64 {
	switch {
	case token == word:
		return 1
	case len(word) >= 3 && strings.HasPrefix(token, word), len(token) >= 3 && strings.HasPrefix(word, token):
		return 0.5
	}
	return 0
}

// rankWords are the query's meaningful words.
func rankWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tokens(q) {
		if !rankStop[t] && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// tokens lower-cases text, splits it on anything but letters and digits,
// strips HTML tags and folds plurals ("kinases" -> "kinase").
func tokens(s string) []string {
	if strings.Contains(s, "<") {
		s = tagRE.ReplaceAllString(s, " ")
	}
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, f := range fields {
		fields[i] = stem(f)
	}
	return fields
}

func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// splitCamel turns GenesByGoTerm into "Genes By Go Term" so url segments
// match words.
func splitCamel(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}
