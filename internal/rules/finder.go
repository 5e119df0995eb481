package rules

import (
	"strategist/internal/english"

	"fmt"
	"slices"
	"strings"
)

// knownSearches are the searches the engine fills by its own rules; a
// term's own words are looked up among the others.
var knownSearches = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range searchNeeds {
		m[n.search] = true
	}
	return m
}()

// finderName is the search a term's own words describe, when
// search_for_searches offered one clearly: a leaf search ranked first,
// with a score half again the next one's.
func (rv *resolver) finderName(c *english.Clause) string {
	if !wantsFinder(c) {
		return ""
	}
	var hits searchHits
	if !rv.a.t.result(phraseSearchCall(c)).decode(&hits) {
		return ""
	}
	if cue := wordValues(c.Text).cueSearch(); cue != "" {
		for _, h := range hits.Searches {
			if h.Kind == "leaf" && strings.Contains(h.Name, cue) {
				return h.Name
			}
		}
	}
	if len(hits.Searches) == 0 {
		return ""
	}
	top := hits.Searches[0]
	if top.Kind != "leaf" || knownSearches[top.Name] || top.Score < minFinderScore {
		return ""
	}
	if len(hits.Searches) > 1 && hits.Searches[1].Score*3 > top.Score*2 {
		return ""
	}
	return top.Name
}

// minFinderScore is the ranking score from which a search is taken as what
// a phrase names (the catalog's ranker gives a keyword of the search 4.5
// and more, and one shared common word about 2).
const minFinderScore = 4.5

// finderLeaf builds the search a phrase names. Values come from the words
// where they say them (a range "between 10 and 50 kDa", an EC number, an
// InterPro id) or from the parameter's default. A required value that
// neither gives is not made up: the part is not built, and the answer
// says which search would answer it and what it needs.
func (rv *resolver) finderLeaf(c *english.Clause, sd *searchDetails) *leaf {
	name := sd.Name
	if sd.DisplayName != "" {
		name = fmt.Sprintf("%s (%s)", sd.Name, sd.DisplayName)
	}
	params := map[string]string{}
	var missing, said []string
	words := wordValues(c.Text)
	for _, p := range sd.Parameters {
		if strings.Contains(strings.ToLower(p.Name), "organism") {
			continue
		}
		if v, ok := words.valueFor(p); ok {
			params[p.Name] = v
			said = append(said, p.Name)
			continue
		}
		if !p.Required {
			continue
		}
		if p.Default != nil {
			params[p.Name] = *p.Default
			continue
		}
		missing = append(missing, p.Name)
	}
	why := "the offline snapshot cannot evaluate it"
	if sd.OfflineNote != "" {
		why = strings.TrimSuffix(sd.OfflineNote, ".")
	}
	if len(missing) > 0 {
		return &leaf{clause: c, fail: fmt.Sprintf("%s is answered by %s, but it needs %s, which only the live site can list (%s); "+
			"I built nothing for it rather than a text search that would read as a result", english.Quote(c.Text), name, strings.Join(missing, ", "), why)}
	}
	l := rv.build(c, sd, params, leaf{
		label: sd.DisplayName, task: "Find genes with " + sd.DisplayName + " (" + sd.Name + ")",
		how: fmt.Sprintf("search_for_searches named %s for %s; it is not evaluable offline (%s), so the step will have no count", name, english.Quote(c.Text), why),
	})
	if l.search == sd.Name && !sd.Evaluable {
		l.notEvaluable = true
	}
	l.said = said
	return l
}

// mergeSameSearch makes one step of two parts of an intersection that
// name the same search of their own words ("predicted to be exported to
// the host cell, with an ExportPred score of at least 10" is one
// GenesByExportPrediction, its score from the second part): a search
// intersected with itself adds a step and nothing else. The values the
// words of either part gave are kept; parts that give one parameter two
// values stay apart. The searches the engine fills by its own rules (GO
// terms, gene types, locations) are never merged: two GO terms are two
// sets.
func (rv *resolver) mergeSameSearch(n *english.Node) {
	if n == nil || n.Clause != nil {
		return
	}
	rv.mergeSameSearch(n.Left)
	rv.mergeSameSearch(n.Right)
	if n.Op != english.OpIntersect || n.Left.Clause == nil || n.Right.Clause == nil {
		return
	}
	a, b := rv.r.leaves[n.Left.Clause], rv.r.leaves[n.Right.Clause]
	if a == nil || b == nil || a.search != b.search || knownSearches[a.search] || a.fail != "" || b.fail != "" || a.step != "" || b.step != "" {
		return
	}
	params := map[string]string{}
	for k, v := range a.params {
		params[k] = v
	}
	said := slices.Clone(a.said)
	for _, k := range b.said {
		if slices.Contains(a.said, k) && a.params[k] != b.params[k] {
			return
		}
		params[k] = b.params[k]
		if !slices.Contains(said, k) {
			said = append(said, k)
		}
	}
	c := &english.Clause{Text: n.Left.Clause.Text + ", " + n.Right.Clause.Text, Kind: english.KindTerm,
		Notes: append(slices.Clone(n.Left.Clause.Notes), n.Right.Clause.Notes...)}
	merged := *a
	merged.clause, merged.params, merged.said = c, params, said
	merged.how = fmt.Sprintf("%s and %s both name %s, so they are one step of it with %s", english.Quote(n.Left.Clause.Text),
		english.Quote(n.Right.Clause.Text), a.search, paramList(params))
	delete(rv.r.leaves, n.Left.Clause)
	delete(rv.r.leaves, n.Right.Clause)
	rv.r.leaves[c] = &merged
	n.Op, n.Left, n.Right, n.Clause = "", nil, nil, c
}

// expressionCue returns the word that makes a phrase a question about
// expression ("upregulated", "expressed"), or "".
func expressionCue(text string) string {
	for _, w := range strings.Fields(english.Normalize(text)) {
		switch w {
		case "upregulated", "downregulated", "overexpressed", "underexpressed", "expressed", "transcribed",
			"rnaseq", "microarray", "transcriptome", "transcriptomic", "differentially":
			return w
		}
	}
	n := english.Normalize(text)
	for _, cue := range []string{"up regulated", "down regulated", "rna seq", "expression level", "expression data", "highly expressed"} {
		if strings.Contains(n, cue) {
			return cue
		}
	}
	return ""
}
