package eventlog_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// streamInto ranges over a stream in a goroutine the test owns, until it
// has n records; the records arrive on the returned channel, which is
// closed when the stream ends.
func streamInto(t *testing.T, p *process, userID, conv string, after int64, n int) <-chan event.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	out := make(chan event.Record, n)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(out)
		got := 0
		for r, err := range p.streamer.Stream(ctx, userID, conv, after) {
			if err != nil {
				t.Errorf("stream: %v", err)
				return
			}
			out <- r
			if got++; got == n {
				return
			}
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	return out
}

// drainSeqs reads a stream's channel to its end.
func drainSeqs(t *testing.T, ch <-chan event.Record) []int64 {
	t.Helper()
	var out []int64
	for r := range ch {
		out = append(out, r.Seq)
	}
	return out
}

// TestStreamWithConcurrentAppends streams a conversation from the
// beginning while 10 goroutines append to it: every event arrives once,
// in sequence order, whether it came from the replay or live.
func TestStreamWithConcurrentAppends(t *testing.T) {
	t.Parallel()
	const writers, perWriter, history = 10, 30, 200
	url := pgtest.NewURL(t)
	p := startProcess(t, url, "p1", processOptions{})
	userID, convs := seed(t, p.db, 1)
	turn := newUUID()
	for i := range history / 50 {
		var evs []event.Event
		for j := range 50 {
			evs = append(evs, delta(turn, fmt.Sprintf("h-%d", i*50+j)))
		}
		if _, err := p.log.Append(context.Background(), convs[0], evs...); err != nil {
			t.Fatal(err)
		}
	}
	total := history + writers*perWriter
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			<-start
			for i := range perWriter {
				if _, err := p.log.Append(context.Background(), convs[0], delta(turn, fmt.Sprintf("w%d-%d", w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	close(start)
	// Streams started at several points of the appending, from several offsets.
	var streams []<-chan event.Record
	var afters []int64
	for i, after := range []int64{0, 17, history, 0} {
		if i == 3 {
			time.Sleep(20 * time.Millisecond) // a later stream, to start amid the appends
		}
		streams = append(streams, streamInto(t, p, userID, convs[0], after, total-int(after)))
		afters = append(afters, after)
	}
	wg.Wait()
	for i, ch := range streams {
		got := drainSeqs(t, ch)
		if diff := cmp.Diff(seqs(int64(total)-afters[i], afters[i]+1), got); diff != "" {
			t.Errorf("stream %d (after %d) mismatch (-want +got):\n%s", i, afters[i], diff)
		}
	}
}

// TestFanoutDeliversOtherProcessEvents: a client streaming from one process
// sees, in order and once each, the events another process appends, and
// its own process's events are published once (the fan-out ignores its own
// notifications).
func TestFanoutDeliversOtherProcessEvents(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	p1, p2 := startProcess(t, url, "p1", processOptions{}), startProcess(t, url, "p2", processOptions{})
	userID, convs := seed(t, p1.db, 2)
	waitListening(t, p1.db, 2)

	const n = 40
	fromP1 := streamInto(t, p1, userID, convs[0], 0, n)
	fromP2 := streamInto(t, p2, userID, convs[0], 0, n)
	raw := p2.broker.Subscribe(convs[0]) // what the fan-out publishes in p2, unfiltered by Stream
	defer raw.Close()
	turn := newUUID()
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range n / 2 {
				if _, err := p1.log.Append(context.Background(), convs[0], delta(turn, fmt.Sprintf("w%d-%d", w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for name, ch := range map[string]<-chan event.Record{"p1": fromP1, "p2": fromP2} {
		if diff := cmp.Diff(seqs(n, 1), drainSeqs(t, ch)); diff != "" {
			t.Errorf("stream from %s mismatch (-want +got):\n%s", name, diff)
		}
	}
	// With one appending process, p2's fan-out alone publishes every event,
	// in order.
	var rawSeqs []int64
	for len(rawSeqs) < n {
		select {
		case r := <-raw.Records():
			rawSeqs = append(rawSeqs, r.Seq)
		case <-time.After(10 * time.Second):
			t.Fatalf("fan-out published %v, want 1..%d", rawSeqs, n)
		}
	}
	if diff := cmp.Diff(seqs(n, 1), rawSeqs); diff != "" {
		t.Errorf("fan-out publications mismatch (-want +got):\n%s", diff)
	}
}

// TestFanoutHealsAfterLostConnection: events appended by another process
// while the listening connection is down reach the stream once it is back.
func TestFanoutHealsAfterLostConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.NewURL(t)
	p1, p2 := startProcess(t, url, "p1", processOptions{}), startProcess(t, url, "p2", processOptions{})
	userID, convs := seed(t, p1.db, 1)
	waitListening(t, p1.db, 2)
	turn := newUUID()
	if _, err := p1.log.Append(ctx, convs[0], delta(turn, "a-0")); err != nil {
		t.Fatal(err)
	}
	stream := streamInto(t, p2, userID, convs[0], 0, 6)
	first := <-stream
	if first.Seq != 1 {
		t.Fatalf("first record seq %d", first.Seq)
	}
	// Kill every listener and keep them from reconnecting while p1 appends:
	// those notifications reach nobody in p2. (The pools keep the
	// connections they have.)
	var dbName string
	if err := p1.db.Pool().QueryRow(ctx, "SELECT current_database()").Scan(&dbName); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		pgtest.AdminExec(t, sql, args...)
	}
	exec(`ALTER DATABASE "` + dbName + `" ALLOW_CONNECTIONS false`)
	exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = $2", store.ListenerAppName, dbName)
	for i := 1; i < 6; i++ {
		if _, err := p1.log.Append(ctx, convs[0], delta(turn, fmt.Sprintf("a-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ALTER DATABASE "` + dbName + `" ALLOW_CONNECTIONS true`)
	// No further append: only the fan-out's catch-up after reconnecting can
	// wake the stream.
	if diff := cmp.Diff(seqs(5, 2), drainSeqs(t, stream)); diff != "" {
		t.Errorf("stream after reconnect mismatch (-want +got):\n%s", diff)
	}
}

// waitListening waits until n listener connections are up.
func waitListening(t *testing.T, db *store.DB, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var got int
		if err := db.Pool().QueryRow(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database() AND query ILIKE 'listen%'",
			store.ListenerAppName).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("fewer than %d listeners after 10s", n)
}

// scriptedListener is a FanoutStore whose Listen connects, delivers
// scripted notifications and waits for its context.
type scriptedListener struct {
	notes  []string
	latest []store.EventRow

	mu     sync.Mutex
	ranges []string // "conversation from-to" read
}

func (s *scriptedListener) Listen(ctx context.Context, channels []string, handle func(channel, payload string), onConnect func(lost error)) error {
	onConnect(nil)
	for _, n := range s.notes {
		handle(channels[0], n)
	}
	<-ctx.Done()
	return nil
}

func (s *scriptedListener) EventsRange(ctx context.Context, conversationID string, from, to int64) ([]store.EventRow, error) {
	s.mu.Lock()
	s.ranges = append(s.ranges, fmt.Sprintf("%s %d-%d", conversationID, from, to))
	s.mu.Unlock()
	var rows []store.EventRow
	for seq := from; seq <= to; seq++ {
		rows = append(rows, store.EventRow{ConversationID: conversationID, Seq: seq})
	}
	return rows, nil
}

func (s *scriptedListener) LatestEvents(ctx context.Context, ids []string) ([]store.EventRow, error) {
	return s.latest, nil
}

func TestFanoutAnnouncements(t *testing.T) {
	br := eventlog.NewBroker(0)
	sub := br.Subscribe(convA)
	defer sub.Close()
	br.Publish(event.Record{ConversationID: convA, Seq: 2})
	<-sub.Records()
	st := &scriptedListener{
		latest: []store.EventRow{{ConversationID: convA, Seq: 2}, {ConversationID: convA, Seq: 3}}, // 2 already published
		notes: []string{
			"p2|" + convA + "|4|5",
			"p1|" + convA + "|6|6", // its own: ignored
			"p2|" + convB + "|1|3", // nobody here watches B
			"garbage",
			"p2|" + convA + "|x|7",
			"p2|" + convA + "|7|7",
		},
	}
	f, err := eventlog.NewFanout(eventlog.FanoutConfig{Store: st, Broker: br, Origin: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := f.Run(ctx); err != nil {
			t.Errorf("Run() = %v", err)
		}
	})
	var got []int64
	for len(got) < 4 {
		got = append(got, (<-sub.Records()).Seq)
	}
	cancel()
	wg.Wait()
	if diff := cmp.Diff([]int64{3, 4, 5, 7}, got); diff != "" {
		t.Errorf("published seqs mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{convA + " 4-5", convA + " 7-7"}, st.ranges); diff != "" {
		t.Errorf("ranges read mismatch (-want +got):\n%s", diff)
	}
	for name, cfg := range map[string]eventlog.FanoutConfig{
		"no store":   {Broker: br, Origin: "p1"},
		"no broker":  {Store: st, Origin: "p1"},
		"bad origin": {Store: st, Broker: br, Origin: "p|1"},
	} {
		if _, err := eventlog.NewFanout(cfg); err == nil {
			t.Errorf("NewFanout(%s) succeeded", name)
		}
	}
}
