package chat_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"strategist/internal/agent"
	"strategist/internal/chat"
	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/llm"
	"strategist/internal/store"
	"strategist/internal/tool"
)

// TestTurnStartsAndEnds: a turn commits its start (user message, running
// row owned by this process, turn_start), runs its role's agent detached
// from the caller, streams what the agent says and ends with turn_end and
// the row's final status; its messages are stored for the next turn.
func TestTurnStartsAndEnds(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"text":"Which organism do you study?"}]}}`)
	w := newWorld(t)
	p := w.start(options{engine: e})

	id := w.mustStart(p, w.convID, "Find kinases")
	tr := w.waitEnd(w.convID, id)
	if tr.Status != event.TurnCompleted || tr.Mode != chat.ModePlan || tr.Model != testModel || tr.Owner != p.owner {
		t.Errorf("turn row = %+v, want completed plan turn of %s owned by %s", tr, testModel, p.owner)
	}
	recs := w.checkLog(w.convID)
	got := turnEvents(recs, id)
	if len(got) < 3 || got[0] != "turn_start" || got[len(got)-1] != "turn_end" || !slices.Contains(got, "assistant_message") {
		t.Errorf("turn events = %v, want turn_start ... assistant_message ... turn_end", got)
	}
	start := decode[*event.TurnStart](t, recs, id, "turn_start")
	if start.Mode != chat.ModePlan || start.Model != testModel || start.Message != "Find kinases" || start.UserMessageID == "" {
		t.Errorf("turn_start = %+v", start)
	}
	if msg := decode[*event.AssistantMessage](t, recs, id, "assistant_message"); msg.Content != "Which organism do you study?" {
		t.Errorf("assistant_message = %q", msg.Content)
	}
	if end := decode[*event.TurnEnd](t, recs, id, "turn_end"); end.Status != event.TurnCompleted || end.Error != "" {
		t.Errorf("turn_end = %+v", end)
	}

	msgs, err := w.db.Messages(t.Context(), w.userID, w.convID)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role)+": "+m.Content)
	}
	want := []string{"user: Find kinases", "assistant: Which organism do you study?"}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("stored messages (-want +got):\n%s", diff)
	}
	if msgs[0].ID != start.UserMessageID {
		t.Errorf("user message id %s, turn_start names %s", msgs[0].ID, start.UserMessageID)
	}
}

// TestStartTurnInput: a bad request is refused before anything is stored,
// naming the field; another user's conversation is not found.
func TestStartTurnInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.start(options{engine: engine(t, `{"roles":{}}`)})
	req := func(mode chat.Mode, msg, model string) chat.TurnRequest {
		return chat.TurnRequest{UserID: w.userID, ConversationID: w.convID, Message: msg, Mode: mode, Model: model}
	}
	for _, tt := range []struct {
		name  string
		req   chat.TurnRequest
		field string
	}{
		{"bad mode", req("build", "hello", ""), "mode"},
		{"empty message", req(chat.ModePlan, "  \n", ""), "message"},
		{"long message", req(chat.ModePlan, strings.Repeat("é", chat.MaxMessage+1), ""), "message"},
	} {
		_, err := p.startTurn(t, tt.req)
		if ie, ok := errors.AsType[*chat.InputError](err); !ok || ie.Field != tt.field {
			t.Errorf("%s: err = %v, want an input error on %s", tt.name, err, tt.field)
		}
	}
	if _, err := p.startTurn(t, req(chat.ModePlan, "hello", "gemini:nope")); !errors.Is(err, llm.ErrUnknownModel) {
		t.Errorf("unknown model: err = %v, want llm.ErrUnknownModel", err)
	}
	stranger, err := w.db.CreateUser(t.Context(), "eve@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.startTurn(t, chat.TurnRequest{UserID: stranger.ID, ConversationID: w.convID, Message: "hello", Mode: chat.ModePlan})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another user's conversation: err = %v, want store.ErrNotFound", err)
	}
	// A request naming its model is not checked against the conversation
	// first: the start itself refuses, and nothing is written.
	for _, r := range []chat.TurnRequest{
		{UserID: stranger.ID, ConversationID: w.convID, Message: "hello", Mode: chat.ModePlan, Model: testModel},
		{UserID: stranger.ID, ConversationID: w.convID, Message: "hello", Mode: "build", Model: testModel},
		{UserID: stranger.ID, ConversationID: w.convID, Message: "hello", Mode: chat.ModePlan, Model: "gemini:nope"},
		{UserID: w.userID, ConversationID: "not-a-conversation", Message: "hello", Mode: chat.ModePlan, Model: testModel},
	} {
		if _, err := p.startTurn(t, r); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%+v: err = %v, want store.ErrNotFound", r, err)
		}
	}
	if recs := w.events(w.convID); len(recs) != 0 {
		t.Errorf("refused requests left events: %v", types(recs))
	}
}

// TestOneRunningTurn: while a turn runs, a second start in the same
// conversation is ErrTurnRunning (the API's 409), other conversations are
// not held up, cancelling ends the turn cancelled, and then the
// conversation takes turns again. Cancelling an ended turn is a no-op.
func TestOneRunningTurn(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[
		{"toolCalls":[{"name":"wait","args":{}}]},
		{"text":"again"}],
		"executor":[{"text":"elsewhere"}]}}`)
	w := newWorld(t)
	p := w.start(options{engine: e, planner: waitingPlanner()})

	first := w.mustStart(p, w.convID, "a long question")
	w.waitFor(w.convID, "tool_call_start")
	_, err := p.startTurn(t, chat.TurnRequest{UserID: w.userID, ConversationID: w.convID, Message: "another", Mode: chat.ModePlan})
	if !errors.Is(err, chat.ErrTurnRunning) {
		t.Fatalf("second start while a turn runs: err = %v, want ErrTurnRunning", err)
	}

	// In execute mode, so its model call does not race the slow one for
	// the planner's script.
	other := w.conversation()
	meanwhile, err := p.startTurn(t, chat.TurnRequest{UserID: w.userID, ConversationID: other, Message: "meanwhile", Mode: chat.ModeExecute})
	if err != nil {
		t.Fatal(err)
	}
	if tr := w.waitEnd(other, meanwhile); tr.Status != event.TurnCompleted {
		t.Errorf("a turn of another conversation ended %s", tr.Status)
	}

	if err := p.Cancel(t.Context(), w.userID, w.convID, first); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	if tr := w.waitEnd(w.convID, first); tr.Status != event.TurnCancelled {
		t.Errorf("cancelled turn ended %s (%s)", tr.Status, tr.Error)
	}
	if err := p.Cancel(t.Context(), w.userID, w.convID, first); err != nil {
		t.Errorf("cancelling an ended turn: %v", err)
	}

	again := w.mustStart(p, w.convID, "one more")
	if tr := w.waitEnd(w.convID, again); tr.Status != event.TurnCompleted {
		t.Errorf("the turn after the cancelled one ended %s", tr.Status)
	}
	recs := w.checkLog(w.convID)
	if end := decode[*event.TurnEnd](t, recs, first, "turn_end"); end.Status != event.TurnCancelled {
		t.Errorf("turn_end of the cancelled turn = %+v", end)
	}
	if got := turnEvents(recs, first); slices.Contains(got, "assistant_message") {
		t.Errorf("the cancelled turn still answered: %v", got)
	}
	w.checkLog(other)
}

