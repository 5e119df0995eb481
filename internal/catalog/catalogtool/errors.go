package catalogtool

import (
	"context"
	"errors"
	"fmt"

	"strategist/internal/catalog"
	"strategist/internal/tool"
)

// The codes of catalog tool errors the model sees.
const (
	// CodeNotFound: an unknown site, record type or search.
	CodeNotFound = "NOT_FOUND"
	// CodeValidation: parameter values break the site's rules; details
	// carry byKey (parameter -> problems) and general.
	CodeValidation = tool.CodeValidation
	// CodeUnavailable: the catalog cannot answer now (offline gene data
	// missing, live site down, a lookup this catalog does not offer).
	CodeUnavailable = "UNAVAILABLE"
	// CodeNotEvaluable: the search builds but its answer cannot be
	// computed here; never answered with an invented number.
	CodeNotEvaluable = "NOT_EVALUABLE"
	// CodeSiteAccount: the live site needs (or refused) the researcher's
	// VEuPathDB API key; only the researcher can fix it, on the settings
	// page.
	CodeSiteAccount = "SITE_ACCOUNT"
	// CodeSiteError: the live site answered with an error of its own.
	CodeSiteError = "SITE_ERROR"
)

// ToolError turns a catalog error into the *tool.ToolError a model can act
// on: ErrNotFound is NOT_FOUND, a *catalog.ValidationError is
// VALIDATION_ERROR with byKey and general details, ErrUnavailable is
// UNAVAILABLE, a *catalog.NotEvaluableError is NOT_EVALUABLE and a live
// site's *catalog.SiteError is SITE_ACCOUNT, UNAVAILABLE or SITE_ERROR by
// its kind, with its message. Context
// errors are returned unchanged so the loop reports cancellation and
// timeouts as such; anything else is returned wrapped with op, which the
// loop shows as a TOOL_ERROR. The graph tools use it for the catalog errors
// that reach them.
func ToolError(op string, err error) error {
	if err == nil {
		return nil
	}
	if te, ok := errors.AsType[*tool.ToolError](err); ok {
		return te
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if ve, ok := errors.AsType[*catalog.ValidationError](err); ok {
		return &tool.ToolError{Code: CodeValidation, Message: ve.Error(), Details: validationDetails(ve), Err: err}
	}
	if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
		return &tool.ToolError{Code: CodeNotEvaluable, Message: ne.Error(),
			Details: map[string]any{"search": ne.Search, "reason": ne.Reason}, Err: err}
	}
	if se, ok := errors.AsType[*catalog.SiteError](err); ok {
		code := CodeSiteError
		switch se.Kind {
		case catalog.SiteAccount:
			code = CodeSiteAccount
		case catalog.SiteUnavailable:
			code = CodeUnavailable
		}
		d := map[string]any{"site": se.Site}
		if se.RetryAfter > 0 {
			d["retryAfterSeconds"] = int(se.RetryAfter.Seconds())
		}
		return &tool.ToolError{Code: code, Message: se.Message, Details: d, Err: err}
	}
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return &tool.ToolError{Code: CodeNotFound, Message: err.Error(), Err: err}
	case errors.Is(err, catalog.ErrUnavailable):
		return &tool.ToolError{Code: CodeUnavailable, Message: err.Error(), Err: err}
	}
	return fmt.Errorf("catalogtool: %s: %w", op, err)
}

// validationDetails is the details object of a VALIDATION_ERROR.
func validationDetails(ve *catalog.ValidationError) map[string]any {
	d := map[string]any{}
	if ve.Search != "" {
		d["search"] = ve.Search
	}
	if len(ve.ByKey) > 0 {
		d["byKey"] = ve.ByKey
	}
	if len(ve.General) > 0 {
		d["general"] = ve.General
	}
	return d
}

// ValidationDetails exposes the details of a VALIDATION_ERROR for callers
// that build their own tool errors around a *catalog.ValidationError.
func ValidationDetails(ve *catalog.ValidationError) map[string]any { return validationDetails(ve) }
