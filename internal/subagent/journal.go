package subagent

import (
	"context"
	"sync"

	"strategist/internal/event"
	"strategist/internal/store"
)

// background is the life cycle shared by the run's two writers: a goroutine
// the owner starts, woken when there is something to write, that writes
// whatever has accumulated in one go, and that close stops once everything
// handed to it before is written.
type background struct {
	wake   chan struct{} // buffered 1: something is pending
	done   chan struct{} // closed by close: write what is left, then exit
	exited chan struct{} // closed when the goroutine returns
}

func newBackground() background {
	return background{wake: make(chan struct{}, 1), done: make(chan struct{}), exited: make(chan struct{})}
}

func (b *background) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// close stops the writer once everything handed to it so far is written.
func (b *background) close() {
	close(b.done)
	<-b.exited
}

// writeLoop is a writer's goroutine: it writes what take returns until
// close, then what is left.
func writeLoop[T any](b *background, take func() []T, write func([]T)) {
	defer close(b.exited)
	for {
		if batch := take(); len(batch) > 0 {
			write(batch)
			continue
		}
		select {
		case <-b.wake:
		case <-b.done:
			if batch := take(); len(batch) > 0 {
				write(batch)
			}
			return
		}
	}
}

// rowWriter keeps the delegation_nodes rows current in the background, so
// that the scheduler's owner never waits for the database between a node
// ending and its dependents starting.
//
// The rows are a projection of the owner's state for a reloaded page: only
// a node's latest state matters. put records it (replacing a state not yet
// written); the writer takes everything pending and writes it in one
// transaction, in the order the nodes first changed, while new changes
// accumulate for the next write. A failed write is reported and its rows
// dropped: the run is stopping.
type rowWriter struct {
	background
	mu      sync.Mutex
	pending map[string]store.DelegationNodeUpdate // guarded by mu
	order   []string                              // guarded by mu
}

func newRowWriter() *rowWriter {
	return &rowWriter{background: newBackground(), pending: map[string]store.DelegationNodeUpdate{}}
}

// put records a node's latest state.
func (w *rowWriter) put(u store.DelegationNodeUpdate) {
	w.mu.Lock()
	if _, ok := w.pending[u.NodeID]; !ok {
		w.order = append(w.order, u.NodeID)
	}
	w.pending[u.NodeID] = u
	w.mu.Unlock()
	w.poke()
}

func (w *rowWriter) take() []store.DelegationNodeUpdate {
	w.mu.Lock()
	defer w.mu.Unlock()
	batch := make([]store.DelegationNodeUpdate, 0, len(w.order))
	for _, id := range w.order {
		batch = append(batch, w.pending[id])
	}
	clear(w.pending)
	w.order = w.order[:0]
	return batch
}

// run is the writer's goroutine.
func (w *rowWriter) run(ctx context.Context, write func(context.Context, []store.DelegationNodeUpdate) error, fail func(error)) {
	writeLoop(&w.background, w.take, func(batch []store.DelegationNodeUpdate) {
		if err := write(ctx, batch); err != nil {
			fail(err)
		}
	})
}

// eventPump appends a delegation's events in the background, in the order
// they were sent, several at a time in one Emit: no goroutine of the run
// waits for the event log, and the events produced at one moment (the
// nodes of a wide plan working together) cost one append rather than one
// each. After a failed append the pump drops what follows: the run is
// stopping.
type eventPump struct {
	background
	mu    sync.Mutex
	queue []event.Event // guarded by mu
}

func newEventPump() *eventPump { return &eventPump{background: newBackground()} }

// send queues an event; any goroutine of the run may call it.
func (p *eventPump) send(e event.Event) {
	p.mu.Lock()
	p.queue = append(p.queue, e)
	p.mu.Unlock()
	p.poke()
}

func (p *eventPump) take() []event.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queue
	p.queue = nil
	return q
}

// run is the pump's goroutine.
func (p *eventPump) run(ctx context.Context, emit func(context.Context, ...event.Event) error, fail func(error)) {
	failed := false
	writeLoop(&p.background, p.take, func(batch []event.Event) {
		if failed {
			return
		}
		if err := emit(ctx, batch...); err != nil {
			failed = true
			fail(err)
		}
	})
}
