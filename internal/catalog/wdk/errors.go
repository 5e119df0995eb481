package wdk

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"strategist/internal/catalog"
)

// ErrNoToken is what a TokenSource returns (wrapped or not) when the user
// has not added a VEuPathDB API key for the site. The client turns it into a
// *MissingTokenError.
var ErrNoToken = errors.New("wdk: no VEuPathDB API key")

// MissingTokenError means the Strategist user has no VEuPathDB API key for
// the site. Since 2026-08 the live sites answer only registered users, so
// nothing can be asked without one; the message tells the user what to do.
type MissingTokenError struct {
	Site string
}

// Error tells the user to add their key.
func (e *MissingTokenError) Error() string {
	return "no VEuPathDB API key for " + e.Site + ": add the API key of your registered VEuPathDB account in Strategist's settings to use the live site"
}

// Unwrap lets errors.Is(err, ErrNoToken) match.
func (e *MissingTokenError) Unwrap() error { return ErrNoToken }

// AuthError means WDK refused the credential: 401 (missing, invalid or
// expired token), 403 (a guest token on a registered-only endpoint, or a
// user id that is not the token's), or a token that /users/current reports
// as a guest.
type AuthError struct {
	Site    string
	Status  int // 401 or 403; 0 when the token resolved to a guest
	Guest   bool
	Message string
}

// Error says why the key was refused and what to do.
func (e *AuthError) Error() string {
	if e.Guest {
		return "the VEuPathDB API key belongs to a guest session, not a registered account: sign in to VEuPathDB and add the API key of your account"
	}
	return fmt.Sprintf("VEuPathDB refused the API key (HTTP %d: %s): add a current API key of your registered VEuPathDB account", e.Status, e.Message)
}

// NotFoundError is a 404: an unknown user, step, strategy, search or record
// type. It matches catalog.ErrNotFound.
type NotFoundError struct {
	Site    string
	Path    string
	Message string
}

// Error names the path.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s: not found: %s", e.Path, e.Message)
}

// Unwrap lets errors.Is(err, catalog.ErrNotFound) match.
func (e *NotFoundError) Unwrap() error { return catalog.ErrNotFound }

// ConflictError is a 409: a structural conflict, such as deleting a step
// that is still part of a strategy (remove it from the step tree first).
type ConflictError struct {
	Site    string
	Path    string
	Message string
}

// Error names the path.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: conflict: %s", e.Path, e.Message)
}

// RequestError is any other 4xx: WDK says the request itself is wrong
// (400 malformed JSON or an unexpected key, 405, 413, ...). It is never
// retried.
type RequestError struct {
	Site    string
	Method  string
	Path    string
	Status  int
	Message string
}

// Error names the request and status.
func (e *RequestError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.Path, e.Status, e.Message)
}

// ServerError means the site could not serve the request: a 5xx (500 is
// not retried: WDK answers it for deterministic faults such as a half-wired
// combine or two values on a single-pick parameter), a 429/502/503/504 or a
// transport failure that outlasted the retries.
type ServerError struct {
	Site     string
	Method   string
	Path     string
	Status   int // 0 when no response arrived
	Message  string
	Attempts int
	// LogMarker is WDK's x-log-marker header, to quote to VEuPathDB support.
	LogMarker string
	// RetryAfter is the wait the site last asked for, if any.
	RetryAfter time.Duration
	// Err is the transport failure when Status is 0.
	Err error
}

// Error names the request, the status or transport failure, the attempts and the log marker.
func (e *ServerError) Error() string {
	var status string
	if e.Status == 0 {
		status = "no response"
		if e.Err != nil {
			status += ": " + e.Err.Error()
		}
	} else {
		status = "HTTP " + strconv.Itoa(e.Status)
		if e.Message != "" {
			status += ": " + e.Message
		}
	}
	msg := fmt.Sprintf("%s %s: %s", e.Method, e.Path, status)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	if e.LogMarker != "" {
		msg += " [log marker " + e.LogMarker + "]"
	}
	return msg
}

// Unwrap returns the transport failure, if any, and catalog.ErrUnavailable
// when the site was unreachable, overloaded or rate limiting (no response,
// 429, 502, 503, 504): asking later may work. A 500 is not marked: WDK
// answers it for faults of the request too.
func (e *ServerError) Unwrap() []error {
	var errs []error
	if e.Status == 0 || retryable(e.Status) {
		errs = append(errs, catalog.ErrUnavailable)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// DelayedError means WDK kept answering 202 WDK-DELAYED-RESULT: a slow
// process query (BLAST-like) is still running on the site. The client polls
// by repeating the request with backoff; this error means the polls ran out.
// Asking again later is the remedy.
type DelayedError struct {
	Site     string
	Method   string
	Path     string
	Attempts int
}

// Error says to try again later.
func (e *DelayedError) Error() string {
	return fmt.Sprintf("%s %s: result still being computed by the site after %d attempts (WDK-DELAYED-RESULT); try again later", e.Method, e.Path, e.Attempts)
}

// Unwrap lets errors.Is(err, catalog.ErrUnavailable) match.
func (e *DelayedError) Unwrap() error { return catalog.ErrUnavailable }
