package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"strategist/internal/llm"
)

// blockedError is a refusal found in the stream itself (finish reason
// content_filter), as opposed to an HTTP error.
type blockedError struct {
	message string
}

func (e *blockedError) Error() string { return e.message }

// errTruncated means the stream ended without a finish reason: the
// connection dropped or a proxy cut the response.
var errTruncated = errors.New("the response stream ended before the model finished its answer")

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
	safe := e.secret.SafeError(err)
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		out := e.byStatus(apiErr.StatusCode, apiErr.Code, apiErr.Type, apiErr.Message, model)
		out.Err = safe
		return out, e.wait(out, hint)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		status, code, typ, msg := streamErrorFields(streamErr)
		out := e.byStatus(status, code, typ, msg, model)
		out.Err = safe
		return out, 0
	}
	if hint.status >= 400 {
		// The SDK could not decode the error body (a proxy's HTML page, a
		// plain-text message); the status still tells what happened.
		out := e.byStatus(hint.status, "", "", "", model)
		out.Err = safe
		return out, e.wait(out, hint)
	}
	if llm.Transient(err) {
		return &llm.Error{Kind: llm.ErrorRetryable, Engine: Name, Message: "could not reach the model server: " + safe.Error(), Err: safe}, 0
	}
	return &llm.Error{Kind: llm.ErrorUnknown, Engine: Name, Message: "model call failed: " + safe.Error(), Err: safe}, 0
}

// byStatus classifies an error answer by its HTTP status and the error
// object's code and type.
func (e *Engine) byStatus(status int, code, typ, message, model string) *llm.Error {
	msg := e.secret.ServerMessage(message)
	out := &llm.Error{Engine: Name, Status: status}
	switch {
	case code == "insufficient_quota":
		out.Kind = llm.ErrorAuth
		out.Message = "the account behind OPENAI_API_KEY has no quota left; check its plan and billing" + msg
	case code == "content_filter" || code == "content_policy_violation":
		out.Kind = llm.ErrorBlocked
		out.Message = "the server's content policy refused the request" + msg
	case status == http.StatusTooManyRequests:
		out.Kind = llm.ErrorRetryable
		out.Message = "the model server's rate limit was exceeded" + msg
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		out.Kind = llm.ErrorRetryable
		out.Message = "the model server is unavailable or failed" + msg
	case status == http.StatusUnauthorized:
		out.Kind = llm.ErrorAuth
		out.Message = "the model server rejected the API key; check OPENAI_API_KEY" + msg
	case status == http.StatusForbidden:
		out.Kind = llm.ErrorAuth
		out.Message = "the model server denied access; check OPENAI_API_KEY and the account's access to the model" + msg
	case status == http.StatusNotFound || code == "model_not_found" || (status == http.StatusBadRequest && unknownModel(message)):
		out.Kind = llm.ErrorBadRequest
		out.Message = fmt.Sprintf("unknown model %q, or OPENAI_BASE_URL is not an OpenAI-compatible /v1 endpoint", model) + msg
	case status >= 400 || typ == "invalid_request_error":
		out.Kind = llm.ErrorBadRequest
		out.Message = "the model server rejected the request as invalid" + msg
	default:
		// An error without a status, sent inside the stream: most likely
		// the server failing while it generated.
		out.Kind = llm.ErrorRetryable
		out.Message = "the model server reported an error while streaming" + msg
	}
	return out
}

// wait is the delay the server asked for, for errors worth retrying.
func (e *Engine) wait(out *llm.Error, hint *responseHint) time.Duration {
	if out.Kind != llm.ErrorRetryable {
		return 0
	}
	return hint.wait(e.retry.Now())
}

// streamErrorFields reads the error object a server sends as an SSE event
// ({"error":{"message","type","code"}}); vLLM puts the HTTP status in code.
func streamErrorFields(se *ssestream.StreamError) (status int, code, typ, message string) {
	var body struct {
		Error struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(se.Event.Data, &body); err != nil {
		return 0, "", "", ""
	}
	var n int
	if json.Unmarshal(body.Error.Code, &n) == nil {
		status = n
	} else {
		_ = json.Unmarshal(body.Error.Code, &code)
	}
	return status, code, body.Error.Type, body.Error.Message
}

// unknownModel reports whether a 400's message says the model does not
// exist.
func unknownModel(msg string) bool {
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "model") && (strings.Contains(msg, "not found") || strings.Contains(msg, "does not exist"))
}

// keyLike matches what looks like an OpenAI key, which OpenAI echoes
// (partly masked) in its 401 messages; the engine's Redactor removes it
// along with the configured key.
var keyLike = regexp.MustCompile(`sk-[A-Za-z0-9_\-*]{6,}`)
