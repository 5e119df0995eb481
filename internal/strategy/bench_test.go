package strategy

import (
	"context"
	"testing"
)

// tenSteps is a 10-step strategy: five GO/gene-type leaves joined by four
// combines, then a weight filter.
func tenSteps(tb testing.TB, cat SearchCatalog) *Graph {
	tb.Helper()
	g, _ := New(testSite, testRT, "bench")
	for _, m := range []Mutation{
		translation, replication, Combine{Left: "s1", Right: "s2", Operator: Union},
		trna, Combine{Left: "s3", Right: "s4", Operator: Minus},
		AddSearch{SearchName: "GenesByTaxon"}, Combine{Left: "s5", Right: "s6", Operator: Intersect},
		AddSearch{SearchName: "GenesByGeneType", Parameters: map[string]string{"geneType": "protein coding"}},
		Combine{Left: "s7", Right: "s8", Operator: LOnly},
		AddTransform{Input: "s9", SearchName: "GenesByWeightFilter"},
	} {
		var err error
		if g, _, err = g.Apply(context.Background(), cat, m); err != nil {
			tb.Fatal(err)
		}
	}
	return g
}

// BenchmarkApplyPure measures one mutation of a 10-step graph, catalog
// lookups (in memory) included.
func BenchmarkApplyPure(b *testing.B) {
	cat := newFakeCatalog()
	g := tenSteps(b, cat)
	m := UpdateStep{Step: "s1", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}}
	for b.Loop() {
		if _, _, err := g.Apply(context.Background(), cat, m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefreshCached measures counting all 10 steps when every subtree
// is in the cache.
func BenchmarkRefreshCached(b *testing.B) {
	cat := newFakeCatalog()
	g := tenSteps(b, cat)
	c, _ := NewCounter(cat, CounterConfig{})
	all := make([]StepID, len(g.Steps))
	for i, s := range g.Steps {
		all[i] = s.ID
	}
	c.Refresh(context.Background(), g, all)
	for b.Loop() {
		c.Refresh(context.Background(), g, all)
	}
}

// BenchmarkWDKExport measures the export of a 10-step strategy.
func BenchmarkWDKExport(b *testing.B) {
	g := tenSteps(b, newFakeCatalog())
	for b.Loop() {
		if _, err := g.WDK(); err != nil {
			b.Fatal(err)
		}
	}
}
