package openai

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"

	"strategist/internal/llm"
)

// retryPolicy decides whether and how long to wait before another attempt.
// It is a value with no mutable state, shared by every Stream call.
type retryPolicy struct {
	maxAttempts int
	base, max   time.Duration
	sleepFn     func(context.Context, time.Duration) error
	now         func() time.Time
}

func newRetryPolicy(maxAttempts int, base, maxDelay time.Duration, sleep func(context.Context, time.Duration) error, now func() time.Time) (retryPolicy, error) {
	p := retryPolicy{maxAttempts: maxAttempts, base: base, max: maxDelay, sleepFn: sleep, now: now}
	if p.maxAttempts == 0 {
		p.maxAttempts = DefaultMaxAttempts
	}
	if p.base == 0 {
		p.base = DefaultBackoffBase
	}
	if p.max == 0 {
		p.max = DefaultBackoffMax
	}
	switch {
	case p.maxAttempts < 0:
		return retryPolicy{}, fmt.Errorf("max attempts %d is negative", maxAttempts)
	case p.base < 0 || p.max < 0:
		return retryPolicy{}, errors.New("backoff durations must not be negative")
	case p.base > p.max:
		return retryPolicy{}, fmt.Errorf("backoff base %v exceeds backoff max %v", p.base, p.max)
	}
	if p.sleepFn == nil {
		p.sleepFn = sleepContext
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p, nil
}

// next reports how long to wait after failed attempt number attempt (1-based)
// before trying again, or false when the call must end with err. wait is the
// delay the server asked for (0 if none).
func (p retryPolicy) next(attempt int, err *llm.Error, wait time.Duration, yielded bool) (time.Duration, bool) {
	if err.Kind != llm.ErrorRetryable || yielded || attempt >= p.maxAttempts {
		return 0, false
	}
	if wait > 0 {
		if wait > p.max {
			return 0, false
		}
		return wait, true
	}
	return p.backoff(attempt), true
}

// backoff is the jittered exponential delay after attempt n: d = base·2ⁿ⁻¹
// capped at max, drawn uniformly from [d/2, d] so that many clients hit by
// the same outage do not come back in step.
func (p retryPolicy) backoff(n int) time.Duration {
	d := p.max
	if n-1 < 62 && p.base <= p.max>>(n-1) {
		d = p.base << (n - 1)
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

func (p retryPolicy) sleep(ctx context.Context, d time.Duration) error {
	return p.sleepFn(ctx, d)
}

// giveUpNote explains in the error message why a retryable error was not
// retried.
func giveUpNote(attempt int, wait time.Duration, p retryPolicy) string {
	if wait > p.max {
		return fmt.Sprintf("; the server asks to wait %v, longer than the %v Strategist allows", wait, p.max)
	}
	if attempt > 1 {
		return fmt.Sprintf("; gave up after %d attempts", attempt)
	}
	return ""
}

// sleepContext waits for d or until ctx ends, whichever comes first.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// parseRetryAfter reads a Retry-After header value: delay-seconds or an
// HTTP date (RFC 9110 §10.2.3). It returns 0 when the value is absent,
// malformed or in the past.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 || secs > int64(24*time.Hour/time.Second) {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// parseRetryAfterMs reads OpenAI's Retry-After-Ms header (milliseconds,
// possibly fractional).
func parseRetryAfterMs(v string) time.Duration {
	ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || ms <= 0 || ms > float64(24*time.Hour/time.Millisecond) {
		return 0
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// responseHint records what one attempt saw of its HTTP response: the SDK's
// error can lose the status (a non-JSON error body) and never parses
// Retry-After when its own retries are off.
type responseHint struct {
	status       int
	retryAfter   string
	retryAfterMs string
}

// middleware fills h from the response. The SDK runs request middleware
// synchronously on the goroutine that calls NewStreaming, so h needs no lock.
func (h *responseHint) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if resp != nil {
		h.status = resp.StatusCode
		h.retryAfter = resp.Header.Get("Retry-After")
		h.retryAfterMs = resp.Header.Get("Retry-After-Ms")
	}
	return resp, err
}

// wait is the delay the server asked for, 0 if none.
func (h *responseHint) wait(now time.Time) time.Duration {
	if d := parseRetryAfterMs(h.retryAfterMs); d > 0 {
		return d
	}
	return parseRetryAfter(h.retryAfter, now)
}
