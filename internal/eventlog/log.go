package eventlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"strategist/internal/event"
	"strategist/internal/store"
	"strategist/internal/telemetry"
)

// ErrClosed is returned by Append once the log's Run has ended.
var ErrClosed = errors.New("eventlog: log closed")

// LogStore is what the log needs from the database: one transaction that
// appends a batch of events of any conversations, recording the batch so
// that a retry after an ambiguous failure writes it once
// (store.DB.AppendEventBatch).
type LogStore interface {
	AppendEventBatch(ctx context.Context, b store.EventBatch) ([]store.EventRow, error)
}

// ErrUnavailable is the failure of appends the database could not take
// within the log's RetryFor: the turn that made them is handed back, to be
// resumed when the database is back, rather than failed.
var ErrUnavailable = errors.New("the database was unavailable; the events were not recorded")

// LogConfig configures a Log.
type LogConfig struct {
	// Store writes the batches. Required.
	Store LogStore
	// Broker receives every record once it is durable. Required.
	Broker *Broker
	// Origin is this server process's instance id, carried in the
	// notification to other processes so that this one's Fanout ignores its
	// own events. Required; no '|'.
	Origin string
	// Window is how long the writer waits for more appends after the first
	// one of a batch. 0 (the default) takes only what is already waiting:
	// batches still form under load, because appends queue up while the
	// previous batch is being written, and a lone append pays no delay.
	Window time.Duration
	// MaxBatch bounds the events of one batch (default 256). One Append is
	// never split, so a batch can exceed it by one Append's events.
	MaxBatch int
	// WriteTimeout bounds one batch's transaction (default 10 s).
	WriteTimeout time.Duration
	// RetryFor bounds how long a batch is tried again while the database
	// is unavailable (store.Unavailable: a restart, a stall, a terminated
	// connection), with backoff from 100 ms to 2 s (default 30 s). Appends
	// wait meanwhile, in order; past it they fail with ErrUnavailable.
	RetryFor time.Duration
	// Logger reports failed writes. Default: discard.
	Logger *slog.Logger
	// Metrics records each batch's size and lag (nil: none).
	Metrics *telemetry.Metrics
}

// Log is the durable event log of the conversations: Append writes events
// to the events table and returns once they are committed and published to
// the local broker.
//
// Concurrency: appends from every goroutine of the process go through one
// writer goroutine (Run), which group-commits them: it takes the appends
// waiting on reqs, writes them in one transaction (AppendEvents), publishes
// the records in sequence order and then answers every caller. Appends of
// one conversation get sequence numbers in the order they reached the
// writer, so the order of the appends of one goroutine is kept. The writer
// owns batch; callers only send requests and wait on their done channel.
//
// A running turn appends through its TurnLog instead, which queues: its
// requests go on queue (guarded by mu) without waiting for the writer, who
// takes everything queued when it forms its next batch, in queue order. So
// the events a turn produces while one transaction is being written go
// together in the next one, and a turn's tool calls do not each wait for a
// commit of their own.
type Log struct {
	cfg     LogConfig
	reqs    chan *appendRequest // unbuffered: a request is either taken by the writer or refused
	closed  chan struct{}       // closed when Run stops taking requests
	running atomic.Bool

	wake      chan struct{} // buffered 1: something was queued
	mu        sync.Mutex
	queue     []*appendRequest // queued requests, oldest first
	queueShut bool             // set when Run stops taking queued requests

	lastBatch string // the id of the batch being written (batchID); the writer's
}

type appendRequest struct {
	events []store.NewEvent
	at     time.Time         // when it was made, for the lag metric
	done   chan appendResult // buffered 1; nil when answered through onDone
	// onDone, for a queued request nobody waits for, takes the outcome.
	onDone func(error)
	// turn is the TurnLog that queued it (nil for Log.Append): once one of
	// the turn's appends has failed, its later ones are not written.
	turn *TurnLog
}

// answer gives a request its outcome.
func (r *appendRequest) answer(res appendResult) {
	if r.onDone != nil {
		r.onDone(res.err)
	}
	if r.done != nil {
		r.done <- res
	}
}

type appendResult struct {
	records []event.Record
	err     error
}

