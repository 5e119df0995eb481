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
	"strategist/internal/protocol"
	"strategist/internal/store"
)

// The API's errors and their codes are the protocol package's, shared
// with the agent protocols (internal/protocol/...).
type APIError = protocol.APIError

// Error codes of the JSON error body {"error":{"code","message","details"}}
// (protocol's).
const (
	CodeBadRequest      = protocol.CodeBadRequest
	CodeValidation      = protocol.CodeValidation
	CodeUnauthenticated = protocol.CodeUnauthenticated
	CodeForbidden       = protocol.CodeForbidden
	CodeNotFound        = protocol.CodeNotFound
	CodeConflict        = protocol.CodeConflict
	CodeGone            = protocol.CodeGone
	CodeTooLarge        = protocol.CodeTooLarge
	CodeRateLimited     = protocol.CodeRateLimited
	CodeRequestTimeout  = protocol.CodeRequestTimeout
	CodeMethod          = protocol.CodeMethod
	CodeMediaType       = protocol.CodeMediaType
	CodeUnavailable     = protocol.CodeUnavailable
	CodeSiteAccount     = protocol.CodeSiteAccount
	CodeSiteError       = protocol.CodeSiteError
	CodeSiteUnavailable = protocol.CodeSiteUnavailable
	CodeInternal        = protocol.CodeInternal
)

var (
	badRequest      = protocol.BadRequest
	validationError = protocol.ValidationError
	notFound        = protocol.NotFound
)

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
	case errors.Is(err, context.Canceled):
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the request was cancelled", Err: err}
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
	owner := s.protocolOf(c.Request())
	switch {
	case c.Request().Method == http.MethodHead:
		werr = c.NoContent(ae.Status)
	case owner != nil:
		werr = owner.WriteError(c, ae)
	case isAPI(c.Request()):
		werr = protocol.WriteJSONError(c, ae)
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

// The input checks the protocols share (protocol's).
var (
	isUUID     = protocol.IsUUID
	quote      = protocol.Quote
	checkTitle = protocol.CheckTitle
)
