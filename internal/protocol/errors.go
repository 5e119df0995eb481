package protocol

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Error codes of the JSON error body {"error":{"code","message","details"}}.
const (
	CodeBadRequest      = "BAD_REQUEST"
	CodeValidation      = "VALIDATION_ERROR"
	CodeUnauthenticated = "UNAUTHENTICATED"
	CodeForbidden       = "FORBIDDEN"
	CodeNotFound        = "NOT_FOUND"
	CodeConflict        = "CONFLICT"
	CodeGone            = "GONE"
	CodeTooLarge        = "PAYLOAD_TOO_LARGE"
	CodeRateLimited     = "RATE_LIMITED"
	// CodeRequestTimeout: the request's body did not arrive within the
	// server's read timeout; 408.
	CodeRequestTimeout = "REQUEST_TIMEOUT"
	CodeMethod         = "METHOD_NOT_ALLOWED"
	CodeMediaType      = "UNSUPPORTED_MEDIA_TYPE"
	CodeUnavailable    = "UNAVAILABLE"
	// CodeSiteAccount: a live site needs (or refused) the researcher's
	// VEuPathDB API key; 403, the message says what to do.
	CodeSiteAccount = "SITE_ACCOUNT"
	// CodeSiteError: a live site answered with an error of its own; 502.
	CodeSiteError = "SITE_ERROR"
	// CodeSiteUnavailable: a live site is down, slow or rate limiting; 503.
	CodeSiteUnavailable = "SITE_UNAVAILABLE"
	CodeInternal        = "INTERNAL"
)

// APIError is an error with the status, code and message a client sees.
type APIError struct {
	Status  int
	Code    string
	Message string
	Details any
	// RetryAfter, when set, becomes a Retry-After header.
	RetryAfter time.Duration
	Err        error
}

func (e *APIError) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *APIError) Unwrap() error { return e.Err }

// BadRequest is a 400 BAD_REQUEST saying msg.
func BadRequest(msg string) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: msg}
}

// ValidationError is a 422 VALIDATION_ERROR saying msg, with details.
func ValidationError(msg string, details any) *APIError {
	return &APIError{Status: http.StatusUnprocessableEntity, Code: CodeValidation, Message: msg, Details: details}
}

// NotFound is a 404 NOT_FOUND: "<what> not found".
func NotFound(what string) *APIError {
	return &APIError{Status: http.StatusNotFound, Code: CodeNotFound, Message: what + " not found"}
}

// Unauthenticated is a 401 UNAUTHENTICATED saying msg.
func Unauthenticated(msg string) *APIError {
	return &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: msg}
}

// ErrorBody is the JSON error body of the API (and of the protocols that
// answer HTTP errors the same way).
type ErrorBody struct {
	Error ErrorPayload `json:"error"`
}

// ErrorPayload is ErrorBody's one member.
type ErrorPayload struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// WriteJSONError writes ae as the API's JSON error body.
func WriteJSONError(c echo.Context, ae *APIError) error {
	return c.JSON(ae.Status, ErrorBody{Error: ErrorPayload{Code: ae.Code, Message: ae.Message, Details: ae.Details}})
}