// NewLog returns a log; Run must be running for Append to proceed.
func NewLog(cfg LogConfig) (*Log, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("eventlog: log: no store")
	case cfg.Broker == nil:
		return nil, errors.New("eventlog: log: no broker")
	case cfg.Origin == "" || strings.Contains(cfg.Origin, "|"):
		return nil, fmt.Errorf("event: log: origin %q must be non-empty and without '|'", cfg.Origin)
	case cfg.Window < 0:
		return nil, errors.New("eventlog: log: negative window")
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 256
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	if cfg.RetryFor <= 0 {
		cfg.RetryFor = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Log{cfg: cfg, reqs: make(chan *appendRequest), closed: make(chan struct{}), wake: make(chan struct{}, 1)}, nil
}

// Append writes events to a conversation's log and returns their records,
// with their sequence numbers, once they are durable and published to this
// process's subscribers. All events of one call are written in one
// transaction with consecutive sequence numbers.
//
// ctx bounds only the wait for the writer to take the events: once taken
// they are written whatever happens to ctx, and Append waits for the
// outcome (bounded by WriteTimeout), so a caller always knows whether its
// events were written. A turn that ends because its context was cancelled
// should still append its last events with a context that is not
// cancelled (context.WithoutCancel). After Run ended Append fails with
// ErrClosed.
func (l *Log) Append(ctx context.Context, conversationID string, events ...event.Event) ([]event.Record, error) {
	if len(events) == 0 {
		return nil, nil
	}
	// Malformed ids are refused here: in the database they would fail the
	// batch of every turn writing at the same moment.
	if !isUUID(conversationID) {
		return nil, fmt.Errorf("event: append: conversation id %q is not a uuid", conversationID)
	}
	req := &appendRequest{events: make([]store.NewEvent, len(events)), done: make(chan appendResult, 1), at: time.Now()}
	for i, e := range events {
		ne, err := EncodeRow(conversationID, e)
		if err != nil {
			return nil, fmt.Errorf("event: append: %w", err)
		}
		req.events[i] = ne
	}
	select {
	case l.reqs <- req:
	case <-l.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, fmt.Errorf("event: append: %w", context.Cause(ctx))
	}
	res := <-req.done
	return res.records, res.err
}

// InTransaction is what a strategy write needs to append events inside its
// own transaction (store.StrategyEvents): events gives them for the row as
// written, in its conversation. Hand the rows the write returns to
// Published once it commits.
func (l *Log) InTransaction(events func(s store.Strategy) ([]event.Event, error)) *store.StrategyEvents {
	return &store.StrategyEvents{Origin: l.cfg.Origin, Make: func(s store.Strategy) ([]store.NewEvent, error) {
		evs, err := events(s)
		if err != nil {
			return nil, err
		}
		out := make([]store.NewEvent, len(evs))
		for i, e := range evs {
			if out[i], err = EncodeRow(s.ConversationID, e); err != nil {
				return nil, fmt.Errorf("event: append in a strategy write: %w", err)
			}
		}
		return out, nil
	}}
}

// Published delivers rows another write committed (InTransaction) to the
// local broker, as Append does for its own.
func (l *Log) Published(rows []store.EventRow) {
	recs := make([]event.Record, len(rows))
	for i, r := range rows {
		recs[i] = FromRow(r)
	}
	l.cfg.Broker.Publish(recs...)
}

// Run is the writer. It returns nil when ctx ends, after writing the
// appends it had already taken and those queued by TurnLogs (with a fresh WriteTimeout, so a shutdown
// does not lose a turn's last events); appends not yet taken fail with
// ErrClosed. Stop it after the turns that append have stopped. Run may be
// called once.
func (l *Log) Run(ctx context.Context) error {
	if !l.running.CompareAndSwap(false, true) {
		return errors.New("eventlog: log: Run called twice")
	}
	var timer *time.Timer
	if l.cfg.Window > 0 {
		timer = time.NewTimer(l.cfg.Window)
		timer.Stop()
	}
	for {
		var (
			batch []*appendRequest
			n     int
		)
		if ctx.Err() == nil {
			select {
			case first := <-l.reqs:
				batch, n = []*appendRequest{first}, len(first.events)
			case <-l.wake:
				batch, n = l.takeQueued(batch, 0)
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil && len(batch) == 0 {
			close(l.closed)
			l.mu.Lock()
			l.queueShut = true
			l.mu.Unlock()
			for {
				batch, n = l.takeQueued(nil, 0)
				batch = l.drain(batch, n)
				if len(batch) == 0 {
					return nil
				}
				l.write(batch)
			}
		}
		if len(batch) == 0 {
			continue // a wake-up for requests an earlier batch took
		}
		if timer != nil && n < l.cfg.MaxBatch {
			timer.Reset(l.cfg.Window)
		collect:
			for n < l.cfg.MaxBatch {
				select {
				case r := <-l.reqs:
					batch, n = append(batch, r), n+len(r.events)
				case <-l.wake:
					batch, n = l.takeQueued(batch, n)
				case <-timer.C:
					break collect
				case <-ctx.Done():
					break collect
				}
			}
			timer.Stop()
		}
		batch, n = l.takeQueued(batch, n)
		l.write(l.drain(batch, n))
	}
}

// takeQueued adds queued requests to batch, oldest first, up to MaxBatch
// events (a request is never split), and signals wake again if some are
// left.
func (l *Log) takeQueued(batch []*appendRequest, n int) ([]*appendRequest, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := 0
	for ; i < len(l.queue) && n < l.cfg.MaxBatch; i++ {
		batch, n = append(batch, l.queue[i]), n+len(l.queue[i].events)
	}
	l.queue = l.queue[i:]
	if len(l.queue) == 0 {
		l.queue = nil
	} else {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	return batch, n
}

// enqueue queues r for the writer; false once Run has ended.
func (l *Log) enqueue(r *appendRequest) bool {
	l.mu.Lock()
	if l.queueShut {
		l.mu.Unlock()
		return false
	}
	l.queue = append(l.queue, r)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return true
}

// drain adds the requests already waiting, up to MaxBatch events.
func (l *Log) drain(batch []*appendRequest, n int) []*appendRequest {
	for n < l.cfg.MaxBatch {
		select {
		case r := <-l.reqs:
			batch, n = append(batch, r), n+len(r.events)
		default:
			return batch
		}
	}
	return batch
}

// write commits a batch, publishes it and answers its callers. When a
// conversation of the batch no longer exists, its appends fail with
// store.ErrNotFound and the others are written.
func (l *Log) write(batch []*appendRequest) {
	// Requests without events (Sync's markers) only wait for the ones
	// before them: they are answered once the batch is written.
	// A turn whose earlier append failed has a hole in its transcript
	// from that event on: its later events are refused with the same
	// failure rather than written after the hole.
	var markers []*appendRequest
	keep := batch[:0:0]
	for _, r := range batch {
		switch {
		case len(r.events) == 0:
			markers = append(markers, r)
		case r.turn != nil && r.turn.Err() != nil:
			r.answer(appendResult{err: r.turn.Err()})
		default:
			keep = append(keep, r)
		}
	}
	batch = keep
	defer func() {
		for _, r := range markers {
			r.answer(appendResult{})
		}
	}()
	var (
		retry   bool
		backoff = retryMin
		since   time.Time
	)
	for len(batch) > 0 {
		var events []store.NewEvent
		for _, r := range batch {
			events = append(events, r.events...)
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.cfg.WriteTimeout)
		// A new id whenever the batch changes: a batch that failed for
		// good is not looked for again.
		if !retry {
			since = time.Now()
		}
		rows, err := l.cfg.Store.AppendEventBatch(ctx, store.EventBatch{ID: l.batchID(retry), Origin: l.cfg.Origin, Events: events, Retry: retry})
		cancel()
		if err != nil {
			var gone *store.ConversationGoneError
			if errors.As(err, &gone) {
				batch, retry = l.fail(batch, gone.ConversationID, err), false
				continue
			}
			if store.Unavailable(err) && time.Since(since) < l.cfg.RetryFor {
				if !retry {
					l.cfg.Logger.Warn("the database is unavailable; writing the events again", slog.Int("events", len(events)), slog.Any("error", err))
				}
				retry = true
				time.Sleep(backoff)
				backoff = min(backoff*2, retryMax)
				continue
			}
			l.cfg.Logger.Error("writing events", slog.Int("events", len(events)), slog.Any("error", err))
			if store.Unavailable(err) {
				err = fmt.Errorf("%w (for %s): %w", ErrUnavailable, time.Since(since).Round(time.Second), err)
			}
			for _, r := range batch {
				r.answer(appendResult{err: fmt.Errorf("event: append: %w", err)})
			}
			return
		}
		if retry {
			l.cfg.Logger.Info("the events were written once the database was back", slog.Int("events", len(events)), slog.Duration("after", time.Since(since)))
		}
		if len(rows) != len(events) {
			err := fmt.Errorf("event: append: store returned %d rows for %d events", len(rows), len(events))
			for _, r := range batch {
				r.answer(appendResult{err: err})
			}
			return
		}
		records := make([]event.Record, len(rows))
		for i, row := range rows {
			records[i] = FromRow(row)
		}
		l.cfg.Broker.Publish(records...)
		l.observe(batch, len(events))
		for _, r := range batch {
			r.answer(appendResult{records: records[:len(r.events):len(r.events)]})
			records = records[len(r.events):]
		}
		return
	}
}

// The log's backoff while the database is unavailable.
const (
	retryMin = 100 * time.Millisecond
	retryMax = 2 * time.Second
)

// batchID returns the id of the batch being written: the one before when
// retrying it, else a new one. Only the writer calls it.
func (l *Log) batchID(retry bool) string {
	if !retry || l.lastBatch == "" {
		l.lastBatch = uuid.NewString()
	}
	return l.lastBatch
}

// observe records a published batch's size and the age of its oldest
// append.
func (l *Log) observe(batch []*appendRequest, events int) {
	if l.cfg.Metrics == nil {
		return
	}
	oldest := batch[0].at
	for _, r := range batch[1:] {
		if r.at.Before(oldest) {
			oldest = r.at
		}
	}
	l.cfg.Metrics.EventBatch(context.Background(), events, time.Since(oldest))
}

// fail answers the requests of a missing conversation with err and returns
// the others.
func (l *Log) fail(batch []*appendRequest, conversationID string, err error) []*appendRequest {
	keep := batch[:0]
	for _, r := range batch {
		if strings.EqualFold(r.events[0].ConversationID, conversationID) {
			r.answer(appendResult{err: fmt.Errorf("event: append: %w", err)})
			continue
		}
		keep = append(keep, r)
	}
	if len(keep) == len(batch) {
		// The store named a conversation no request has: give up on all
		// rather than loop.
		for _, r := range keep {
			r.answer(appendResult{err: fmt.Errorf("event: append: %w", err)})
		}
		return nil
	}
	return keep
}