// waitingPlanner is a planner whose wait tool runs until its turn stops: a
// test sees tool_call_start and knows the turn is in the middle of it.
func waitingPlanner() role {
	type none struct{}
	return role{name: "planner", tools: func(agent.Env) []tool.Tool {
		return []tool.Tool{tool.NewTool("wait", "Wait until stopped.", func(ctx context.Context, _ none) (*none, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})}
	}}
}

// TestCancelFromAnotherProcess: a turn is cancelled where it runs, whichever
// process the request reaches (through the cancel notification). Either
// process may take the turn's job; the cancel goes through the other one.
func TestCancelFromAnotherProcess(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"text":"slow answer","latencyMs":600000}]}}`)
	w := newWorld(t)
	first := w.start(options{engine: e})
	second := w.start(options{engine: e})

	id := w.mustStart(first, w.convID, "a long question")
	runner := w.waitOwned(w.convID, id, first, second)
	other := first
	if runner == first {
		other = second
	}
	// The notification reaches the runner once its listener is connected;
	// cancelling again is harmless, so ask until the turn ends.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := other.Cancel(t.Context(), w.userID, w.convID, id); err != nil {
			t.Fatalf("Cancel: %v", err)
		}
		tr, err := w.db.Turn(t.Context(), w.userID, w.convID, id)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Status != "running" {
			if tr.Status != event.TurnCancelled || tr.Owner != runner.owner {
				t.Errorf("turn ended %s, owned by %s; want cancelled, owned by %s", tr.Status, tr.Owner, runner.owner)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn was not cancelled from the other process within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.checkLog(w.convID)
}

// TestCancelQueuedTurn: a turn cancelled while no process runs it (its job
// not yet taken) ends cancelled as soon as a process takes it, without its
// agent running.
func TestCancelQueuedTurn(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"text":"should not be said"}]}}`)
	w := newWorld(t)
	// A turn committed as another process's start would have: queued, and
	// cancelled before any process took it.
	id := w.queued(w.convID, "a question")
	p := w.start(options{engine: e})
	if err := p.Cancel(t.Context(), w.userID, w.convID, id); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	w.sql(`UPDATE river_job SET state = 'available', scheduled_at = now() WHERE args->>'turnId' = $1`, id)
	if tr := w.waitEnd(w.convID, id); tr.Status != event.TurnCancelled {
		t.Errorf("queued turn ended %s (%s), want cancelled", tr.Status, tr.Error)
	}
	recs := w.checkLog(w.convID)
	if diff := cmp.Diff([]string{"turn_start", "turn_end"}, turnEvents(recs, id)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// handoffPlanner is a planner whose request_build tool asks for a build, as
// the real planner's request_executor_build does: a pending handoff row and
// a handoff_requested event.
func handoffPlanner(w *world, draftID string) role {
	type args struct {
		Goal      string `json:"goal" jsonschema:"what to build"`
		Confirmed bool   `json:"confirmed,omitempty" jsonschema:"the researcher agreed"`
	}
	type result struct {
		HandoffID string `json:"handoffId"`
	}
	plan := json.RawMessage(`{"type":"task","task":"Find protein kinases on chromosome 7"}`)
	return role{name: "planner", tools: func(env agent.Env) []tool.Tool {
		return []tool.Tool{tool.NewTool("request_build", "Ask the researcher to approve the build.",
			func(ctx context.Context, a args) (*result, error) {
				h, err := w.db.CreateHandoff(ctx, env.UserID, env.ConversationID, draftID, env.TurnID, a.Goal, plan)
				if err != nil {
					return nil, err
				}
				if err := env.Emit(ctx, &event.HandoffRequested{HandoffID: h.ID, Goal: a.Goal, ArtifactID: draftID, Plan: plan, Confirmed: a.Confirmed}); err != nil {
					return nil, err
				}
				return &result{HandoffID: h.ID}, nil
			})}
	}}
}

// artifacts saves a planning artifact and a delegation draft, as the
// planner would have, and returns the draft's id.
func (w *world) artifacts() string {
	w.t.Helper()
	ctx := w.t.Context()
	if _, err := w.db.SaveArtifact(ctx, store.SaveArtifact{UserID: w.userID, ConversationID: w.convID, Kind: "planning",
		Title: "Kinases on chromosome 7", Body: json.RawMessage(`{"summaryMarkdown":"Protein kinases on chromosome 7 of P. falciparum 3D7.","assumptions":["3D7 only"]}`)}); err != nil {
		w.t.Fatal(err)
	}
	d, err := w.db.SaveArtifact(ctx, store.SaveArtifact{UserID: w.userID, ConversationID: w.convID, Kind: "delegation_draft",
		Title: "Draft", Body: json.RawMessage(`{"summaryMarkdown":"One task."}`)})
	if err != nil {
		w.t.Fatal(err)
	}
	return d.ID
}

const handoffScript = `{"roles":{
	"planner":[
		{"toolCalls":[{"name":"request_build","args":{"goal":"Protein kinases on chromosome 7"}}]},
		{"text":"Approve the plan to build it."},
		{"text":"still thinking","latencyMs":600000}],
	"executor":[{"text":"Built the strategy."}]}}`

// TestAcceptHandoff: accepting a pending handoff starts an execute turn in
// the same transaction that marks it accepted; the turn opens with
// turn_start (naming the handoff) and handoff_accepted, and the executor
// receives the goal, the plan and the planning artifacts. A decided handoff
// cannot be accepted again, and none can while a turn runs.
func TestAcceptHandoff(t *testing.T) {
	t.Parallel()
	e := engine(t, handoffScript)
	w := newWorld(t)
	draft := w.artifacts()
	p := w.start(options{engine: e, planner: handoffPlanner(w, draft)})

	planTurn := w.mustStart(p, w.convID, "Find kinases on chromosome 7")
	if tr := w.waitEnd(w.convID, planTurn); tr.Status != event.TurnCompleted {
		t.Fatalf("plan turn ended %s: %s", tr.Status, tr.Error)
	}
	recs := w.events(w.convID)
	hid := decode[*event.HandoffRequested](t, recs, planTurn, "handoff_requested").HandoffID

	// A running turn blocks the accept; the handoff stays pending.
	busy := w.mustStart(p, w.convID, "one more thing")
	if _, err := p.AcceptHandoff(t.Context(), w.userID, w.convID, hid); !errors.Is(err, chat.ErrTurnRunning) {
		t.Errorf("accept while a turn runs: err = %v, want ErrTurnRunning", err)
	}
	if h, err := w.db.Handoff(t.Context(), w.userID, w.convID, hid); err != nil || h.Status != "pending" {
		t.Errorf("handoff after a refused accept = %+v, %v; want pending", h, err)
	}
	if err := p.Cancel(t.Context(), w.userID, w.convID, busy); err != nil {
		t.Fatal(err)
	}
	w.waitEnd(w.convID, busy)

	execTurn, err := p.AcceptHandoff(t.Context(), w.userID, w.convID, hid)
	if err != nil {
		t.Fatalf("AcceptHandoff: %v", err)
	}
	tr := w.waitEnd(w.convID, execTurn)
	if tr.Status != event.TurnCompleted || tr.Mode != chat.ModeExecute {
		t.Errorf("execute turn = %s %s (%s), want a completed execute turn", tr.Mode, tr.Status, tr.Error)
	}
	recs = w.checkLog(w.convID)
	if got := turnEvents(recs, execTurn); len(got) < 2 || got[0] != "turn_start" || got[1] != "handoff_accepted" {
		t.Errorf("execute turn events = %v, want turn_start, handoff_accepted first", got)
	}
	if start := decode[*event.TurnStart](t, recs, execTurn, "turn_start"); start.HandoffID != hid || start.Mode != chat.ModeExecute {
		t.Errorf("turn_start = %+v, want execute mode naming handoff %s", start, hid)
	}
	if acc := decode[*event.HandoffAccepted](t, recs, execTurn, "handoff_accepted"); acc.HandoffID != hid || acc.ExecuteTurnID != execTurn {
		t.Errorf("handoff_accepted = %+v", acc)
	}
	h, err := w.db.Handoff(t.Context(), w.userID, w.convID, hid)
	if err != nil {
		t.Fatal(err)
	}
	if h.Status != "accepted" || h.ExecuteTurnID == nil || *h.ExecuteTurnID != execTurn {
		t.Errorf("handoff row = %s, execute turn %v; want accepted by %s", h.Status, h.ExecuteTurnID, execTurn)
	}
	conv, err := w.db.Conversation(t.Context(), w.userID, w.convID)
	if err != nil || conv.Mode != chat.ModeExecute {
		t.Errorf("conversation mode = %q, %v; want execute", conv.Mode, err)
	}

	// The executor was asked to build the approved plan, with its context.
	var build string
	for _, r := range e.Requests() {
		if r.Agent == "executor" {
			build = r.Messages[len(r.Messages)-1].Text
			break
		}
	}
	for _, want := range []string{"Build the approved plan", hid, "Protein kinases on chromosome 7", "Find protein kinases on chromosome 7", "3D7 only"} {
		if !strings.Contains(build, want) {
			t.Errorf("the executor's request lacks %q:\n%s", want, build)
		}
	}

	if _, err := p.AcceptHandoff(t.Context(), w.userID, w.convID, hid); !errors.Is(err, chat.ErrHandoffDecided) {
		t.Errorf("second accept: err = %v, want ErrHandoffDecided", err)
	}
}

// TestAutoApprove: with AutoApprove the handoff a plan turn requests is
// accepted as soon as that turn ends, and the build runs.
func TestAutoApprove(t *testing.T) {
	t.Parallel()
	e := engine(t, handoffScript)
	w := newWorld(t)
	p := w.start(options{engine: e, planner: handoffPlanner(w, w.artifacts()), autoApprove: true})

	planTurn := w.mustStart(p, w.convID, "Find kinases on chromosome 7")
	recs := w.waitFor(w.convID, "handoff_accepted")
	var execTurn string
	for _, r := range recs {
		if r.Type == "handoff_accepted" {
			execTurn = r.TurnID
		}
	}
	if tr := w.waitEnd(w.convID, execTurn); tr.Status != event.TurnCompleted || tr.Mode != chat.ModeExecute {
		t.Errorf("auto-approved build = %s %s (%s)", tr.Mode, tr.Status, tr.Error)
	}
	recs = w.checkLog(w.convID)
	if got := turnEvents(recs, planTurn); got[len(got)-1] != "turn_end" {
		t.Errorf("plan turn events = %v", got)
	}
}

// TestConfirmedHandoffBuilds: without AutoApprove, a handoff requested as
// confirmed by the researcher's own message ("yes, go ahead") is accepted
// when its turn ends, and the build runs; an unconfirmed one waits
// (TestAcceptHandoff).
func TestConfirmedHandoffBuilds(t *testing.T) {
	t.Parallel()
	e := engine(t, strings.Replace(handoffScript, `"goal":"Protein kinases on chromosome 7"`, `"goal":"Protein kinases on chromosome 7","confirmed":true`, 1))
	w := newWorld(t)
	p := w.start(options{engine: e, planner: handoffPlanner(w, w.artifacts())})

	w.mustStart(p, w.convID, "Yes, go ahead and build it.")
	var execTurn string
	for _, r := range w.waitFor(w.convID, "handoff_accepted") {
		if r.Type == "handoff_accepted" {
			execTurn = r.TurnID
		}
	}
	if tr := w.waitEnd(w.convID, execTurn); tr.Status != event.TurnCompleted || tr.Mode != chat.ModeExecute {
		t.Errorf("confirmed build = %s %s (%s)", tr.Mode, tr.Status, tr.Error)
	}
	w.checkLog(w.convID)
}

// TestResumeTurnOfDeadProcess: a turn whose process died mid-delegation (its
// job runs under a session that is gone) is taken up by a live process,
// which closes what the dead run left open (its tool call ends INTERRUPTED,
// its delegation's unfinished nodes cancelled, the delegation row
// interrupted), says turn_resumed, runs the turn's agent again and ends it
// completed, with the stream's invariants kept.
func TestResumeTurnOfDeadProcess(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"executor":[{"text":"Built it."}]}}`)
	w := newWorld(t)
	orphan := w.orphan(w.convID, true, true)

	w.start(options{engine: e})
	tr := w.waitEnd(w.convID, orphan.turnID)
	if tr.Status != event.TurnCompleted {
		t.Errorf("resumed turn ended %s (%q), want completed", tr.Status, tr.Error)
	}
	recs := w.checkLog(w.convID)
	want := []string{"turn_start", "tool_call_start", "subagent_plan", "subagent_task_start",
		"subagent_task_end", "subagent_task_end", "tool_call_end", "turn_resumed", "assistant_delta", "assistant_message", "usage", "turn_end"}
	if diff := cmp.Diff(want, turnEvents(recs, orphan.turnID)); diff != "" {
		t.Errorf("resumed turn's events (-want +got):\n%s", diff)
	}
	if end := decode[*event.ToolCallEnd](t, recs, orphan.turnID, "tool_call_end"); end.OK || end.Error == nil || end.Error.Code != "INTERRUPTED" {
		t.Errorf("tool_call_end = %+v, want INTERRUPTED", end)
	}
	if r := decode[*event.TurnResumed](t, recs, orphan.turnID, "turn_resumed"); r.Run != 2 || !strings.Contains(r.Reason, "stopped") {
		t.Errorf("turn_resumed = %+v", r)
	}
	d, err := w.db.Delegation(t.Context(), w.userID, orphan.delegationID)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, n := range d.Nodes {
		nodes = append(nodes, n.NodeID+":"+string(n.Status))
	}
	if d.Status != "interrupted" || !slices.Equal(nodes, []string{"n1:cancelled", "n2:cancelled"}) {
		t.Errorf("delegation = %s %v, want interrupted with every node cancelled", d.Status, nodes)
	}
}

// TestHandBackOnStop: a process that stops (a deploy) hands the turn it runs
// back instead of ending it; another process takes it up, says
// turn_resumed, runs it again and ends it completed: nothing is
// interrupted.
func TestHandBackOnStop(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"toolCalls":[{"name":"wait","args":{}}]},{"text":"Finished here."}]}}`)
	w := newWorld(t)
	waiting := waitingPlanner()
	first := w.start(options{engine: e, planner: waiting})
	id := w.mustStart(first, w.convID, "a long question")
	w.waitFor(w.convID, "tool_call_start")
	second := w.start(options{engine: e, planner: waiting})
	first.stop()

	tr := w.waitEnd(w.convID, id)
	if tr.Status != event.TurnCompleted || tr.Owner != second.owner {
		t.Errorf("turn ended %s (%s) owned by %s; want completed by %s", tr.Status, tr.Error, tr.Owner, second.owner)
	}
	recs := w.checkLog(w.convID)
	r := decode[*event.TurnResumed](t, recs, id, "turn_resumed")
	if r.Run != 2 || !strings.Contains(r.Reason, "handed it over") {
		t.Errorf("turn_resumed = %+v", r)
	}
	if msg := decode[*event.AssistantMessage](t, recs, id, "assistant_message"); msg.Content != "Finished here." {
		t.Errorf("assistant_message = %q", msg.Content)
	}
}

