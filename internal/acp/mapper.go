package acp

import (
	"encoding/json"
	"strings"

	"strategist/internal/event"
)

// mapper turns a turn's events into session updates. It belongs to one
// prompt.
type mapper struct {
	// streamed marks assistant messages whose text came as deltas.
	streamed map[string]bool
	// nodes are the delegation's nodes, in plan order, and their status.
	nodes  []event.PlanNode
	status map[string]event.NodeStatus
	errs   map[string]string
	labels map[string]string
	// handoff is the tool call standing for the plan's handoff, while the
	// build runs.
	handoff string
}

func newMapper() *mapper {
	return &mapper{streamed: map[string]bool{}, status: map[string]event.NodeStatus{}, errs: map[string]string{}, labels: map[string]string{}}
}

// updates returns the session updates e makes (none for an event ACP does
// not carry).
func (m *mapper) updates(e event.Event) []SessionUpdate {
	text := func(kind, messageID, s string) []SessionUpdate {
		b := textBlock(s)
		return []SessionUpdate{{SessionUpdate: kind, Content: &b, MessageID: messageID}}
	}
	switch e := e.(type) {
	case *event.AssistantDelta:
		m.streamed[e.MessageID] = true
		return text(UpdateAgentMessage, e.MessageID, e.Delta)
	case *event.AssistantMessage:
		if m.streamed[e.MessageID] || strings.TrimSpace(e.Content) == "" {
			return nil
		}
		return text(UpdateAgentMessage, e.MessageID, e.Content)
	case *event.ToolCallStart:
		return []SessionUpdate{{SessionUpdate: UpdateToolCall, ToolCall: ToolCall{ToolCallID: e.CallID, ToolTitle: e.Name,
			Kind: toolKind(e.Name), Status: ToolInProgress, RawInput: e.Args}}}
	case *event.ToolCallEnd:
		return []SessionUpdate{toolEnd(e.CallID, e.OK, e.Result, e.Error)}
	case *event.HandoffRequested:
		c := textBlock("Plan ready: " + e.Goal)
		input, _ := json.Marshal(map[string]any{"handoffId": e.HandoffID, "goal": e.Goal, "plan": e.Plan})
		return []SessionUpdate{{SessionUpdate: UpdateToolCall, ToolCall: ToolCall{ToolCallID: handoffCallID(e.HandoffID),
			ToolTitle: "Build the plan: " + e.Goal, Kind: "switch_mode", Status: ToolPending, RawInput: input,
			Content: []ToolCallContent{{Type: "content", Content: c}}}}}
	case *event.QuestionAsked:
		c := textBlock(e.Summary())
		input, _ := json.Marshal(map[string]any{"questionId": e.QuestionID, "question": e.Question, "options": e.Options, "freeText": e.FreeText})
		return []SessionUpdate{{SessionUpdate: UpdateToolCall, ToolCall: ToolCall{ToolCallID: questionCallID(e.QuestionID),
			ToolTitle: e.Question, Kind: "other", Status: ToolPending, RawInput: input,
			Content: []ToolCallContent{{Type: "content", Content: c}}}}}
	case *event.HandoffAccepted:
		m.handoff = handoffCallID(e.HandoffID)
		return nil // the permission's answer already said so
	case *event.ConversationRenamed:
		return []SessionUpdate{{SessionUpdate: UpdateSessionInfo, Title: e.Title}}
	case *event.SubagentPlan:
		m.nodes = e.Nodes
		for _, n := range e.Nodes {
			m.status[n.ID] = event.NodeQueued
			m.labels[n.ID] = n.Label
		}
		return []SessionUpdate{m.plan()}
	case *event.SubagentTaskStart:
		m.status[e.NodeID] = event.NodeRunning
		return []SessionUpdate{m.plan()}
	case *event.SubagentTaskEnd:
		m.status[e.NodeID] = e.Status
		switch {
		case e.Error != "":
			m.errs[e.NodeID] = e.Error
		case e.RootStepID != "":
			m.errs[e.NodeID] = ""
			m.labels[e.NodeID] = labelOf(m.nodes, e.NodeID) + " (step " + e.RootStepID + ")"
		}
		return []SessionUpdate{m.plan()}
	case *event.SubagentToolCallStart:
		return []SessionUpdate{{SessionUpdate: UpdateToolCall, ToolCall: ToolCall{ToolCallID: e.NodeID + "/" + e.CallID,
			ToolTitle: e.NodeID + " " + labelOf(m.nodes, e.NodeID) + ": " + e.Name, Kind: toolKind(e.Name), Status: ToolInProgress, RawInput: e.Args}}}
	case *event.SubagentToolCallEnd:
		return []SessionUpdate{toolEnd(e.NodeID+"/"+e.CallID, e.OK, e.Result, e.Error)}
	case *event.SubagentMessage:
		if strings.TrimSpace(e.Content) == "" {
			return nil
		}
		return text(UpdateAgentThought, "", e.NodeID+" "+labelOf(m.nodes, e.NodeID)+": "+e.Content+"\n")
	case *event.ControlsChanged:
		return text(UpdateAgentMessage, "", "\n\n> "+e.Summary()+"\n\n")
	case *event.RequirementsChecked:
		return text(UpdateAgentMessage, "", "\n\n> "+strings.ReplaceAll(e.Summary(), "\n", "\n> ")+"\n\n")
	case *event.Error:
		return text(UpdateAgentMessage, "", "\n\n> Error "+e.Code+": "+e.Message+"\n\n")
	case *event.TurnEnd:
		if m.handoff != "" && e.Status == event.TurnCompleted {
			return []SessionUpdate{{SessionUpdate: UpdateToolCallEdit, ToolCall: ToolCall{ToolCallID: m.handoff, Status: ToolCompleted}}}
		}
		if m.handoff != "" {
			return []SessionUpdate{{SessionUpdate: UpdateToolCallEdit, ToolCall: ToolCall{ToolCallID: m.handoff, Status: ToolFailed}}}
		}
	}
	return nil
}

