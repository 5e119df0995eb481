package eventlog_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"strategist/internal/eventlog"
)

// terminated is the error of a connection lost under a statement (a
// restart, an operator's pg_terminate_backend); store.Unavailable knows it.
var terminated = fmt.Errorf("store: append events: %w", io.ErrUnexpectedEOF)

// TestLogRetriesWhileUnavailable: a batch whose transaction fails because
// the database went away is written again, with backoff, under the same
// batch id and marked as a retry (so that a commit that happened before
// the failure is found, not written twice); the append succeeds once.
func TestLogRetriesWhileUnavailable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		st.failOnce = terminated
		br := eventlog.NewBroker(0)
		sub := br.Subscribe(convA)
		defer sub.Close()
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: br, Origin: "p1"})
		defer stop()
		recs, err := l.Append(context.Background(), convA, delta(turn1, "x"))
		if err != nil || len(recs) != 1 || recs[0].Seq != 1 {
			t.Fatalf("Append() = %v, %v; want one record, seq 1", recs, err)
		}
		st.mu.Lock()
		tries := append([]string(nil), st.tries...)
		st.mu.Unlock()
		if len(tries) != 2 || tries[1] != tries[0]+" retry" {
			t.Errorf("store calls = %v, want the batch and its retry under the same id", tries)
		}
		if got := received(sub); len(got) != 1 {
			t.Errorf("published %v, want the one record", got)
		}
	})
}

// TestLogGivesUpAfterRetryFor: a database away longer than RetryFor fails
// the appends with ErrUnavailable, a sentence, after trying all along.
func TestLogGivesUpAfterRetryFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemStore()
		st.failure = terminated
		l, stop := runLog(t, eventlog.LogConfig{Store: st, Broker: eventlog.NewBroker(0), Origin: "p1", RetryFor: 10 * time.Second})
		defer stop()
		start := time.Now()
		_, err := l.Append(context.Background(), convA, delta(turn1, "x"))
		if !errors.Is(err, eventlog.ErrUnavailable) {
			t.Fatalf("Append() = %v, want ErrUnavailable", err)
		}
		if !strings.HasPrefix(eventlog.ErrUnavailable.Error(), "the database was unavailable") {
			t.Errorf("ErrUnavailable reads %q", eventlog.ErrUnavailable)
		}
		if took := time.Since(start); took < 10*time.Second || took > 13*time.Second {
			t.Errorf("gave up after %s, want RetryFor (10 s) and one backoff at most", took)
		}
		if n := len(st.calls()); n < 5 {
			t.Errorf("tried %d times in 10 s, want one every 2 s at most", n)
		}
	})
}
