package llm

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The ways a call ends other than an answer or a classified error: the
// caller stops listening, the context ends, a Sleep hook fails.

var (
	errBusy   = &Error{Kind: ErrorRetryable, Engine: "test", Status: 503, Message: "the model server is unavailable"}
	textChunk = Chunk{Kind: ChunkText, Text: "Hel"}
	doneChunk = Chunk{Kind: ChunkFinish, Finish: FinishStop}
)

// TestRetrierStreamConsumerStops: a caller that stops ranging gets nothing
// more, and no further attempt is made.
func TestRetrierStreamConsumerStops(t *testing.T) {
	r, err := NewRetrier(RetryConfig{Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	attempts, sentAfterStop := 0, false
	var got []Chunk
	for c, err := range r.Stream(t.Context(), "m", func(ctx context.Context, send func(Chunk) bool) (*Error, time.Duration) {
		attempts++
		if !send(textChunk) {
			return nil, 0
		}
		sentAfterStop = true
		return nil, 0
	}) {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		got = append(got, c)
		break
	}
	if diff := cmp.Diff([]Chunk{textChunk}, got); diff != "" {
		t.Errorf("chunks mismatch (-want +got):\n%s", diff)
	}
	if attempts != 1 || sentAfterStop {
		t.Errorf("attempts = %d, send reported success after the stop = %v; want 1, false", attempts, sentAfterStop)
	}
}

// TestRetrierStreamStoppedAfterFailure: an attempt that fails after the
// caller stopped listening yields nothing more (a second yield would panic).
func TestRetrierStreamStoppedAfterFailure(t *testing.T) {
	r, err := NewRetrier(RetryConfig{Sleep: (&sleeps{}).sleep})
	if err != nil {
		t.Fatal(err)
	}
	for range r.Stream(t.Context(), "m", func(ctx context.Context, send func(Chunk) bool) (*Error, time.Duration) {
		send(textChunk)
		return errBusy, 0
	}) {
		break
	}
}

// TestRetrierStreamContextEnded: a failure seen after ctx ended is reported
// as ctx.Err(), without sleeping or another attempt.
func TestRetrierStreamContextEnded(t *testing.T) {
	s := &sleeps{}
	r, err := NewRetrier(RetryConfig{Sleep: s.sleep})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	attempts := 0
	_, err = collect(r.Stream(ctx, "m", func(ctx context.Context, send func(Chunk) bool) (*Error, time.Duration) {
		attempts++
		cancel()
		return errBusy, 0
	}))
	if err != context.Canceled {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if attempts != 1 || len(s.got()) != 0 {
		t.Errorf("attempts = %d, sleeps = %v; want 1 attempt, no sleep", attempts, s.got())
	}
}

// TestRetrierStreamSleepFails: a Sleep hook's own error ends the call with
// that error, and with ctx.Err() when ctx ended meanwhile; never with nil.
func TestRetrierStreamSleepFails(t *testing.T) {
	errHook := errors.New("sleep hook failed")
	tests := []struct {
		name   string
		cancel bool
		want   error
	}{
		{"the hook's own error", false, errHook},
		{"ctx ended during the sleep", true, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			r, err := NewRetrier(RetryConfig{Sleep: func(context.Context, time.Duration) error {
				if tt.cancel {
					cancel()
				}
				return errHook
			}})
			if err != nil {
				t.Fatal(err)
			}
			attempts := 0
			_, err = collect(r.Stream(ctx, "m", func(ctx context.Context, send func(Chunk) bool) (*Error, time.Duration) {
				attempts++
				return errBusy, 0
			}))
			if err != tt.want {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			if attempts != 1 {
				t.Errorf("attempts = %d, want 1", attempts)
			}
		})
	}
}

// TestRetrierStreamWaitsOnTheClock runs the default Sleep on synctest's
// fake clock: the call waits exactly what the server asked for, and a
// context cancelled during the wait ends the call at that moment.
func TestRetrierStreamWaitsOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, err := NewRetrier(RetryConfig{})
		if err != nil {
			t.Fatal(err)
		}
		steps := []step{{err: errBusy, wait: 7 * time.Second}, {chunks: []Chunk{doneChunk}}}
		sc := &script{t: t, steps: steps}
		start := time.Now()
		got, err := collect(r.Stream(t.Context(), "m", sc.attempt))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]Chunk{doneChunk}, got); diff != "" {
			t.Errorf("chunks mismatch (-want +got):\n%s", diff)
		}
		if d := time.Since(start); d != 7*time.Second {
			t.Errorf("call took %v, want the 7s the server asked for", d)
		}

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		time.AfterFunc(2*time.Second, cancel)
		sc = &script{t: t, steps: []step{{err: errBusy, wait: 7 * time.Second}}}
		start = time.Now()
		if _, err := collect(r.Stream(ctx, "m", sc.attempt)); err != context.Canceled {
			t.Errorf("error = %v, want context.Canceled", err)
		}
		if d := time.Since(start); d != 2*time.Second || sc.calls != 1 {
			t.Errorf("cancelled call took %v and %d attempts, want 2s and 1", d, sc.calls)
		}
	})
}
