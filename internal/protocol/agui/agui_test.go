package agui_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"strategist/internal/event"
	"strategist/internal/protocol/agui"
	"strategist/internal/protocol/protocoltest"
	"strategist/internal/store"
)

// serve mounts AG-UI over a fake host whose turns play events.
func serve(t *testing.T, events ...event.Event) (*protocoltest.Host, *httptest.Server, string) {
	t.Helper()
	h := protocoltest.New(t)
	if events != nil {
		h.Run = h.Play(events...)
	}
	p, err := agui.New(h)
	if err != nil {
		t.Fatal(err)
	}
	user := uuid.NewString()
	return h, protocoltest.Serve(t, h, p, user), user
}

// aguiEvent is one AG-UI event, as far as the tests read it.
type aguiEvent struct {
	Type      string
	ThreadID  string `json:"threadId"`
	MessageID string `json:"messageId"`
	Delta     json.RawMessage
	Snapshot  map[string]any
	Outcome   struct {
		Type       string
		Interrupts []struct {
			ID             string
			Reason         string
			Message        string
			ResponseSchema map[string]any `json:"responseSchema"`
			Metadata       map[string]any
		}
	}
	Name   string
	Value  map[string]any
	Result map[string]any
	Code   string
}

// run posts a RunAgentInput and reads the SSE answer's events.
func run(t *testing.T, srv *httptest.Server, body string) (protocoltest.Reply, []aguiEvent) {
	t.Helper()
	r := protocoltest.Do(t, srv, http.MethodPost, agui.Path, body)
	var events []aguiEvent
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		return r, nil
	}
	for line := range strings.Lines(string(r.Body)) {
		if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			var e aguiEvent
			if err := json.Unmarshal([]byte(d), &e); err != nil {
				t.Fatalf("event %s: %v", d, err)
			}
			events = append(events, e)
		}
	}
	return r, events
}

func types(events []aguiEvent) string {
	var out []string
	for _, e := range events {
		out = append(out, e.Type)
	}
	return strings.Join(out, " ")
}

// TestRunStartsAThread: a thread id that is no conversation yet starts
// one under that id; the run streams RUN_STARTED, the state, the text and
// RUN_FINISHED with the strategy's summary, and the user's message
// carries the client's context.
func TestRunStartsAThread(t *testing.T) {
	t.Parallel()
	h, srv, user := serve(t,
		&event.AssistantDelta{MessageID: "m1", Delta: "Kinases"},
		&event.AssistantMessage{MessageID: "m1", Content: "Kinases"},
		&event.TurnEnd{Status: event.TurnCompleted})
	thread := uuid.NewString()
	r, events := run(t, srv, `{"threadId":"`+strings.ToUpper(thread)+`","runId":"r1","messages":[{"id":"u1","role":"user","content":"kinases"}],`+
		`"context":[{"description":"organism","value":"P. falciparum"}],"tools":[],"state":{}}`)
	want := "RUN_STARTED STATE_SNAPSHOT TEXT_MESSAGE_START TEXT_MESSAGE_CONTENT TEXT_MESSAGE_END RUN_FINISHED"
	if r.Status != http.StatusOK || types(events) != want {
		t.Fatalf("run = %d %q, want %q (%s)", r.Status, types(events), want, r.Body)
	}
	if r.Header.Get("X-Strategist-Conversation") != thread || events[1].Snapshot["conversationId"] != thread || events[1].Snapshot["strategy"] != nil {
		t.Errorf("conversation header %q, state %v", r.Header.Get("X-Strategist-Conversation"), events[1].Snapshot)
	}
	last := events[len(events)-1]
	if last.Outcome.Type != "success" || last.Result["summary"] != protocoltest.NoStrategy {
		t.Errorf("RUN_FINISHED = %+v", last)
	}
	sent := h.Sent()
	if len(sent) != 1 || sent[0].UserID != user || sent[0].Conversation.ID != thread || sent[0].Text != "kinases\n\norganism: P. falciparum" {
		t.Errorf("sent %+v", sent)
	}
}

