package event

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Name returns the SSE event name of e. Every event type names itself
// with an unexported method, so the set is sealed: a type outside this
// package cannot be an Event, and a type here cannot forget its name.
func Name(e Event) string { return e.wireName() }

func (*TurnStart) wireName() string             { return "turn_start" }
func (*AssistantDelta) wireName() string        { return "assistant_delta" }
func (*AssistantMessage) wireName() string      { return "assistant_message" }
func (*ToolCallStart) wireName() string         { return "tool_call_start" }
func (*ToolCallEnd) wireName() string           { return "tool_call_end" }
func (*ArtifactSaved) wireName() string         { return "artifact_saved" }
func (*HandoffRequested) wireName() string      { return "handoff_requested" }
func (*HandoffAccepted) wireName() string       { return "handoff_accepted" }
func (*ConversationRenamed) wireName() string   { return "conversation_renamed" }
func (*QuestionAsked) wireName() string         { return "question_asked" }
func (*ControlsChanged) wireName() string       { return "controls_changed" }
func (*GraphSnapshot) wireName() string         { return "graph_snapshot" }
func (*RequirementsChecked) wireName() string   { return "requirements_checked" }
func (*SubagentPlan) wireName() string          { return "subagent_plan" }
func (*SubagentTaskRetry) wireName() string     { return "subagent_task_retry" }
func (*SubagentTaskStart) wireName() string     { return "subagent_task_start" }
func (*SubagentToolCallStart) wireName() string { return "subagent_tool_call_start" }
func (*SubagentToolCallEnd) wireName() string   { return "subagent_tool_call_end" }
func (*SubagentMessage) wireName() string       { return "subagent_message" }
func (*SubagentTaskEnd) wireName() string       { return "subagent_task_end" }
func (*Usage) wireName() string                 { return "usage" }
func (*Error) wireName() string                 { return "error" }
func (*TurnResumed) wireName() string           { return "turn_resumed" }
func (*TurnEnd) wireName() string               { return "turn_end" }

// All returns an empty event of every type, in contract order.
func All() []Event {
	return []Event{
		&TurnStart{},
		&AssistantDelta{},
		&AssistantMessage{},
		&ToolCallStart{},
		&ToolCallEnd{},
		&ArtifactSaved{},
		&HandoffRequested{},
		&HandoffAccepted{},
		&ConversationRenamed{},
		&QuestionAsked{},
		&ControlsChanged{},
		&GraphSnapshot{},
		&RequirementsChecked{},
		&SubagentPlan{},
		&SubagentTaskRetry{},
		&SubagentTaskStart{},
		&SubagentToolCallStart{},
		&SubagentToolCallEnd{},
		&SubagentMessage{},
		&SubagentTaskEnd{},
		&Usage{},
		&Error{},
		&TurnResumed{},
		&TurnEnd{},
	}
}

// byName makes an empty event of a wire name.
var byName = func() map[string]func() Event {
	m := map[string]func() Event{}
	for _, proto := range All() {
		t := reflect.TypeOf(proto).Elem()
		m[proto.wireName()] = func() Event { return reflect.New(t).Interface().(Event) }
	}
	return m
}()

// newByName returns an empty event of a wire name.
func newByName(name string) (Event, bool) {
	mk, ok := byName[name]
	if !ok {
		return nil, false
	}
	return mk(), true
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
