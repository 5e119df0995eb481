package strategy

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares v's indented JSON with testdata/name, rewriting the file
// with -update.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

// weighted is (translation w10 ∪ replication w5) filtered to weight ≥ 12,
// minus tRNA genes: a boolean, a transform and weights.
func weighted(t *testing.T, cat *fakeCatalog) *Graph {
	t.Helper()
	g := build(t, cat,
		AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006412"]`}, DisplayName: "Translation", Weight: 10},
		AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}, DisplayName: "DNA replication", Weight: 5},
		Combine{Left: "s1", Right: "s2", Operator: "OR"},
		AddTransform{Input: "s3", SearchName: "GenesByWeightFilter", Parameters: map[string]string{"min_weight": "12"}, DisplayName: "In both"},
		trna,
		Combine{Left: "s4", Right: "s5", Operator: "NOT", DisplayName: "In both, not tRNA"},
	)
	counter, err := NewCounter(cat, CounterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return counter.Refresh(context.Background(), g, nil)
}

// colocated keeps translation genes within 2 kb upstream or 500 bp
// downstream of tRNA genes on the same strand.
func colocated(t *testing.T, cat *fakeCatalog) *Graph {
	t.Helper()
	g := build(t, cat, translation, trna,
		Combine{Left: "s1", Right: "s2", Operator: Colocate, Colocation: &Colocation{Upstream: 2000, Downstream: 500, Strand: StrandSame}, DisplayName: "Near tRNA"})
	counter, err := NewCounter(cat, CounterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return counter.Refresh(context.Background(), g, nil)
}

func TestSnapshotGolden(t *testing.T) {
	cat := newFakeCatalog()
	golden(t, "snapshot.json", weighted(t, cat).Snapshot("7f0c1c9e-0000-4000-8000-000000000001", 6))
}

func TestSnapshotOfAnUnfinishedGraph(t *testing.T) {
	g := build(t, newFakeCatalog(), translation, trna)
	b, err := json.Marshal(g.Snapshot("x", 2))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["rootStepId"]; ok {
		t.Errorf("snapshot with two roots has rootStepId: %s", b)
	}
	if diff := cmp.Diff([]any{"s1", "s2"}, got["roots"]); diff != "" {
		t.Errorf("roots mismatch (-want +got):\n%s", diff)
	}
	empty, _ := New(testSite, testRT, "")
	if b, _ := json.Marshal(empty.Snapshot("x", 0)); !json.Valid(b) || string(b) != `{"strategyId":"x","version":0,"name":"","recordType":"transcript","siteId":"plasmodb","roots":[],"steps":[]}` {
		t.Errorf("empty snapshot = %s", b)
	}
}

func TestWDKGolden(t *testing.T) {
	tests := []struct {
		file  string
		graph func(*testing.T, *fakeCatalog) *Graph
	}{
		{"wdk_boolean.json", weighted},
		{"wdk_colocate.json", colocated},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			g := tt.graph(t, newFakeCatalog())
			got, err := g.WDK()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.file, got)
			again, _ := g.WDK()
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("export is not a function of the graph (-first +second):\n%s", diff)
			}
		})
	}
}

func TestWDKRefusesIncompleteGraphs(t *testing.T) {
	g := build(t, newFakeCatalog(), translation, trna)
	_, err := g.WDK()
	ie, ok := err.(*InvalidGraphError)
	if !ok {
		t.Fatalf("WDK() error = %v, want *InvalidGraphError", err)
	}
	if diff := cmp.Diff([]StepID{"s1", "s2"}, ie.Roots); diff != "" {
		t.Errorf("roots mismatch (-want +got):\n%s", diff)
	}
}

func TestGraphRoundTrip(t *testing.T) {
	g := weighted(t, newFakeCatalog())
	b, err := g.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(g, back); diff != "" {
		t.Errorf("Decode(Encode(g)) mismatch (-want +got):\n%s", diff)
	}
}
