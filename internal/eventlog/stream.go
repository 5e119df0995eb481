package eventlog

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strategist/internal/event"

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
// ones as they are published. It subscribes before the last replay read,
// so nothing appended meanwhile is missed; live records already replayed are
// skipped, and a live record that comes before its predecessors (another
// process's events arriving late, a notification lost) makes it read the
// missing range from the log first.
//
// The stream ends without error when ctx ends. It ends with an error when
// the conversation is not the user's (store.ErrNotFound, before any
// record), when a read fails, or when the broker dropped the subscriber for
// being slow (ErrSlowSubscriber): the client reconnects with the last seq
// it got and replays from the log. A long history is replayed without
// holding a subscription, so that live records do not pile up meanwhile.
func (s *Streamer) Stream(ctx context.Context, userID, conversationID string, after int64) iter.Seq2[event.Record, error] {
	return func(yield func(event.Record, error) bool) {
		st := &streamState{s: s, ctx: ctx, userID: userID, conversationID: conversationID, last: after, yield: yield}
		sub := s.cfg.Broker.Subscribe(conversationID)
		defer func() {
			if sub != nil {
				sub.Close()
			}
		}()
		for {
			n, ok := st.page()
			if !ok {
				return
			}
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
		for {
			select {
			case <-ctx.Done():
				return
			case r, open := <-sub.Records():
				if !open {
					yield(event.Record{}, fmt.Errorf("event: stream: %w", sub.Err()))
					return
				}
				if !st.live(r) {
					return
				}
			}
		}
	}
}

// streamState is one stream's position; it lives on the consumer's
// goroutine.
type streamState struct {
	s                      *Streamer
	ctx                    context.Context
	userID, conversationID string
	last                   int64 // seq of the last record yielded
	yield                  func(event.Record, error) bool
}

// page reads and yields one page after last; it returns how many records
// it read, and false when the stream must end.
func (st *streamState) page() (int, bool) {
	rows, err := st.s.cfg.Store.EventsAfter(st.ctx, st.userID, st.conversationID, st.last, st.s.cfg.PageSize)
	if err != nil {
		if st.ctx.Err() == nil {
			st.yield(event.Record{}, fmt.Errorf("event: stream: replay: %w", err))
		}
		return 0, false
	}
	for _, row := range rows {
		if !st.yield(FromRow(row), nil) {
			return 0, false
		}
		st.last = row.Seq
	}
	return len(rows), true
}

// live yields a live record in its place: skipped when already sent, after
// its missing predecessors when early.
func (st *streamState) live(r event.Record) bool {
	if r.Seq <= st.last {
		return true
	}
	for r.Seq > st.last+1 {
		n, ok := st.page()
		if !ok {
			return false
		}
		if n == 0 {
			if st.ctx.Err() == nil {
				st.yield(event.Record{}, fmt.Errorf("%w: %s after seq %d, before %d", ErrGap, st.conversationID, st.last, r.Seq))
			}
			return false
		}
	}
	if r.Seq <= st.last {
		return true
	}
	if !st.yield(r, nil) {
		return false
	}
	st.last = r.Seq
	return true
}