// TestRecoverOrphanedTurn: a running turn that nothing will run again (its
// process died and it has no job: started before turns were jobs) is ended
// interrupted by a live process, at start and whenever a new turn meets it:
// what it left open is closed first, so the stream keeps its invariants,
// and its delegation row is interrupted.
func TestRecoverOrphanedTurn(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"text":"Back again."}]}}`)
	w := newWorld(t)
	orphan := w.orphan(w.convID, false, true)

	p := w.start(options{engine: e})
	tr := w.waitEnd(w.convID, orphan.turnID)
	if tr.Status != event.TurnInterrupted || !strings.Contains(tr.Error, "server stopped") {
		t.Errorf("orphan ended %s (%q), want interrupted", tr.Status, tr.Error)
	}
	recs := w.checkLog(w.convID)
	want := []string{"turn_start", "tool_call_start", "subagent_plan", "subagent_task_start",
		"subagent_task_end", "subagent_task_end", "tool_call_end", "turn_end"}
	if diff := cmp.Diff(want, turnEvents(recs, orphan.turnID)); diff != "" {
		t.Errorf("orphan's events (-want +got):\n%s", diff)
	}
	if end := decode[*event.ToolCallEnd](t, recs, orphan.turnID, "tool_call_end"); end.OK || end.Error == nil || end.Error.Code != "INTERRUPTED" {
		t.Errorf("tool_call_end = %+v, want INTERRUPTED", end)
	}
	d, err := w.db.Delegation(t.Context(), w.userID, orphan.delegationID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != "interrupted" {
		t.Errorf("delegation = %s, want interrupted", d.Status)
	}

	// A process dying now leaves a running turn in another conversation; a
	// new turn there meets it, recovers it and starts.
	other := w.conversation()
	late := w.orphan(other, false, false)
	id := w.mustStart(p, other, "Are you there?")
	if tr := w.waitEnd(other, late.turnID); tr.Status != event.TurnInterrupted {
		t.Errorf("orphan met by a new turn ended %s", tr.Status)
	}
	if tr := w.waitEnd(other, id); tr.Status != event.TurnCompleted {
		t.Errorf("the new turn ended %s (%s)", tr.Status, tr.Error)
	}
	w.checkLog(other)
}

type orphanTurn struct{ turnID, delegationID string }

// orphan stores a running turn as a process that died mid-turn left it:
// owned by a database session that does not exist, withJob its job
// running there, with a tool call
// started and, when withDelegation, a delegation whose first node runs.
func (w *world) orphan(convID string, withJob, withDelegation bool) orphanTurn {
	w.t.Helper()
	ctx := w.t.Context()
	o := orphanTurn{turnID: uuid.NewString()}
	b := event.Base{TurnID: o.turnID}
	msgID := uuid.NewString()
	evs := []event.Event{
		&event.TurnStart{Base: b, Mode: chat.ModeExecute, Model: testModel, UserMessageID: msgID, Message: "Build it"},
		&event.ToolCallStart{Base: b, CallID: "c1", Name: "delegate_strategy_subtasks", Args: json.RawMessage(`{}`)},
	}
	// It ran in a process whose database session is gone: the turn is
	// owned by that session's name and, withJob, its job runs there. The
	// rows are written directly, not through StartTurnTx, whose job a live
	// process could take before the fixture is complete.
	w.sql(`INSERT INTO turns (id, conversation_id, mode, model, owner) VALUES ($1, $2, 'execute', $3, '1@1')`, o.turnID, convID, testModel)
	w.sql(`INSERT INTO messages (id, conversation_id, turn_id, role, content) VALUES ($1, $2, $3, 'user', 'Build it')`, msgID, convID, o.turnID)
	var batch0 []store.NewEvent
	for _, ev := range evs {
		batch0 = append(batch0, newEvent(w.t, convID, ev))
	}
	if _, err := w.db.AppendEvents(ctx, "dead-process", batch0); err != nil {
		w.t.Fatal(err)
	}
	if withJob {
		w.sql(`INSERT INTO river_job (kind, queue, args, state, attempt, attempted_at, attempted_by, max_attempts, priority)
			VALUES ('turn', 'turns', jsonb_build_object('turnId', $1::text, 'conversationId', $2::text, 'userId', $3::text, 'userMessageId', $4::text),
				'running', 1, now(), ARRAY['1@1'], 5, 1)`, o.turnID, convID, w.userID, msgID)
	}
	if !withDelegation {
		return o
	}
	d, err := w.db.CreateDelegation(ctx, w.userID, store.NewDelegation{ConversationID: convID, TurnID: o.turnID,
		Goal: "kinases", Plan: json.RawMessage(`{}`), Nodes: []store.NewDelegationNode{
			{NodeID: "n1", Kind: "task", Label: "kinases"},
			{NodeID: "n2", Kind: "task", Label: "transform", DependsOn: []string{"n1"}}}})
	if err != nil {
		w.t.Fatal(err)
	}
	o.delegationID = d.ID
	if err := w.db.UpdateDelegationNode(ctx, w.userID, d.ID, store.DelegationNodeUpdate{NodeID: "n1", Status: "running", Attempt: 1}); err != nil {
		w.t.Fatal(err)
	}
	more := []event.Event{
		&event.SubagentPlan{Base: b, DelegationID: d.ID, Goal: "kinases", Nodes: []event.PlanNode{
			{ID: "n1", Kind: "task", Label: "kinases", DependsOn: []string{}},
			{ID: "n2", Kind: "task", Label: "transform", DependsOn: []string{"n1"}}}},
		&event.SubagentTaskStart{Base: b, DelegationID: d.ID, NodeID: "n1", Attempt: 1},
	}
	var batch []store.NewEvent
	for _, ev := range more {
		batch = append(batch, newEvent(w.t, convID, ev))
	}
	if _, err := w.db.AppendEvents(ctx, "dead-process", batch); err != nil {
		w.t.Fatal(err)
	}
	return o
}

// TestResumeGoesOnFromLastRound: a turn whose first round (a tool call)
// completed and whose second was cut short by its process stopping goes
// on, in the next process, from the first round's persisted messages: the
// model is asked with them after the user message, the first round's tool
// does not run again, and the stored history holds each message once.
func TestResumeGoesOnFromLastRound(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"toolCalls":[{"name":"count","args":{}}]},{"toolCalls":[{"name":"wait","args":{}}]},{"text":"Finished here."}]}}`)
	var counted atomic.Int32
	type none struct{}
	planner := role{name: "planner", tools: func(agent.Env) []tool.Tool {
		return []tool.Tool{
			tool.NewTool("count", "Count a call.", func(context.Context, none) (*none, error) {
				counted.Add(1)
				return &none{}, nil
			}),
			tool.NewTool("wait", "Wait until stopped.", func(ctx context.Context, _ none) (*none, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}),
		}
	}}
	w := newWorld(t)
	first := w.start(options{engine: e, planner: planner})
	id := w.mustStart(first, w.convID, "a long question")
	// wait's start: the first round is persisted by then.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		starts := 0
		for _, r := range w.events(w.convID) {
			if r.Type == "tool_call_start" {
				starts++
			}
		}
		if starts == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second round never called its tool")
		}
	}
	w.start(options{engine: e, planner: planner})
	first.stop()

	if tr := w.waitEnd(w.convID, id); tr.Status != event.TurnCompleted {
		t.Fatalf("turn ended %s (%s)", tr.Status, tr.Error)
	}
	if n := counted.Load(); n != 1 {
		t.Errorf("the first round's tool ran %d times, want once", n)
	}
	reqs := e.Requests()
	last := reqs[len(reqs)-1].Messages
	var roles []string
	for _, m := range last {
		roles = append(roles, string(m.Role))
	}
	if len(last) != 3 || last[1].ToolCalls[0].Name != "count" {
		t.Errorf("the resumed model call saw %v, want the user message, the count call and its result", roles)
	}
	msgs, err := w.db.Messages(t.Context(), w.userID, w.convID)
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, m := range msgs {
		stored = append(stored, string(m.Role))
	}
	if diff := cmp.Diff([]string{"user", "assistant", "tool", "assistant"}, stored); diff != "" {
		t.Errorf("stored messages (-want +got):\n%s", diff)
	}
	w.checkLog(w.convID)
}

