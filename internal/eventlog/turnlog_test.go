package eventlog_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/eventlog"
)

// TestTurnLogQueues shows what queuing buys, deterministically: while the
// writer is inside one transaction, a turn queues events without waiting,
// and the next transaction takes all of them in order; nothing is
// published before its transaction returned.
func TestTurnLogQueues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		st.gate = make(chan struct{})
		br := eventlog.NewBroker(0)
		sub := br.Subscribe(convA)
		defer sub.Close()
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: br, Origin: "p1"})
		defer stop()
		tl, err := l.Turn(convA)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := tl.Queue(ctx, delta(turn1, "1")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the writer holds "1" at the gate
		for _, d := range []string{"2", "3", "4"} {
			if err := tl.Queue(ctx, delta(turn1, d)); err != nil {
				t.Fatal(err)
			}
		}
		if got := received(sub); len(got) != 0 {
			t.Errorf("published %v before any commit", got)
		}
		synced := make(chan error, 1)
		go func() { synced <- tl.Sync(ctx) }()
		synctest.Wait()
		select {
		case err := <-synced:
			t.Fatalf("Sync() = %v before the writes", err)
		default:
		}
		close(st.gate)
		if err := <-synced; err != nil {
			t.Fatalf("Sync() = %v", err)
		}
		if diff := cmp.Diff([][]string{{convA}, {convA, convA, convA}}, st.calls()); diff != "" {
			t.Errorf("transactions mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int64{1, 2, 3, 4}, received(sub)); diff != "" {
			t.Errorf("published mismatch (-want +got):\n%s", diff)
		}
		recs, err := tl.Append(ctx, delta(turn1, "5"))
		if err != nil || len(recs) != 1 || recs[0].Seq != 5 {
			t.Errorf("Append() = %v, %v; want seq 5", recs, err)
		}
	})
}

// TestTurnLogReportsALaterFailure: a queued append that fails is reported
// by the turn's next call, and by every one after it.
func TestTurnLogReportsALaterFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		boom := errors.New("disk on fire")
		st.failure = boom
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: eventlog.NewBroker(0), Origin: "p1"})
		defer stop()
		tl, err := l.Turn(convA)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := tl.Queue(ctx, delta(turn1, "1")); err != nil {
			t.Fatalf("Queue() = %v, want nil before the write", err)
		}
		if err := tl.Sync(ctx); !errors.Is(err, boom) {
			t.Errorf("Sync() = %v, want %v", err, boom)
		}
		if err := tl.Queue(ctx, delta(turn1, "2")); !errors.Is(err, boom) {
			t.Errorf("Queue() after a failure = %v, want %v", err, boom)
		}
		if _, err := tl.Append(ctx, delta(turn1, "3")); !errors.Is(err, boom) {
			t.Errorf("Append() after a failure = %v, want %v", err, boom)
		}
	})
}

// TestTurnLogSkipsNothingAfterAFailure: when one of a turn's queued appends
// fails, the events it queued behind that one are not written after the
// hole: they fail with the same error and nothing of them is published.
func TestTurnLogSkipsNothingAfterAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		st.gate = make(chan struct{})
		boom := errors.New("connection reset")
		st.failOnce = boom
		br := eventlog.NewBroker(0)
		sub := br.Subscribe(convA)
		defer sub.Close()
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: br, Origin: "p1"})
		defer stop()
		tl, err := l.Turn(convA)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := tl.Queue(ctx, delta(turn1, "1")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the writer holds the first event in the store
		for _, d := range []string{"2", "3"} {
			if err := tl.Queue(ctx, delta(turn1, d)); err != nil {
				t.Fatal(err)
			}
		}
		close(st.gate)
		if err := tl.Sync(ctx); !errors.Is(err, boom) {
			t.Errorf("Sync() = %v, want %v", err, boom)
		}
		if calls := st.calls(); len(calls) != 1 {
			t.Errorf("store called %d times (%v), want once: the events after the failed one were written", len(calls), calls)
		}
		select {
		case rec := <-sub.Records():
			t.Errorf("published %v after a failed append", rec)
		default:
		}
	})
}

// TestTurnLogAfterShutdown: Run writes what was queued before it ended;
// a later Queue fails with ErrClosed, and so does the turn's Sync.
func TestTurnLogAfterShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: eventlog.NewBroker(0), Origin: "p1"})
		tl, err := l.Turn(convA)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := tl.Queue(ctx, delta(turn1, "1")); err != nil {
			t.Fatal(err)
		}
		stop()
		if got := len(st.calls()); got != 1 {
			t.Errorf("%d transactions, want the queued event written at shutdown", got)
		}
		if err := tl.Queue(ctx, delta(turn1, "2")); !errors.Is(err, eventlog.ErrClosed) {
			t.Errorf("Queue() after Run = %v, want ErrClosed", err)
		}
		if err := tl.Sync(ctx); !errors.Is(err, eventlog.ErrClosed) {
			t.Errorf("Sync() after a refused Queue = %v, want ErrClosed", err)
		}
	})
}
