// Package rank orders a catalog's searches for a free-text need, the one
// ranking behind SearchForSearches in both the offline and the live
// catalog: BM25 over weighted fields (names and curated keywords count
// more than help text), plus a bonus when the query's words stand together
// in a name or keyword. An Index is built once from a search list and is
// read-only afterwards, so it serves concurrent callers.
package rank

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"strategist/internal/catalog"
)

// Doc is one search as the ranking reads it.
type Doc struct {
	Search catalog.SearchSummary
	// Keywords are words a researcher may use for the search that its own
	// text lacks (the offline catalog's curated keywords).
	Keywords []string
	// Params are the search's parameters, when the catalog has them at
	// hand: their names and help count a little.
	Params []catalog.Param
	// Help is the search's help text (the live site's), which counts a
	// little.
	Help string
}

// BM25 parameters and field weights.
const (
	bm25K1 = 1.2
	bm25B  = 0.75

	weightName        = 3
	weightDisplayName = 3
	weightShortName   = 2
	weightKeyword     = 2.5
	weightSummary     = 1.5
	weightDescription = 1
	weightHelp        = 0.5
	weightParamName   = 0.5
	weightParamHelp   = 0.3
)

// Index ranks a list of searches. Build it with New.
type Index struct {
	docs   []doc
	idf    map[string]float64
	avgLen float64
}

type doc struct {
	summary catalog.SearchSummary
	tf      map[string]float64 // field-weighted term frequency
	length  float64            // field-weighted length
	phrases [][]string         // names and keywords as token lists
}

// New indexes docs; their order is the order of ties and of an empty
// query.
func New(docs []Doc) *Index {
	ix := &Index{idf: map[string]float64{}, docs: make([]doc, 0, len(docs))}
	df := map[string]int{}
	var total float64
	for i := range docs {
		d := &docs[i]
		x := doc{summary: d.Search, tf: map[string]float64{}}
		add := func(text string, weight float64) []string {
			toks := Tokens(text)
			for _, t := range toks {
				x.tf[t] += weight
				x.length += weight
			}
			return toks
		}
		s := &d.Search
		x.phrases = append(x.phrases, add(s.Name, weightName), add(s.DisplayName, weightDisplayName), add(s.ShortDisplayName, weightShortName))
		for _, k := range d.Keywords {
			x.phrases = append(x.phrases, add(k, weightKeyword))
		}
		add(s.Summary, weightSummary)
		add(s.Description, weightDescription)
		add(d.Help, weightHelp)
		for _, p := range d.Params {
			add(p.DisplayName, weightParamName)
			add(p.Help, weightParamHelp)
		}
		for t := range x.tf {
			df[t]++
		}
		total += x.length
		ix.docs = append(ix.docs, x)
	}
	n := float64(len(ix.docs))
	for t, f := range df {
		ix.idf[t] = math.Log(1 + (n-float64(f)+0.5)/(float64(f)+0.5))
	}
	if n > 0 {
		ix.avgLen = total / n
	}
	return ix
}

// Rank returns the searches of recordType ("" for all) matching query,
// best first, with their scores; ties keep the index's order. An empty
// query lists every search with score 0. limit <= 0 means no limit.
func (ix *Index) Rank(query, recordType string, limit int) []catalog.SearchSummary {
	var q []string
	for _, t := range Tokens(query) {
		if !slices.Contains(q, t) {
			q = append(q, t)
		}
	}
	type scored struct {
		i     int
		score float64
	}
	var hits []scored
	for i := range ix.docs {
		d := &ix.docs[i]
		if recordType != "" && d.summary.RecordType != recordType {
			continue
		}
		if len(q) == 0 {
			hits = append(hits, scored{i: i})
			continue
		}
		if s := ix.score(d, q); s > 0 {
			hits = append(hits, scored{i: i, score: s})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]catalog.SearchSummary, len(hits))
	for k, h := range hits {
		out[k] = ix.docs[h.i].summary
		out[k].Score = math.Round(h.score*1000) / 1000
	}
	return out
}

func (ix *Index) score(d *doc, q []string) float64 {
	var s, idfSum float64
	norm := bm25K1 * (1 - bm25B + bm25B*d.length/ix.avgLen)
	for _, t := range q {
		idfSum += ix.idf[t]
		tf := d.tf[t]
		if tf == 0 {
			continue
		}
		s += ix.idf[t] * tf * (bm25K1 + 1) / (tf + norm)
	}
	if s == 0 {
		return 0
	}
	// The query's words side by side in a name or keyword: a strong sign.
	if len(q) > 1 {
		for _, p := range d.phrases {
			if containsRun(p, q) {
				s += idfSum
				break
			}
		}
	}
	for _, p := range d.phrases {
		if slices.Equal(p, q) {
			s += idfSum
			break
		}
	}
	return s
}

// containsRun reports whether run occurs as consecutive tokens of toks.
func containsRun(toks, run []string) bool {
	for i := 0; i+len(run) <= len(toks); i++ {
		if slices.Equal(toks[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// isStopword reports words that say nothing about which search fits
// (every search finds genes).
func isStopword(w string) bool {
	switch w {
	case "a", "an", "the", "of", "for", "in", "on", "by", "with", "to", "and", "or", "find", "gene", "genes",
		"that", "whose", "which", "is", "are", "from", "their", "its", "it", "be", "as", "at", "this", "these",
		"into", "i", "want", "me", "show", "list", "search", "searches", "get", "using", "use", "based", "have", "has":
		return true
	}
	return false
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// Tokens lower-cases text, drops HTML tags (live display names carry
// them), splits camel case and punctuation, drops stopwords and strips
// plural endings, so "GenesByOrthologs" and "orthologs" meet.
func Tokens(s string) []string {
	if strings.Contains(s, "<") {
		s = tagRE.ReplaceAllString(s, " ")
	}
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// Split "GoTerm" and "ByGo" but not "GO" or "tRNA".
			if unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
				flush()
			}
			cur = append(cur, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	out := words[:0]
	for _, w := range words {
		if isStopword(w) {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

func stem(w string) string {
	if strings.HasSuffix(w, "ology") {
		w = strings.TrimSuffix(w, "y")
	}
	if len(w) >= 3 && strings.HasSuffix(w, "s") &&
		!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
		w = strings.TrimSuffix(w, "s")
	}
	return w
}
