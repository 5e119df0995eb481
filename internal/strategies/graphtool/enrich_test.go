package graphtool_test

import (
	"testing"

	"strategist/internal/strategies/graphtool"
	"strategist/internal/tool"
)

// TestEnrichStep: enrich_step tests the root when no step is named (the
// acceptance root is enriched for DNA repair and DNA replication), a named
// step when one is, shows at most a few genes per term, and refuses a bad
// cutoff, an unknown step and a conversation without a strategy.
func TestEnrichStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)
	ex.refuses("enrich_step", `{}`, "STEP_NOT_FOUND")
	for _, args := range []string{replication, repair} {
		must[*graphtool.StepResult](ex, "create_step", args)
	}
	must[*graphtool.StepResult](ex, "combine_steps", `{"left_step_id":"s1","right_step_id":"s2","operator":"OR"}`)
	must[*graphtool.StepResult](ex, "create_step", chromosome)
	must[*graphtool.StepResult](ex, "combine_steps", `{"left_step_id":"s3","right_step_id":"s4","operator":"NOT"}`)

	res := must[*graphtool.EnrichResult](ex, "enrich_step", `{}`)
	if res.StepID != "s5" || res.StepSize != 89 || res.Cutoff != 0.05 || res.Significant < len(res.Terms) || len(res.Terms) == 0 ||
		len(res.Terms) > 15 || res.Provenance != "PlasmoDB export (offline snapshot), 2017" || res.Limits == "" {
		t.Fatalf("enrich_step {} = step %s size %d cutoff %v significant %d shown %d provenance %q",
			res.StepID, res.StepSize, res.Cutoff, res.Significant, len(res.Terms), res.Provenance)
	}
	seen := map[string]graphtool.EnrichedTerm{}
	for _, term := range res.Terms {
		seen[term.GOID] = term
		if len(term.GeneIDs)+term.MoreGenes != term.ResultCount || len(term.GeneIDs) > 10 {
			t.Errorf("%s shows %d genes and %d more of %d", term.GOID, len(term.GeneIDs), term.MoreGenes, term.ResultCount)
		}
	}
	for _, id := range []string{"GO:0006260", "GO:0006281"} {
		if term, ok := seen[id]; !ok || term.Benjamini > 1e-20 {
			t.Errorf("%s among the top terms: %+v (%v)", id, term, ok)
		}
	}

	one := must[*graphtool.EnrichResult](ex, "enrich_step", `{"step_id":"s4","cutoff":1}`)
	if one.StepID != "s4" || one.Cutoff != 1 || one.Significant != one.TestedTerms {
		t.Errorf("enrich_step s4 cutoff 1 = step %s cutoff %v significant %d tested %d", one.StepID, one.Cutoff, one.Significant, one.TestedTerms)
	}
	ex.refuses("enrich_step", `{"step_id":"s9"}`, "STEP_NOT_FOUND")
	ex.refuses("enrich_step", `{"cutoff":2}`, tool.CodeValidation)
}
