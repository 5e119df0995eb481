package strategy

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScoped(t *testing.T) {
	cat := newFakeCatalog()
	// Two sub-agents built s1 and s2 (done) and s3 (still working); this
	// one owns s4 and may use s1, the root of its dependency.
	base := build(t, cat, translation, replication, trna, trna)
	scope := NewScope("s4").With("s1")
	tests := []struct {
		name    string
		m       Mutation
		wantErr error
		badStep StepID
	}{
		{"new search steps are always allowed", translation, nil, ""},
		{"combine own step with a dependency's root", Combine{Left: "s4", Right: "s1", Operator: Union}, nil, ""},
		{"transform own step", AddTransform{Input: "s4", SearchName: "GenesByWeightFilter"}, nil, ""},
		{"combine another task's step", Combine{Left: "s4", Right: "s3", Operator: Union}, ErrOutOfScope, "s3"},
		{"transform another task's step", AddTransform{Input: "s2", SearchName: "GenesByWeightFilter"}, ErrOutOfScope, "s2"},
		{"delete another task's step", DeleteStep{Step: "s3"}, ErrOutOfScope, "s3"},
		{"update another task's step", UpdateStep{Step: "s2", DisplayName: ptr("mine")}, ErrOutOfScope, "s2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := base.Apply(context.Background(), cat, Scoped(scope, tt.m))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Apply error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil {
				return
			}
			se, _ := errors.AsType[*StepError](err)
			if se == nil || se.Step != tt.badStep {
				t.Errorf("error %v does not name step %s", err, tt.badStep)
			}
			if diff := cmp.Diff([]StepID{"s1", "s2", "s3", "s4"}, se.Roots); diff != "" {
				t.Errorf("roots mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScopeIsAValue(t *testing.T) {
	a := NewScope("s1")
	b := a.With("s2")
	if a.Contains("s2") {
		t.Error("With changed the original scope")
	}
	if diff := cmp.Diff([]StepID{"s1", "s2"}, b.IDs()); diff != "" {
		t.Errorf("IDs mismatch (-want +got):\n%s", diff)
	}
	var zero Scope
	if zero.Contains("s1") || len(zero.With("s1").IDs()) != 1 {
		t.Error("the zero Scope should be empty and extendable")
	}
}

// TestKeyed: the step a keyed mutation adds carries the key, in the same
// version; other steps and other mutations keep none.
func TestKeyed(t *testing.T) {
	cat := newFakeCatalog()
	base := build(t, cat, translation, replication)
	next, ch, err := base.Apply(context.Background(), cat, Keyed("turn/plan/n1#a", Scoped(NewScope("s1"), AddTransform{Input: "s1", SearchName: "GenesByWeightFilter"})))
	if err != nil {
		t.Fatal(err)
	}
	added, _ := next.Step(ch.Step)
	if added.Key != "turn/plan/n1#a" {
		t.Errorf("added step's key = %q", added.Key)
	}
	for _, id := range []StepID{"s1", "s2"} {
		if s, _ := next.Step(id); s.Key != "" {
			t.Errorf("step %s got key %q", id, s.Key)
		}
	}
	if s, _ := base.Step(ch.Step); s.Key != "" {
		t.Error("the base graph changed")
	}
	renamed, _, err := next.Apply(context.Background(), cat, Keyed("k", UpdateStep{Step: ch.Step, DisplayName: ptr("renamed")}))
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := renamed.Step(ch.Step); s.Key != "turn/plan/n1#a" {
		t.Errorf("an update changed the key to %q", s.Key)
	}
}
