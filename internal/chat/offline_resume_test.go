package chat_test

import (
	"context"
	"iter"
	"sync"
	"testing"
	"time"

	"strategist/internal/catalog/offline"
	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/offlinetest"
	"strategist/internal/planner"
	"strategist/internal/rules"
	"strategist/internal/strategies"
)

// stopAt wraps an engine: its call number at (1-based) does not answer
// until its context ends, as a process that stops in that round.
type stopAt struct {
	llm.Engine
	at      int
	mu      sync.Mutex
	calls   int
	reached chan struct{}
}

func (e *stopAt) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	e.mu.Lock()
	e.calls++
	n := e.calls
	e.mu.Unlock()
	if n != e.at {
		return e.Engine.Stream(ctx, req)
	}
	return func(yield func(llm.Chunk, error) bool) {
		close(e.reached)
		<-ctx.Done()
		yield(llm.Chunk{}, ctx.Err())
	}
}

// TestOfflinePlanResumedAfterEveryRound: the offline planner's plan turn,
// its process stopped after each of its rounds in turn and the turn resumed
// in another process, gives the uninterrupted turn's answer every time: the
// resumed run goes on from what its rounds' tools returned, parameter names
// and vocabularies included, not from the shorter digests later turns read.
func TestOfflinePlanResumedAfterEveryRound(t *testing.T) {
	t.Parallel()
	cat, err := offline.Open(offlinetest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	strats, err := strategies.NewService(strategies.Config{Store: w.db, Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.New(planner.Config{Store: w.db, Catalog: cat, Strategies: strats})
	if err != nil {
		t.Fatal(err)
	}
	newEngine := func() llm.Engine {
		e, err := rules.New(rules.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	const request = "Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14"
	answer := func(convID, turnID string) string {
		var text string
		for _, r := range w.events(convID) {
			if r.TurnID == turnID && r.Type == "assistant_message" {
				ev, err := r.Decode()
				if err != nil {
					t.Fatal(err)
				}
				text = ev.(*event.AssistantMessage).Content
			}
		}
		return text
	}

	counted := &stopAt{Engine: newEngine()} // never stops: counts the rounds
	p := w.start(options{engine: counted, planner: plan})
	id := w.mustStart(p, w.convID, request)
	if tr := w.waitEnd(w.convID, id); tr.Status != event.TurnCompleted {
		t.Fatalf("uninterrupted plan turn ended %s (%s)", tr.Status, tr.Error)
	}
	want, rounds := answer(w.convID, id), counted.calls
	p.stop()
	if rounds < 2 {
		t.Fatalf("the uninterrupted plan took %d model calls; the test needs rounds to cut", rounds)
	}
	for k := 1; k < rounds; k++ {
		conv := w.conversation()
		e := &stopAt{Engine: newEngine(), at: k + 1, reached: make(chan struct{})}
		first := w.start(options{engine: e, planner: plan})
		id := w.mustStart(first, conv, request)
		select {
		case <-e.reached:
		case <-time.After(30 * time.Second):
			t.Fatalf("stopping after round %d: model call %d never came (%d calls); turn %+v; log %v", k, k+1, e.calls, w.waitEnd(conv, id), types(w.events(conv)))
		}
		second := w.start(options{engine: newEngine(), planner: plan})
		first.stop()
		tr := w.waitEnd(conv, id)
		second.stop() // the next round's turn is the next first process's
		if tr.Status != event.TurnCompleted {
			t.Errorf("stopped after round %d: the resumed turn ended %s (%s)", k, tr.Status, tr.Error)
			continue
		}
		if got := answer(conv, id); got != want {
			t.Errorf("stopped after round %d, the resumed turn answered\n%s\nwant the uninterrupted answer\n%s", k, got, want)
		}
		w.checkLog(conv)
	}
}
