package agui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
)

// aguiStream writes one run's AG-UI events. The response starts with the
// first event of the run's turn, so a refused start is an ordinary error
// response.
type aguiStream struct {
	p    *Protocol
	c    echo.Context
	in   aguiInput
	conv store.Conversation
	// started is set once RUN_STARTED was written.
	started bool
	// open are the text messages started and not yet ended.
	open map[string]bool
	// steps are the open steps' names, by sub-agent node.
	steps map[string]string
	// labels are the delegation's node labels, by node id.
	labels map[string]string
	// state is the state as the client has it.
	state map[string]any
	// plan is the plan the run's turn asked to build.
	plan *event.HandoffRequested
}

// questionValue is a question as AG-UI carries it (a CUSTOM event's
// value, an interrupt's metadata).
func questionValue(q *event.QuestionAsked) map[string]any {
	return map[string]any{"questionId": q.QuestionID, "question": q.Question, "options": q.Options, "freeText": q.FreeText}
}

// questionInterrupt is the interrupt a question leaves: its message the
// question with its options numbered, its response schema the payload
// that answers it ({option: n}, or {text} when words of the researcher's
// own are welcome).
func questionInterrupt(q *event.QuestionAsked) map[string]any {
	props := map[string]any{"option": map[string]any{"type": "integer", "minimum": 1, "maximum": len(q.Options),
		"description": "the number of the option chosen: its message is sent as the researcher's next message"}}
	if q.FreeText {
		props["text"] = map[string]any{"type": "string", "minLength": 1, "description": "the answer in the researcher's own words"}
	}
	return map[string]any{"id": q.QuestionID, "reason": aguiReasonQuestion, "message": q.Summary(),
		"responseSchema": map[string]any{"type": "object", "properties": props, "minProperties": 1, "maxProperties": 1, "additionalProperties": false},
		"metadata":       map[string]any{"strategist/question": questionValue(q)}}
}

// send writes one event of type typ with fields.
func (a *aguiStream) send(typ string, fields map[string]any) error {
	fields["type"] = typ
	fields["timestamp"] = time.Now().UnixMilli()
	raw, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	w := a.c.Response()
	if _, err := fmt.Fprintf(w, "data: %s\n\n", raw); err != nil {
		return err
	}
	return http.NewResponseController(w).Flush()
}

// start writes the response's header, RUN_STARTED and the state.
func (a *aguiStream) start() error {
	a.started = true
	w := a.c.Response()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set(headerConversation, a.conv.ID)
	w.WriteHeader(http.StatusOK)
	run := map[string]any{"threadId": a.in.ThreadID, "runId": a.in.RunID, "protocolVersion": aguiVersion,
		"metadata": map[string]any{"strategist/conversationId": a.conv.ID, "strategist/conversationUrl": a.p.host.ConversationURL(a.conv.ID)}}
	if a.in.ParentRunID != "" {
		run["parentRunId"] = a.in.ParentRunID
	}
	if err := a.send("RUN_STARTED", run); err != nil {
		return err
	}
	return a.send("STATE_SNAPSHOT", map[string]any{"snapshot": a.state})
}

// custom sends a CUSTOM event named strategist.<name>.
func (a *aguiStream) custom(name string, value any) error {
	return a.send("CUSTOM", map[string]any{"name": "strategist." + name, "value": value})
}

