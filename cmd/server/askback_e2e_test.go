package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
)

// askedQuestion is a question as ask_strategist and A2A's status data
// carry it.
type askedQuestion struct {
	QuestionID string `json:"questionId"`
	Question   string `json:"question"`
	FreeText   bool   `json:"freeText"`
	Options    []struct {
		Label, Message, Builds string
		Count                  *int
		Approximate            bool
	} `json:"options"`
}

// TestProtocolsAskBack: "kinases" maps to no search, so the offline
// planner asks back instead of counting. Over MCP (the go-sdk client),
// ask_strategist's result carries the question with its readings, each
// counted, the text search among them marked approximate, and its answer
// numbers them and says how to reply; the reply "1"
// in the conversation plans the first reading. Over A2A (the a2a-go
// client) the task ends input-required with the question as its status
// message's data; replying with an option's message in that context plans
// it, a task waiting with its plan. Over AG-UI the run ends with an
// input_required interrupt, and resuming it with an option's number plans
// that reading. Each conversation's stream keeps its invariants.
func TestProtocolsAskBack(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	s, err := mcpSession(t, ctx, a, a.Token)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var asked struct {
		ConversationID string
		Status         string
		Answer         string
		PlanWaiting    bool
		Question       *askedQuestion
	}
	callTool(t, ctx, s, "ask_strategist", map[string]any{"message": "kinases"}, &asked)
	q := asked.Question
	if asked.Status != "completed" || asked.PlanWaiting || q == nil || q.QuestionID == "" || !strings.Contains(q.Question, "kinases") ||
		len(q.Options) < 2 || len(q.Options) > 4 {
		t.Fatalf("ask_strategist answered %+v", asked)
	}
	if last := q.Options[len(q.Options)-1]; !last.Approximate || last.Count == nil {
		t.Errorf("the last reading is not the text search, counted and marked approximate: %+v", last)
	}
	for _, o := range q.Options {
		if o.Message == "" || o.Count == nil {
			t.Errorf("a reading without its message or count: %+v", o)
		}
	}
	// The offline planner's words number the readings: the answer adds
	// only how to reply.
	if !strings.Contains(asked.Answer, "\n1. "+q.Options[0].Label) || !strings.HasSuffix(asked.Answer, "> Reply with an option's number, or say in your own words what you meant.") {
		t.Errorf("the answer does not number the readings and close with how to reply:\n%s", asked.Answer)
	}
	var answered struct {
		Status      string
		PlanWaiting bool
		Question    *askedQuestion
	}
	callTool(t, ctx, s, "ask_strategist", map[string]any{"message": "1", "conversationId": asked.ConversationID}, &answered)
	if answered.Status != "completed" || !answered.PlanWaiting || answered.Question != nil {
		t.Errorf("answering \"1\" = %+v, want a plan waiting", answered)
	}
	recs := a.collect(asked.ConversationID, 0, 10*time.Second, untilTurnEnds(2))
	eventtest.Check(t, recs)
	var said []string
	for _, r := range recs {
		if r.Type != "turn_start" {
			continue
		}
		e, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		said = append(said, e.(*event.TurnStart).Message)
	}
	if len(said) != 2 || said[1] != q.Options[0].Message {
		t.Errorf("the turns were asked %q, want the first reading's message second", said)
	}

	client, _ := a2aClient(t, ctx, a, a.Token)
	events := a2aStream(t, ctx, client, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("kinases")))
	st := finalState(t, events)
	if st.State != a2a.TaskStateInputRequired || st.Message == nil || len(st.Message.Parts) != 2 {
		t.Fatalf("the asking task ended %+v", st)
	}
	raw, err := json.Marshal(st.Message.Parts[1].Data())
	if err != nil {
		t.Fatal(err)
	}
	var aq askedQuestion
	if err := json.Unmarshal(raw, &aq); err != nil || aq.QuestionID == "" || len(aq.Options) < 2 || !strings.HasPrefix(st.Message.Parts[0].Text(), "Question: ") {
		t.Fatalf("the status message's question %s (%v), text %q", raw, err, st.Message.Parts[0].Text())
	}
	task := events[0].(*a2a.Task)
	reply := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(aq.Options[0].Message))
	reply.ContextID = task.ContextID
	events = a2aStream(t, ctx, client, reply)
	if st := finalState(t, events); st.State != a2a.TaskStateInputRequired || artifactOf(nil, events, "plan") == nil {
		t.Errorf("the answer's task ended %+v, want its plan waiting", st)
	}
	eventtest.Check(t, a.collect(task.ContextID, 0, 10*time.Second, untilTurnEnds(2)))

	// AG-UI: the run ends with an input_required interrupt; resuming it
	// with {"option": 1} plans that reading, the run ending with the
	// plan's interrupt.
	thread := newThreadID(t)
	status, run := aguiRun(t, a, a.Token, map[string]any{"threadId": thread, "runId": "ask-1",
		"messages": []any{map[string]any{"id": "u1", "role": "user", "content": "kinases"}}})
	if status != http.StatusOK {
		t.Fatalf("the asking run: %d", status)
	}
	checkAGUIRun(t, run, thread, "ask-1")
	outcome, _ := run[len(run)-1]["outcome"].(map[string]any)
	interrupts, _ := outcome["interrupts"].([]any)
	if outcome["type"] != "interrupt" || len(interrupts) != 1 || interrupts[0].(map[string]any)["reason"] != "input_required" {
		t.Fatalf("the asking run ends %v", run[len(run)-1])
	}
	status, run = aguiRun(t, a, a.Token, map[string]any{"threadId": thread, "runId": "ask-2",
		"resume": []any{map[string]any{"interruptId": interrupts[0].(map[string]any)["id"], "status": "resolved", "payload": map[string]any{"option": 1}}}})
	if status != http.StatusOK {
		t.Fatalf("the answering run: %d", status)
	}
	checkAGUIRun(t, run, thread, "ask-2")
	outcome, _ = run[len(run)-1]["outcome"].(map[string]any)
	interrupts, _ = outcome["interrupts"].([]any)
	if outcome["type"] != "interrupt" || len(interrupts) != 1 || interrupts[0].(map[string]any)["reason"] != "plan_approval" {
		t.Errorf("the answering run ends %v, want the plan's interrupt", run[len(run)-1])
	}
	eventtest.Check(t, a.collect(thread, 0, 10*time.Second, untilTurnEnds(2)))
}
