package openai

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"

	"strategist/internal/llm"
)

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
	return llm.ParseRetryAfter(h.retryAfter, now)
}
