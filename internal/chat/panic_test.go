package chat_test

import (
	"sync/atomic"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/event"
)

// panickyRole panics building its first agent, then builds agents as role
// does.
type panickyRole struct {
	role
	calls *atomic.Int32
}

func (r panickyRole) Agent(env agent.Env) (*agent.Agent, error) {
	if r.calls.Add(1) == 1 {
		panic("a bug in the planner")
	}
	return r.role.Agent(env)
}

// TestPanickingTurnFailsCleanly: a turn whose code panics ends failed with
// an error event and turn_end, at once rather than after the queue's
// retries, the process goes on, and the conversation takes its next turn.
func TestPanickingTurnFailsCleanly(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"text":"all well"}]}}`)
	w := newWorld(t)
	p := w.start(options{engine: e, planner: panickyRole{role: role{name: "planner"}, calls: new(atomic.Int32)}})

	first := w.mustStart(p, w.convID, "first")
	if tr := w.waitEnd(w.convID, first); tr.Status != event.TurnFailed {
		t.Fatalf("the panicking turn ended %s, want failed", tr.Status)
	}
	recs := w.checkLog(w.convID)
	if got := turnEvents(recs, first); len(got) < 3 || got[len(got)-2] != "error" || got[len(got)-1] != "turn_end" {
		t.Errorf("the panicking turn's events = %v, want ... error, turn_end", got)
	}
	if e := decode[*event.Error](t, recs, first, "error"); e.Code != "INTERNAL" {
		t.Errorf("error code = %q, want INTERNAL", e.Code)
	}
	second := w.mustStart(p, w.convID, "second")
	if tr := w.waitEnd(w.convID, second); tr.Status != event.TurnCompleted {
		t.Errorf("the next turn ended %s, want completed", tr.Status)
	}
}
