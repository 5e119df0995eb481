package catalog

import "time"

// SiteErrorKind says whose move it is after a live site failed.
type SiteErrorKind string

// The kinds of live site failures.
const (
	// SiteAccount: the researcher's VEuPathDB API key is missing, invalid,
	// revoked or a guest's; they must store a current one.
	SiteAccount SiteErrorKind = "account"
	// SiteUnavailable: the site did not answer in time, is down, overloaded
	// or rate limiting; asking again later may work.
	SiteUnavailable SiteErrorKind = "unavailable"
	// SiteFault: the site answered with an error of its own (a 500, or it
	// refused the request); asking again will not help.
	SiteFault SiteErrorKind = "fault"
)

// SiteError is a live site's failure, classified, with a message that says
// what happened and what to do. Err is the client's own error (still
// matched by errors.As); an unavailable site also matches ErrUnavailable.
type SiteError struct {
	Site    string
	Kind    SiteErrorKind
	Message string
	// RetryAfter is how long the site asked callers to wait, when it said.
	RetryAfter time.Duration
	Err        error
}

// Error is the message.
func (e *SiteError) Error() string { return e.Message }

// Unwrap returns Err and, for an unavailable site, ErrUnavailable.
func (e *SiteError) Unwrap() []error {
	errs := []error{}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Kind == SiteUnavailable {
		errs = append(errs, ErrUnavailable)
	}
	return errs
}
