package eventlog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/store"
)

// memStore is an in-memory LogStore: sequences per conversation, an
// optional gate every call waits on, and an optional failure.
type memStore struct {
	gate     chan struct{} // when set, each call receives from it first
	missing  string        // a conversation that does not exist
	failure  error         // when set, every call fails with it
	failOnce error         // when set, the next call fails with it (once)

	mu      sync.Mutex
	seq     map[string]int64
	batches [][]string // conversation ids per call
	tries   []string   // "id" or "id retry" per call
}

func newMemStore() *memStore { return &memStore{seq: map[string]int64{}} }

func (m *memStore) AppendEventBatch(ctx context.Context, b store.EventBatch) ([]store.EventRow, error) {
	batch := b.Events
	if m.gate != nil {
		<-m.gate
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var convs []string
	for _, e := range batch {
		convs = append(convs, e.ConversationID)
	}
	m.batches = append(m.batches, convs)
	try := b.ID
	if b.Retry {
		try += " retry"
	}
	m.tries = append(m.tries, try)
	if m.failure != nil {
		return nil, m.failure
	}
	if err := m.failOnce; err != nil {
		m.failOnce = nil
		return nil, err
	}
	for _, e := range batch {
		if e.ConversationID == m.missing {
			return nil, fmt.Errorf("store: append events: %w", &store.ConversationGoneError{ConversationID: e.ConversationID})
		}
	}
	rows := make([]store.EventRow, len(batch))
	for i, e := range batch {
		m.seq[e.ConversationID]++
		rows[i] = store.EventRow{ConversationID: e.ConversationID, Seq: m.seq[e.ConversationID], TurnID: e.TurnID, Type: e.Type, Payload: e.Payload}
	}
	return rows, nil
}

func (m *memStore) calls() [][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]string(nil), m.batches...)
}

// runLog starts a log's Run; the returned stop ends it and waits.
func runLog(t *testing.T, cfg eventlog.LogConfig) (*eventlog.Log, func()) {
	t.Helper()
	l, err := eventlog.NewLog(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := l.Run(ctx); err != nil {
			t.Errorf("Run() = %v", err)
		}
	})
	return l, func() { cancel(); wg.Wait() }
}

const (
	convA = "aaaaaaaa-0000-4000-8000-000000000001"
	convB = "bbbbbbbb-0000-4000-8000-000000000002"
	turn1 = "11111111-0000-4000-8000-000000000001"
)

// TestLogGroupCommits shows the batching deterministically: while the
// writer is inside one transaction, the appends that arrive wait, and the
// next transaction takes all of them.
func TestLogGroupCommits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		st.gate = make(chan struct{})
		br := eventlog.NewBroker(0)
		sub := br.Subscribe(convA)
		defer sub.Close()
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: br, Origin: "p1"})
		defer stop()

		var wg sync.WaitGroup
		results := make([][]event.Record, 10)
		for i := range results {
			wg.Go(func() {
				recs, err := l.Append(context.Background(), convA, delta(turn1, fmt.Sprint(i)), delta(turn1, fmt.Sprint(i)))
				if err != nil {
					t.Errorf("Append(%d): %v", i, err)
				}
				results[i] = recs
			})
			if i == 0 {
				synctest.Wait() // the writer holds the first append in the store
			}
		}
		synctest.Wait() // nine more wait for the writer
		close(st.gate)
		wg.Wait()

		var sizes []int
		for _, c := range st.calls() {
			sizes = append(sizes, len(c))
		}
		if diff := cmp.Diff([]int{2, 18}, sizes); diff != "" {
			t.Errorf("events per transaction mismatch (-want +got):\n%s", diff)
		}
		// Each Append got its own two events, consecutive.
		for i, recs := range results {
			if len(recs) != 2 || recs[1].Seq != recs[0].Seq+1 {
				t.Errorf("Append(%d) records = %+v, want two consecutive", i, recs)
				continue
			}
			for _, r := range recs {
				if got := deltaText(t, r); got != fmt.Sprint(i) {
					t.Errorf("Append(%d) got the record of append %s", i, got)
				}
			}
		}
		// Published before Append returned, in sequence order.
		var seqs []int64
		for range 20 {
			seqs = append(seqs, (<-sub.Records()).Seq)
		}
		for i, s := range seqs {
			if s != int64(i+1) {
				t.Fatalf("published seqs = %v, want 1..20", seqs)
			}
		}
	})
}