// record writes what one event of the followed turns is in AG-UI.
func (a *aguiStream) record(r *event.Record, e event.Event) error {
	if e == nil {
		if !a.started {
			return nil
		}
		w := a.c.Response()
		if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
			return err
		}
		return http.NewResponseController(w).Flush()
	}
	if !a.started {
		if err := a.start(); err != nil {
			return err
		}
	}
	switch e := e.(type) {
	case *event.TurnStart:
		return a.custom("turn_start", map[string]any{"turnId": e.TurnID, "mode": e.Mode})
	case *event.AssistantDelta:
		if !a.open[e.MessageID] {
			a.open[e.MessageID] = true
			if err := a.send("TEXT_MESSAGE_START", map[string]any{"messageId": e.MessageID, "role": "assistant"}); err != nil {
				return err
			}
		}
		if e.Delta == "" {
			return nil
		}
		return a.send("TEXT_MESSAGE_CONTENT", map[string]any{"messageId": e.MessageID, "delta": e.Delta})
	case *event.AssistantMessage:
		if a.open[e.MessageID] {
			delete(a.open, e.MessageID)
			return a.send("TEXT_MESSAGE_END", map[string]any{"messageId": e.MessageID})
		}
		if strings.TrimSpace(e.Content) == "" {
			return nil
		}
		if err := a.send("TEXT_MESSAGE_START", map[string]any{"messageId": e.MessageID, "role": "assistant"}); err != nil {
			return err
		}
		if err := a.send("TEXT_MESSAGE_CONTENT", map[string]any{"messageId": e.MessageID, "delta": e.Content}); err != nil {
			return err
		}
		return a.send("TEXT_MESSAGE_END", map[string]any{"messageId": e.MessageID})
	case *event.ToolCallStart:
		return a.toolCall(aguiCallID(e.TurnID, "", e.CallID), e.Name, e.Args, nil)
	case *event.ToolCallEnd:
		return a.toolResult(aguiCallID(e.TurnID, "", e.CallID), e.OK, e.Result, e.Error, nil)
	case *event.SubagentToolCallStart:
		return a.toolCall(aguiCallID(e.TurnID, e.NodeID, e.CallID), e.Name, e.Args, map[string]any{"strategist/nodeId": e.NodeID})
	case *event.SubagentToolCallEnd:
		return a.toolResult(aguiCallID(e.TurnID, e.NodeID, e.CallID), e.OK, e.Result, e.Error, map[string]any{"strategist/nodeId": e.NodeID})
	case *event.ArtifactSaved:
		return a.custom("artifact_saved", e.Artifact)
	case *event.HandoffRequested:
		a.plan = e
		return a.custom("handoff_requested", map[string]any{"handoffId": e.HandoffID, "goal": e.Goal, "plan": e.Plan})
	case *event.QuestionAsked:
		return a.custom("question_asked", questionValue(e))
	case *event.HandoffAccepted:
		return a.custom("handoff_accepted", map[string]any{"handoffId": e.HandoffID, "executeTurnId": e.ExecuteTurnID})
	case *event.ConversationRenamed:
		return a.custom("conversation_renamed", map[string]any{"title": e.Title})
	case *event.ControlsChanged:
		return a.custom("controls_changed", e)
	case *event.RequirementsChecked:
		return a.custom("requirements_checked", e)
	case *event.GraphSnapshot:
		var snap any
		if err := json.Unmarshal(e.Snapshot, &snap); err != nil {
			return fmt.Errorf("agui: graph snapshot: %w", err)
		}
		ops := jsonPatch("/strategy", a.state["strategy"], snap, nil)
		a.state["strategy"] = snap
		if len(ops) == 0 {
			return nil
		}
		return a.send("STATE_DELTA", map[string]any{"delta": ops})
	case *event.SubagentPlan:
		for _, n := range e.Nodes {
			a.labels[n.ID] = n.Label
		}
		return a.custom("subagent_plan", map[string]any{"delegationId": e.DelegationID, "goal": e.Goal, "nodes": e.Nodes})
	case *event.SubagentTaskStart:
		if name, ok := a.steps[e.NodeID]; ok {
			delete(a.steps, e.NodeID)
			if err := a.send("STEP_FINISHED", map[string]any{"stepName": name}); err != nil {
				return err
			}
		}
		name := e.NodeID
		if l := a.labels[e.NodeID]; l != "" {
			name += ": " + l
		}
		a.steps[e.NodeID] = name
		return a.send("STEP_STARTED", map[string]any{"stepName": name,
			"metadata": map[string]any{"strategist/nodeId": e.NodeID, "strategist/attempt": e.Attempt}})
	case *event.SubagentTaskEnd:
		name, ok := a.steps[e.NodeID]
		if !ok {
			return nil
		}
		delete(a.steps, e.NodeID)
		meta := map[string]any{"strategist/nodeId": e.NodeID, "strategist/status": e.Status, "strategist/attempt": e.Attempt}
		if e.RootStepID != "" {
			meta["strategist/rootStepId"] = e.RootStepID
		}
		if e.Error != "" {
			meta["strategist/error"] = e.Error
		}
		return a.send("STEP_FINISHED", map[string]any{"stepName": name, "metadata": meta})
	case *event.Error:
		return a.custom("error", map[string]any{"code": e.Code, "message": e.Message, "retryable": e.Retryable})
	case *event.TurnResumed:
		return a.custom("turn_resumed", map[string]any{"run": e.Run, "reason": e.Reason})
	case *event.TurnEnd:
		return a.closeAll()
	}
	return nil // usage and sub-agent messages are not carried
}

// aguiCallID makes a tool call's id unique on the thread: models number
// their calls per request, and sub-agents each have their own.
func aguiCallID(turnID, nodeID, callID string) string {
	if nodeID != "" {
		return turnID + "/" + nodeID + "/" + callID
	}
	return turnID + "/" + callID
}

