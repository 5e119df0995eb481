package chat_test

import (
	"context"
	"errors"
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

// failingAccept fails the first start that accepts a handoff, as a query
// cut by a database blip does.
type failingAccept struct {
	chat.Store
	failed atomic.Bool
}

func (s *failingAccept) StartTurnTx(ctx context.Context, st store.StartTurn) (store.StartedTurn, error) {
	if st.AcceptHandoff != "" && s.failed.CompareAndSwap(false, true) {
		return store.StartedTurn{}, errors.New("store: start turn: conn closed")
	}
	return s.Store.StartTurnTx(ctx, st)
}

// TestAutoApproveIsDurable: the auto-approval of a plan is not lost when
// the accept after the plan turn's end fails (or its process stops or dies
// there): the pending handoff of the completed plan turn is accepted by the
// next sweep, and the build runs once.
func TestAutoApproveIsDurable(t *testing.T) {
	t.Parallel()
	e := engine(t, handoffScript)
	w := newWorld(t)
	fa := &failingAccept{}
	p := w.start(options{engine: e, planner: handoffPlanner(w, w.artifacts()), autoApprove: true,
		sweepEvery: 100 * time.Millisecond, store: func(s chat.Store) chat.Store { fa.Store = s; return fa }})

	planTurn := w.mustStart(p, w.convID, "Find kinases on chromosome 7")
	recs := w.waitFor(w.convID, "handoff_accepted")
	if !fa.failed.Load() {
		t.Fatal("the first accept did not fail")
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
