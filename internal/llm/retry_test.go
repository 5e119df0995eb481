package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"5", 5 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"0", 0},
		{"-3", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"999999999999", 0},
	}
	for _, tt := range tests {
		if got := ParseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestNewRetrier(t *testing.T) {
	tests := []struct {
		name    string
		cfg     RetryConfig
		want    RetryConfig // limits only; the hooks are checked to be set
		wantErr string
	}{
		{name: "defaults", want: RetryConfig{MaxAttempts: DefaultMaxAttempts, BackoffBase: DefaultBackoffBase, BackoffMax: DefaultBackoffMax}},
		{name: "given", cfg: RetryConfig{MaxAttempts: 2, BackoffBase: time.Millisecond, BackoffMax: time.Second}, want: RetryConfig{MaxAttempts: 2, BackoffBase: time.Millisecond, BackoffMax: time.Second}},
		{name: "negative attempts", cfg: RetryConfig{MaxAttempts: -1}, wantErr: "max attempts -1 is negative"},
		{name: "negative backoff", cfg: RetryConfig{BackoffBase: -time.Second}, wantErr: "must not be negative"},
		{name: "base above max", cfg: RetryConfig{BackoffBase: 2 * time.Second, BackoffMax: time.Second}, wantErr: "backoff base 2s exceeds backoff max 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRetrier(tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("NewRetrier error = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := r.Config()
			if got.Sleep == nil || got.Now == nil {
				t.Errorf("Config() leaves a hook nil: %+v", got)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(RetryConfig{}, "Sleep", "Now", "Logger")); diff != "" {
				t.Errorf("Config() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBackoffBounds(t *testing.T) {
	r, err := NewRetrier(RetryConfig{MaxAttempts: 10, BackoffBase: time.Second, BackoffMax: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	caps := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second}
	for n, d := range caps {
		for range 50 {
			got := r.backoff(n + 1)
			if got < d/2 || got > d {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n+1, got, d/2, d)
			}
		}
	}
	if got := r.backoff(200); got < 4*time.Second || got > 8*time.Second {
		t.Errorf("backoff(200) = %v, want capped at 8s", got)
	}
}

func TestRetrierNext(t *testing.T) {
	r, err := NewRetrier(RetryConfig{MaxAttempts: 3, BackoffBase: time.Second, BackoffMax: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	retryable := &Error{Kind: ErrorRetryable}
	tests := []struct {
		name    string
		attempt int
		err     *Error
		wait    time.Duration
		yielded bool
		want    time.Duration
		retry   bool
	}{
		{"server wait honoured", 1, retryable, 4 * time.Second, false, 4 * time.Second, true},
		{"server wait beyond max", 1, retryable, 11 * time.Second, false, 0, false},
		{"not retryable", 1, &Error{Kind: ErrorAuth}, 0, false, 0, false},
		{"already yielded", 1, retryable, 0, true, 0, false},
		{"attempts exhausted", 3, retryable, 0, false, 0, false},
	}
	for _, tt := range tests {
		got, retry := r.next(tt.attempt, tt.err, tt.wait, tt.yielded)
		if got != tt.want || retry != tt.retry {
			t.Errorf("%s: next = %v, %v; want %v, %v", tt.name, got, retry, tt.want, tt.retry)
		}
	}
}

// TestSleepContext runs the default sleep on synctest's fake clock: it
// returns after the full delay, or with ctx.Err() as soon as ctx ends.
func TestSleepContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := sleepContext(t.Context(), 30*time.Second); err != nil {
			t.Fatalf("sleep: %v", err)
		}
		if got := time.Since(start); got != 30*time.Second {
			t.Errorf("slept %v, want 30s", got)
		}

		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(5*time.Second, cancel)
		start = time.Now()
		if err := sleepContext(ctx, time.Hour); !errors.Is(err, context.Canceled) {
			t.Errorf("sleep error = %v, want context.Canceled", err)
		}
		if got := time.Since(start); got != 5*time.Second {
			t.Errorf("cancelled sleep took %v, want 5s", got)
		}
	})
}

func TestTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("read body: %w", syscall.ECONNRESET), true},
		{fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), true},
		{context.DeadlineExceeded, true},
		{timeoutError{}, true},
		{context.Canceled, false},
		{errors.New("invalid character '<' looking for beginning of value"), false},
	}
	for _, tt := range tests {
		if got := Transient(tt.err); got != tt.want {
			t.Errorf("Transient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// timeoutError is a net.Error that timed out, as an http.Transport's
// ResponseHeaderTimeout produces.
type timeoutError struct{}

func (timeoutError) Error() string   { return "timeout awaiting response headers" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
