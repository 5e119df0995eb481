package offline

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"strategist/internal/catalog"
)

// ranker scores searches for a free-text need with BM25 over weighted fields
// (names and keywords count more than help text), plus a bonus when the
// query's words appear together in a name or keyword. Built once; read-only.
type ranker struct {
	docs   []rankDoc
	idf    map[string]float64
	avgLen float64
}

type rankDoc struct {
	def     *searchDef
	tf      map[string]float64 // field-weighted term frequency
	length  float64            // field-weighted length
	phrases [][]string         // names and keywords as token lists
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
	weightParamName   = 0.5
	weightParamHelp   = 0.3
)

// isRankStopword reports words that say nothing about which search fits
// (every search finds genes).
func isRankStopword(w string) bool {
	switch w {
	case "a", "an", "the", "of", "for", "in", "on", "by", "with", "to", "and", "or", "find", "gene", "genes",
		"that", "whose", "which", "is", "are", "from", "their", "its", "it", "be", "as", "at", "this", "these",
		"into", "i", "want", "me", "show", "list", "search", "searches", "get", "using", "use", "based", "have", "has":
		return true
	}
	return false
}

// rankTokens lower-cases, splits camel case and punctuation, drops stopwords
// and strips plural endings, so "GenesByOrthologs" and "orthologs" meet.
func rankTokens(s string) []string {
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
		if isRankStopword(w) {
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

func newRanker(defs []*searchDef) *ranker {
	r := &ranker{idf: map[string]float64{}}
	df := map[string]int{}
	var total float64
	for _, d := range defs {
		doc := rankDoc{def: d, tf: map[string]float64{}}
		add := func(text string, weight float64) []string {
			toks := rankTokens(text)
			for _, t := range toks {
				doc.tf[t] += weight
				doc.length += weight
			}
			return toks
		}
		s := &d.search
		doc.phrases = append(doc.phrases, add(s.Name, weightName), add(s.DisplayName, weightDisplayName), add(s.ShortDisplayName, weightShortName))
		for _, k := range d.keyword {
			doc.phrases = append(doc.phrases, add(k, weightKeyword))
		}
		add(s.Summary, weightSummary)
		add(s.Description, weightDescription)
		for _, p := range s.Params {
			add(p.DisplayName, weightParamName)
			add(p.Help, weightParamHelp)
		}
		for t := range doc.tf {
			df[t]++
		}
		total += doc.length
		r.docs = append(r.docs, doc)
	}
	n := float64(len(r.docs))
	for t, f := range df {
		r.idf[t] = math.Log(1 + (n-float64(f)+0.5)/(float64(f)+0.5))
	}
	if n > 0 {
		r.avgLen = total / n
	}
	return r
}

// rank returns the matching searches, best first; ties keep catalog order. An
// empty query lists every search with score 0. limit <= 0 means no limit.
func (r *ranker) rank(query, recordType string, limit int) []catalog.SearchSummary {
	var q []string
	for _, t := range rankTokens(query) {
		if !slices.Contains(q, t) {
			q = append(q, t)
		}
	}
	type scored struct {
		i     int
		score float64
	}
	var hits []scored
	for i, doc := range r.docs {
		if recordType != "" && doc.def.search.RecordType != recordType {
			continue
		}
		if len(q) == 0 {
			hits = append(hits, scored{i: i})
			continue
		}
		if s := r.score(doc, q); s > 0 {
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
		out[k] = r.docs[h.i].def.search.SearchSummary
		out[k].Score = math.Round(h.score*1000) / 1000
	}
	return out
}

func (r *ranker) score(doc rankDoc, q []string) float64 {
	var s, idfSum float64
	norm := bm25K1 * (1 - bm25B + bm25B*doc.length/r.avgLen)
	for _, t := range q {
		idfSum += r.idf[t]
		tf := doc.tf[t]
		if tf == 0 {
			continue
		}
		s += r.idf[t] * tf * (bm25K1 + 1) / (tf + norm)
	}
	if s == 0 {
		return 0
	}
	// The query's words side by side in a name or keyword: a strong sign.
	for _, p := range doc.phrases {
		if len(q) > 1 && containsRun(p, q) {
			s += idfSum
			break
		}
	}
	for _, p := range doc.phrases {
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
