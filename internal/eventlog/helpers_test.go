package eventlog_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/pgtest"
	"strategist/internal/store"
)

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// delta is a small event whose text identifies it.
func delta(turnID, text string) *event.AssistantDelta {
	return &event.AssistantDelta{Base: event.Base{TurnID: turnID}, MessageID: "m1", Delta: text}
}

// deltaText returns the text of an assistant_delta record.
func deltaText(t testing.TB, r event.Record) string {
	t.Helper()
	e, err := r.Decode()
	if err != nil {
		t.Fatalf("decode seq %d: %v", r.Seq, err)
	}
	d, ok := e.(*event.AssistantDelta)
	if !ok {
		t.Fatalf("seq %d is %s, want assistant_delta", r.Seq, r.Type)
	}
	return d.Delta
}

// process is one server process's event machinery on a shared database:
// its own pool, store, broker, log and fan-out, running until the test
// ends.
type process struct {
	db       *store.DB
	broker   *eventlog.Broker
	log      *eventlog.Log
	streamer *eventlog.Streamer
	origin   string
}

type processOptions struct {
	wrap   func(eventlog.LogStore) eventlog.LogStore // wraps the log's store (counting)
	buffer int                                       // subscriber buffer
	window time.Duration
}

func startProcess(t testing.TB, url, origin string, opts processOptions) *process {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.New(pgtest.Connect(t, url))
	if err != nil {
		t.Fatal(err)
	}
	var logStore eventlog.LogStore = db
	if opts.wrap != nil {
		logStore = opts.wrap(db)
	}
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	p := &process{db: db, broker: eventlog.NewBroker(opts.buffer), origin: origin}
	p.log, err = eventlog.NewLog(eventlog.LogConfig{Store: logStore, Broker: p.broker, Origin: origin, Window: opts.window, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	fanout, err := eventlog.NewFanout(eventlog.FanoutConfig{Store: db, Broker: p.broker, Origin: origin, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	p.streamer, err = eventlog.NewStreamer(eventlog.StreamerConfig{Store: db, Broker: p.broker})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := p.log.Run(ctx); err != nil {
			t.Errorf("log: %v", err)
		}
	})
	wg.Go(func() {
		if err := fanout.Run(ctx); err != nil {
			t.Errorf("fanout: %v", err)
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return p
}

// seed creates a user with n conversations.
func seed(t testing.TB, db *store.DB, n int) (userID string, conversations []string) {
	t.Helper()
	ctx := context.Background()
	u, err := db.CreateUser(ctx, fmt.Sprintf("u%s@example.org", newUUID()[:8]), "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		c, err := db.CreateConversation(ctx, u.ID, "plasmodb", "", "offline")
		if err != nil {
			t.Fatal(err)
		}
		conversations = append(conversations, c.ID)
	}
	return u.ID, conversations
}

// countingStore counts the log's transactions.
type countingStore struct {
	eventlog.LogStore
	mu      sync.Mutex
	batches []int // events per transaction
}

func (c *countingStore) AppendEventBatch(ctx context.Context, b store.EventBatch) ([]store.EventRow, error) {
	c.mu.Lock()
	c.batches = append(c.batches, len(b.Events))
	c.mu.Unlock()
	return c.LogStore.AppendEventBatch(ctx, b)
}

func (c *countingStore) transactions() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.batches...)
}
