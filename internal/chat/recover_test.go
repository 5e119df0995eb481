package chat

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
)

func rec(t *testing.T, ev event.Event) event.Record {
	t.Helper()
	typ, payload, err := event.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	return event.Record{Type: typ, Payload: payload}
}

func TestClosingEvents(t *testing.T) {
	b := event.Base{TurnID: "t1"}
	recs := []event.Record{
		rec(t, &event.TurnStart{Base: b}),
		rec(t, &event.ToolCallStart{Base: b, CallID: "c1", Name: "search_for_searches", Args: json.RawMessage(`{}`)}),
		rec(t, &event.ToolCallEnd{Base: b, CallID: "c1", Name: "search_for_searches", OK: true}),
		rec(t, &event.ToolCallStart{Base: b, CallID: "c2", Name: "delegate_strategy_subtasks", Args: json.RawMessage(`{}`)}),
		rec(t, &event.SubagentPlan{Base: b, DelegationID: "d1", Nodes: []event.PlanNode{{ID: "n1"}, {ID: "n2"}, {ID: "n3"}}}),
		rec(t, &event.SubagentTaskStart{Base: b, DelegationID: "d1", NodeID: "n1", Attempt: 1}),
		rec(t, &event.SubagentTaskStart{Base: b, DelegationID: "d1", NodeID: "n2", Attempt: 1}),
		rec(t, &event.SubagentToolCallStart{Base: b, DelegationID: "d1", NodeID: "n1", CallID: "s1", Name: "create_step"}),
		rec(t, &event.SubagentToolCallEnd{Base: b, DelegationID: "d1", NodeID: "n1", CallID: "s1", Name: "create_step", OK: true}),
		rec(t, &event.SubagentTaskEnd{Base: b, DelegationID: "d1", NodeID: "n1", Status: event.NodeDone}),
		rec(t, &event.SubagentToolCallStart{Base: b, DelegationID: "d1", NodeID: "n2", CallID: "s2", Name: "create_step"}),
	}
	interrupted := &event.ToolError{Code: "INTERRUPTED", Message: interruptedMessage}
	want := []event.Event{
		&event.SubagentToolCallEnd{DelegationID: "d1", NodeID: "n2", CallID: "s2", Name: "create_step", Error: interrupted},
		&event.SubagentTaskEnd{DelegationID: "d1", NodeID: "n2", Status: event.NodeCancelled, Error: interruptedMessage},
		&event.SubagentTaskEnd{DelegationID: "d1", NodeID: "n3", Status: event.NodeCancelled, Error: interruptedMessage},
		&event.ToolCallEnd{CallID: "c2", Name: "delegate_strategy_subtasks", Error: interrupted},
	}
	if diff := cmp.Diff(want, closingEvents(recs, interruptedMessage)); diff != "" {
		t.Errorf("closingEvents() mismatch (-want +got):\n%s", diff)
	}
	if got := closingEvents(recs[:3], interruptedMessage); len(got) != 0 {
		t.Errorf("a turn with nothing open needs no closing events, got %v", got)
	}
}