// slowLog delays every transaction of the event log, so that events a turn
// only queued are still unwritten well after the loop has gone on.
type slowLog struct {
	eventlog.LogStore
	delay time.Duration
}

func (s slowLog) AppendEventBatch(ctx context.Context, b store.EventBatch) ([]store.EventRow, error) {
	time.Sleep(s.delay)
	return s.LogStore.AppendEventBatch(ctx, b)
}

// roundChecker fails a test when a tool round's messages are stored before
// the ends of the round's tool calls are in the event table: a run resumed
// from those messages would find the calls still open in the stream and end
// them as interrupted, when the model had been given their results.
// calls[i] is how many tool calls the turn has made by the end of round i.
type roundChecker struct {
	chat.Store
	w      *world
	calls  []int
	rounds atomic.Int32
}

func (c *roundChecker) AddMessages(ctx context.Context, conversationID, turnID string, msgs []store.NewMessage) error {
	if slices.ContainsFunc(msgs, func(m store.NewMessage) bool { return m.Role == agent.StoredTool }) {
		round := int(c.rounds.Add(1)) - 1
		ends := 0
		for _, r := range c.w.events(conversationID) {
			if r.Type == "tool_call_end" && r.TurnID == turnID {
				ends++
			}
		}
		if round < len(c.calls) && ends < c.calls[round] {
			c.w.t.Errorf("round %d's messages were stored with %d tool_call_end events in the table, want %d", round+1, ends, c.calls[round])
		}
	}
	return c.Store.AddMessages(ctx, conversationID, turnID, msgs)
}

