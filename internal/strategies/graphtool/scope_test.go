package graphtool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
)

func TestSubagentScope(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)
	must[*graphtool.StepResult](ex, "create_step", replication) // s1: the dependency's root
	must[*graphtool.StepResult](ex, "create_step", chromosome)  // s2: another task's step

	scope := graphtool.NewScope("s1")
	sub := f.subagent(t, scope)
	s3 := must[*graphtool.StepResult](sub, "create_step", repair)
	if s3.Step.StepID != "s3" || !slices.Equal(s3.Scope, []strategy.StepID{"s1", "s3"}) {
		t.Errorf("created %s with scope %v, want s3 in scope [s1 s3]", s3.Step.StepID, s3.Scope)
	}
	// A sub-agent sees only the roots it may use.
	if diff := cmp.Diff([]graphtool.Root{{StepID: "s1", DisplayName: "DNA replication"}, {StepID: "s3", DisplayName: "DNA repair"}}, s3.Roots); diff != "" {
		t.Errorf("roots shown to the sub-agent (-want +got):\n%s", diff)
	}

	refusals := []struct{ tool, args string }{
		{"combine_steps", `{"left_step_id":"s3","right_step_id":"s2","operator":"UNION"}`},
		{"transform_step", `{"input_step_id":"s2","search_name":"GenesByWeightFilter","parameters":{"min_weight":"0"}}`},
		{"get_result_count", `{"step_id":"s2"}`},
	}
	for _, r := range refusals {
		te := sub.refused(r.tool, r.args, "OUT_OF_SCOPE")
		if te.Details["stepId"] != strategy.StepID("s2") || !strings.Contains(te.Message, "step s2 is not yours to use") {
			t.Errorf("%s: details %v, message %q; want the refusal to name s2", r.tool, te.Details, te.Message)
		}
		if diff := cmp.Diff([]strategy.StepID{"s1", "s3"}, te.Details["roots"]); diff != "" {
			t.Errorf("%s: roots offered (-want +got):\n%s", r.tool, diff)
		}
		if strings.Contains(te.Message, "s2,") || !strings.Contains(te.Message, "roots you may use: s1, s3") {
			t.Errorf("%s: message %q lists roots outside the scope", r.tool, te.Message)
		}
	}

	union := must[*graphtool.StepResult](sub, "combine_steps", `{"left_step_id":"s1","right_step_id":"s3","operator":"UNION"}`)
	if union.Step.StepID != "s4" || *union.Step.Count.Value != 108 || !slices.Equal(union.Scope, []strategy.StepID{"s1", "s3", "s4"}) {
		t.Errorf("union = %s (%v) scope %v", union.Step.StepID, union.Step.Count, union.Scope)
	}
	if got := must[*graphtool.CountResult](sub, "get_result_count", `{"step_id":"s4"}`); *got.Count.Value != 108 {
		t.Errorf("get_result_count s4 = %+v", got.Count)
	}
	// The executor still sees every root.
	if got := rootIDs(must[*graphtool.StrategyView](ex, "list_steps", `{}`).Roots); !slices.Equal(got, []strategy.StepID{"s2", "s4"}) {
		t.Errorf("executor roots = %v", got)
	}
	if !scope.Contains("s4") || scope.Contains("s2") {
		t.Errorf("scope = %v", scope.IDs())
	}
}

// TestConcurrentSubagents runs two sub-agents at once, each making several
// steps with concurrent calls (as one model response does): every step
// lands in its creator's scope and in no other.
func TestConcurrentSubagents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const perAgent = 4
	scopes := []*graphtool.Scope{graphtool.NewScope(), graphtool.NewScope()}
	created := make([][]strategy.StepID, len(scopes))
	errs := make(chan error, len(scopes)*perAgent)
	var wg sync.WaitGroup
	for i, scope := range scopes {
		tools, err := graphtool.SubagentTools(f.binding(), scope)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		for j := range perAgent {
			wg.Go(func() {
				args := fmt.Sprintf(`{"search_name":"GenesByLocation","parameters":{"chromosomeOptional":"Pf3D7_%02d_v3"},"display_name":"agent %d chromosome %d"}`, j+1, i, j+1)
				got, err := tools[0].Call(context.Background(), json.RawMessage(args))
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				defer mu.Unlock()
				created[i] = append(created[i], got.(*graphtool.StepResult).Step.StepID)
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("create_step: %v", err)
	}
	for i, scope := range scopes {
		want := slices.Sorted(slices.Values(created[i]))
		if diff := cmp.Diff(want, scope.IDs()); diff != "" || len(want) != perAgent {
			t.Errorf("scope %d (-created +scope):\n%s", i, diff)
		}
	}
	snap, err := f.svc.Conversation(context.Background(), f.user, f.conversation)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Steps) != 2*perAgent || snap.Version != 2*perAgent {
		t.Errorf("strategy has %d steps at version %d, want %d", len(snap.Steps), snap.Version, 2*perAgent)
	}
}

func TestScope(t *testing.T) {
	s := graphtool.NewScope("s2")
	s.Add("s5", "s1")
	if !s.Contains("s1") || s.Contains("s3") {
		t.Errorf("Contains wrong for %v", s.IDs())
	}
	v := s.Value()
	s.Add("s3")
	if v.Contains("s3") {
		t.Error("Value is not a copy")
	}
	if diff := cmp.Diff([]strategy.StepID{"s1", "s2", "s3", "s5"}, s.IDs()); diff != "" {
		t.Errorf("IDs (-want +got):\n%s", diff)
	}
}
