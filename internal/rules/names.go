package rules

import (
	"slices"
	"strings"

	"strategist/internal/english"
)

// readRequest parses a request after keeping whole the GO names it writes
// across a connective ("generation of precursor metabolites and energy",
// "actin polymerization or depolymerization"): the grammar would split
// them at their "and" or "or". The GO vocabulary is asked, once per place
// where two words meet across a connective, for the terms whose names or
// synonyms hold both words; a name or synonym written in the request with
// its connective is quoted, so it is one term. False when those look-ups
// are still to be made (asked for in a).
func readRequest(a *asks, text string) (english.Parsed, bool) {
	spans := english.JoinedSpans(text)
	if len(spans) == 0 || !a.t.has("get_search_parameters") {
		return english.Parse(text), true
	}
	var names []string
	ready := true
	for _, s := range spans {
		d := a.get(paramsCall(searchNeeds[needGO].search, s))
		if d == nil {
			ready = false
			continue
		}
		var sd searchDetails
		if !d.decode(&sd) {
			continue
		}
		if p, ok := sd.param(paramGO); ok {
			for _, t := range p.Values {
				names = append(names, goName(t))
				if t.Synonym != "" {
					names = append(names, t.Synonym)
				}
				names = append(names, t.Synonyms...)
			}
		}
	}
	if !ready {
		return english.Parsed{}, false
	}
	// The longest name first: "regulation of actin polymerization or
	// depolymerization" before "actin polymerization or depolymerization".
	slices.SortStableFunc(names, func(x, y string) int { return len(y) - len(x) })
	var kept []string
	for _, n := range names {
		if quoted, ok := english.KeepWhole(text, n); ok {
			text = quoted
			kept = append(kept, n)
		}
	}
	p := english.Parse(text)
	for _, n := range kept {
		p.Notes = append(p.Notes, "GO names a term "+english.Quote(n)+", so I read it as one term and not split at its "+connectiveOf(n))
	}
	return p, true
}

// connectiveOf names the connective inside a name, for the note.
func connectiveOf(name string) string {
	for _, w := range strings.Fields(strings.ToLower(name)) {
		switch w {
		case "and", "or":
			return english.Quote(w)
		}
	}
	return "comma"
}
