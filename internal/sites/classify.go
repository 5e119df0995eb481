package sites

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"strategist/internal/catalog"
	"strategist/internal/catalog/wdk"
)

// settingsHint tells a researcher where keys are managed.
const settingsHint = "store a current API key of your VEuPathDB account on Strategist's Settings page (/settings)"

// classify turns a live catalog's failure into a *catalog.SiteError with
// a message for the researcher (and the model). Errors that are the
// request's own (validation, unknown search, not evaluable, the caller's
// cancellation) are returned as they are.
func classify(name, site string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*catalog.SiteError](err); ok {
		return err
	}
	label := site
	if name != "" && name != site {
		label = name + " (" + site + ")"
	}
	se := func(kind catalog.SiteErrorKind, msg string) error {
		return &catalog.SiteError{Site: site, Kind: kind, Message: msg, Err: err}
	}
	if _, ok := errors.AsType[*wdk.MissingTokenError](err); ok {
		return se(catalog.SiteAccount, "no VEuPathDB API key is stored for "+label+": the live sites answer registered users only; "+settingsHint)
	}
	if ae, ok := errors.AsType[*wdk.AuthError](err); ok {
		if ae.Guest {
			return se(catalog.SiteAccount, "the VEuPathDB API key stored for "+label+" belongs to a guest session, not a registered account; "+settingsHint)
		}
		return se(catalog.SiteAccount, fmt.Sprintf("%s refused your VEuPathDB API key (HTTP %d): it may be revoked or expired; %s", label, ae.Status, settingsHint))
	}
	if te, ok := errors.AsType[*TimeoutError](err); ok {
		return se(catalog.SiteUnavailable, fmt.Sprintf("%s did not answer within %s; it may be down or slow, try again later", label, te.After))
	}
	if de, ok := errors.AsType[*wdk.DelayedError](err); ok {
		return se(catalog.SiteUnavailable, fmt.Sprintf("%s is still computing this answer after %d attempts; try again in a few minutes", label, de.Attempts))
	}
	if sv, ok := errors.AsType[*wdk.ServerError](err); ok {
		var msg string
		kind := catalog.SiteUnavailable
		switch {
		case sv.Status == 0:
			msg = label + " cannot be reached (" + short(sv.Err) + "); it may be down, try again"
		case sv.Status == http.StatusTooManyRequests:
			msg = label + " is limiting how often it is asked (HTTP 429); try again"
		case sv.Status == http.StatusBadGateway || sv.Status == http.StatusServiceUnavailable || sv.Status == http.StatusGatewayTimeout:
			msg = fmt.Sprintf("%s is unavailable (HTTP %d); it may be down for maintenance, try again", label, sv.Status)
		default:
			kind = catalog.SiteFault
			msg = fmt.Sprintf("%s answered with an error (HTTP %d%s)", label, sv.Status, detail(sv.Message))
			if sv.LogMarker != "" {
				msg += "; VEuPathDB support can trace it with log marker " + sv.LogMarker
			}
		}
		if kind == catalog.SiteUnavailable {
			if sv.RetryAfter > 0 {
				msg += fmt.Sprintf(" in %s", sv.RetryAfter.Round(1e9))
			} else {
				msg += " later"
			}
		}
		return &catalog.SiteError{Site: site, Kind: kind, Message: msg, RetryAfter: sv.RetryAfter, Err: err}
	}
	if re, ok := errors.AsType[*wdk.RequestError](err); ok {
		return se(catalog.SiteFault, fmt.Sprintf("%s refused the request (HTTP %d%s)", label, re.Status, detail(re.Message)))
	}
	if ce, ok := errors.AsType[*wdk.ConflictError](err); ok {
		return se(catalog.SiteFault, label+" refused the change (HTTP 409"+detail(ce.Message)+")")
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if _, ok := errors.AsType[*catalog.ValidationError](err); ok {
		return err
	}
	if _, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
		return err
	}
	if errors.Is(err, catalog.ErrNotFound) || errors.Is(err, catalog.ErrUnavailable) {
		return err
	}
	if strings.Contains(err.Error(), "decode ") {
		return se(catalog.SiteFault, label+" answered something Strategist could not read; try again later or report it")
	}
	return err
}

func detail(m string) string {
	m = strings.TrimSpace(m)
	if m == "" {
		return ""
	}
	if len(m) > 200 {
		m = m[:200] + "…"
	}
	return ": " + m
}

func short(err error) string {
	if err == nil {
		return "no response"
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		s = s[i+2:]
	}
	return s
}
