package graphtool

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"strategist/internal/catalog"
	"strategist/internal/catalog/catalogtool"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// CodeNotFound is the code of a conversation (or strategy) that does not
// exist for this user.
const CodeNotFound = "NOT_FOUND"

// CodeUnavailable is the code of a change or read the database could not
// take (store.Unavailable, past the store's retries): the same call may
// succeed in a moment. It is the catalog tools' code for a catalog that
// cannot answer now.
const CodeUnavailable = catalogtool.CodeUnavailable

// unavailableMessage is what the model and the researcher read of it,
// instead of the driver's text.
const unavailableMessage = "the database was unavailable; the same call can be made again in a moment"

// fail turns an error of op into what the model sees. A strategy refusal
// keeps its typed code (strategy.Code), names the offending step (and what
// consumes it) and lists the roots the caller may use; parameter problems
// carry byKey. Context errors pass through so the loop reports
// cancellation and timeouts; catalog errors go through
// catalogtool.ToolError.
func (t *tools) fail(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if te, ok := errors.AsType[*tool.ToolError](err); ok {
		return te
	}
	if se, ok := errors.AsType[*strategy.StepError](err); ok {
		return t.stepError(se)
	}
	if code := strategy.Code(err); code != "" {
		te := &tool.ToolError{Code: code, Message: trimPrefix(err.Error()), Err: err}
		if ig, ok := errors.AsType[*strategy.InvalidGraphError](err); ok {
			te.Details = map[string]any{"problems": ig.Problems, "roots": t.scope.filter(ig.Roots)}
		}
		return te
	}
	if errors.Is(err, store.ErrNotFound) {
		return &tool.ToolError{Code: CodeNotFound, Err: err,
			Message: "this conversation or its strategy no longer exists"}
	}
	if store.Unavailable(err) {
		return &tool.ToolError{Code: CodeUnavailable, Message: unavailableMessage, Err: err}
	}
	if te, ok := errors.AsType[*tool.ToolError](catalogtool.ToolError(op, err)); ok {
		return te
	}
	return fmt.Errorf("graphtool: %s: %w", op, err)
}

// stepError renders a refused mutation. The message is rebuilt rather than
// taken from se.Error() so a sub-agent sees only the roots it may use.
func (t *tools) stepError(se *strategy.StepError) error {
	code := strategy.Code(se)
	roots := t.scope.filter(se.Roots)
	var msg strings.Builder
	if se.Op != "" {
		msg.WriteString(se.Op + ": ")
	}
	if se.Detail != "" {
		msg.WriteString(se.Detail)
	} else {
		msg.WriteString(se.Kind.Error())
	}
	if se.Cause != nil {
		msg.WriteString(": " + trimPrefix(se.Cause.Error()))
	}
	label := "current roots"
	if t.scope != nil {
		label = "roots you may use"
	}
	fmt.Fprintf(&msg, " (%s: %s)", label, joinIDs(roots))
	details := map[string]any{"roots": roots}
	if se.Step != "" {
		details["stepId"] = se.Step
	}
	if se.ConsumedBy != "" {
		details["consumedBy"] = se.ConsumedBy
	}
	if ve, ok := errors.AsType[*catalog.ValidationError](se); ok {
		for k, v := range catalogtool.ValidationDetails(ve) {
			details[k] = v
		}
	}
	if oe, ok := errors.AsType[*strategy.OperatorError](se); ok {
		details["operator"] = oe.Value
		details["allowed"] = strategy.Operators()
	}
	if t.scope != nil {
		details["scope"] = t.scope.IDs()
	}
	return &tool.ToolError{Code: code, Message: msg.String(), Details: details, Err: se}
}

// trimPrefix drops a package prefix ("strategy: ") from a message meant
// for a model.
func trimPrefix(msg string) string {
	for _, p := range []string{"strategy: ", "catalog: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

func joinIDs(ids []strategy.StepID) string {
	if len(ids) == 0 {
		return "none"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ", ")
}

// noStrategyYet refuses a change that names steps before any exist,
// without creating an empty strategy as a side effect.
func noStrategyYet(op string, id strategy.StepID) error {
	return &tool.ToolError{Code: strategy.Code(strategy.ErrStepNotFound),
		Message: fmt.Sprintf("%s: there is no step %s: the strategy has no steps yet; start with create_step", op, id),
		Details: map[string]any{"stepId": id, "roots": []strategy.StepID{}}}
}
