package planner_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog/offline"
	"strategist/internal/planner"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// buildFollowUp builds, through the strategy service, a first request
// (s3 = replication OR repair, version 3) and its follow-up (s5 = s3 MINUS
// chromosome 14, version 5).
func buildFollowUp(t *testing.T, f fixture) strategy.Snapshot {
	t.Helper()
	ctx := t.Context()
	snap, err := f.strategies.ForConversation(ctx, f.uid, f.conv, offline.RecordTypeTranscript, "DNA repair")
	if err != nil {
		t.Fatal(err)
	}
	org := `["Plasmodium falciparum 3D7"]`
	for _, m := range []strategy.Mutation{
		strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"organism": org, "go_typeahead": `["GO:0006260"]`}, DisplayName: "DNA replication"},
		strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"organism": org, "go_typeahead": `["GO:0006281"]`}, DisplayName: "DNA repair"},
		strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union, DisplayName: "Replication or repair"},
		strategy.AddSearch{SearchName: "GenesByLocation", Parameters: map[string]string{"chromosomeOptional": "Pf3D7_14_v3"}, DisplayName: "Chromosome 14"},
		strategy.Combine{Left: "s3", Right: "s4", Operator: strategy.Minus, DisplayName: "Not on chromosome 14"},
	} {
		res, err := f.strategies.Apply(ctx, f.uid, snap.StrategyID, m)
		if err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		snap = res.Snapshot
	}
	return snap
}

// TestGetStrategy: the planner reads the strategy before planning: its
// steps with their key values and counts, its root, and the version before
// the last change of result (what "undo that" goes back to).
func TestGetStrategy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	out, err := call(t, f.tools, "get_strategy", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if o := out.(*graphtool.Overview); o.StrategyID != "" || len(o.Steps) != 0 || o.Previous != nil || !strings.Contains(o.Hint, "no strategy yet") {
		t.Errorf("overview without a strategy = %+v", o)
	}

	snap := buildFollowUp(t, f)
	out, err = call(t, f.tools, "get_strategy", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	o := out.(*graphtool.Overview)
	if o.StrategyID != snap.StrategyID || o.Version != 5 || o.RootStepID != "s5" || !slices.Equal(o.Roots, []strategy.StepID{"s5"}) || len(o.Steps) != 5 {
		t.Fatalf("overview = %+v", o)
	}
	s1, s5 := o.Steps[0], o.Steps[4]
	if s1.SearchName != "GenesByGoTerm" || s1.KeyParameters["go_typeahead"] != `["GO:0006260"]` || s1.Inputs != nil {
		t.Errorf("s1 = %+v", s1)
	}
	for name, v := range s1.KeyParameters {
		if v == "" {
			t.Errorf("s1 shows the empty parameter %s", name)
		}
	}
	if s5.Operator != strategy.Minus || s5.SearchName != "" || s5.KeyParameters != nil || !slices.Equal(s5.Inputs, []strategy.StepID{"s3", "s4"}) {
		t.Errorf("s5 = %+v", s5)
	}
	// Without the gene data there is no count, and it says why.
	if c := s5.Count; c.Value != nil || c.Status == strategy.CountOK || c.Message == "" {
		t.Errorf("s5 count = %+v, want a reason instead of a number", c)
	}
	p := o.Previous
	if p == nil {
		t.Fatal("no previous version")
	}
	var ids []strategy.StepID
	for _, s := range p.Steps {
		ids = append(ids, s.StepID)
	}
	if p.Version != 3 || p.RootStepID != "s3" || !p.RootStillExists || !slices.Equal(ids, []strategy.StepID{"s1", "s2", "s3"}) {
		t.Errorf("previous = %+v (steps %v), want version 3 rooted at s3", p, ids)
	}
	raw, err := json.Marshal(o)
	if err != nil || !strings.Contains(string(raw), `"previous":{"version":3`) {
		t.Errorf("overview JSON = %s (%v)", raw, err)
	}
}

// TestDraftReusesSteps: a follow-up's draft reuses the strategy's root; a
// step the strategy does not have is refused with the ids it has.
func TestDraftReusesSteps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	buildFollowUp(t, f)
	chr5 := `{"type":"task","task":"chromosome 5","context":{"searchName":"GenesByLocation","parameters":{"chromosomeOptional":"Pf3D7_05_v3"}}}`
	_, err := call(t, f.tools, "save_delegation_draft", `{"goal":"also not on 5","plan":{"type":"combine","operator":"MINUS","left":{"type":"step","stepId":"s9"},"right":`+chr5+`}}`)
	te, ok := errors.AsType[*tool.ToolError](err)
	if !ok || te.Code != "DELEGATION_PLAN_INVALID" {
		t.Fatalf("unknown step: %v", err)
	}
	problems := te.Details["problems"].([]tool.Problem)
	if len(problems) != 1 || problems[0].Field != "/plan/left/stepId" || !cmp.Equal(problems[0].Allowed, []string{"s1", "s2", "s3", "s4", "s5"}) {
		t.Errorf("problems = %+v", problems)
	}
	out, err := call(t, f.tools, "save_delegation_draft", `{"goal":"also not on 5","plan":{"type":"combine","operator":"MINUS","left":{"type":"step","stepId":"s5"},"right":`+chr5+`}}`)
	if err != nil {
		t.Fatal(err)
	}
	if saved := out.(*planner.SavedArtifact); saved.Tasks != 1 || len(saved.Warnings) != 0 || !slices.Contains(saved.Nodes, "n1: step s5") {
		t.Errorf("saved = %+v", saved)
	}
}