// TestRoundEventsDurableBeforeMessages: each tool round's messages are stored
// only once its tool calls' end events are durable, even when the log's
// writer is slow.
func TestRoundEventsDurableBeforeMessages(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"toolCalls":[{"name":"count","args":{}},{"name":"count","args":{}}]},{"toolCalls":[{"name":"count","args":{}}]},{"text":"Done."}]}}`)
	type none struct{}
	planner := role{name: "planner", tools: func(agent.Env) []tool.Tool {
		return []tool.Tool{tool.NewTool("count", "Count a call.", func(context.Context, none) (*none, error) { return &none{}, nil })}
	}}
	w := newWorld(t)
	checker := &roundChecker{w: w, calls: []int{2, 3}}
	p := w.start(options{engine: e, planner: planner,
		logStore: func(s eventlog.LogStore) eventlog.LogStore { return slowLog{s, 50 * time.Millisecond} },
		store:    func(s chat.Store) chat.Store { checker.Store = s; return checker }})
	id := w.mustStart(p, w.convID, "count twice, then once")
	if tr := w.waitEnd(w.convID, id); tr.Status != event.TurnCompleted {
		t.Fatalf("turn ended %s (%s)", tr.Status, tr.Error)
	}
	if n := checker.rounds.Load(); n != 2 {
		t.Errorf("%d tool rounds stored, want 2", n)
	}
}
