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
// order they came.
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
		for _, t := range p.Values {
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

// goExact finds the terms named exactly as one of the clause's variants
// (several ids can share a name: replaced terms keep theirs), and the
// variant that matched.
func (rv *resolver) goExact(c *english.Clause) ([]wireTerm, string) {
	pool := rv.goTerms(c, false)
	for _, v := range c.Variants {
		var hits []wireTerm
		for _, t := range pool {
			if strings.EqualFold(t.Term, v) || english.Normalize(goName(t)) == english.Normalize(v) {
				hits = append(hits, t)
			}
		}
		if len(hits) > 0 {
			return hits, v
		}
	}
	return nil, ""
}

// goSynonym finds the terms one of whose GO synonyms is one of the
// clause's variants, and that synonym; only when no term is named so.
func (rv *resolver) goSynonym(c *english.Clause) ([]wireTerm, string) {
	pool := rv.goTerms(c, false)
	for _, v := range c.Variants {
		var hits []wireTerm
		for _, t := range pool {
			if t.Synonym != "" && english.Normalize(t.Synonym) == english.Normalize(v) {
				hits = append(hits, t)
			}
		}
		if len(hits) > 0 {
			return hits, hits[0].Synonym
		}
	}
	return nil, ""
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
			// A word that extends a name ("transporter" after "transport")
			// is another word, not a typo.
			if strings.HasPrefix(ph, name) {
				continue
			}
			if dd := english.Distance(ph, name); dd <= english.TypoTolerance(len(ph)) && (d < 0 || dd < d) {
				d = dd
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
// its first four letters ("dna repl"), the longest word so cut, then
// every word cut to three ("dna rep").
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
	for _, q := range []string{strings.Join(parts, " "), cut(longest), strings.Join(short, " ")} {
		if len([]rune(q)) < 3 || slices.ContainsFunc(c.Variants, func(v string) bool { return strings.EqualFold(v, q) }) || slices.Contains(out, q) {
			continue
		}
		out = append(out, q)
	}
	return out
}