func TestLogWindowCollects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: eventlog.NewBroker(0), Origin: "p1", Window: 2 * time.Millisecond, MaxBatch: 3})
		defer stop()
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Go(func() {
				time.Sleep(time.Duration(i) * 500 * time.Microsecond) // all within one window
				if _, err := l.Append(context.Background(), convA, delta(turn1, "x")); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		var sizes []int
		for _, c := range st.calls() {
			sizes = append(sizes, len(c))
		}
		// MaxBatch 3 closes the first batch early; the window collects the rest.
		if diff := cmp.Diff([]int{3, 2}, sizes); diff != "" {
			t.Errorf("events per transaction mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestLogWriteFailureReachesEveryWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		st.gate = make(chan struct{})
		boom := errors.New("disk on fire")
		st.failure = boom
		br := eventlog.NewBroker(0)
		sub := br.Subscribe(convA)
		defer sub.Close()
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: br, Origin: "p1"})
		defer stop()
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				_, err := l.Append(context.Background(), convA, delta(turn1, "x"))
				errs <- err
			}()
		}
		synctest.Wait()
		close(st.gate)
		for range 4 {
			if err := <-errs; !errors.Is(err, boom) {
				t.Errorf("Append() error = %v, want %v", err, boom)
			}
		}
		if got := received(sub); len(got) != 0 {
			t.Errorf("published %v after a failed write, want nothing", got)
		}
	})
}

func TestLogMissingConversationFailsOnlyItsAppends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		st.gate = make(chan struct{})
		st.missing = convB
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: eventlog.NewBroker(0), Origin: "p1"})
		defer stop()
		type result struct {
			conv string
			err  error
		}
		results := make(chan result, 4)
		for _, conv := range []string{convA, convB, convA, convB} {
			go func() {
				_, err := l.Append(context.Background(), conv, delta(turn1, "x"))
				results <- result{conv, err}
			}()
		}
		synctest.Wait()
		close(st.gate)
		for range 4 {
			r := <-results
			if r.conv == convA && r.err != nil {
				t.Errorf("Append(A) = %v, want success", r.err)
			}
			if r.conv == convB && !errors.Is(r.err, store.ErrNotFound) {
				t.Errorf("Append(deleted B) = %v, want ErrNotFound", r.err)
			}
		}
	})
}

func TestLogShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		st.gate = make(chan struct{})
		l, err := eventlog.NewLog(eventlog.LogConfig{Store: st, Broker: eventlog.NewBroker(0), Origin: "p1"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		runDone := make(chan error, 1)
		go func() { runDone <- l.Run(ctx) }()

		taken := make(chan error, 1)
		go func() {
			_, err := l.Append(context.Background(), convA, delta(turn1, "taken"))
			taken <- err
		}()
		synctest.Wait() // the writer holds the append in the store
		cancel()
		close(st.gate)
		if err := <-taken; err != nil {
			t.Errorf("an append taken before shutdown failed: %v", err)
		}
		if err := <-runDone; err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
		if _, err := l.Append(context.Background(), convA, delta(turn1, "late")); !errors.Is(err, eventlog.ErrClosed) {
			t.Errorf("Append after shutdown = %v, want ErrClosed", err)
		}
		if err := l.Run(context.Background()); err == nil {
			t.Error("second Run succeeded")
		}
	})
}

func TestLogAppendRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, err := eventlog.NewLog(eventlog.LogConfig{Store: newMemStore(), Broker: eventlog.NewBroker(0), Origin: "p1"})
		if err != nil {
			t.Fatal(err)
		}
		// Run is not running: a cancelled caller gives up waiting.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := l.Append(ctx, convA, delta(turn1, "x")); !errors.Is(err, context.Canceled) {
			t.Errorf("Append(cancelled) = %v, want context.Canceled", err)
		}
		for name, tt := range map[string]struct {
			conv string
			e    event.Event
		}{
			"conversation id": {"conv-1", delta(turn1, "x")},
			"turn id":         {convA, delta("turn-1", "x")},
		} {
			if _, err := l.Append(context.Background(), tt.conv, tt.e); err == nil || !strings.Contains(err.Error(), "not a uuid") {
				t.Errorf("Append with a malformed %s = %v, want a refusal", name, err)
			}
		}
		if recs, err := l.Append(context.Background(), convA); recs != nil || err != nil {
			t.Errorf("Append() with no events = %v, %v", recs, err)
		}
	})
	for name, cfg := range map[string]eventlog.LogConfig{
		"no store":   {Broker: eventlog.NewBroker(0), Origin: "p"},
		"no broker":  {Store: newMemStore(), Origin: "p"},
		"no origin":  {Store: newMemStore(), Broker: eventlog.NewBroker(0)},
		"bad origin": {Store: newMemStore(), Broker: eventlog.NewBroker(0), Origin: "a|b"},
	} {
		if _, err := eventlog.NewLog(cfg); err == nil {
			t.Errorf("NewLog(%s) succeeded", name)
		}
	}
}

// scrubCases are payload strings jsonb refuses (or nearly so) and what the
// log stores instead.
var scrubCases = []struct {
	name      string
	args      string // raw JSON tool arguments, as a model sent them
	wantValue string // the decoded "q" after storing
}{
	{"NUL", `{"q":"a\u0000b"}`, "a\ufffdb"},
	{"escaped backslash before u0000", `{"q":"a\\u0000b"}`, `a\u0000b`},
	{"surrogate pair", `{"q":"\ud83d\ude00"}`, "\U0001F600"},
	{"lone high surrogate", `{"q":"x\ud83dy"}`, "x\ufffdy"},
	{"high surrogate then another escape", `{"q":"\ud83d\n"}`, "\ufffd\n"},
	{"lone low surrogate", `{"q":"\ude00"}`, "\ufffd"},
	{"plain", `{"q":"<b>"}`, "<b>"},
}

func storedQ(t *testing.T, r event.Record) string {
	t.Helper()
	var call event.ToolCallStart
	if err := json.Unmarshal(r.Payload, &call); err != nil {
		t.Fatal(err)
	}
	var args struct{ Q string }
	if err := json.Unmarshal(call.Args, &args); err != nil {
		t.Fatal(err)
	}
	return args.Q
}

// TestLogScrubsJSON: one odd character in a model's output must not fail
// the batch of every turn writing at the same moment.
func TestLogScrubsJSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, stop := runLog(t, eventlog.LogConfig{Store: newMemStore(), Broker: eventlog.NewBroker(0), Origin: "p1"})
		defer stop()
		for _, tt := range scrubCases {
			recs, err := l.Append(context.Background(), convA, &event.ToolCallStart{Base: event.Base{TurnID: turn1}, CallID: "c", Name: "n", Args: json.RawMessage(tt.args)})
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if got := storedQ(t, recs[0]); got != tt.wantValue {
				t.Errorf("%s: stored %q, want %q", tt.name, got, tt.wantValue)
			}
		}
	})
}

// TestEncodeRow: the one encoder of event rows scrubs what jsonb refuses
// from every event, not only from a model's tool arguments (a turn's end
// carries an engine's error text, which may hold a NUL), and refuses a
// turn id that is not a uuid.
func TestEncodeRow(t *testing.T) {
	row, err := eventlog.EncodeRow(convA, &event.TurnEnd{Base: event.Base{TurnID: turn1}, Status: event.TurnFailed, Error: "model said a\x00b"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(row.Payload), `\u0000`) {
		t.Errorf("payload %s keeps \\u0000, which jsonb refuses", row.Payload)
	}
	var end event.TurnEnd
	if err := json.Unmarshal(row.Payload, &end); err != nil {
		t.Fatal(err)
	}
	if row.ConversationID != convA || row.TurnID != turn1 || row.Type != "turn_end" {
		t.Errorf("row = %s %s %s, want %s %s turn_end", row.ConversationID, row.TurnID, row.Type, convA, turn1)
	}
	if end.Error != "model said a\ufffdb" {
		t.Errorf("stored error %q, want %q", end.Error, "model said a\ufffdb")
	}
	if _, err := eventlog.EncodeRow(convA, &event.TurnEnd{Base: event.Base{TurnID: "t1"}}); err == nil {
		t.Error("EncodeRow took a turn id that is not a uuid")
	}
}
