package rules

import (
	"strategist/internal/english"

	"slices"
	"strings"
)

// goDetails returns the GO search's answer for one vocabulary query.
func (rv *resolver) goDetails(query string) *searchDetails {
	d := rv.a.t.result(paramsCall(searchNeeds[needGO].search, query))
	var sd searchDetails
	if !d.decode(&sd) {
		return nil
	}
	return &sd
}

// goTerms pools the GO terms every look-up for a clause returned, in the
// order they came. Fuzzy adds the looser look-ups and the terms the
// catalog suggests as near spellings of a look-up that matched none (a
// typo anywhere in a word, its first letters too).
func (rv *resolver) goTerms(c *english.Clause, fuzzy bool) []wireTerm {
	queries := slices.Clone(c.Variants)
	if fuzzy {
		queries = append(queries, fuzzyQueries(c)...)
	}
	var out []wireTerm
	seen := map[string]bool{}
	for _, q := range queries {
		sd := rv.goDetails(q)
		if sd == nil {
			continue
		}
		p, ok := sd.param(paramGO)
		if !ok {
			continue
		}
		found := p.Values
		if fuzzy {
			found = append(slices.Clip(found), p.Suggestions...)
		}
		for _, t := range found {
			if !seen[t.Term] {
				seen[t.Term] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// goName is a GO term's name: its display label without the id.
func goName(t wireTerm) string {
	name := t.Display
	if name == "" {
		return t.Term
	}
	if i := strings.LastIndex(name, " ("+t.Term+")"); i > 0 {
		name = name[:i]
	}
	return name
}

// goNamed finds the terms a clause names: for each of its variants in
// turn, the terms named so (several ids can share a name: replaced terms
// keep theirs), else the terms one of whose GO synonyms it is. It returns
// the variant that matched, and the synonym when a synonym named them.
func (rv *resolver) goNamed(c *english.Clause) (hits []wireTerm, variant, synonym string) {
	pool := rv.goTerms(c, false)
	for _, v := range c.Variants {
		nv := english.Normalize(v)
		for _, t := range pool {
			if strings.EqualFold(t.Term, v) || english.Normalize(goName(t)) == nv {
				hits = append(hits, t)
			}
		}
		if len(hits) > 0 {
			return hits, v, ""
		}
		for _, t := range pool {
			if t.Synonym != "" && english.Normalize(t.Synonym) == nv {
				hits = append(hits, t)
			}
		}
		if len(hits) > 0 {
			return hits, v, hits[0].Synonym
		}
	}
	return nil, "", ""
}

// distinctNames are the names of terms, each once.
func distinctNames(terms []wireTerm) []string {
	var out []string
	for _, t := range terms {
		if n := goName(t); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// goFuzzy finds the one GO name within typo distance of the clause.
func (rv *resolver) goFuzzy(c *english.Clause) ([]wireTerm, int, []string) {
	pool := rv.goTerms(c, true)
	phrases := []string{english.Normalize(c.Text), english.Normalize(english.SingularPhrase(c.Text))}
	best, bestNames := -1, []string{}
	var hits []wireTerm
	for _, t := range pool {
		name := english.Normalize(goName(t))
		d := -1
		for _, ph := range phrases {
			for _, n := range []string{name, english.Normalize(t.Synonym)} {
				// A word that extends a name ("transporter" after
				// "transport") is another word, not a typo.
				if n == "" || strings.HasPrefix(ph, n) {
					continue
				}
				if dd, ok := english.Near(ph, n, english.TypoTolerance(len(ph))); ok && (d < 0 || dd < d) {
					d = dd
				}
			}
		}
		switch {
		case d < 0:
		case best < 0 || d < best:
			best, hits, bestNames = d, []wireTerm{t}, []string{name}
		case d == best:
			hits = append(hits, t)
			if !slices.Contains(bestNames, name) {
				bestNames = append(bestNames, name)
			}
		}
	}
	return hits, best, bestNames
}

// fuzzyQueries are looser look-ups for a misspelt term: every word cut to
// its first four letters ("dna repl"), the longest word so cut, every
// word cut to three ("dna rep"), then each word of a longer phrase
// alone.
func fuzzyQueries(c *english.Clause) []string {
	words := strings.Fields(english.Normalize(c.Text))
	if len(words) == 0 || len(words) > 6 {
		return nil
	}
	cut := func(w string) string {
		r := []rune(w)
		return string(r[:min(len(r), 4)])
	}
	var parts []string
	longest := ""
	for _, w := range words {
		parts = append(parts, cut(w))
		if len([]rune(w)) > len([]rune(longest)) {
			longest = w
		}
	}
	// Swapped or wrong letters within the first four ("repiar") need a
	// shorter cut.
	var short []string
	for _, w := range words {
		r := []rune(w)
		short = append(short, string(r[:min(len(r), 3)]))
	}
	var out []string
	// Each word of a longer phrase alone, so the nearest terms of
	// "comprehensive kinase strategy" include those named for kinases.
	var alone []string
	if content := english.ContentWords(c.Text); len(content) > 1 {
		for _, w := range content[:min(len(content), 3)] {
			if len([]rune(w)) >= 4 {
				alone = append(alone, w)
			}
		}
	}
	for _, q := range append([]string{strings.Join(parts, " "), cut(longest), strings.Join(short, " ")}, alone...) {
		if len([]rune(q)) < 3 || slices.ContainsFunc(c.Variants, func(v string) bool { return strings.EqualFold(v, q) }) || slices.Contains(out, q) {
			continue
		}
		out = append(out, q)
	}
	return out
}

// nearestTerms orders the terms the look-ups for a phrase found by how
// near each is to it: most of the phrase's words in the term's name or
// the synonym it was found by (a word within a typo counts), then fewest
// words of the name beyond them, then the catalog's order. A term that
// shares no word with the phrase (one a short cut of its words found by
// chance) is no reading of it and is left out.
func nearestTerms(c *english.Clause, pool []wireTerm) []wireTerm {
	type near struct {
		t            wireTerm
		shared, more int
	}
	var found []near
	for _, t := range pool {
		have := english.ContentWords(goName(t) + " " + t.Synonym)
		best := near{t: t}
		// The phrase as written and each of its phrasings ("purine
		// biosynthetic process" for "purine synthesis"): the nearest counts.
		for _, v := range append([]string{c.Text}, c.Variants...) {
			shared := 0
			for _, w := range english.ContentWords(v) {
				if slices.ContainsFunc(have, func(h string) bool { return wordNear(w, h) }) {
					shared++
				}
			}
			more := len(english.ContentWords(goName(t))) - shared
			if shared > best.shared || shared == best.shared && shared > 0 && more < best.more {
				best.shared, best.more = shared, more
			}
		}
		if best.shared == 0 {
			continue
		}
		// A term GO lists the phrase as a synonym of comes first.
		if t.Synonym != "" && english.Normalize(t.Synonym) == english.Normalize(c.Text) {
			best.shared = 100
		}
		found = append(found, best)
	}
	slices.SortStableFunc(found, func(a, b near) int {
		if a.shared != b.shared {
			return b.shared - a.shared
		}
		return a.more - b.more
	})
	out := make([]wireTerm, len(found))
	for i, f := range found {
		out[i] = f.t
	}
	return out
}

// wordNear reports whether two words are the same or one a typo of the
// other (words of five letters or more only: "mrna" is no typo of "rna").
func wordNear(a, b string) bool {
	if a == b {
		return true
	}
	n := len([]rune(a))
	if n < 5 {
		return false
	}
	_, ok := english.Near(a, b, english.TypoTolerance(n))
	return ok
}
