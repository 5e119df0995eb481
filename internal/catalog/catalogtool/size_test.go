package catalogtool_test

import (
	"context"
	"encoding/json"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/catalog/catalogtool"
)

// TestResultsFitTheModelBudget checks that no search's parameter listing
// is cut by the loop's result limit: a model must see every parameter.
func TestResultsFitTheModelBudget(t *testing.T) {
	cat := dataCatalog(t)
	set := newSet(t, catalogtool.Config{Catalog: cat, Site: "plasmodb"})
	searches, err := cat.Searches(context.Background(), "plasmodb", "")
	if err != nil {
		t.Fatal(err)
	}
	limit := agent.DefaultResultLimits().MaxBytes
	for _, s := range searches {
		for _, q := range []string{"", "a"} {
			d, err := set.GetSearchParameters(context.Background(), catalogtool.ParamsArgs{RecordType: s.RecordType, SearchName: s.Name, VocabularyQuery: q})
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > limit/2 {
				t.Errorf("%s (vocabulary query %q): %d bytes, want at most %d", s.Name, q, len(b), limit/2)
			}
		}
	}
}
