package rules

import (
	"fmt"
	"strings"
)

// enrichResult is enrich_step's answer: only the fields read.
type enrichResult struct {
	StepID         string  `json:"stepId"`
	Ontology       string  `json:"ontology"`
	Cutoff         float64 `json:"cutoff"`
	StepSize       int     `json:"stepSize"`
	ResultSize     int     `json:"resultSize"`
	BackgroundSize int     `json:"backgroundSize"`
	TestedTerms    int     `json:"testedTerms"`
	Significant    int     `json:"significant"`
	Terms          []struct {
		GOID            string  `json:"goId"`
		Name            string  `json:"name"`
		ResultCount     int     `json:"resultCount"`
		BackgroundCount int     `json:"backgroundCount"`
		FoldEnrichment  float64 `json:"foldEnrichment"`
		PValue          float64 `json:"pValue"`
		Benjamini       float64 `json:"benjamini"`
	} `json:"terms"`
	Limits     string `json:"limits"`
	Provenance string `json:"provenance"`
}

// enrichedShown is how many terms the answer lists.
const enrichedShown = 10

// enrichTurn answers "what are these genes enriched for?" in execute mode:
// it reads the strategy, runs enrich_step on its root and reports the top
// terms with their counts and adjusted p-values, exactly as the tool gave
// them. Nothing is built.
func enrichTurn(a *asks) response {
	if !a.t.has("enrich_step") {
		return say(intro + "\n\nI read this as a request for a GO enrichment of the strategy's genes, but this role cannot run one.")
	}
	cur, pending := current(a)
	if pending {
		return response{calls: a.calls}
	}
	if cur == nil {
		return say(intro + "\n\nI read this as a request for a GO enrichment of the strategy's genes, but this conversation has no strategy " +
			"with one result yet. Describe the genes first, for example \"DNA repair genes on chromosome 5\"; then ask again.")
	}
	d := a.get(newCall("enrich_step", map[string]string{"step_id": cur.RootStepID}))
	if d == nil {
		return response{calls: a.calls}
	}
	var r enrichResult
	if !d.decode(&r) {
		return say(fmt.Sprintf("%s\n\nThe GO enrichment of step %s could not be computed (%s): %s", intro, cur.RootStepID, d.code, d.msg))
	}
	return say(enrichmentText(r))
}

// enrichmentText reports an enrichment: its sizes, the top terms (name, GO
// id, counts, fold, BH-adjusted p-value), its limits and its source.
func enrichmentText(r enrichResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nGO enrichment (%s) of the root step %s: %d of its %d genes have an annotation, tested against the %d annotated genes; "+
		"%d terms tested, %d with p ≤ %g.\n\n", intro, r.Ontology, r.StepID, r.ResultSize, r.StepSize, r.BackgroundSize, r.TestedTerms, r.Significant, r.Cutoff)
	if len(r.Terms) == 0 {
		b.WriteString("No term passes the cutoff: these genes are not enriched for any biological process in this data.\n")
	} else {
		fmt.Fprintf(&b, "The most significant terms (Benjamini–Hochberg adjusted p-values, over all %d tested terms):\n\n", r.TestedTerms)
		for _, t := range r.Terms[:min(len(r.Terms), enrichedShown)] {
			fmt.Fprintf(&b, "- **%s** (%s): %d of %d annotated genes, %d in the background, %.1f-fold, BH p = %s\n",
				t.Name, t.GOID, t.ResultCount, r.ResultSize, t.BackgroundCount, t.FoldEnrichment, pText(t.Benjamini))
		}
		if r.Significant > enrichedShown {
			fmt.Fprintf(&b, "\n%d more terms pass the cutoff: open the root step's results and click GO enrichment for the whole table.\n", r.Significant-enrichedShown)
		}
	}
	if r.Limits != "" {
		b.WriteString("\n" + r.Limits + "\n")
	}
	if r.Provenance != "" {
		b.WriteString("\nSource: " + r.Provenance + ".")
	}
	return strings.TrimRight(b.String(), "\n")
}

// pText writes a p-value for people: "0.012", "3.4e-08", "< 1e-300".
func pText(p float64) string {
	switch {
	case p == 0:
		return "< 1e-300"
	case p < 0.001:
		return fmt.Sprintf("%.2g", p)
	}
	return fmt.Sprintf("%.3g", p)
}

// enrichInPlanMode answers an enrichment request in plan mode, where there
// is no enrich_step: where to ask instead.
func enrichInPlanMode(cur *strategyOverview) string {
	if cur == nil {
		return intro + "\n\nI read this as a request for a GO enrichment, but there is no strategy with one result yet to analyse. " +
			"Describe the genes first, for example \"DNA repair genes on chromosome 5\", and build the plan."
	}
	return intro + "\n\nA GO enrichment analyses the strategy's genes; it is not a search to plan. Switch the composer to **execute** " +
		"and ask again (\"what are these genes enriched for?\"), or open the root step " + cur.RootStepID +
		"'s results and click **GO enrichment**."
}
