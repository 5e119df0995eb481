package plan_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// TestBuildMessageRoundTrip: what the orchestrator writes on an accepted
// handoff is what the executor's readers get back, a fence inside an
// artifact's markdown included.
func TestBuildMessageRoundTrip(t *testing.T) {
	p, err := plan.Parse(json.RawMessage(`{"type":"combine","operator":"NOT",
		"left":{"type":"task","task":"DNA repair <genes>","context":{"searchName":"GenesByGoTerm","parameters":{"go_typeahead":"[\"GO:0006281\"]"}}},
		"right":{"type":"task","task":"Chromosome 14"}}`))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := p.Tree()
	if err != nil {
		t.Fatal(err)
	}
	bc := plan.BuildContext{HandoffID: "h1", Goal: "Repair genes off 14", Plan: tree, Artifacts: []plan.ArtifactSummary{
		{ID: "a1", Title: "Notes", Summary: "Use ```GO``` terms", Assumptions: json.RawMessage(`["2017 data"]`)},
	}}
	content, data, err := plan.WriteBuildMessage(bc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(content, plan.BuildPrefix+"\n```json\n") || !strings.HasSuffix(content, "\n```") {
		t.Errorf("content = %q", content)
	}
	var stored struct {
		Build plan.BuildContext `json:"build"`
	}
	if err := json.Unmarshal(data, &stored); err != nil || stored.Build.HandoffID != "h1" {
		t.Errorf("data = %s (%v)", data, err)
	}
	got, gotTree, ok := plan.ReadBuildMessage(content)
	if !ok {
		t.Fatalf("ReadBuildMessage(%q) failed", content)
	}
	if got.HandoffID != bc.HandoffID || got.Goal != bc.Goal || len(got.Artifacts) != 1 || got.Artifacts[0].Summary != "Use ```GO``` terms" {
		t.Errorf("read back %+v", got)
	}
	again, err := plan.Parse(got.Plan)
	if err != nil {
		t.Fatalf("Parse(read plan): %v", err)
	}
	if diff := cmp.Diff(p, again); diff != "" {
		t.Errorf("plan read back differs (-want +got):\n%s", diff)
	}
	if gotTree.Type != plan.KindCombine || gotTree.Operator != strategy.Minus || gotTree.Tasks() != 2 || gotTree.Combines() != 1 {
		t.Errorf("tree = %+v", gotTree)
	}
	if ctx, ok := gotTree.Left.TaskContext(); !ok || ctx.SearchName != "GenesByGoTerm" || ctx.Parameters["go_typeahead"] != `["GO:0006281"]` {
		t.Errorf("left task context = %+v, %v", ctx, ok)
	}
	for _, bad := range []string{
		"Build the approved plan: nothing",
		"Please build this:\n```json\n{\"plan\":{\"type\":\"task\",\"task\":\"t\"}}\n```",
		plan.BuildPrefix + "\n```json\n{\"goal\":\"g\"}\n```",
		plan.BuildPrefix + "\n```json\n{\"plan\":{\"type\":\"subtask\"}}\n```",
	} {
		if _, _, ok := plan.ReadBuildMessage(bad); ok {
			t.Errorf("ReadBuildMessage(%q) = ok", bad)
		}
	}
}

// TestTaskMessageRoundTrip: a sub-agent's task message reads back to what
// was written.
func TestTaskMessageRoundTrip(t *testing.T) {
	count := 42
	m := plan.TaskMessage{
		NodeID: "n3", Task: "Orthologs in P. vivax\nof the kinases", Hint: "GenesByOrthologs", Goal: "Kinases in vivax",
		Context: json.RawMessage(`{"searchName":"GenesByOrthologs","parameters":{"organism":"[\"P. vivax\"]"}}`),
		Inputs: []plan.Dependency{{NodeID: "n1", Label: "Kinases", StepID: "s4", Kind: "search", SearchName: "GenesByText",
			Parameters: map[string]string{"text_expression": "kinase"}, Count: &count, CountStatus: "ok"}},
		Attempt: 2, MaxAttempts: 3, Previous: "the model was overloaded",
	}
	text := m.String()
	for _, want := range []string{"# Task n3\n\nOrthologs in P. vivax\nof the kinases\n", "## Hint\n\nGenesByOrthologs\n",
		"## Overall goal of the strategy\n\nKinases in vivax\n", `"stepId": "s4"`, "This is attempt 2 of 3."} {
		if !strings.Contains(text, want) {
			t.Errorf("message lacks %q:\n%s", want, text)
		}
	}
	got, ok := plan.ReadTaskMessage(text)
	if !ok {
		t.Fatalf("ReadTaskMessage failed:\n%s", text)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("read back differs (-want +got):\n%s", diff)
	}
	if ctx, ok := plan.ReadTaskContext(got.Context); !ok || ctx.SearchName != "GenesByOrthologs" {
		t.Errorf("context = %+v, %v", ctx, ok)
	}

	first := plan.TaskMessage{NodeID: "n1", Task: "Kinases", Goal: "g"}
	got, ok = plan.ReadTaskMessage(first.String())
	if !ok || got.NodeID != "n1" || got.Task != "Kinases" || got.Inputs != nil || got.Context != nil || got.Attempt != 0 {
		t.Errorf("first attempt read back as %+v, %v", got, ok)
	}
	if got, ok := plan.ReadTaskMessage("Find kinases\n## Hint\n\nh"); ok || got.Task != "Find kinases" || got.Hint != "h" {
		t.Errorf("a message without a heading read as %+v, %v", got, ok)
	}
}
