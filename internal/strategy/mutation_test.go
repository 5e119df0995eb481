package strategy

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

// build applies muts to an empty transcript graph on the fake catalog.
func build(t *testing.T, cat SearchCatalog, muts ...Mutation) *Graph {
	t.Helper()
	g, err := New(testSite, testRT, "test strategy")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range muts {
		next, _, err := g.Apply(context.Background(), cat, m)
		if err != nil {
			t.Fatalf("setup mutation %d (%T): %v", i, m, err)
		}
		g = next
	}
	return g
}

var (
	translation = AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006412"]`}, DisplayName: "Translation"}
	replication = AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}}
	trna        = AddSearch{SearchName: "GenesByGeneType", Parameters: map[string]string{"geneType": "tRNA encoding"}}
)

func ptr[T any](v T) *T { return &v }

func boolParams(op string) map[string]string {
	return map[string]string{boolLeft: "", boolRight: "", "bq_operator": op}
}

func TestMutations(t *testing.T) {
	tests := []struct {
		name       string
		setup      []Mutation
		m          Mutation
		wantStep   Step // the added or changed step; zero when none
		wantRoots  []StepID
		wantChange Change
	}{
		{
			name: "add search fills defaults",
			m:    translation,
			wantStep: Step{ID: "s1", Kind: KindSearch, SearchName: "GenesByGoTerm", Inputs: []StepID{},
				Parameters:  map[string]string{"organism": pf3d7JSON, "go_typeahead": `["GO:0006412"]`},
				DisplayName: "Translation", RecordType: testRT},
			wantRoots:  []StepID{"s1"},
			wantChange: Change{Op: OpAddSearch, Step: "s1", Summary: `added search step s1 "Translation" (GenesByGoTerm)`},
		},
		{
			name: "add search names the step after the search by default, keeps weight",
			m:    AddSearch{SearchName: "GenesByTaxon", Weight: 10},
			wantStep: Step{ID: "s1", Kind: KindSearch, SearchName: "GenesByTaxon", Inputs: []StepID{},
				Parameters: map[string]string{"organism": pf3d7JSON}, DisplayName: "Genes by GenesByTaxon", RecordType: testRT, Weight: 10},
			wantRoots:  []StepID{"s1"},
			wantChange: Change{Op: OpAddSearch, Step: "s1", Summary: `added search step s1 "Genes by GenesByTaxon" (GenesByTaxon)`},
		},
		{
			name:  "add transform consumes its input",
			setup: []Mutation{translation},
			m:     AddTransform{Input: "s1", SearchName: "GenesByWeightFilter", Parameters: map[string]string{"min_weight": "5"}},
			wantStep: Step{ID: "s2", Kind: KindTransform, SearchName: "GenesByWeightFilter", Inputs: []StepID{"s1"},
				Parameters:  map[string]string{"gene_result": "", "min_weight": "5", "max_weight": "100"},
				DisplayName: "Genes by GenesByWeightFilter", RecordType: testRT},
			wantRoots:  []StepID{"s2"},
			wantChange: Change{Op: OpAddTransform, Step: "s2", Summary: `added transform step s2 "Genes by GenesByWeightFilter" (GenesByWeightFilter of s1)`},
		},
		{
			name:  "combine with an alias runs as the boolean search",
			setup: []Mutation{translation, replication},
			m:     Combine{Left: "s1", Right: "s2", Operator: "and"},
			wantStep: Step{ID: "s3", Kind: KindCombine, SearchName: boolName, Operator: Intersect, Inputs: []StepID{"s1", "s2"},
				Parameters: boolParams("INTERSECT"), DisplayName: "Translation and DNA replication (GO:0006260)", RecordType: testRT},
			wantRoots:  []StepID{"s3"},
			wantChange: Change{Op: OpCombine, Step: "s3", Summary: `combined s1 INTERSECT s2 into s3 "Translation and DNA replication (GO:0006260)"`},
		},
		{
			name:  "MINUS_RIGHT is RMINUS",
			setup: []Mutation{translation, replication, trna},
			m:     Combine{Left: "s3", Right: "s1", Operator: "minus right", DisplayName: "Not tRNA"},
			wantStep: Step{ID: "s4", Kind: KindCombine, SearchName: boolName, Operator: RMinus, Inputs: []StepID{"s3", "s1"},
				Parameters: boolParams("RMINUS"), DisplayName: "Not tRNA", RecordType: testRT},
			wantRoots:  []StepID{"s2", "s4"},
			wantChange: Change{Op: OpCombine, Step: "s4", Summary: `combined s3 RMINUS s1 into s4 "Not tRNA"`},
		},
		{
			name:  "COLOCATE carries its parameters into GenesBySpanLogic",
			setup: []Mutation{translation, trna},
			m:     Combine{Left: "s1", Right: "s2", Operator: Colocate, Colocation: &Colocation{Upstream: 1000, Downstream: 500}},
			wantStep: Step{ID: "s3", Kind: KindCombine, SearchName: SpanSearch, Operator: Colocate, Inputs: []StepID{"s1", "s2"},
				Colocation:  &Colocation{Upstream: 1000, Downstream: 500, Strand: StrandBoth},
				Parameters:  withInputs(spanParams(Colocation{Upstream: 1000, Downstream: 500, Strand: StrandBoth})),
				DisplayName: "Translation within 1000 bp upstream or 500 bp downstream of Genes by GenesByGeneType", RecordType: testRT},
			wantRoots:  []StepID{"s3"},
			wantChange: Change{Op: OpCombine, Step: "s3", Summary: `combined s1 COLOCATE s2 into s3 "Translation within 1000 bp upstream or 500 bp downstream of Genes by GenesByGeneType"`},
		},
		{
			name:  "update merges parameters and validates them again",
			setup: []Mutation{translation},
			m:     UpdateStep{Step: "s1", Parameters: map[string]string{"go_typeahead": `["GO:0006412","GO:0006260"]`}, Weight: ptr(3)},
			wantStep: Step{ID: "s1", Kind: KindSearch, SearchName: "GenesByGoTerm", Inputs: []StepID{},
				Parameters:  map[string]string{"organism": pf3d7JSON, "go_typeahead": `["GO:0006412","GO:0006260"]`},
				DisplayName: "translation (GO:0006412), DNA replication (GO:0006260)", RecordType: testRT, Weight: 3},
			wantRoots:  []StepID{"s1"},
			wantChange: Change{Op: OpUpdateStep, Step: "s1", Fields: []string{"parameters", "weight"}, Summary: "updated step s1 (parameters: go_typeahead, weight)"},
		},
		{
			name:  "update a combine's operator and name",
			setup: []Mutation{translation, replication, Combine{Left: "s1", Right: "s2", Operator: Intersect}},
			m:     UpdateStep{Step: "s3", Operator: ptr(Operator("OR")), DisplayName: ptr("  Either  ")},
			wantStep: Step{ID: "s3", Kind: KindCombine, SearchName: boolName, Operator: Union, Inputs: []StepID{"s1", "s2"},
				Parameters: boolParams("UNION"), DisplayName: "Either", Named: true, RecordType: testRT},
			wantRoots:  []StepID{"s3"},
			wantChange: Change{Op: OpUpdateStep, Step: "s3", Fields: []string{"operator", "displayName"}, Summary: "updated step s3 (operator, displayName)"},
		},
		{
			name:  "update a boolean into COLOCATE switches its search",
			setup: []Mutation{translation, replication, Combine{Left: "s1", Right: "s2", Operator: Union}},
			m:     UpdateStep{Step: "s3", Operator: ptr(Colocate), Colocation: &Colocation{Upstream: 10, Strand: StrandSame}},
			wantStep: Step{ID: "s3", Kind: KindCombine, SearchName: SpanSearch, Operator: Colocate, Inputs: []StepID{"s1", "s2"},
				Colocation: &Colocation{Upstream: 10, Strand: StrandSame},
				Parameters: withInputs(spanParams(Colocation{Upstream: 10, Strand: StrandSame})), DisplayName: "Translation within 10 bp upstream of DNA replication (GO:0006260)", RecordType: testRT},
			wantRoots:  []StepID{"s3"},
			wantChange: Change{Op: OpUpdateStep, Step: "s3", Fields: []string{"operator", "colocation"}, Summary: "updated step s3 (operator, colocation)"},
		},
		{
			name:       "delete a root search",
			setup:      []Mutation{translation, replication},
			m:          DeleteStep{Step: "s2"},
			wantRoots:  []StepID{"s1"},
			wantChange: Change{Op: OpDeleteStep, Step: "s2", Summary: `deleted step s2 "DNA replication (GO:0006260)"`},
		},
		{
			name:       "delete a root combine returns its inputs to roots",
			setup:      []Mutation{translation, replication, Combine{Left: "s1", Right: "s2", Operator: Union}},
			m:          DeleteStep{Step: "s3"},
			wantRoots:  []StepID{"s1", "s2"},
			wantChange: Change{Op: OpDeleteStep, Step: "s3", RestoredRoots: []StepID{"s1", "s2"}, Summary: `deleted step s3 "Translation or DNA replication (GO:0006260)"; s1, s2 became roots again`},
		},
		{
			name:       "rename",
			setup:      []Mutation{translation},
			m:          Rename{Name: " Translation genes "},
			wantRoots:  []StepID{"s1"},
			wantChange: Change{Op: OpRename, Summary: `renamed the strategy to "Translation genes"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := newFakeCatalog()
			before := build(t, cat, tt.setup...)
			frozen, _ := before.Encode()
			got, change, err := before.Apply(context.Background(), cat, tt.m)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if after, _ := before.Encode(); string(after) != string(frozen) {
				t.Errorf("Apply changed its input graph")
			}
			if diff := cmp.Diff(tt.wantChange, change); diff != "" {
				t.Errorf("change mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRoots, got.Roots()); diff != "" {
				t.Errorf("roots mismatch (-want +got):\n%s", diff)
			}
			if tt.wantStep.ID != "" {
				step, ok := got.Step(tt.wantStep.ID)
				if !ok {
					t.Fatalf("no step %s", tt.wantStep.ID)
				}
				if diff := cmp.Diff(tt.wantStep, step); diff != "" {
					t.Errorf("step mismatch (-want +got):\n%s", diff)
				}
			}
			if ps := got.Validate(); len(got.Roots()) == 1 && len(ps) > 0 {
				t.Errorf("Validate() = %v, want no problems", ps)
			}
		})
	}
}

func withInputs(p map[string]string) map[string]string {
	p["span_a"], p["span_b"] = "", ""
	return p
}

func TestMutationRefusals(t *testing.T) {
	three := []Mutation{translation, replication, Combine{Left: "s1", Right: "s2", Operator: Union}, trna}
	tests := []struct {
		name           string
		setup          []Mutation
		m              Mutation
		wantKind       error
		wantStep       StepID
		wantConsumedBy StepID
		wantRoots      []StepID
	}{
		{"unknown search", nil, AddSearch{SearchName: "GenesByMagic"}, ErrUnknownSearch, "", "", []StepID{}},
		{"no search name", nil, AddSearch{}, ErrUnknownSearch, "", "", []StepID{}},
		{"transform search as a leaf", nil, AddSearch{SearchName: "GenesByWeightFilter"}, ErrSearchKind, "", "", []StepID{}},
		{"boolean search as a leaf", nil, AddSearch{SearchName: boolName}, ErrSearchKind, "", "", []StepID{}},
		{"leaf search as a transform", []Mutation{translation}, AddTransform{Input: "s1", SearchName: "GenesByTaxon"}, ErrSearchKind, "", "", []StepID{"s1"}},
		{"search of another record type", nil, AddSearch{SearchName: popsetSrch, Parameters: map[string]string{"country": "Mali"}}, ErrRecordTypeMismatch, "", "", []StepID{}},
		{"missing parameter", nil, AddSearch{SearchName: "GenesByGoTerm"}, ErrInvalidParameters, "", "", []StepID{}},
		{"term outside the vocabulary", nil, AddSearch{SearchName: "GenesByGeneType", Parameters: map[string]string{"geneType": "pseudogene"}}, ErrInvalidParameters, "", "", []StepID{}},
		{"input-step parameter given a value", []Mutation{translation}, AddTransform{Input: "s1", SearchName: "GenesByWeightFilter", Parameters: map[string]string{"gene_result": "s1"}}, ErrInvalidParameters, "", "", []StepID{"s1"}},
		{"transform of a missing step", []Mutation{translation}, AddTransform{Input: "s9", SearchName: "GenesByWeightFilter"}, ErrStepNotFound, "s9", "", []StepID{"s1"}},
		{"transform of a consumed step", three, AddTransform{Input: "s1", SearchName: "GenesByWeightFilter"}, ErrStepConsumed, "s1", "s3", []StepID{"s3", "s4"}},
		{"combine a consumed step", three, Combine{Left: "s4", Right: "s2", Operator: Minus}, ErrStepConsumed, "s2", "s3", []StepID{"s3", "s4"}},
		{"combine a missing step", three, Combine{Left: "s4", Right: "s7", Operator: Minus}, ErrStepNotFound, "s7", "", []StepID{"s3", "s4"}},
		{"combine a step with itself", three, Combine{Left: "s4", Right: "s4", Operator: Union}, ErrInvalidInput, "s4", "", []StepID{"s3", "s4"}},
		{"unknown operator", three, Combine{Left: "s3", Right: "s4", Operator: "XOR"}, ErrInvalidOperator, "", "", []StepID{"s3", "s4"}},
		{"COLOCATE without parameters", three, Combine{Left: "s3", Right: "s4", Operator: Colocate}, ErrInvalidColocation, "", "", []StepID{"s3", "s4"}},
		{"colocation on a boolean", three, Combine{Left: "s3", Right: "s4", Operator: Union, Colocation: &Colocation{}}, ErrInvalidColocation, "", "", []StepID{"s3", "s4"}},
		{"negative distance", three, Combine{Left: "s3", Right: "s4", Operator: Colocate, Colocation: &Colocation{Upstream: -1}}, ErrInvalidColocation, "", "", []StepID{"s3", "s4"}},
		{"unknown strand", three, Combine{Left: "s3", Right: "s4", Operator: Colocate, Colocation: &Colocation{Strand: "sideways"}}, ErrInvalidColocation, "", "", []StepID{"s3", "s4"}},
		{"delete a consumed step", three, DeleteStep{Step: "s1"}, ErrStepInUse, "s1", "s3", []StepID{"s3", "s4"}},
		{"delete a missing step", three, DeleteStep{Step: "s8"}, ErrStepNotFound, "s8", "", []StepID{"s3", "s4"}},
		{"update a missing step", three, UpdateStep{Step: "s8", DisplayName: ptr("x")}, ErrStepNotFound, "s8", "", []StepID{"s3", "s4"}},
		{"update nothing", three, UpdateStep{Step: "s4"}, ErrInvalidUpdate, "s4", "", []StepID{"s3", "s4"}},
		{"update a combine's parameters", three, UpdateStep{Step: "s3", Parameters: map[string]string{"bq_operator": "MINUS"}}, ErrInvalidUpdate, "s3", "", []StepID{"s3", "s4"}},
		{"update a combine's weight", three, UpdateStep{Step: "s3", Weight: ptr(2)}, ErrInvalidUpdate, "s3", "", []StepID{"s3", "s4"}},
		{"operator on a search step", three, UpdateStep{Step: "s4", Operator: ptr(Union)}, ErrInvalidUpdate, "s4", "", []StepID{"s3", "s4"}},
		{"update with a bad value", three, UpdateStep{Step: "s4", Parameters: map[string]string{"geneType": "nope"}}, ErrInvalidParameters, "", "", []StepID{"s3", "s4"}},
		{"update to COLOCATE without parameters", three, UpdateStep{Step: "s3", Operator: ptr(Colocate)}, ErrInvalidColocation, "", "", []StepID{"s3", "s4"}},
		{"blank display name", three, UpdateStep{Step: "s4", DisplayName: ptr("  ")}, ErrInvalidName, "", "", []StepID{"s3", "s4"}},
		{"empty strategy name", three, Rename{Name: " "}, ErrInvalidName, "", "", []StepID{"s3", "s4"}},
		{"control characters in a name", three, Rename{Name: "a\x00b"}, ErrInvalidName, "", "", []StepID{"s3", "s4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := newFakeCatalog()
			g := build(t, cat, tt.setup...)
			_, _, err := g.Apply(context.Background(), cat, tt.m)
			if !errors.Is(err, tt.wantKind) {
				t.Fatalf("Apply error = %v, want %v", err, tt.wantKind)
			}
			se, ok := errors.AsType[*StepError](err)
			if !ok {
				t.Fatalf("Apply error %T is not a *StepError", err)
			}
			if se.Step != tt.wantStep || se.ConsumedBy != tt.wantConsumedBy {
				t.Errorf("StepError names step %q consumed by %q, want %q consumed by %q", se.Step, se.ConsumedBy, tt.wantStep, tt.wantConsumedBy)
			}
			if diff := cmp.Diff(tt.wantRoots, se.Roots); diff != "" {
				t.Errorf("roots mismatch (-want +got):\n%s", diff)
			}
			if Code(err) == "" {
				t.Errorf("Code(%v) is empty", err)
			}
		})
	}
}

func TestParameterErrorsKeepByKey(t *testing.T) {
	cat := newFakeCatalog()
	g := build(t, cat)
	_, _, err := g.Apply(context.Background(), cat, AddSearch{SearchName: "GenesByGeneType", Parameters: map[string]string{"geneType": "pseudogene", "colour": "red"}})
	verr, ok := errors.AsType[*catalog.ValidationError](err)
	if !ok {
		t.Fatalf("error %v carries no *catalog.ValidationError", err)
	}
	want := map[string][]string{
		"colour":   {"Parameter 'colour' is not a parameter of GenesByGeneType."},
		"geneType": {"Invalid value 'pseudogene'."},
	}
	if diff := cmp.Diff(want, verr.ByKey); diff != "" {
		t.Errorf("ByKey mismatch (-want +got):\n%s", diff)
	}
	if got := Code(err); got != "VALIDATION_ERROR" {
		t.Errorf("Code = %q, want VALIDATION_ERROR", got)
	}
}

func TestStepIDsAreNeverReused(t *testing.T) {
	cat := newFakeCatalog()
	g := build(t, cat, translation, replication, DeleteStep{Step: "s2"}, trna)
	got := []StepID{}
	for _, s := range g.Steps {
		got = append(got, s.ID)
	}
	if diff := cmp.Diff([]StepID{"s1", "s3"}, got); diff != "" {
		t.Errorf("step ids mismatch (-want +got):\n%s", diff)
	}
}

func TestUpdateClearsDownstreamCounts(t *testing.T) {
	cat := newFakeCatalog()
	counter, err := NewCounter(cat, CounterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	g := build(t, cat, translation, replication, Combine{Left: "s1", Right: "s2", Operator: Union}, trna)
	g = counter.Refresh(context.Background(), g, []StepID{"s1", "s2", "s3", "s4"})
	g, _, err = g.Apply(context.Background(), cat, UpdateStep{Step: "s1", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[StepID]CountStatus{}
	for _, s := range g.Steps {
		got[s.ID] = s.CountStatus
	}
	want := map[StepID]CountStatus{"s1": CountUnknown, "s2": CountOK, "s3": CountUnknown, "s4": CountOK}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("count statuses mismatch (-want +got):\n%s", diff)
	}
	// A new display name does not change what the step computes.
	g = counter.Refresh(context.Background(), g, nil)
	g, _, err = g.Apply(context.Background(), cat, UpdateStep{Step: "s1", DisplayName: ptr("Replication")})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := g.Step("s3"); s.CountStatus != CountOK {
		t.Errorf("renaming s1 cleared the count of s3 (status %s)", s.CountStatus)
	}
}

func TestMaxSteps(t *testing.T) {
	cat := newFakeCatalog()
	g := build(t, cat)
	for range MaxSteps {
		var err error
		if g, _, err = g.Apply(context.Background(), cat, trna); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := g.Apply(context.Background(), cat, trna); !errors.Is(err, ErrTooManySteps) {
		t.Errorf("step %d: error %v, want ErrTooManySteps", MaxSteps+1, err)
	}
}
