package chat_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"strategist/internal/agent"
	"strategist/internal/chat"
	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/store"
	"strategist/internal/tool"
)

// failingAccept refuses the build the plan turn's end starts, and fails
// the first start after it that accepts a handoff, as a query cut by a
// database blip does.
type failingAccept struct {
	chat.Store
	refused, failed atomic.Bool
}

func (s *failingAccept) EndTurnTx(ctx context.Context, et store.EndTurn) ([]store.EventRow, error) {
	if et.Then != nil && s.refused.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("%w (conn closed)", store.ErrStartRefused)
	}
	return s.Store.EndTurnTx(ctx, et)
}

func (s *failingAccept) StartTurnTx(ctx context.Context, st store.StartTurn) (store.StartedTurn, error) {
	if st.AcceptHandoff != "" && s.failed.CompareAndSwap(false, true) {
		return store.StartedTurn{}, errors.New("store: start turn: conn closed")
	}
	return s.Store.StartTurnTx(ctx, st)
}

// TestAutoApproveIsDurable: the auto-approval of a plan is not lost when
// its build cannot start with the plan turn's end and the accept after the
// end fails (or its process stops or dies there): the pending handoff of
// the completed plan turn is accepted by the next sweep, and the build runs
// once.
func TestAutoApproveIsDurable(t *testing.T) {
	t.Parallel()
	e := engine(t, handoffScript)
	w := newWorld(t)
	fa := &failingAccept{}
	p := w.start(options{engine: e, planner: handoffPlanner(w, w.artifacts()), autoApprove: true,
		sweepEvery: 100 * time.Millisecond, store: func(s chat.Store) chat.Store { fa.Store = s; return fa }})

	planTurn := w.mustStart(p, w.convID, "Find kinases on chromosome 7")
	recs := w.waitFor(w.convID, "handoff_accepted")
	if !fa.refused.Load() || !fa.failed.Load() {
		t.Fatal("the accepts did not fail")
	}
	var accepted []string
	for _, r := range recs {
		if r.Type == "handoff_accepted" {
			accepted = append(accepted, r.TurnID)
		}
	}
	if tr := w.waitEnd(w.convID, accepted[0]); tr.Status != event.TurnCompleted || tr.Mode != chat.ModeExecute {
		t.Errorf("auto-approved build = %s %s (%s)", tr.Mode, tr.Status, tr.Error)
	}
	recs = w.checkLog(w.convID)
	n := 0
	for _, r := range recs {
		if r.Type == "handoff_accepted" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d handoff_accepted events, want 1", n)
	}
	if got := turnEvents(recs, planTurn); got[len(got)-1] != "turn_end" {
		t.Errorf("plan turn events = %v", got)
	}
}

// watchedEnds records how the server accepts plans: the ends that start a
// build, the starts that accept a handoff, and whether the plan's handoff
// was accepted the moment its turn's end returned.
type watchedEnds struct {
	chat.Store
	db                 *store.DB
	userID, convID     string
	withBuild, accepts atomic.Int32
	acceptedAtTheEnd   atomic.Bool
	checked            chan struct{} // closed once the build's end was read back
}

func (s *watchedEnds) EndTurnTx(ctx context.Context, et store.EndTurn) ([]store.EventRow, error) {
	rows, err := s.Store.EndTurnTx(ctx, et)
	if err == nil && et.Then != nil {
		if s.withBuild.Add(1) > 1 {
			return rows, err
		}
		h, herr := s.db.Handoff(ctx, s.userID, s.convID, et.Then.AcceptHandoff)
		s.acceptedAtTheEnd.Store(herr == nil && h.Status == store.HandoffAccepted)
		close(s.checked)
	}
	return rows, err
}

func (s *watchedEnds) StartTurnTx(ctx context.Context, st store.StartTurn) (store.StartedTurn, error) {
	if st.AcceptHandoff != "" {
		s.accepts.Add(1)
	}
	return s.Store.StartTurnTx(ctx, st)
}

