package chat_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"strategist/internal/chat"
	"strategist/internal/event"
	"strategist/internal/store"
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
