package openai

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"strategist/internal/llm"
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
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	p, err := newRetryPolicy(10, time.Second, 8*time.Second, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	caps := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second}
	for n, d := range caps {
		for range 50 {
			got := p.backoff(n + 1)
			if got < d/2 || got > d {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n+1, got, d/2, d)
			}
		}
	}
	if got := p.backoff(200); got < 4*time.Second || got > 8*time.Second {
		t.Errorf("backoff(200) = %v, want capped at 8s", got)
	}
}

func TestPolicyNext(t *testing.T) {
	p, err := newRetryPolicy(3, time.Second, 10*time.Second, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	retryable := &llm.Error{Kind: llm.ErrorRetryable}
	tests := []struct {
		name    string
		attempt int
		err     *llm.Error
		wait    time.Duration
		yielded bool
		want    time.Duration
		retry   bool
	}{
		{"server wait honoured", 1, retryable, 4 * time.Second, false, 4 * time.Second, true},
		{"server wait beyond max", 1, retryable, 11 * time.Second, false, 0, false},
		{"not retryable", 1, &llm.Error{Kind: llm.ErrorAuth}, 0, false, 0, false},
		{"already yielded", 1, retryable, 0, true, 0, false},
		{"attempts exhausted", 3, retryable, 0, false, 0, false},
	}
	for _, tt := range tests {
		got, retry := p.next(tt.attempt, tt.err, tt.wait, tt.yielded)
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

func TestResponseHintWait(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		hint responseHint
		want time.Duration
	}{
		{responseHint{}, 0},
		{responseHint{retryAfter: "3"}, 3 * time.Second},
		{responseHint{retryAfterMs: "250.5", retryAfter: "1"}, 250500 * time.Microsecond},
		{responseHint{retryAfterMs: "nope", retryAfter: "2"}, 2 * time.Second},
		{responseHint{retryAfterMs: "-5"}, 0},
	}
	for _, tt := range tests {
		if got := tt.hint.wait(now); got != tt.want {
			t.Errorf("%+v.wait() = %v, want %v", tt.hint, got, tt.want)
		}
	}
}
