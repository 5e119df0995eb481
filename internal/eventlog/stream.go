package eventlog

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strategist/internal/event"
	"time"

	"strategist/internal/store"
)

// ErrGap means a live record arrived whose predecessors the log does not
// have. It cannot happen while events are published only after commit and
// each conversation commits in sequence order; Stream reports it rather
// than send a stream with a hole.
var ErrGap = errors.New("eventlog: stream: gap in the log")

// StreamStore is what a stream reads: a page of a user's conversation's log
// (store.DB.EventsAfter, ErrNotFound for another user's conversation).
type StreamStore interface {
	EventsAfter(ctx context.Context, userID, conversationID string, after int64, limit int) ([]store.EventRow, error)
}

// StreamerConfig configures a Streamer.
type StreamerConfig struct {
	// Store replays the log. Required.
	Store StreamStore
	// Broker delivers live records. Required.
	Broker *Broker
	// PageSize is how many events one replay read returns (default 500).
	PageSize int
}

// maxBatch bounds how many live records one batch takes from a
// subscription, so that a stream that fell far behind still writes (and
// meets its write deadline) in steps.
const maxBatch = 256

// Streamer turns the log and the broker into per-client streams.
type Streamer struct {
	cfg StreamerConfig
}

// NewStreamer returns a streamer.
func NewStreamer(cfg StreamerConfig) (*Streamer, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("eventlog: streamer: no store")
	case cfg.Broker == nil:
		return nil, errors.New("eventlog: streamer: no broker")
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 500
	}
	return &Streamer{cfg: cfg}, nil
}

// Stream yields the records of a user's conversation with seq above after,
// in sequence order, each exactly once: first those in the log, then live
// ones as they are published. It is Batches, one record at a time.
func (s *Streamer) Stream(ctx context.Context, userID, conversationID string, after int64) iter.Seq2[event.Record, error] {
	return func(yield func(event.Record, error) bool) {
		for batch, err := range s.Batches(ctx, userID, conversationID, after, 0) {
			if err != nil {
				yield(event.Record{}, err)
				return
			}
			for _, p := range batch {
				if !yield(p.Record, nil) {
					return
				}
			}
		}
	}
}

// Batches yields the records of a user's conversation with seq above after,
// in sequence order, each exactly once: first those in the log, a page at a
// time, then live ones as they are published, in batches of whatever was
// published since the consumer last asked (so that a stream writes and
// flushes once per burst, not once per record). Live records are the
// broker's shared *Published values. When heartbeat > 0 and nothing has
// been yielded for that long, an empty batch is yielded (the SSE handler's
// keep-alive comment).
//
// It subscribes before the last replay read, so nothing appended meanwhile
// is missed; live records already replayed are skipped, and a live record
// that comes before its predecessors (another process's events arriving
// late, a notification lost) makes it read the missing range from the log
// first.
//
// The sequence ends without error when ctx ends. It ends with an error when
// the conversation is not the user's (store.ErrNotFound, before any
// record), when a read fails, or when the broker dropped the subscriber for
// being slow (ErrSlowSubscriber): the client reconnects with the last seq
// it got and replays from the log. A long history is replayed without
// holding a subscription, so that live records do not pile up meanwhile.
//
// The batch slice is reused: the consumer must be done with it before it
// asks for the next one.
func (s *Streamer) Batches(ctx context.Context, userID, conversationID string, after int64, heartbeat time.Duration) iter.Seq2[[]*Published, error] {
	return func(yield func([]*Published, error) bool) {
		st := &streamState{s: s, ctx: ctx, userID: userID, conversationID: conversationID, last: after}
		sub := s.cfg.Broker.Subscribe(conversationID)
		defer func() {
			if sub != nil {
				sub.Close()
			}
		}()
		for {
			n, err := st.page()
			if err != nil {
				st.fail(yield, err)
				return
			}
			if len(st.out) > 0 && !yield(st.out, nil) {
				return
			}
			st.reset()
			if n < s.cfg.PageSize {
				if sub != nil {
					break
				}
				// Caught up with a long history: subscribe, then read what
				// was appended since.
				sub = s.cfg.Broker.Subscribe(conversationID)
				continue
			}
			if sub != nil {
				sub.Close()
				sub = nil
			}
		}
		var beat <-chan time.Time
		var timer *time.Timer
		if heartbeat > 0 {
			timer = time.NewTimer(heartbeat)
			defer timer.Stop()
			beat = timer.C
		}
		records := sub.Records()
		for {
			select {
			case <-ctx.Done():
				return
			case <-beat:
				if !yield(nil, nil) {
					return
				}
				timer.Reset(heartbeat)
				continue
			case p, open := <-records:
				closed := !open
				// Take whatever else is already waiting: one batch per burst.
			take:
				for open {
					if err := st.live(p); err != nil {
						st.fail(yield, err)
						return
					}
					if len(st.out) >= maxBatch {
						break
					}
					select {
					case p, open = <-records:
						closed = !open
					default:
						break take
					}
				}
				if len(st.out) > 0 {
					if !yield(st.out, nil) {
						return
					}
					st.reset()
				}
				if closed {
					yield(nil, fmt.Errorf("event: stream: %w", sub.Err()))
					return
				}
			}
			if timer != nil {
				timer.Reset(heartbeat)
			}
		}
	}
}

// streamState is one stream's position and the batch it is building; it
// lives on the consumer's goroutine.
type streamState struct {
	s                      *Streamer
	ctx                    context.Context
	userID, conversationID string
	last                   int64        // seq of the last record put in a batch
	out                    []*Published // the batch being built
}

// reset empties the batch for reuse. The slots are cleared too: left in
// the backing array, a stream's last batch (a whole replayed page, each
// record with its SSE bytes) would stay alive for as long as the stream
// waits for live records, which on an idle conversation is all its life.
func (st *streamState) reset() {
	clear(st.out)
	st.out = st.out[:0]
}

// fail yields err unless the stream ended because ctx did.
func (st *streamState) fail(yield func([]*Published, error) bool, err error) {
	if st.ctx.Err() == nil {
		yield(nil, err)
	}
}

// page reads one page after last into the batch; it returns how many
// records it read.
func (st *streamState) page() (int, error) {
	rows, err := st.s.cfg.Store.EventsAfter(st.ctx, st.userID, st.conversationID, st.last, st.s.cfg.PageSize)
	if err != nil {
		return 0, fmt.Errorf("event: stream: replay: %w", err)
	}
	for _, row := range rows {
		st.out = append(st.out, NewPublished(FromRow(row)))
		st.last = row.Seq
	}
	return len(rows), nil
}

// live puts a live record in its place in the batch: skipped when already
// there, after its missing predecessors when early.
func (st *streamState) live(p *Published) error {
	if p.Seq <= st.last {
		return nil
	}
	for p.Seq > st.last+1 {
		n, err := st.page()
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%w: %s after seq %d, before %d", ErrGap, st.conversationID, st.last, p.Seq)
		}
	}
	if p.Seq <= st.last {
		return nil
	}
	st.out = append(st.out, p)
	st.last = p.Seq
	return nil
}