// TestAutoApproveWithTheEnd: a plan the server accepts itself is accepted
// in its turn's end: the end that completes the plan turn accepts the
// handoff and starts the build in one transaction, so no process that
// stops or dies after the plan's end leaves it unbuilt; the build's first
// events follow the plan's turn_end, and it runs once.
func TestAutoApproveWithTheEnd(t *testing.T) {
	t.Parallel()
	e := engine(t, handoffScript)
	w := newWorld(t)
	we := &watchedEnds{db: w.db, userID: w.userID, convID: w.convID, checked: make(chan struct{})}
	p := w.start(options{engine: e, planner: handoffPlanner(w, w.artifacts()), autoApprove: true,
		store: func(s chat.Store) chat.Store { we.Store = s; return we }})
	planTurn := w.mustStart(p, w.convID, "Find kinases on chromosome 7")
	recs := w.waitFor(w.convID, "handoff_accepted")
	select { // the event is out before the wrapper has read the handoff back
	case <-we.checked:
	case <-time.After(30 * time.Second):
		t.Fatal("no end started the build")
	}
	if n := we.withBuild.Load(); n != 1 || !we.acceptedAtTheEnd.Load() {
		t.Errorf("ends that started the build: %d, handoff accepted with the end: %v; want 1, true", n, we.acceptedAtTheEnd.Load())
	}
	if n := we.accepts.Load(); n != 0 {
		t.Errorf("%d accepts after the end, want none", n)
	}
	// The log is read every 20 ms, so a quick build may have ended by the
	// read that found the acceptance: the order is checked up to it.
	var order []string
	for _, r := range recs {
		if r.Type == "turn_end" || r.Type == "turn_start" || r.Type == "handoff_accepted" {
			order = append(order, r.Type)
		}
		if r.Type == "handoff_accepted" {
			break
		}
	}
	if want := []string{"turn_start", "turn_end", "turn_start", "handoff_accepted"}; !slices.Equal(order, want) {
		t.Errorf("turn events = %v, want %v", order, want)
	}
	var build string
	for _, r := range recs {
		if r.Type == "handoff_accepted" {
			build = r.TurnID
		}
	}
	if tr := w.waitEnd(w.convID, build); tr.Status != event.TurnCompleted || tr.Mode != chat.ModeExecute {
		t.Errorf("build = %s %s (%s)", tr.Mode, tr.Status, tr.Error)
	}
	if got := turnEvents(w.checkLog(w.convID), planTurn); got[len(got)-1] != "turn_end" {
		t.Errorf("plan turn events = %v", got)
	}
}

// failingEnds fails the log's first batch that holds a tool_call_end, as a
// write the database refused.
type failingEnds struct {
	eventlog.LogStore
	failed atomic.Bool
}

func (s *failingEnds) AppendEventBatch(ctx context.Context, b store.EventBatch) ([]store.EventRow, error) {
	for _, e := range b.Events {
		if e.Type == "tool_call_end" && s.failed.CompareAndSwap(false, true) {
			return nil, errors.New("store: append events: could not extend file: No space left on device")
		}
	}
	return s.LogStore.AppendEventBatch(ctx, b)
}

// TestFailedTurnClosesItsCalls: a turn that fails because its log could
// not record a tool call's end still ends with that call closed, in the
// transaction of its turn_end, so the stream keeps its invariants.
func TestFailedTurnClosesItsCalls(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"toolCalls":[{"name":"wait","args":{}}]},{"text":"never"}]}}`)
	w := newWorld(t)
	planner := role{name: "planner", tools: func(agent.Env) []tool.Tool {
		type none struct{}
		// It returns once its start is in the log, so that its end goes
		// in a batch of its own.
		return []tool.Tool{tool.NewTool("wait", "Return once started.", func(context.Context, none) (*none, error) {
			w.waitFor(w.convID, "tool_call_start")
			return &none{}, nil
		})}
	}}
	fe := &failingEnds{}
	p := w.start(options{engine: e, planner: planner, logStore: func(s eventlog.LogStore) eventlog.LogStore { fe.LogStore = s; return fe }})
	id := w.mustStart(p, w.convID, "a question")
	if tr := w.waitEnd(w.convID, id); tr.Status != event.TurnFailed {
		t.Fatalf("turn ended %s (%s), want failed", tr.Status, tr.Error)
	}
	recs := w.checkLog(w.convID)
	got := turnEvents(recs, id)
	if !slices.Contains(got, "tool_call_end") || got[len(got)-1] != "turn_end" {
		t.Errorf("failed turn's events = %v; want its call closed before turn_end", got)
	}
}