// TestPlanInterruptsAndResumes: a plan waiting for approval ends the run
// with an interrupt named by its handoff; resuming it "resolved" accepts
// that plan, "cancelled" with nothing new runs no turn, and an interrupt
// no plan waits under is a conflict.
func TestPlanInterruptsAndResumes(t *testing.T) {
	t.Parallel()
	h, srv, _ := serve(t,
		&event.HandoffRequested{HandoffID: "h1", Goal: "kinases", Plan: json.RawMessage(`{"goal":"kinases"}`)},
		&event.TurnEnd{Status: event.TurnCompleted})
	thread := uuid.NewString()
	_, events := run(t, srv, `{"threadId":"`+thread+`","runId":"r1","messages":[{"role":"user","content":"kinases"}]}`)
	last := events[len(events)-1]
	if last.Type != "RUN_FINISHED" || last.Outcome.Type != "interrupt" || len(last.Outcome.Interrupts) != 1 ||
		last.Outcome.Interrupts[0].ID != "h1" || last.Outcome.Interrupts[0].Reason != "plan_approval" {
		t.Fatalf("plan run ended %+v", last)
	}
	if r, _ := run(t, srv, `{"threadId":"`+thread+`","runId":"r2","resume":[{"interruptId":"other","status":"resolved"}]}`); r.Status != http.StatusConflict ||
		!strings.Contains(string(r.Body), "HANDOFF_DECIDED") {
		t.Errorf("resuming an unknown interrupt = %d %s, want 409 HANDOFF_DECIDED", r.Status, r.Body)
	}
	if _, events := run(t, srv, `{"threadId":"`+thread+`","runId":"r3","resume":[{"interruptId":"h1","status":"cancelled"}]}`); types(events) != "RUN_STARTED STATE_SNAPSHOT RUN_FINISHED" {
		t.Errorf("declined plan run = %q", types(events))
	}
	if n := len(h.Sent()); n != 1 {
		t.Errorf("%d messages sent after the decline, want 1", n)
	}
	if _, events := run(t, srv, `{"threadId":"`+thread+`","runId":"r4","resume":[{"interruptId":"H1","status":"resolved"}]}`); len(events) == 0 {
		t.Fatal("the resumed run streamed nothing")
	}
	if sent := h.Sent(); len(sent) != 2 || sent[1].Accept != "h1" {
		t.Errorf("resumed run sent %+v, want the plan h1 accepted", sent)
	}
}

// TestStateFollowsTheStrategy: the state snapshot carries the strategy
// built so far, and each graph snapshot is a JSON Patch of it.
func TestStateFollowsTheStrategy(t *testing.T) {
	t.Parallel()
	_, srv, _ := serve(t,
		&event.GraphSnapshot{Snapshot: json.RawMessage(`{"steps":[{"id":"s1"}],"rootStepId":"s1"}`)},
		&event.GraphSnapshot{Snapshot: json.RawMessage(`{"steps":[{"id":"s1"},{"id":"s2"}],"rootStepId":"s2"}`)},
		&event.TurnEnd{Status: event.TurnCompleted})
	_, events := run(t, srv, `{"threadId":"`+uuid.NewString()+`","runId":"r1","messages":[{"role":"user","content":"kinases"}]}`)
	if got := types(events); got != "RUN_STARTED STATE_SNAPSHOT STATE_DELTA STATE_DELTA RUN_FINISHED" {
		t.Fatalf("run = %q", got)
	}
	want := []string{
		`[{"op":"replace","path":"/strategy","value":{"rootStepId":"s1","steps":[{"id":"s1"}]}}]`,
		`[{"op":"replace","path":"/strategy/rootStepId","value":"s2"},{"op":"add","path":"/strategy/steps/1","value":{"id":"s2"}}]`,
	}
	for i, w := range want {
		if got := string(events[2+i].Delta); got != w {
			t.Errorf("delta %d = %s, want %s", i, got, w)
		}
	}
}

// TestRunRefusals: a body or thread the protocol cannot read, another
// user's thread and a turn the orchestrator refuses are JSON errors before
// any stream, and the refused run's new thread is discarded.
func TestRunRefusals(t *testing.T) {
	t.Parallel()
	h, srv, _ := serve(t)
	other, err := h.CreateConversationWithID(t.Context(), uuid.NewString(), uuid.NewString(), "plasmodb", "not yours")
	if err != nil {
		t.Fatal(err)
	}
	fresh := uuid.NewString()
	for _, tc := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"malformed", `{"threadId":`, 400, "BAD_REQUEST"},
		{"no run id", `{"threadId":"` + fresh + `"}`, 400, "BAD_REQUEST"},
		{"thread not a UUID", `{"threadId":"t1","runId":"r1","messages":[{"role":"user","content":"x"}]}`, 400, "BAD_REQUEST"},
		{"another's thread", `{"threadId":"` + other.ID + `","runId":"r1","messages":[{"role":"user","content":"x"}]}`, 404, "NOT_FOUND"},
		{"unknown site", `{"threadId":"` + uuid.NewString() + `","runId":"r1","messages":[{"role":"user","content":"x"}],"forwardedProps":{"site":"nosuchdb"}}`, 422, "VALIDATION_ERROR"},
		{"refused turn", `{"threadId":"` + fresh + `","runId":"r1","messages":[{"role":"user","content":"x"}]}`, 503, "UNAVAILABLE"},
	} {
		r, events := run(t, srv, tc.body)
		var body struct{ Error struct{ Code string } }
		_ = json.Unmarshal(r.Body, &body)
		if r.Status != tc.status || body.Error.Code != tc.code || events != nil {
			t.Errorf("%s = %d %s, want %d %s", tc.name, r.Status, r.Body, tc.status, tc.code)
		}
	}
	if d := h.Discarded(); len(d) != 1 || d[0] != fresh {
		t.Errorf("discarded %v, want the refused run's thread %s", d, fresh)
	}
	if _, err := h.Conversation(t.Context(), other.UserID, other.ID); err != nil {
		t.Errorf("another's thread after the refusals: %v", err)
	}
	if _, err := h.Conversation(t.Context(), "", fresh); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused thread: %v, want it gone", err)
	}
}

