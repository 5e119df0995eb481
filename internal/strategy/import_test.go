package strategy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"strategist/internal/strategy"
)

// wdkTree renders a WDK strategy as its tree of steps without their ids,
// so two exports of the same strategy under other step ids compare equal.
func wdkTree(w *strategy.WDKStrategy) string {
	var b strings.Builder
	var walk func(t *strategy.WDKStepTree)
	walk = func(t *strategy.WDKStepTree) {
		s := w.Steps[t.StepID]
		weight := "-"
		if s.SearchConfig.WDKWeight != nil {
			weight = fmt.Sprint(*s.SearchConfig.WDKWeight)
		}
		fmt.Fprintf(&b, "%s %q w=%s {", s.SearchName, s.CustomName, weight)
		for _, k := range slices.Sorted(maps.Keys(s.SearchConfig.Parameters)) {
			fmt.Fprintf(&b, "%s=%q ", k, s.SearchConfig.Parameters[k])
		}
		b.WriteString("}(")
		for _, in := range []*strategy.WDKStepTree{t.PrimaryInput, t.SecondaryInput} {
			if in != nil {
				walk(in)
				b.WriteString(", ")
			}
		}
		b.WriteString(")")
	}
	walk(&w.StepTree)
	return b.String()
}

// roundTrip sends a WDK strategy through JSON, as the API does.
func roundTrip(t *testing.T, w *strategy.WDKStrategy) *strategy.WDKStrategy {
	t.Helper()
	raw, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var out strategy.WDKStrategy
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestImportWDKRoundTrip exports a strategy with every kind of step
// (weighted searches, booleans, a co-location) and imports it into a graph
// that already has steps: the export of the import is the same tree, the
// counts are the same, and the new steps take ids the graph never used.
func TestImportWDKRoundTrip(t *testing.T) {
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
		goTerm("GO:0006260", 10),
		goTerm("GO:0006281", 5),
		strategy.Combine{Left: "s1", Right: "s2", Operator: "OR", DisplayName: "replication or repair"},
		strategy.AddSearch{SearchName: "GenesByLocation", Parameters: map[string]string{"chromosomeOptional": "Pf3D7_14_v3"}},
		strategy.Combine{Left: "s3", Right: "s4", Operator: "NOT"},
		strategy.AddSearch{SearchName: "GenesByGeneType", Parameters: map[string]string{"organism": organism, "geneType": "tRNA encoding"}},
		strategy.Combine{Left: "s5", Right: "s6", Operator: strategy.Colocate, Colocation: &strategy.Colocation{Upstream: 2000, Downstream: 500, Strand: strategy.StrandSame}},
	} {
		if g, _, err = g.Apply(ctx, cat, m); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
	}
	exported, err := g.WDK()
	if err != nil {
		t.Fatal(err)
	}

	into, err := strategy.New("plasmodb", "transcript", "an older strategy")
	if err != nil {
		t.Fatal(err)
	}
	if into, _, err = into.Apply(ctx, cat, goTerm("GO:0006457", 0)); err != nil {
		t.Fatal(err)
	}
	imported, change, err := into.Apply(ctx, cat, strategy.ImportWDK{Strategy: roundTrip(t, exported)})
	if err != nil {
		t.Fatal(err)
	}
	if change.Op != strategy.OpImport || change.Step != "s8" || imported.Name != g.Name {
		t.Errorf("change = %+v, name %q; want an import whose root is s8, named %q", change, imported.Name, g.Name)
	}
	if _, ok := imported.Step("s1"); ok {
		t.Error("the imported graph reuses s1, an id of the graph it replaced")
	}
	again, err := imported.WDK()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := wdkTree(again), wdkTree(exported); got != want {
		t.Errorf("export of the import:\n%s\nwant the export imported:\n%s", got, want)
	}
	if !answered {
		return
	}
	counts := func(g *strategy.Graph) []string {
		g = counter.Refresh(ctx, g, nil)
		var out []string
		for _, s := range g.Steps {
			c := "none"
			if s.Count != nil {
				c = fmt.Sprint(*s.Count)
			}
			out = append(out, s.CountStatus.String()+" "+c)
		}
		return out
	}
	if got, want := counts(imported), counts(g); !slices.Equal(got, want) {
		t.Errorf("imported counts %v, want the original's %v", got, want)
	}
}

func TestImportWDKRefusals(t *testing.T) {
	ctx := context.Background()
	cat, _ := openOffline(t)
	g, err := strategy.New("plasmodb", "transcript", "source")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []strategy.Mutation{goTerm("GO:0006260", 0), goTerm("GO:0006281", 0), strategy.Combine{Left: "s1", Right: "s2", Operator: "AND"}} {
		if g, _, err = g.Apply(ctx, cat, m); err != nil {
			t.Fatal(err)
		}
	}
	good, err := g.WDK()
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(w *strategy.WDKStrategy)) *strategy.WDKStrategy {
		w := roundTrip(t, good)
		f(w)
		return w
	}
	tests := []struct {
		name string
		w    *strategy.WDKStrategy
		kind error
		says string
	}{
		{"no tree", &strategy.WDKStrategy{RecordType: "transcript"}, strategy.ErrInvalidImport, "no stepTree"},
		{"other record type", edit(func(w *strategy.WDKStrategy) { w.RecordType = "gene" }), strategy.ErrRecordTypeMismatch, `"gene" records`},
		{"unknown search", edit(func(w *strategy.WDKStrategy) {
			s := w.Steps["s1"]
			s.SearchName = "GenesByTelepathy"
			w.Steps["s1"] = s
		}), strategy.ErrInvalidImport, "step s1 (GenesByTelepathy)"},
		{"invalid parameter", edit(func(w *strategy.WDKStrategy) {
			w.Steps["s2"].SearchConfig.Parameters["go_typeahead"] = `["GO:9999999"]`
		}), strategy.ErrInvalidImport, "step s2 (GenesByGoTerm)"},
		{"bad operator", edit(func(w *strategy.WDKStrategy) {
			w.Steps["s3"].SearchConfig.Parameters["bq_operator"] = "XOR"
		}), strategy.ErrInvalidImport, "step s3"},
		{"missing step", edit(func(w *strategy.WDKStrategy) { delete(w.Steps, "s2") }), strategy.ErrInvalidImport, "step s2: the stepTree names a step that is not among the steps"},
		{"step outside the tree", edit(func(w *strategy.WDKStrategy) { w.Steps["s9"] = w.Steps["s1"] }), strategy.ErrInvalidImport, "step s9: the step is not in the stepTree"},
		{"a step used twice", edit(func(w *strategy.WDKStrategy) { w.StepTree.SecondaryInput = w.StepTree.PrimaryInput }), strategy.ErrInvalidImport, "uses this step twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := g.Apply(ctx, cat, strategy.ImportWDK{Strategy: tt.w})
			if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("ImportWDK error = %v; want %v saying %q", err, tt.kind, tt.says)
			}
			if errors.Is(err, strategy.ErrStepNotFound) {
				t.Errorf("ImportWDK error %v is STEP_NOT_FOUND, which the API answers 404", err)
			}
		})
	}
}
