package strategy

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels for what can go wrong with a graph. Mutations return them inside
// a *StepError that names the step and lists the current roots, so a model
// can correct itself from the message alone; match with errors.Is.
var (
	ErrStepNotFound       = errors.New("step not found")
	ErrStepConsumed       = errors.New("step already consumed")
	ErrStepInUse          = errors.New("step is an input of another step")
	ErrInvalidInput       = errors.New("invalid input")
	ErrRecordTypeMismatch = errors.New("record types differ")
	ErrUnknownSearch      = errors.New("unknown search")
	ErrSearchKind         = errors.New("wrong kind of search")
	ErrInvalidParameters  = errors.New("invalid parameters")
	ErrInvalidOperator    = errors.New("invalid operator")
	ErrInvalidColocation  = errors.New("invalid colocation parameters")
	ErrNoCombineSearch    = errors.New("no combine search for this record type")
	ErrInvalidUpdate      = errors.New("invalid update")
	ErrInvalidName        = errors.New("invalid name")
	ErrOutOfScope         = errors.New("step outside the caller's scope")
	ErrInvalidGraph       = errors.New("strategy graph is invalid")
	ErrNothingToUndo      = errors.New("nothing to undo")
	ErrNothingToRedo      = errors.New("nothing to redo")
	ErrVersionNotFound    = errors.New("no such earlier version")
	ErrNotEvaluable       = errors.New("result not evaluable")
	ErrInvalidPage        = errors.New("invalid page")
	ErrTooManySteps       = errors.New("too many steps")
	ErrInvalidImport      = errors.New("strategy cannot be imported")
)

// Code returns the machine code of err ("STEP_CONSUMED", ...), or "" when
// err is not a strategy error. Tools and the HTTP API report it.
func Code(err error) string {
	switch {
	case errors.Is(err, ErrStepNotFound):
		return "STEP_NOT_FOUND"
	case errors.Is(err, ErrStepConsumed):
		return "STEP_CONSUMED"
	case errors.Is(err, ErrStepInUse):
		return "STEP_IN_USE"
	case errors.Is(err, ErrInvalidInput):
		return "INVALID_INPUT"
	case errors.Is(err, ErrRecordTypeMismatch):
		return "RECORD_TYPE_MISMATCH"
	case errors.Is(err, ErrUnknownSearch):
		return "SEARCH_NOT_FOUND"
	case errors.Is(err, ErrSearchKind):
		return "WRONG_SEARCH_KIND"
	case errors.Is(err, ErrInvalidParameters):
		return "VALIDATION_ERROR"
	case errors.Is(err, ErrInvalidOperator):
		return "INVALID_OPERATOR"
	case errors.Is(err, ErrInvalidColocation):
		return "INVALID_COLOCATION"
	case errors.Is(err, ErrNoCombineSearch):
		return "NO_COMBINE_SEARCH"
	case errors.Is(err, ErrInvalidUpdate):
		return "INVALID_UPDATE"
	case errors.Is(err, ErrInvalidName):
		return "INVALID_NAME"
	case errors.Is(err, ErrOutOfScope):
		return "OUT_OF_SCOPE"
	case errors.Is(err, ErrInvalidGraph):
		return "INVALID_STRATEGY"
	case errors.Is(err, ErrNothingToUndo):
		return "NOTHING_TO_UNDO"
	case errors.Is(err, ErrNothingToRedo):
		return "NOTHING_TO_REDO"
	case errors.Is(err, ErrVersionNotFound):
		return "VERSION_NOT_FOUND"
	case errors.Is(err, ErrNotEvaluable):
		return "NOT_EVALUABLE"
	case errors.Is(err, ErrInvalidPage):
		return "INVALID_PAGE"
	case errors.Is(err, ErrTooManySteps):
		return "TOO_MANY_STEPS"
	case errors.Is(err, ErrInvalidImport):
		return "INVALID_IMPORT"
	}
	return ""
}

// StepError is a refused mutation. It names the offending step (when there
// is one), what consumes it (when that is the problem) and the roots of the
// graph as it stands, which is what a caller needs to pick valid inputs.
type StepError struct {
	Kind       error  // one of the sentinels above
	Op         string // the mutation, e.g. "combine"
	Step       StepID // the offending step, "" when none
	ConsumedBy StepID // the step that already consumes Step
	Roots      []StepID
	Detail     string
	// Cause is the underlying error, e.g. a *catalog.ValidationError with
	// the parameter problems by key.
	Cause error
}

// Error says what was refused, why, and what the roots are now.
func (e *StepError) Error() string {
	var b strings.Builder
	b.WriteString("strategy: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.Detail != "" {
		b.WriteString(e.Detail)
	} else {
		b.WriteString(e.Kind.Error())
	}
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	b.WriteString(" (current roots: ")
	b.WriteString(joinIDs(e.Roots))
	b.WriteString(")")
	return b.String()
}

// Unwrap exposes both the sentinel and the cause to errors.Is and
// errors.As.
func (e *StepError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}

// Problem is one thing wrong with a whole graph, as Validate lists them.
type Problem struct {
	Step    StepID `json:"stepId,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// InvalidGraphError lists every problem of a graph that cannot be used as a
// whole (exported, or declared complete).
type InvalidGraphError struct {
	Problems []Problem
	Roots    []StepID
}

// Error lists the problems and the roots.
func (e *InvalidGraphError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return fmt.Sprintf("strategy: invalid graph: %s (current roots: %s)", strings.Join(msgs, "; "), joinIDs(e.Roots))
}

// Is makes errors.Is(err, ErrInvalidGraph) true.
func (e *InvalidGraphError) Is(target error) bool { return target == ErrInvalidGraph }

func joinIDs(ids []StepID) string {
	if len(ids) == 0 {
		return "none"
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ", ")
}
