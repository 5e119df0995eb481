package event

import (
	"encoding/json"
	"fmt"
)

// Name returns the SSE event name of e. It is the only place names are
// produced.
func Name(e Event) string {
	switch e.(type) {
	case *TurnStart:
		return "turn_start"
	case *AssistantDelta:
		return "assistant_delta"
	case *AssistantMessage:
		return "assistant_message"
	case *ToolCallStart:
		return "tool_call_start"
	case *ToolCallEnd:
		return "tool_call_end"
	case *ArtifactSaved:
		return "artifact_saved"
	case *HandoffRequested:
		return "handoff_requested"
	case *HandoffAccepted:
		return "handoff_accepted"
	case *ConversationRenamed:
		return "conversation_renamed"
	case *GraphSnapshot:
		return "graph_snapshot"
	case *SubagentPlan:
		return "subagent_plan"
	case *SubagentTaskStart:
		return "subagent_task_start"
	case *SubagentToolCallStart:
		return "subagent_tool_call_start"
	case *SubagentToolCallEnd:
		return "subagent_tool_call_end"
	case *SubagentMessage:
		return "subagent_message"
	case *SubagentTaskEnd:
		return "subagent_task_end"
	case *Usage:
		return "usage"
	case *Error:
		return "error"
	case *TurnEnd:
		return "turn_end"
	}
	panic(fmt.Sprintf("event: unknown event type %T", e)) // the set is sealed; a new type must be named here
}

// newByName returns an empty event of a wire name.
func newByName(name string) (Event, bool) {
	switch name {
	case "turn_start":
		return &TurnStart{}, true
	case "assistant_delta":
		return &AssistantDelta{}, true
	case "assistant_message":
		return &AssistantMessage{}, true
	case "tool_call_start":
		return &ToolCallStart{}, true
	case "tool_call_end":
		return &ToolCallEnd{}, true
	case "artifact_saved":
		return &ArtifactSaved{}, true
	case "handoff_requested":
		return &HandoffRequested{}, true
	case "handoff_accepted":
		return &HandoffAccepted{}, true
	case "conversation_renamed":
		return &ConversationRenamed{}, true
	case "graph_snapshot":
		return &GraphSnapshot{}, true
	case "subagent_plan":
		return &SubagentPlan{}, true
	case "subagent_task_start":
		return &SubagentTaskStart{}, true
	case "subagent_tool_call_start":
		return &SubagentToolCallStart{}, true
	case "subagent_tool_call_end":
		return &SubagentToolCallEnd{}, true
	case "subagent_message":
		return &SubagentMessage{}, true
	case "subagent_task_end":
		return &SubagentTaskEnd{}, true
	case "usage":
		return &Usage{}, true
	case "error":
		return &Error{}, true
	case "turn_end":
		return &TurnEnd{}, true
	}
	return nil, false
}

// Encode returns the wire name and JSON payload of e.
func Encode(e Event) (string, json.RawMessage, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return "", nil, fmt.Errorf("event: encode %T: %w", e, err)
	}
	return Name(e), b, nil
}

// Decode parses a stored or streamed event.
func Decode(name string, payload []byte) (Event, error) {
	e, ok := newByName(name)
	if !ok {
		return nil, fmt.Errorf("event: unknown event %q", name)
	}
	if err := json.Unmarshal(payload, e); err != nil {
		return nil, fmt.Errorf("event: decode %s: %w", name, err)
	}
	return e, nil
}

// Decode parses the record's payload.
func (r Record) Decode() (Event, error) { return Decode(r.Type, r.Payload) }
