package gemini

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"strategist/internal/llm"
)

// blockedError is a refusal found in the stream itself (prompt feedback or a
// safety finish reason), as opposed to an HTTP error.
type blockedError struct {
	message string
}

func (e *blockedError) Error() string { return e.message }

// errTruncated means the stream ended without a finish reason: the
// connection dropped or a proxy cut the response.
var errTruncated = errors.New("the response stream ended before Gemini finished its answer")

// classify turns the error of one attempt into an *llm.Error with a message
// a researcher can act on, and returns the wait the server asked for.
func (e *Engine) classify(err error, model string, hint *responseHint) (*llm.Error, time.Duration) {
	var blocked *blockedError
	if errors.As(err, &blocked) {
		return &llm.Error{Kind: llm.ErrorBlocked, Engine: Name, Message: blocked.message}, 0
	}
	if errors.Is(err, errTruncated) {
		return &llm.Error{Kind: llm.ErrorRetryable, Engine: Name, Message: errTruncated.Error()}, 0
	}
	if apiErr, ok := asAPIError(err); ok {
		return e.classifyAPI(apiErr, err, model, hint)
	}
	safe := e.secret.SafeError(err)
	if llm.Transient(err) {
		return &llm.Error{Kind: llm.ErrorRetryable, Engine: Name, Message: "could not reach Gemini: " + safe.Error(), Err: safe}, 0
	}
	return &llm.Error{Kind: llm.ErrorUnknown, Engine: Name, Message: "model call failed: " + safe.Error(), Err: safe}, 0
}

func (e *Engine) classifyAPI(apiErr genai.APIError, err error, model string, hint *responseHint) (*llm.Error, time.Duration) {
	status := apiErr.Code
	if status == 0 {
		status = statusFromName(apiErr.Status)
	}
	if status == 0 && hint != nil {
		status = hint.status
	}
	msg := e.secret.ServerMessage(apiErr.Message)
	out := &llm.Error{Engine: Name, Status: status, Err: e.secret.SafeError(err)}
	var wait time.Duration
	switch {
	case status == http.StatusTooManyRequests:
		out.Kind = llm.ErrorRetryable
		out.Message = "Gemini rate limit or quota exceeded" + msg
		wait = e.serverWait(apiErr, hint)
	case status == http.StatusRequestTimeout || status >= 500:
		out.Kind = llm.ErrorRetryable
		out.Message = "Gemini is unavailable or failed" + msg
		wait = e.serverWait(apiErr, hint)
	case status == http.StatusUnauthorized || (status == http.StatusBadRequest && keyRejected(apiErr)):
		out.Kind = llm.ErrorAuth
		out.Message = "Gemini rejected the API key; check GEMINI_API_KEY" + msg
	case status == http.StatusForbidden:
		out.Kind = llm.ErrorAuth
		out.Message = "Gemini denied permission for this API key; check GEMINI_API_KEY and its project's access to the model" + msg
	case status == http.StatusNotFound || (status == http.StatusBadRequest && unknownModel(apiErr.Message)):
		out.Kind = llm.ErrorBadRequest
		out.Message = fmt.Sprintf("unknown Gemini model %q", model) + msg
	case status >= 400:
		out.Kind = llm.ErrorBadRequest
		out.Message = "Gemini rejected the request as invalid" + msg
	default:
		out.Kind = llm.ErrorUnknown
		out.Message = "Gemini returned an error" + msg
	}
	return out, wait
}

// unknownModel reports whether a 400's message says the model does not
// exist ("models/x is not found for API version v1beta").
func unknownModel(msg string) bool {
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "model") && strings.Contains(msg, "not found")
}

// asAPIError finds the SDK's error type, which it returns by value.
func asAPIError(err error) (genai.APIError, bool) {
	var v genai.APIError
	if errors.As(err, &v) {
		return v, true
	}
	var p *genai.APIError
	if errors.As(err, &p) && p != nil {
		return *p, true
	}
	return genai.APIError{}, false
}

// statusFromName maps a google.rpc status name (used by errors sent inside
// an SSE stream) to its HTTP status.
func statusFromName(name string) int {
	switch name {
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		return http.StatusBadRequest
	case "UNAUTHENTICATED":
		return http.StatusUnauthorized
	case "PERMISSION_DENIED":
		return http.StatusForbidden
	case "NOT_FOUND":
		return http.StatusNotFound
	case "RESOURCE_EXHAUSTED":
		return http.StatusTooManyRequests
	case "DEADLINE_EXCEEDED":
		return http.StatusGatewayTimeout
	case "UNAVAILABLE":
		return http.StatusServiceUnavailable
	case "INTERNAL", "UNKNOWN", "DATA_LOSS", "ABORTED":
		return http.StatusInternalServerError
	}
	return 0
}

// keyRejected reports whether a 400 is Gemini's answer to a bad key (it
// sends INVALID_ARGUMENT with reason API_KEY_INVALID rather than a 401).
func keyRejected(apiErr genai.APIError) bool {
	for _, d := range apiErr.Details {
		if reason, _ := d["reason"].(string); strings.HasPrefix(reason, "API_KEY_") {
			return true
		}
	}
	return strings.Contains(strings.ToLower(apiErr.Message), "api key")
}

// serverWait is the delay the server asked for: a Retry-After header first,
// then a google.rpc.RetryInfo detail.
func (e *Engine) serverWait(apiErr genai.APIError, hint *responseHint) time.Duration {
	if hint != nil {
		if d := llm.ParseRetryAfter(hint.retryAfter, e.retry.Now()); d > 0 {
			return d
		}
	}
	for _, d := range apiErr.Details {
		typ, _ := d["@type"].(string)
		if !strings.HasSuffix(typ, "google.rpc.RetryInfo") {
			continue
		}
		if s, ok := d["retryDelay"].(string); ok {
			if delay, err := time.ParseDuration(s); err == nil && delay > 0 {
				return delay
			}
		}
	}
	return 0
}
