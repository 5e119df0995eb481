package offline

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
)

// acceptanceQuery is the acceptance strategy's root: DNA replication or
// DNA repair genes, not on chromosome 14 (89 genes).
func acceptanceQuery() *catalog.Query {
	return boolQuery(opMinus, boolQuery(opUnion, goQuery(0, "GO:0006260"), goQuery(0, "GO:0006281")), chromosomeQuery("Pf3D7_14_v3"))
}

// TestEnrichAcceptanceRoot: the acceptance root is enriched for DNA
// replication and DNA repair, with counts that agree with the raw files
// read independently (background: every gene in at least one gene list),
// BH-adjusted p-values, and the snapshot's limits and provenance said.
func TestEnrichAcceptanceRoot(t *testing.T) {
	c := testCatalog(t)
	raw := readRaw(t, testDataDir(t))
	ctx := context.Background()
	ans, err := c.Answer(ctx, site, acceptanceQuery(), catalog.Page{Limit: 1000})
	if err != nil || ans.Count != 89 {
		t.Fatalf("acceptance root: %v genes, %v", ans, err)
	}
	step := map[string]bool{}
	for _, r := range ans.Records {
		step[r.GeneID] = true
	}
	background := map[string]bool{}
	for _, set := range raw.GOSets {
		for g := range set {
			background[g] = true
		}
	}
	n := 0
	for g := range step {
		if background[g] {
			n++
		}
	}

	res, err := c.Enrich(ctx, site, acceptanceQuery(), enrich.DefaultCutoff)
	if err != nil {
		t.Fatal(err)
	}
	if res.StepSize != 89 || res.ResultSize != n || res.BackgroundSize != len(background) {
		t.Fatalf("sizes: step %d annotated %d background %d; want 89, %d, %d", res.StepSize, res.ResultSize, res.BackgroundSize, n, len(background))
	}
	t.Logf("acceptance root: %d of 89 genes annotated, background %d, %d terms tested, %d with p ≤ 0.05", n, len(background), res.TestedTerms, len(res.Terms))
	byID := map[string]enrich.Term{}
	for i, term := range res.Terms {
		byID[term.GOID] = term
		if i > 0 && (res.Terms[i-1].PValue > term.PValue || res.Terms[i-1].PValue == term.PValue && res.Terms[i-1].GOID > term.GOID) {
			t.Errorf("terms not sorted by p then GO id at %d", i)
		}
		if term.PValue > enrich.DefaultCutoff || term.Benjamini < term.PValue || term.Bonferroni < term.Benjamini {
			t.Errorf("%s: p %g, BH %g, Bonferroni %g", term.GOID, term.PValue, term.Benjamini, term.Bonferroni)
		}
	}
	for _, id := range []string{"GO:0006260", "GO:0006281"} {
		term, ok := byID[id]
		if !ok {
			t.Fatalf("%s is not among the enriched terms", id)
		}
		var want []string
		for g := range raw.GOSets[id] {
			if step[g] {
				want = append(want, g)
			}
		}
		slices.Sort(want)
		if term.Name != raw.GONames[id] || term.ResultCount != len(want) || term.BackgroundCount != len(raw.GOSets[id]) ||
			!slices.Equal(term.GeneIDs, want) {
			t.Errorf("%s = %s, %d of %d genes %v; want %s, %d of %d", id, term.Name, term.ResultCount, term.BackgroundCount,
				term.GeneIDs, raw.GONames[id], len(want), len(raw.GOSets[id]))
		}
		if p := enrich.UpperTail(len(want), n, len(raw.GOSets[id]), len(background)); term.PValue != p || !(term.Benjamini < 1e-20) {
			t.Errorf("%s: p %g (want %g), BH %g", id, term.PValue, p, term.Benjamini)
		}
		t.Logf("%s %s: %d of %d, fold %.1f, p %.3g, BH %.3g", id, term.Name, term.ResultCount, term.BackgroundCount, term.FoldEnrichment, term.PValue, term.Benjamini)
	}
	if res.Ontology != "biological process" || !strings.Contains(res.Limits, "molecular function") ||
		!strings.Contains(res.Limits, "evidence codes") || !res.Provenance.Offline || res.Provenance.Year != 2017 {
		t.Errorf("ontology %q, limits %q, provenance %+v", res.Ontology, res.Limits, res.Provenance)
	}

	all, err := c.Enrich(ctx, site, acceptanceQuery(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if all.TestedTerms != res.TestedTerms || len(all.Terms) != all.TestedTerms || len(all.Terms) <= len(res.Terms) {
		t.Errorf("cutoff 1: %d of %d terms returned (cutoff 0.05: %d)", len(all.Terms), all.TestedTerms, len(res.Terms))
	}
	for _, term := range all.Terms {
		if b, ok := byID[term.GOID]; ok && b.Benjamini != term.Benjamini {
			t.Errorf("%s: BH %g with cutoff 1, %g with 0.05", term.GOID, term.Benjamini, b.Benjamini)
		}
	}
}

// TestEnrichRefusals: a bad cutoff, another site, a tree the snapshot
// cannot evaluate and missing data are refused with their errors.
func TestEnrichRefusals(t *testing.T) {
	c := testCatalog(t)
	ctx := context.Background()
	if _, err := c.Enrich(ctx, site, acceptanceQuery(), 0); !errors.Is(err, enrich.ErrInvalidCutoff) {
		t.Errorf("cutoff 0: %v", err)
	}
	if _, err := c.Enrich(ctx, "toxodb", acceptanceQuery(), 0.05); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("another site: %v", err)
	}
	var notEval string
	for _, d := range c.searches {
		if !d.search.Evaluable && d.search.Kind == catalog.KindLeaf {
			notEval = d.search.Name
			break
		}
	}
	q := &catalog.Query{Search: notEval, Params: map[string]string{}}
	if _, err := c.Enrich(ctx, site, q, 0.05); err == nil {
		t.Errorf("%s: enriched a search the snapshot cannot evaluate", notEval)
	} else if _, ok := errors.AsType[*catalog.NotEvaluableError](err); !ok {
		if _, ok := errors.AsType[*catalog.ValidationError](err); !ok {
			t.Errorf("%s: %v", notEval, err)
		}
	}
	empty, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := empty.Enrich(ctx, site, acceptanceQuery(), 0.05); !errors.Is(err, catalog.ErrUnavailable) {
		t.Errorf("without data: %v", err)
	}
}
