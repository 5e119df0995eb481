package strategy_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog/offline"
	"strategist/internal/offlinetest"
	"strategist/internal/strategy"
)

// loadOffline opens the offline PlasmoDB catalog over the gene data
// (offlinetest.Find: STRATEGIST_DATA_DIR, else data/ at the repository root)
// once per test binary: the data is immutable and loading it under -race
// takes seconds. Without the data the catalog still validates and builds.
var loadOffline = sync.OnceValues(func() (*offline.Catalog, error) {
	dir, err := offlinetest.Find()
	if err != nil {
		return offline.New(offline.Config{DataErr: err})
	}
	return offline.Open(dir)
})

// openOffline returns the offline catalog. Without the gene data it still
// validates and builds; answered reports whether counts can be checked.
func openOffline(t *testing.T) (cat *offline.Catalog, answered bool) {
	t.Helper()
	cat, err := loadOffline()
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.DataErr(); err != nil {
		t.Logf("offline gene data unavailable, counts not checked: %v", err)
		return cat, false
	}
	return cat, true
}

const organism = `["Plasmodium falciparum 3D7"]`

func goTerm(id string, weight int) strategy.AddSearch {
	return strategy.AddSearch{SearchName: "GenesByGoTerm", Weight: weight,
		Parameters: map[string]string{"organism": organism, "go_typeahead": `["` + id + `"]`}}
}

// TestOfflineCatalog builds strategies on the real offline catalog: the
// boolean search and GenesBySpanLogic come from its definitions, parameters
// pass its WDK rules, and counts are the figures the gene data gives.
func TestOfflineCatalog(t *testing.T) {
	ctx := context.Background()
	cat, answered := openOffline(t)
	counter, err := strategy.NewCounter(cat, strategy.CounterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := strategy.New("plasmodb", "transcript", "DNA replication or repair, not on chromosome 14")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []strategy.Mutation{
		goTerm("GO:0006260", 0),
		goTerm("GO:0006281", 0),
		strategy.Combine{Left: "s1", Right: "s2", Operator: "OR"},
		strategy.AddSearch{SearchName: "GenesByLocation", Parameters: map[string]string{"chromosomeOptional": "Pf3D7_14_v3"}},
		strategy.Combine{Left: "s3", Right: "s4", Operator: "NOT"},
		strategy.AddSearch{SearchName: "GenesByGeneType", Parameters: map[string]string{"organism": organism, "geneType": "tRNA encoding"}},
		strategy.Combine{Left: "s5", Right: "s6", Operator: strategy.Colocate, Colocation: &strategy.Colocation{Upstream: 2000, Downstream: 500, Strand: strategy.StrandSame}},
	} {
		if g, _, err = g.Apply(ctx, cat, m); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
	}
	g = counter.Refresh(ctx, g, nil)
	got := map[strategy.StepID]string{}
	for _, s := range g.Steps {
		got[s.ID] = s.CountStatus.String()
		if s.Count != nil {
			got[s.ID] += " " + strconv.Itoa(*s.Count)
		}
	}
	want := map[strategy.StepID]string{"s1": "ok 57", "s3": "ok 108", "s5": "ok 89", "s6": "ok 79", "s7": "not_evaluable"}
	if !answered {
		want = map[strategy.StepID]string{"s7": "not_evaluable"}
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("step %s count = %q, want %q", id, got[id], w)
		}
	}
	if ps := g.Validate(); len(ps) != 0 {
		t.Fatalf("Validate() = %v", ps)
	}
	w, err := g.WDK()
	if err != nil {
		t.Fatal(err)
	}
	colocate := w.Steps["s7"]
	if colocate.SearchName != strategy.SpanSearch || colocate.SearchConfig.Parameters["span_begin_offset_b"] != "2000" ||
		colocate.SearchConfig.Parameters["span_end_offset_b"] != "500" || colocate.SearchConfig.Parameters["span_strand"] != "same strand" ||
		colocate.SearchConfig.Parameters["span_a"] != "" || colocate.SearchConfig.Parameters["span_b"] != "" {
		t.Errorf("COLOCATE exported as %+v", colocate)
	}
	minus := w.Steps["s5"].SearchConfig.Parameters
	if diff := cmp.Diff(map[string]string{
		"bq_left_op_TranscriptRecordClasses_TranscriptRecordClass":  "",
		"bq_right_op_TranscriptRecordClasses_TranscriptRecordClass": "",
		"bq_operator": "MINUS",
	}, minus); diff != "" {
		t.Errorf("MINUS exported parameters (-want +got):\n%s", diff)
	}
}

// TestOfflineWeights follows WDK's weight rules through a UNION and
// GenesByWeightFilter: genes in both GO sets carry 10 + 5 = 15.
func TestOfflineWeights(t *testing.T) {
	ctx := context.Background()
	cat, answered := openOffline(t)
	if !answered {
		t.Skip("needs the offline gene data")
	}
	counter, err := strategy.NewCounter(cat, strategy.CounterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := strategy.New("plasmodb", "transcript", "")
	for _, m := range []strategy.Mutation{
		goTerm("GO:0006260", 10), goTerm("GO:0006281", 5),
		strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union},
		strategy.AddTransform{Input: "s3", SearchName: "GenesByWeightFilter", Parameters: map[string]string{"min_weight": "12"}},
		goTerm("GO:0006260", 0), goTerm("GO:0006281", 0),
		strategy.Combine{Left: "s5", Right: "s6", Operator: strategy.Intersect},
	} {
		if g, _, err = g.Apply(ctx, cat, m); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
	}
	g = counter.Refresh(ctx, g, nil)
	both, _ := g.Step("s4")
	intersect, _ := g.Step("s7")
	if both.Count == nil || intersect.Count == nil || *both.Count != *intersect.Count || *both.Count == 0 {
		t.Errorf("weight ≥ 12 after UNION keeps %v genes; the intersection has %v", both.Count, intersect.Count)
	}
	if _, _, err := g.Apply(ctx, cat, strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"organism": organism, "go_typeahead": `["GO:9999999"]`}}); !errors.Is(err, strategy.ErrInvalidParameters) {
		t.Errorf("unknown GO term: %v, want ErrInvalidParameters", err)
	}
}
