package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// The retry loop runs on synctest's fake clock with the default Sleep:
// attempts take no time, so the gaps between their starts are exactly the
// waits the Retrier chose.

var (
	textChunk = Chunk{Kind: ChunkText, Text: "Genes on chromosome 5"}
	doneChunk = Chunk{Kind: ChunkFinish, Finish: FinishStop}
	answer    = step{chunks: []Chunk{textChunk, doneChunk}}
	errBusy   = &Error{Kind: ErrorRetryable, Engine: "test", Status: 503, Message: "the model server is unavailable"}
	errLimit  = &Error{Kind: ErrorRetryable, Engine: "test", Status: 429, Message: "rate limit exceeded"}
	errBadKey = &Error{Kind: ErrorAuth, Engine: "test", Status: 401, Message: "the server rejected the API key"}
)

// step is one scripted attempt: the chunks it streams, then its failure
// (nil for a complete answer) and the wait the server asked for.
type step struct {
	chunks []Chunk
	err    *Error
	wait   time.Duration
}

// script plays its steps as consecutive attempts of one call and notes
// when each began.
type script struct {
	t      *testing.T
	steps  []step
	starts []time.Time
}

func (s *script) attempt(ctx context.Context, send func(Chunk) bool) (*Error, time.Duration) {
	s.starts = append(s.starts, time.Now())
	if len(s.starts) > len(s.steps) {
		s.t.Errorf("attempt %d has no scripted answer", len(s.starts))
		return &Error{Kind: ErrorScript, Message: "script exhausted"}, 0
	}
	st := s.steps[len(s.starts)-1]
	for _, c := range st.chunks {
		if !send(c) {
			return nil, 0
		}
	}
	if st.err == nil {
		return nil, 0
	}
	e := *st.err // the Retrier appends to the message; keep the table intact
	return &e, st.wait
}

// waits are the gaps between the attempts' starts.
func (s *script) waits() []time.Duration {
	var out []time.Duration
	for i := 1; i < len(s.starts); i++ {
		out = append(out, s.starts[i].Sub(s.starts[i-1]))
	}
	return out
}

// drain ranges over a whole stream without stopping at an error, and holds
// it to the Engine contract: nothing follows an error.
func drain(t *testing.T, seq iter.Seq2[Chunk, error]) ([]Chunk, error) {
	t.Helper()
	var chunks []Chunk
	var last error
	for c, err := range seq {
		if last != nil {
			t.Errorf("yielded (%+v, %v) after the error %v", c, err, last)
		}
		if err != nil {
			last = err
			continue
		}
		chunks = append(chunks, c)
	}
	return chunks, last
}

func TestRetrierStream(t *testing.T) {
	tests := []struct {
		name    string
		cfg     RetryConfig
		steps   []step
		want    []Chunk
		wantErr *Error
		waits   [][2]time.Duration // bounds of each wait between attempts
	}{
		{
			name:  "complete at once",
			steps: []step{answer},
			want:  []Chunk{textChunk, doneChunk},
		},
		{
			name:  "retryable twice, then complete, with a jittered doubling backoff",
			cfg:   RetryConfig{BackoffBase: time.Second, BackoffMax: 30 * time.Second},
			steps: []step{{err: errBusy}, {err: errBusy}, answer},
			want:  []Chunk{textChunk, doneChunk},
			waits: [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}},
		},
		{
			name:  "the backoff stops doubling at BackoffMax",
			cfg:   RetryConfig{MaxAttempts: 5, BackoffBase: 2 * time.Second, BackoffMax: 3 * time.Second},
			steps: []step{{err: errBusy}, {err: errBusy}, {err: errBusy}, answer},
			want:  []Chunk{textChunk, doneChunk},
			waits: [][2]time.Duration{{time.Second, 2 * time.Second}, {1500 * time.Millisecond, 3 * time.Second}, {1500 * time.Millisecond, 3 * time.Second}},
		},
		{
			name:  "the server's wait is honoured exactly",
			steps: []step{{err: errLimit, wait: 7 * time.Second}, answer},
			want:  []Chunk{textChunk, doneChunk},
			waits: [][2]time.Duration{{7 * time.Second, 7 * time.Second}},
		},
		{
			name:    "a wait beyond BackoffMax ends the call at once",
			cfg:     RetryConfig{BackoffMax: 10 * time.Second},
			steps:   []step{{err: errLimit, wait: time.Hour}},
			wantErr: &Error{Kind: ErrorRetryable, Engine: "test", Status: 429, Message: "rate limit exceeded; the server asks to wait 1h0m0s, longer than the 10s Strategist allows"},
		},
		{
			name:    "attempts exhausted",
			cfg:     RetryConfig{MaxAttempts: 3},
			steps:   []step{{err: errBusy}, {err: errBusy}, {err: errBusy}},
			wantErr: &Error{Kind: ErrorRetryable, Engine: "test", Status: 503, Message: "the model server is unavailable; gave up after 3 attempts"},
			waits:   [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}},
		},
		{
			name:    "one attempt allowed: no note",
			cfg:     RetryConfig{MaxAttempts: 1},
			steps:   []step{{err: errBusy}},
			wantErr: errBusy,
		},
		{
			name:    "a rejected key fails at once",
			steps:   []step{{err: errBadKey}},
			wantErr: errBadKey,
		},
		{
			name:    "no retry once something reached the caller",
			steps:   []step{{chunks: []Chunk{textChunk}, err: errBusy}},
			want:    []Chunk{textChunk},
			wantErr: errBusy,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var log bytes.Buffer
				tt.cfg.Engine = "test"
				tt.cfg.Logger = slog.New(slog.NewTextHandler(io.MultiWriter(&log, t.Output()), nil))
				r, err := NewRetrier(tt.cfg)
				if err != nil {
					t.Fatal(err)
				}
				sc := &script{t: t, steps: tt.steps}
				begin := time.Now()
				got, err := drain(t, r.Stream(t.Context(), "test-model", sc.attempt))
				if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("chunks mismatch (-want +got):\n%s", diff)
				}
				var gotErr *Error
				if err != nil && !errors.As(err, &gotErr) {
					t.Fatalf("error = %v (%T), want *Error", err, err)
				}
				if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
					t.Errorf("error mismatch (-want +got):\n%s", diff)
				}
				if len(sc.starts) != len(tt.steps) {
					t.Errorf("attempts = %d, want %d", len(sc.starts), len(tt.steps))
				}
				waits := sc.waits()
				if len(waits) != len(tt.waits) {
					t.Fatalf("waits = %v, want %d within %v", waits, len(tt.waits), tt.waits)
				}
				for i, d := range waits {
					if d < tt.waits[i][0] || d > tt.waits[i][1] {
						t.Errorf("wait %d = %v, want within %v", i, d, tt.waits[i])
					}
				}
				if last := sc.starts[len(sc.starts)-1]; time.Since(last) != 0 {
					t.Errorf("the call went on for %v after its last attempt (began %v in)", time.Since(last), last.Sub(begin))
				}
				warnings := strings.Count(log.String(), "retrying model call")
				if warnings != len(waits) || (warnings > 0 && (!strings.Contains(log.String(), "engine=test") || !strings.Contains(log.String(), "model=test-model"))) {
					t.Errorf("%d retry warnings for %d waits, want one each naming the engine and model:\n%s", warnings, len(waits), log.String())
				}
			})
		})
	}
}

