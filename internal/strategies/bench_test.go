package strategies

import (
	"context"
	"testing"

	"strategist/internal/pgtest"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// tenSteps builds a 10-step strategy: five GO/gene-type leaves joined by
// four combines, then a weight filter.
var tenSteps = []strategy.Mutation{
	strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006412"]`}, DisplayName: "Translation"},
	strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}},
	strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union},
	strategy.AddSearch{SearchName: "GenesByGeneType", Parameters: map[string]string{"geneType": "tRNA encoding"}},
	strategy.Combine{Left: "s3", Right: "s4", Operator: strategy.Minus},
	strategy.AddSearch{SearchName: "GenesByTaxon"}, strategy.Combine{Left: "s5", Right: "s6", Operator: strategy.Intersect},
	strategy.AddSearch{SearchName: "GenesByGeneType", Parameters: map[string]string{"geneType": "protein coding"}},
	strategy.Combine{Left: "s7", Right: "s8", Operator: strategy.LOnly},
	strategy.AddTransform{Input: "s9", SearchName: "GenesByWeightFilter"},
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
	for _, m := range tenSteps {
		if _, err := svc.Apply(ctx, u.ID, snap.StrategyID, m); err != nil {
			b.Fatal(err)
		}
	}
	names := []string{"one", "two"}
	i := 0
	for b.Loop() {
		i++
		if _, err := svc.Apply(ctx, u.ID, snap.StrategyID, strategy.UpdateStep{Step: "s10", DisplayName: &names[i%2]}); err != nil {
			b.Fatal(err)
		}
	}
}
