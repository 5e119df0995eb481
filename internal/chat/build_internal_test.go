package chat

import (
	"testing"

	"strategist/internal/event"
)

// TestBuildOfReusedStepsOnly: a delegation whose plan only reuses a step
// (going back to it) built what it was asked to; one whose tasks all
// failed did not.
func TestBuildOfReusedStepsOnly(t *testing.T) {
	var reuse build
	reuse.note(&event.SubagentPlan{DelegationID: "d1", Nodes: []event.PlanNode{{ID: "n1", Kind: "step", Label: "step s1"}}})
	reuse.note(&event.SubagentTaskEnd{DelegationID: "d1", NodeID: "n1", Status: event.NodeDone})
	if why := reuse.failed(); why != "" {
		t.Errorf("a plan of one reused step failed: %s", why)
	}
	var none build
	none.note(&event.SubagentPlan{DelegationID: "d1", Nodes: []event.PlanNode{{ID: "n1", Kind: "task", Label: "kinases"}}})
	none.note(&event.SubagentTaskEnd{DelegationID: "d1", NodeID: "n1", Status: event.NodeFailed, Error: "boom"})
	if why := none.failed(); why == "" {
		t.Error("a plan whose only task failed built")
	}
}