// TestRetrierStreamConsumerStops: a caller that stops ranging gets nothing
// more, send reports the stop to the attempt, and no attempt follows.
func TestRetrierStreamConsumerStops(t *testing.T) {
	r, err := NewRetrier(RetryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	attempts, sentAfterStop := 0, false
	var got []Chunk
	for c, err := range r.Stream(t.Context(), "m", func(ctx context.Context, send func(Chunk) bool) (*Error, time.Duration) {
		attempts++
		if send(textChunk) {
			sentAfterStop = true
		}
		// Failing after the stop must not reach the caller: a second
		// yield would panic the range statement.
		return errBusy, 0
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
		t.Errorf("attempts = %d, send reported delivery after the stop = %v; want 1, false", attempts, sentAfterStop)
	}
}

// TestRetrierStreamContextEnded: a failure seen after ctx ended is reported
// as ctx.Err(), without a wait or another attempt; a ctx cancelled during
// the wait ends the call at that moment.
func TestRetrierStreamContextEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, err := NewRetrier(RetryConfig{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		attempts := 0
		_, err = drain(t, r.Stream(ctx, "m", func(ctx context.Context, send func(Chunk) bool) (*Error, time.Duration) {
			attempts++
			cancel()
			return errBusy, 0
		}))
		if err != context.Canceled || attempts != 1 {
			t.Errorf("error = %v after %d attempts, want context.Canceled after 1", err, attempts)
		}

		ctx, cancel = context.WithCancel(t.Context())
		defer cancel()
		time.AfterFunc(2*time.Second, cancel)
		sc := &script{t: t, steps: []step{{err: errBusy, wait: 7 * time.Second}}}
		begin := time.Now()
		if _, err := drain(t, r.Stream(ctx, "m", sc.attempt)); err != context.Canceled {
			t.Errorf("error = %v, want context.Canceled", err)
		}
		if d := time.Since(begin); d != 2*time.Second || len(sc.starts) != 1 {
			t.Errorf("cancelled call took %v and %d attempts, want 2s and 1", d, len(sc.starts))
		}
	})
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
			sc := &script{t: t, steps: []step{{err: errBusy}}}
			if _, err := drain(t, r.Stream(ctx, "m", sc.attempt)); err != tt.want {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			if len(sc.starts) != 1 {
				t.Errorf("attempts = %d, want 1", len(sc.starts))
			}
		})
	}
}

// TestRetrierMarksTheModelCallSpan: inside a traced model call each retry
// is an event on the call's span, and the span counts them, so a trace
// shows which call was slow because it waited.
func TestRetrierMarksTheModelCallSpan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		defer func() { _ = tp.Shutdown(context.Background()) }()
		r, err := NewRetrier(RetryConfig{Engine: "test"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, span := tp.Tracer("test").Start(t.Context(), "chat test-model")
		sc := &script{t: t, steps: []step{{err: errBusy}, {err: errLimit, wait: 2 * time.Second}, answer}}
		if _, err := drain(t, r.Stream(ctx, "test-model", sc.attempt)); err != nil {
			t.Fatal(err)
		}
		span.End()
		got := rec.Ended()[0]
		var retries int64
		for _, a := range got.Attributes() {
			if a.Key == "strategist.llm.retries" {
				retries = a.Value.AsInt64()
			}
		}
		if retries != 2 || len(got.Events()) != 2 || got.Events()[1].Name != "retry" {
			t.Errorf("span: retries %d, events %v", retries, got.Events())
		}
	})
}
