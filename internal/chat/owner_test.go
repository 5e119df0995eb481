package chat_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"strategist/internal/agent"
	"strategist/internal/chat"
	"strategist/internal/event"
	"strategist/internal/store"
	"strategist/internal/tool"
)

// TestOwnerSessionTerminated: the owner session of the process running a
// turn is terminated (a PostgreSQL restart, an idle-session timeout, an
// operator's pg_terminate_backend) while the turn runs for many rescue
// intervals. The process opens a session under the same name, and nobody
// takes the turn for a dead process's: it runs once, ends once, and nothing
// follows its turn_end.
func TestOwnerSessionTerminated(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"toolCalls":[{"name":"gate","args":{}}]},{"text":"Done once."}]}}`)
	w := newWorld(t)
	gate := make(chan struct{})
	var runs atomic.Int32
	gated := role{name: "planner", tools: func(agent.Env) []tool.Tool {
		type none struct{}
		return []tool.Tool{tool.NewTool("gate", "Wait for the test.", func(ctx context.Context, _ none) (*none, error) {
			runs.Add(1)
			select {
			case <-gate:
				return &none{}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})}
	}}
	o := options{engine: e, planner: gated, watch: 300 * time.Millisecond, sweepEvery: 50 * time.Millisecond, log: true}
	first, second := w.start(o), w.start(o)
	id := w.mustStart(first, w.convID, "a long question")
	w.waitFor(w.convID, "tool_call_start")
	runner := w.waitOwned(w.convID, id, first, second)

	w.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 OR right(application_name, length($1) + 1) = ' ' || $1
		OR $1 = pid::text || '@' || (extract(epoch FROM backend_start) * 1000000)::bigint::text`, runner.owner)
	// Many rescue intervals, and past the lease the first session renewed.
	time.Sleep(2 * time.Second)
	close(gate)

	tr := w.waitEnd(w.convID, id)
	if tr.Status != event.TurnCompleted || tr.Owner != runner.owner {
		t.Errorf("turn ended %s (%s) owned by %q; want completed by %q", tr.Status, tr.Error, tr.Owner, runner.owner)
	}
	first.stop()
	second.stop()
	recs := w.checkLog(w.convID)
	got := turnEvents(recs, id)
	count := map[string]int{}
	for _, typ := range got {
		count[typ]++
	}
	if got[len(got)-1] != "turn_end" || count["turn_end"] != 1 || count["turn_resumed"] != 0 || count["tool_call_start"] != 1 {
		t.Errorf("turn events = %v; want one run, one turn_end, nothing after it", got)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the turn's tool ran %d times, want once", n)
	}
}

// TestReadyFollowsTheOwnerSession: a process is ready while it serves with
// its owner session held: not once the session is lost, again once it is
// back.
func TestReadyFollowsTheOwnerSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.start(options{engine: engine(t, `{"roles":{}}`)})
	for deadline := time.Now().Add(10 * time.Second); p.Ready() != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Ready() = %v after 10 s", p.Ready())
		}
	}
	p.OwnerLost(errors.New("connect: refused"))
	if err := p.Ready(); err == nil || !strings.Contains(err.Error(), "owner session") {
		t.Errorf("Ready() with the owner session lost = %v", err)
	}
	p.OwnerHeld()
	if err := p.Ready(); err != nil {
		t.Errorf("Ready() with the session back = %v", err)
	}
	p.stop()
	if err := p.Ready(); !errors.Is(err, chat.ErrNotServing) {
		t.Errorf("Ready() once stopped = %v, want ErrNotServing", err)
	}
}

// slowQueue holds the turn queue back until open is closed, as a queue
// whose start waits for a connection does.
type slowQueue struct {
	chat.Store
	called, open chan struct{}
}

func (s *slowQueue) RunTurnQueue(ctx context.Context, cfg store.TurnQueueConfig) error {
	close(s.called)
	select {
	case <-s.open:
	case <-ctx.Done():
		return nil
	}
	return s.Store.RunTurnQueue(ctx, cfg)
}

// TestReadyWaitsForTheQueue: a process serving with its owner session is
// not ready until its turn queue runs: before, no turn it accepts would
// start.
func TestReadyWaitsForTheQueue(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	sq := &slowQueue{called: make(chan struct{}), open: make(chan struct{})}
	p := w.start(options{engine: engine(t, `{"roles":{}}`), store: func(s chat.Store) chat.Store { sq.Store = s; return sq }})
	<-sq.called // Run serves
	if err := p.Ready(); err == nil {
		t.Error("Ready() = nil with the turn queue not running")
	}
	close(sq.open)
	for deadline := time.Now().Add(10 * time.Second); p.Ready() != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Ready() = %v 10 s after the queue could start", p.Ready())
		}
	}
}