// TestQuestionInterruptsAndResumes: a question the turn ended with is a
// CUSTOM strategist.question_asked as it is asked, and ends the run with
// an input_required interrupt under the question's id: its message the
// question with the options numbered, its response schema the payload
// that answers. Resuming it with {"option": n} sends that option's
// message as the researcher's next message, {"text"} their own words; an
// option the question lacks is a 400, and the answered question a 409.
func TestQuestionInterruptsAndResumes(t *testing.T) {
	t.Parallel()
	h, srv, user := serve(t)
	q, asking := protocoltest.Asking()
	h.Run = h.Play(asking...)
	thread := uuid.NewString()
	_, events := run(t, srv, `{"threadId":"`+thread+`","runId":"r1","messages":[{"role":"user","content":"kinases"}]}`)
	var custom *aguiEvent
	for i := range events {
		if events[i].Type == "CUSTOM" && events[i].Name == "strategist.question_asked" {
			custom = &events[i]
		}
	}
	if custom == nil || custom.Value["questionId"] != q.QuestionID || len(custom.Value["options"].([]any)) != 2 {
		t.Errorf("no question_asked event carrying the question: %s", types(events))
	}
	last := events[len(events)-1]
	if last.Type != "RUN_FINISHED" || last.Outcome.Type != "interrupt" || len(last.Outcome.Interrupts) != 1 {
		t.Fatalf("asking run ended %+v", last)
	}
	in := last.Outcome.Interrupts[0]
	props, _ := in.ResponseSchema["properties"].(map[string]any)
	option, _ := props["option"].(map[string]any)
	if in.ID != q.QuestionID || in.Reason != "input_required" || !strings.HasPrefix(in.Message, "Question: "+q.Question+"\n1. ") ||
		option["maximum"] != float64(2) || props["text"] == nil || in.Metadata["strategist/question"] == nil {
		t.Errorf("interrupt %+v", in)
	}

	h.Run = h.Play(&event.AssistantMessage{MessageID: "m2", Content: "A text search, then."}, &event.TurnEnd{Status: event.TurnCompleted})
	if r, _ := run(t, srv, `{"threadId":"`+thread+`","runId":"r2","resume":[{"interruptId":"`+q.QuestionID+`","status":"resolved","payload":{"option":3}}]}`); r.Status != http.StatusBadRequest {
		t.Errorf("resuming with an option the question lacks = %d %s, want 400", r.Status, r.Body)
	}
	_, events = run(t, srv, `{"threadId":"`+thread+`","runId":"r3","resume":[{"interruptId":"`+q.QuestionID+`","status":"resolved","payload":{"option":2}}]}`)
	if last := events[len(events)-1]; last.Type != "RUN_FINISHED" || last.Outcome.Type != "success" {
		t.Fatalf("answered run = %q, ended %+v", types(events), last)
	}
	if sent := h.Sent(); len(sent) != 2 || sent[1].Text != q.Options[1].Message || sent[1].Accept != "" {
		t.Errorf("the answer sent %+v, want the second option's message", sent)
	}
	if r, _ := run(t, srv, `{"threadId":"`+thread+`","runId":"r4","resume":[{"interruptId":"`+q.QuestionID+`","status":"resolved","payload":{"option":1}}]}`); r.Status != http.StatusConflict {
		t.Errorf("resuming an answered question = %d %s, want 409", r.Status, r.Body)
	}

	q, asking = protocoltest.Asking()
	h.Run = h.Play(asking...)
	run(t, srv, `{"threadId":"`+thread+`","runId":"r5","messages":[{"role":"user","content":"kinases again"}]}`)
	h.Run = h.Play(&event.TurnEnd{Status: event.TurnCompleted})
	run(t, srv, `{"threadId":"`+thread+`","runId":"r6","resume":[{"interruptId":"`+q.QuestionID+`","status":"resolved","payload":{"text":" serine/threonine kinases "}}]}`)
	msgs, err := h.Messages(t.Context(), user, thread)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, m := range msgs {
		if m.Role == event.RoleUser {
			said = append(said, m.Content)
		}
	}
	if want := []string{"kinases", q.Options[1].Message, "kinases again", "serine/threonine kinases"}; strings.Join(said, "|") != strings.Join(want, "|") {
		t.Errorf("the researcher said %q, want %q", said, want)
	}
}
