package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/chat"
	"strategist/internal/store"
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

func badRequest(msg string) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: msg}
}

func validationError(msg string, details any) *APIError {
	return &APIError{Status: http.StatusUnprocessableEntity, Code: CodeValidation, Message: msg, Details: details}
}

func notFound(what string) *APIError {
	return &APIError{Status: http.StatusNotFound, Code: CodeNotFound, Message: what + " not found"}
}

type errorBody struct {
	Error errorPayload `json:"error"`
}

type errorPayload struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// toAPIError maps any error onto what the client is told. Unknown errors
// become a 500 whose message says nothing of the cause.
func toAPIError(err error) *APIError {
	if ae, ok := errors.AsType[*APIError](err); ok {
		return ae
	}
	if be, ok := errors.AsType[*chat.BudgetError](err); ok {
		return budgetError(be)
	}
	if he, ok := errors.AsType[*echo.HTTPError](err); ok {
		msg := fmt.Sprint(he.Message)
		switch he.Code {
		case http.StatusNotFound:
			return &APIError{Status: he.Code, Code: CodeNotFound, Message: "no such route", Err: err}
		case http.StatusMethodNotAllowed:
			return &APIError{Status: he.Code, Code: CodeMethod, Message: "method not allowed", Err: err}
		case http.StatusRequestEntityTooLarge:
			return &APIError{Status: he.Code, Code: CodeTooLarge, Message: "request body too large", Err: err}
		case http.StatusTooManyRequests:
			return &APIError{Status: he.Code, Code: CodeRateLimited, Message: "too many requests; slow down", RetryAfter: time.Second, Err: err}
		case http.StatusForbidden:
			return &APIError{Status: he.Code, Code: CodeForbidden, Message: msg, Err: err}
		case http.StatusUnauthorized:
			return &APIError{Status: he.Code, Code: CodeUnauthenticated, Message: "sign in or send an API token", Err: err}
		case http.StatusBadRequest:
			return &APIError{Status: he.Code, Code: CodeBadRequest, Message: msg, Err: err}
		}
		if he.Code < 500 {
			return &APIError{Status: he.Code, Code: strings.ToUpper(strings.ReplaceAll(http.StatusText(he.Code), " ", "_")), Message: msg, Err: err}
		}
	}
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &APIError{Status: http.StatusRequestEntityTooLarge, Code: CodeTooLarge, Message: "request body too large", Err: err}
	}
	if se, ok := errors.AsType[*catalog.SiteError](err); ok {
		switch se.Kind {
		case catalog.SiteAccount:
			return &APIError{Status: http.StatusForbidden, Code: CodeSiteAccount, Message: se.Message, Details: map[string]any{"site": se.Site}, Err: err}
		case catalog.SiteUnavailable:
			return &APIError{Status: http.StatusServiceUnavailable, Code: CodeSiteUnavailable, Message: se.Message,
				Details: map[string]any{"site": se.Site}, RetryAfter: se.RetryAfter, Err: err}
		default:
			return &APIError{Status: http.StatusBadGateway, Code: CodeSiteError, Message: se.Message, Details: map[string]any{"site": se.Site}, Err: err}
		}
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &APIError{Status: http.StatusNotFound, Code: CodeNotFound, Message: "not found", Err: err}
	case errors.Is(err, store.ErrConflict):
		return &APIError{Status: http.StatusConflict, Code: CodeConflict, Message: "conflicts with existing data", Err: err}
	case errors.Is(err, store.ErrInvalidText):
		return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidText, Message: "text must be UTF-8 without NUL characters", Err: err}
	case errors.Is(err, account.ErrBusy):
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "too many sign-ins at once; try again in a moment", RetryAfter: time.Second, Err: err}
	case errors.Is(err, account.ErrUnauthenticated):
		return &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: "sign in or send an API token", Err: err}
	case errors.Is(err, catalog.ErrUnavailable):
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: err.Error(), Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the request took too long", Err: err}
	case store.Unavailable(err):
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the database is unavailable; try again in a moment",
			RetryAfter: 2 * time.Second, Err: err}
	}
	return &APIError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error", Err: err}
}

// errorHandler is the one place errors become responses: JSON under /api,
// an HTML page elsewhere. Only 5xx are logged with their cause.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	ae := toAPIError(err)
	if ae.Status >= 500 {
		s.log.ErrorContext(c.Request().Context(), "request failed",
			slog.String("method", c.Request().Method), slog.String("path", c.Path()),
			slog.String("request_id", c.Response().Header().Get(echo.HeaderXRequestID)),
			slog.Any("error", err))
	}
	if ae.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(retrySeconds(ae.RetryAfter)))
	}
	var werr error
	switch {
	case c.Request().Method == http.MethodHead:
		werr = c.NoContent(ae.Status)
	case isOpenAIPath(c.Request()):
		werr = c.JSON(ae.Status, openAIErrorBody(ae))
	case c.Request().URL.Path == mcpPath || isA2APath(c.Request()) || c.Request().URL.Path == aguiPath:
		werr = c.JSON(ae.Status, errorBody{Error: errorPayload{Code: ae.Code, Message: ae.Message, Details: ae.Details}})
	case isAPI(c.Request()):
		werr = c.JSON(ae.Status, errorBody{Error: errorPayload{Code: ae.Code, Message: ae.Message, Details: ae.Details}})
	default:
		werr = s.renderErrorPage(c, ae)
	}
	if werr != nil {
		s.log.Warn("writing error response", slog.Any("error", werr))
	}
}

func isAPI(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || strings.Contains(r.Header.Get("Accept"), "application/json") && !strings.Contains(r.Header.Get("Accept"), "text/html")
}
