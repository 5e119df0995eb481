package strategy

import (
	"context"
	"testing"

	"strategist/internal/pgtest"
	"strategist/internal/store"
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

// BenchmarkServiceApply measures a whole persisted change on a 10-step
// strategy: load, prepare, locked read-modify-write with a version row,
// counts (cached), report.
func BenchmarkServiceApply(b *testing.B) {
	ctx := context.Background()
	db, err := store.New(pgtest.New(b))
	if err != nil {
		b.Fatal(err)
	}
	u, err := db.CreateUser(ctx, "bench@example.org", "$argon2id$test")
	if err != nil {
		b.Fatal(err)
	}
	conv, err := db.CreateConversation(ctx, u.ID, testSite, "", "offline")
	if err != nil {
		b.Fatal(err)
	}
	cat := newFakeCatalog()
	svc, err := NewService(Config{Store: db, Catalog: cat})
	if err != nil {
		b.Fatal(err)
	}
	snap, err := svc.ForConversation(ctx, u.ID, conv.ID, testRT, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range tenSteps(b, cat).Steps {
		var m Mutation
		switch s.Kind {
		case KindSearch:
			m = AddSearch{SearchName: s.SearchName, Parameters: s.Parameters}
		case KindTransform:
			m = AddTransform{Input: s.Inputs[0], SearchName: s.SearchName}
		case KindCombine:
			m = Combine{Left: s.Inputs[0], Right: s.Inputs[1], Operator: s.Operator}
		}
		if _, err := svc.Apply(ctx, u.ID, snap.StrategyID, m); err != nil {
			b.Fatal(err)
		}
	}
	names := []string{"one", "two"}
	i := 0
	for b.Loop() {
		i++
		if _, err := svc.Apply(ctx, u.ID, snap.StrategyID, UpdateStep{Step: "s10", DisplayName: &names[i%2]}); err != nil {
			b.Fatal(err)
		}
	}
}