func labelOf(nodes []event.PlanNode, id string) string {
	for _, n := range nodes {
		if n.ID == id {
			return n.Label
		}
	}
	return ""
}

// plan is the delegation's nodes as the agent's plan: queued nodes are
// pending, running ones in progress, and ended ones completed (ACP has no
// failed entry: the entry says how it ended).
func (m *mapper) plan() SessionUpdate {
	entries := make([]PlanEntry, 0, len(m.nodes))
	for _, n := range m.nodes {
		e := PlanEntry{Content: m.labels[n.ID], Priority: "medium", Status: PlanPending}
		if n.Kind == "task" {
			e.Priority = "high"
		}
		switch st := m.status[n.ID]; {
		case st == event.NodeRunning:
			e.Status = PlanInProgress
		case st == event.NodeDone:
			e.Status = PlanCompleted
		case st.Final():
			e.Status = PlanCompleted
			e.Content += " (" + string(st)
			if msg := m.errs[n.ID]; msg != "" {
				e.Content += ": " + msg
			}
			e.Content += ")"
		}
		entries = append(entries, e)
	}
	return SessionUpdate{SessionUpdate: UpdatePlan, Entries: entries}
}

// toolEnd is a tool call's outcome: its result, or its error as content.
func toolEnd(id string, ok bool, result json.RawMessage, te *event.ToolError) SessionUpdate {
	u := SessionUpdate{SessionUpdate: UpdateToolCallEdit, ToolCall: ToolCall{ToolCallID: id, Status: ToolCompleted, RawOutput: result}}
	if !ok {
		u.Status = ToolFailed
		msg := "failed"
		if te != nil {
			msg = te.Code + ": " + te.Message
			u.RawOutput, _ = json.Marshal(te)
		}
		u.ToolCall.Content = []ToolCallContent{{Type: "content", Content: textBlock(msg)}}
	}
	return u
}

// toolKind is the ACP kind of one of the agents' tools, for the editor's
// icon: catalog look-ups search, reads read, strategy changes edit.
func toolKind(name string) string {
	switch name {
	case "search_for_searches", "lookup_genes", "search":
		return "search"
	case "list_sites", "list_record_types", "get_search_parameters", "get_strategy", "list_steps", "get_result_count",
		"validate_strategy", "get_artifact", "list_artifacts", "count_genes":
		return "read"
	case "create_step", "transform_step", "combine_steps", "update_step", "rename_strategy", "undo_last_change", "enrich_step":
		return "edit"
	case "delete_step":
		return "delete"
	case "save_planning_artifact", "save_delegation_draft", "set_conversation_title":
		return "think"
	case "request_build", "request_executor_build", "delegate_strategy_subtasks", "delegate":
		return "execute"
	}
	return "other"
}