// toolCall writes a tool call with its arguments, whole.
func (a *aguiStream) toolCall(id, name string, args json.RawMessage, meta map[string]any) error {
	startEv := map[string]any{"toolCallId": id, "toolCallName": name}
	if meta != nil {
		startEv["metadata"] = meta
	}
	if err := a.send("TOOL_CALL_START", startEv); err != nil {
		return err
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := a.send("TOOL_CALL_ARGS", map[string]any{"toolCallId": id, "delta": string(args)}); err != nil {
		return err
	}
	return a.send("TOOL_CALL_END", map[string]any{"toolCallId": id})
}

// toolResult writes a tool call's result (or its error) as JSON text.
func (a *aguiStream) toolResult(id string, ok bool, result json.RawMessage, terr *event.ToolError, meta map[string]any) error {
	content := string(result)
	if !ok {
		raw, err := json.Marshal(map[string]any{"error": terr})
		if err != nil {
			return err
		}
		content = string(raw)
	}
	ev := map[string]any{"messageId": id + "/result", "toolCallId": id, "content": content, "role": "tool"}
	if meta != nil {
		ev["metadata"] = meta
	}
	return a.send("TOOL_CALL_RESULT", ev)
}

// closeAll ends the text messages and steps left open (a turn that
// ended early leaves them so): a run ends with none open.
func (a *aguiStream) closeAll() error {
	for _, id := range slices.Sorted(maps.Keys(a.open)) {
		if err := a.send("TEXT_MESSAGE_END", map[string]any{"messageId": id}); err != nil {
			return err
		}
	}
	clear(a.open)
	for _, node := range slices.Sorted(maps.Keys(a.steps)) {
		if err := a.send("STEP_FINISHED", map[string]any{"stepName": a.steps[node]}); err != nil {
			return err
		}
	}
	clear(a.steps)
	return nil
}

// finish ends the run as its last turn ended: an interrupt for a plan
// waiting for approval or a question waiting for an answer, a success with the strategy's summary, a
// cancellation, or RUN_ERROR.
func (a *aguiStream) finish(ctx context.Context, out protocol.Outcome) {
	if a.closeAll() != nil {
		return
	}
	end := map[string]any{"threadId": a.in.ThreadID, "runId": a.in.RunID}
	if u := out.Usage; u.TotalTokens > 0 {
		end["usage"] = []map[string]any{{"inputTokens": u.PromptTokens, "outputTokens": u.CompletionTokens, "totalTokens": u.TotalTokens}}
	}
	switch {
	case out.Status == event.TurnCompleted && out.PendingHandoff != "":
		in := map[string]any{"id": out.PendingHandoff, "reason": aguiReasonPlan,
			"message": "Plan ready. Resume this interrupt with status \"resolved\" to build it, or \"cancelled\" to leave it unbuilt."}
		if p := a.plan; p != nil && p.HandoffID == out.PendingHandoff {
			in["message"] = "Plan ready: " + p.Goal + ". Resume this interrupt with status \"resolved\" to build it, or \"cancelled\" to leave it unbuilt."
			in["metadata"] = map[string]any{"strategist/goal": p.Goal, "strategist/plan": p.Plan}
		}
		end["outcome"] = map[string]any{"type": "interrupt", "interrupts": []any{in}}
	case out.Status == event.TurnCompleted && out.Question != nil:
		end["outcome"] = map[string]any{"type": "interrupt", "interrupts": []any{questionInterrupt(out.Question)}}
	case out.Status == event.TurnCompleted:
		summary, root := a.p.host.RootSummary(ctx, account.UserID(a.c.Request().Context()), a.conv.ID)
		result := map[string]any{"conversationId": a.conv.ID, "conversationUrl": a.p.host.ConversationURL(a.conv.ID), "summary": summary}
		if root != nil {
			result["rootStepId"] = root.ID
			if root.Count != nil {
				result["rootCount"] = *root.Count
			}
		}
		end["result"] = result
		end["outcome"] = map[string]any{"type": "success"}
	case out.Status == event.TurnCancelled:
		end["outcome"] = map[string]any{"type": "cancelled"}
	default:
		msg := "The turn ended " + string(out.Status)
		if out.Error != "" {
			msg += ": " + out.Error
		}
		_ = a.send("RUN_ERROR", map[string]any{"message": msg, "code": "TURN_" + strings.ToUpper(string(out.Status))})
		return
	}
	_ = a.send("RUN_FINISHED", end)
}

// jsonPatch appends to ops the RFC 6902 operations that turn a into b,
// both decoded JSON, at path (a JSON Pointer): objects key by key, arrays
// index by index with additions or removals at their end, anything else
// replaced when it differs.
func jsonPatch(path string, a, b any, ops []map[string]any) []map[string]any {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		for _, k := range slices.Sorted(maps.Keys(av)) {
			if _, in := bv[k]; !in {
				ops = append(ops, map[string]any{"op": "remove", "path": path + "/" + pointerToken(k)})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(bv)) {
			if old, in := av[k]; in {
				ops = jsonPatch(path+"/"+pointerToken(k), old, bv[k], ops)
			} else {
				ops = append(ops, map[string]any{"op": "add", "path": path + "/" + pointerToken(k), "value": bv[k]})
			}
		}
		return ops
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		n := min(len(av), len(bv))
		for i := range n {
			ops = jsonPatch(path+"/"+strconv.Itoa(i), av[i], bv[i], ops)
		}
		for i := n; i < len(bv); i++ {
			ops = append(ops, map[string]any{"op": "add", "path": path + "/" + strconv.Itoa(i), "value": bv[i]})
		}
		for i := len(av) - 1; i >= n; i-- {
			ops = append(ops, map[string]any{"op": "remove", "path": path + "/" + strconv.Itoa(i)})
		}
		return ops
	}
	if reflect.DeepEqual(a, b) {
		return ops
	}
	return append(ops, map[string]any{"op": "replace", "path": path, "value": b})
}

// pointerToken escapes a key as a JSON Pointer reference token.
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
