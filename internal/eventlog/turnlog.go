package eventlog

import (
	"context"
	"fmt"
	"sync"
	"time"

	"strategist/internal/event"
	"strategist/internal/store"
)

// TurnLog appends the events of one running turn to its conversation's log.
// Queue hands events to the writer and returns at once; Append and Sync wait
// until what the turn queued so far is durable. Every event still becomes
// durable before it is delivered (the writer publishes only committed
// records), and the turn's events keep their order, whichever method queued
// them: they go through one queue the writer empties in order.
//
// What queuing buys: while the writer commits one transaction, the events a
// turn produces meanwhile (a tool call's start and end, the next model
// round's deltas) wait in the queue and are written together in the next
// one, so a fast tool call no longer costs two commits of its own and the
// turn does not stop for each.
//
// The price is that a queued event's failure is reported later: by the
// turn's next Queue, Append or Sync, which return the first failure from
// then on. The events the turn queued after the failed one are not written
// (they fail with it), so the turn's transcript never skips an event and
// goes on. A turn calls Sync before anything that must come after its
// events in the log: its end (EndTurnTx writes turn_end in a transaction of
// its own).
//
// A TurnLog is safe for concurrent use (a turn's tools emit from their own
// goroutines). mu guards err and pending.
type TurnLog struct {
	log  *Log
	conv string

	mu      sync.Mutex
	err     error // first failure of an append of this turn
	pending int   // events queued and not yet answered
}

// Turn returns the TurnLog for a turn of conversationID.
func (l *Log) Turn(conversationID string) (*TurnLog, error) {
	if !isUUID(conversationID) {
		return nil, fmt.Errorf("event: turn log: conversation id %q is not a uuid", conversationID)
	}
	return &TurnLog{log: l, conv: conversationID}, nil
}

// Queue hands events to the writer without waiting for them to be
// written. It returns the failure of an earlier append of the turn, if any,
// or ErrClosed once the log's Run has ended. When MaxBatch events of the
// turn are already waiting, Queue waits for them first (bounded by ctx), so
// a turn cannot outrun the database without bound.
func (t *TurnLog) Queue(ctx context.Context, events ...event.Event) error {
	if err := t.Err(); err != nil || len(events) == 0 {
		return err
	}
	req, err := t.request(events, false)
	if err != nil {
		return err
	}
	if !t.log.enqueue(req) {
		t.done(len(req.events), ErrClosed)
		return ErrClosed
	}
	t.mu.Lock()
	full := t.pending >= t.log.cfg.MaxBatch
	t.mu.Unlock()
	if full {
		return t.Sync(ctx)
	}
	return nil
}

// Append writes events after everything the turn queued and returns their
// records once they are durable and published, like Log.Append. It returns
// the failure of an earlier append of the turn instead, if one failed.
func (t *TurnLog) Append(ctx context.Context, events ...event.Event) ([]event.Record, error) {
	if err := t.Err(); err != nil || len(events) == 0 {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("event: append: %w", context.Cause(ctx))
	}
	req, err := t.request(events, true)
	if err != nil {
		return nil, err
	}
	if !t.log.enqueue(req) {
		t.done(len(req.events), ErrClosed)
		return nil, ErrClosed
	}
	// Once queued the events are written whatever happens to ctx, as with
	// Log.Append: wait for the outcome (bounded by WriteTimeout).
	res := <-req.done
	return res.records, res.err
}

// Sync waits until every event the turn queued before it is written, and
// returns the first failure of the turn's appends. ctx bounds the wait (the
// events are written anyway).
func (t *TurnLog) Sync(ctx context.Context) error {
	if err := t.log.Sync(ctx); err != nil {
		return err
	}
	return t.Err()
}

// Err returns the first failure of the turn's appends.
func (t *TurnLog) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// request encodes events as one request of the turn.
func (t *TurnLog) request(events []event.Event, wait bool) (*appendRequest, error) {
	req := &appendRequest{events: make([]store.NewEvent, len(events)), at: time.Now(), turn: t}
	for i, e := range events {
		ne, err := EncodeRow(t.conv, e)
		if err != nil {
			return nil, fmt.Errorf("event: append: %w", err)
		}
		req.events[i] = ne
	}
	if wait {
		req.done = make(chan appendResult, 1)
	}
	n := len(req.events)
	req.onDone = func(err error) { t.done(n, err) }
	t.mu.Lock()
	t.pending += n
	t.mu.Unlock()
	return req, nil
}

// done accounts for n events answered with err.
func (t *TurnLog) done(n int, err error) {
	t.mu.Lock()
	t.pending -= n
	if err != nil && t.err == nil {
		t.err = err
	}
	t.mu.Unlock()
}

// Sync waits until every event queued (by any TurnLog) before it is
// written. A write that appends events in its own transaction (a strategy
// change and its graph_snapshot) calls it first, so that its events follow
// the tool call that made the change. ctx bounds the wait; after Run ended
// Sync returns at once.
func (l *Log) Sync(ctx context.Context) error {
	marker := &appendRequest{done: make(chan appendResult, 1)}
	if !l.enqueue(marker) {
		return nil // Run ended after writing everything queued
	}
	select {
	case <-marker.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("event: sync: %w", context.Cause(ctx))
	}
}
