package gemini

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

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

// hintKey is the context key under which one attempt's responseHint travels
// from Stream through the SDK to hintTransport. The SDK's APIError carries no
// headers, so this is the only way to see a Retry-After; the value is scoped
// to a single attempt and never leaves this package.
type hintKey struct{}

// responseHint records what the transport saw of the last HTTP response of
// one attempt. It is written and read on the goroutine running Stream: the
// SDK calls http.Client.Do, and so RoundTrip, synchronously.
type responseHint struct {
	status     int
	retryAfter string
}

// hintTransport fills the attempt's responseHint from each response.
type hintTransport struct {
	next http.RoundTripper
}

func (t hintTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if resp != nil {
		if h, ok := req.Context().Value(hintKey{}).(*responseHint); ok {
			h.status = resp.StatusCode
			h.retryAfter = resp.Header.Get("Retry-After")
		}
	}
	return resp, err
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// wrapped transport.
func (t hintTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
