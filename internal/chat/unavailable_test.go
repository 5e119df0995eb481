package chat_test

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"strategist/internal/chat"
	"strategist/internal/event"
	"strategist/internal/store"
)

// gone is the error of a database that went away under a statement, past
// the store's own retries; store.Unavailable knows it.
var gone = fmt.Errorf("store: %w", io.ErrUnexpectedEOF)

// awayStore is a database that is unavailable to some of a turn's writes:
// the first AddMessages (a round's or the answer's messages), or every
// EndTurnTx until the turn has been handed back once.
type awayStore struct {
	chat.Store
	messages, ends bool
	failed         atomic.Int32
	released       atomic.Bool
}

func (s *awayStore) AddMessages(ctx context.Context, conversationID, turnID string, msgs []store.NewMessage) error {
	if s.messages && s.failed.Add(1) == 1 {
		return gone
	}
	return s.Store.AddMessages(ctx, conversationID, turnID, msgs)
}

func (s *awayStore) EndTurnTx(ctx context.Context, et store.EndTurn) ([]store.EventRow, error) {
	if s.ends && !s.released.Load() {
		s.failed.Add(1)
		return nil, gone
	}
	return s.Store.EndTurnTx(ctx, et)
}

func (s *awayStore) ReleaseTurn(ctx context.Context, turnID, owner string) error {
	s.released.Store(true)
	return s.Store.ReleaseTurn(ctx, turnID, owner)
}

// TestTurnOutlastsTheDatabase: a turn whose messages or end cannot be
// written because the database stays away past the store's bound is
// neither failed nor left running: it is handed back, and resumed once the
// database answers, so it completes, with one turn_end.
func TestTurnOutlastsTheDatabase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		away *awayStore
	}{
		{"messages", &awayStore{messages: true}},
		{"end", &awayStore{ends: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := engine(t, `{"roles":{"planner":[{"text":"Kinases, then."},{"text":"Kinases, then."}]}}`)
			w := newWorld(t)
			away := tc.away
			p := w.start(options{engine: e, retryFor: 300 * time.Millisecond,
				store: func(s chat.Store) chat.Store { away.Store = s; return away }})
			id := w.mustStart(p, w.convID, "kinases")
			if tr := w.waitEnd(w.convID, id); tr.Status != event.TurnCompleted {
				t.Errorf("turn ended %s (%q), want completed", tr.Status, tr.Error)
			}
			if away.failed.Load() == 0 {
				t.Fatal("no write failed")
			}
			recs := w.checkLog(w.convID)
			count := map[string]int{}
			for _, typ := range turnEvents(recs, id) {
				count[typ]++
			}
			if count["turn_end"] != 1 || count["turn_resumed"] != 1 || count["error"] != 0 {
				t.Errorf("turn events = %v; want it handed back once, resumed and ended once, without an error", turnEvents(recs, id))
			}
		})
	}
}
