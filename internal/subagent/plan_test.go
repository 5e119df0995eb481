package subagent

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/tool"
)

// TestEventNodes: subagent_plan lists every node with its kind, label,
// dependencies and canonical operator.
func TestEventNodes(t *testing.T) {
	p, err := plan.Parse(json.RawMessage(`{"type":"combine","operator":"NOT","displayName":"off 14",
		"left":{"type":"task","task":"Orthologs\nof them","input":{"type":"task","task":"Kinases"}},
		"right":{"type":"task","task":"Chromosome 14"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []event.PlanNode{
		{ID: "n1", Kind: "task", Label: "Kinases", DependsOn: []string{}},
		{ID: "n2", Kind: "task", Label: "Orthologs", DependsOn: []string{"n1"}},
		{ID: "n3", Kind: "task", Label: "Chromosome 14", DependsOn: []string{}},
		{ID: "n4", Kind: "combine", Label: "off 14", DependsOn: []string{"n2", "n3"}, Operator: "MINUS"},
	}
	if diff := cmp.Diff(want, eventNodes(p)); diff != "" {
		t.Errorf("eventNodes() mismatch (-want +got):\n%s", diff)
	}
}

// TestParseArg: a rejected plan is a tool error whose problems point into
// the tool's arguments and that still wraps the plan error.
func TestParseArg(t *testing.T) {
	_, err := ParseArg(json.RawMessage(`{"type":"combine","operator":"XOR","left":{"type":"task","task":"a"}}`), "/plan")
	te, ok := errors.AsType[*tool.ToolError](err)
	if !ok {
		t.Fatalf("ParseArg error = %v, want an *tool.ToolError", err)
	}
	if te.Code != plan.CodeInvalidPlan {
		t.Errorf("Code = %q", te.Code)
	}
	b, err := json.Marshal(te.Details)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Problems []struct {
			Field, Problem string
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, p := range got.Problems {
		fields = append(fields, p.Field)
	}
	if diff := cmp.Diff([]string{"/plan/operator", "/plan/right"}, fields); diff != "" {
		t.Errorf("fields mismatch (-want +got):\n%s", diff)
	}
	if !errors.Is(te, plan.ErrInvalidPlan) {
		t.Errorf("the tool error does not wrap the plan error")
	}
}
