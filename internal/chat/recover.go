package chat

import (
	"strategist/internal/event"
)

// interruptedMessage is what a researcher reads on a call or task the
// server's death cut short; resumedMessage on one whose turn continues
// elsewhere (a task is run again there, or kept if it had finished).
const (
	interruptedMessage = "the server stopped while this was running"
	resumedMessage     = "the server stopped while this was running; the turn continues on another run, which retries it"
)

// closingEvents returns the events that close what a dead turn left open:
// an INTERRUPTED end for every tool call (the main agent's and sub-agents')
// that started without ending, and a cancelled end for every delegation node
// that had not ended. Appended before the turn's interrupted turn_end, they
// keep the stream's promise that every start has its end, so a client draws
// no call or task as running forever.
func closingEvents(recs []event.Record, message string) []event.Event {
	type key struct{ delegation, node, call string }
	var order []key
	open := map[key]event.Event{}
	nodes := map[key]bool{} // delegation+node -> ended
	var nodeOrder []key
	for _, r := range recs {
		ev, err := r.Decode()
		if err != nil {
			continue
		}
		switch e := ev.(type) {
		case *event.ToolCallStart:
			k := key{call: e.CallID}
			open[k] = &event.ToolCallEnd{CallID: e.CallID, Name: e.Name, OK: false,
				Error: &event.ToolError{Code: "INTERRUPTED", Message: message}}
			order = append(order, k)
		case *event.ToolCallEnd:
			delete(open, key{call: e.CallID})
		case *event.SubagentToolCallStart:
			k := key{e.DelegationID, e.NodeID, e.CallID}
			open[k] = &event.SubagentToolCallEnd{DelegationID: e.DelegationID, NodeID: e.NodeID, CallID: e.CallID, Name: e.Name,
				Error: &event.ToolError{Code: "INTERRUPTED", Message: message}}
			order = append(order, k)
		case *event.SubagentToolCallEnd:
			delete(open, key{e.DelegationID, e.NodeID, e.CallID})
		case *event.SubagentPlan:
			for _, n := range e.Nodes {
				k := key{delegation: e.DelegationID, node: n.ID}
				nodes[k] = false
				nodeOrder = append(nodeOrder, k)
			}
		case *event.SubagentTaskEnd:
			nodes[key{delegation: e.DelegationID, node: e.NodeID}] = true
		}
	}
	var out []event.Event
	// Sub-agent calls first, then nodes, then the main agent's calls (the
	// delegate call ends after its nodes).
	for _, k := range order {
		if ev, ok := open[k]; ok && k.node != "" {
			out = append(out, ev)
		}
	}
	for _, k := range nodeOrder {
		if !nodes[k] {
			out = append(out, &event.SubagentTaskEnd{DelegationID: k.delegation, NodeID: k.node,
				Status: event.NodeCancelled, Error: message})
		}
	}
	for _, k := range order {
		if ev, ok := open[k]; ok && k.node == "" {
			out = append(out, ev)
		}
	}
	return out
}
