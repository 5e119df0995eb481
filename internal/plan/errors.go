package plan

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidPlan is matched (errors.Is) by every *PlanError.
var ErrInvalidPlan = errors.New("plan: invalid delegation plan")

// CodeInvalidPlan is the tool error code of a rejected plan.
const CodeInvalidPlan = "DELEGATION_PLAN_INVALID"

// Problem is one thing wrong with a plan. Path is a JSON pointer into the
// plan as submitted ("" is the plan itself); for a missing key it points
// at where the key should be.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	// Allowed lists the accepted keys or values when there is a short list.
	Allowed []string `json:"allowed,omitempty"`
}

func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "(plan)"
	}
	return path + ": " + p.Message
}

// PlanError lists every problem of a rejected plan, in document order, so
// a model can fix them all in one go.
type PlanError struct {
	Problems []Problem
	// Omitted counts problems beyond the first 50, which are not listed.
	Omitted int
}

func (e *PlanError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	msg := "plan: invalid delegation plan: " + strings.Join(parts, "; ")
	if e.Omitted > 0 {
		msg += fmt.Sprintf(" (and %d more)", e.Omitted)
	}
	return msg
}

// Is makes errors.Is(err, ErrInvalidPlan) true.
func (e *PlanError) Is(target error) bool { return target == ErrInvalidPlan }

// Summary is the one-line message a model is given with the problems.
func (e *PlanError) Summary() string {
	return fmt.Sprintf("the delegation plan has %d problem(s); fix them all and try again", len(e.Problems)+e.Omitted)
}

// problems collects a PlanError's problems up to maxProblems.
type problems struct {
	list    []Problem
	omitted int
}

func (ps *problems) add(path, msg string, allowed ...string) {
	if len(ps.list) >= maxProblems {
		ps.omitted++
		return
	}
	ps.list = append(ps.list, Problem{Path: path, Message: msg, Allowed: allowed})
}

// err is the PlanError of the problems collected, nil when there are none.
func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	return &PlanError{Problems: ps.list, Omitted: ps.omitted}
}
