package strategy

import (
	"fmt"
	"strings"
)

// Problem codes Validate reports besides the sentinel codes of Code.
const (
	ProblemEmpty         = "EMPTY_STRATEGY"
	ProblemMultipleRoots = "MULTIPLE_ROOTS"
	ProblemDuplicateStep = "DUPLICATE_STEP"
	ProblemUnknownKind   = "UNKNOWN_KIND"
	ProblemMissingSearch = "MISSING_SEARCH"
	ProblemInputCount    = "WRONG_INPUT_COUNT"
	ProblemInputOrder    = "INPUT_ORDER"
	ProblemCount         = "INVALID_COUNT"
)

// Validate lists every problem of the graph, not just the first: broken
// structure (missing or doubly consumed inputs, wrong input counts, cycles),
// record types that disagree, operators and colocation parameters that do
// not fit the step, and completeness (exactly one root). An empty list means
// the strategy can be exported to WDK. Parameters are not re-checked here:
// every mutation validated them through the catalog when it stored them.
func (g *Graph) Validate() []Problem {
	var ps []Problem
	add := func(step StepID, code, format string, args ...any) {
		ps = append(ps, Problem{Step: step, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if g.SiteID == "" || g.RecordType == "" {
		add("", "INVALID_STRATEGY", "the strategy has no site or record type")
	}
	pos := make(map[StepID]int, len(g.Steps))
	for i, s := range g.Steps {
		if s.ID == "" {
			add("", ProblemDuplicateStep, "step %d has no id", i+1)
			continue
		}
		if _, dup := pos[s.ID]; dup {
			add(s.ID, ProblemDuplicateStep, "step id %s is used twice", s.ID)
			continue
		}
		pos[s.ID] = i
	}
	consumer := map[StepID]StepID{}
	for i, s := range g.Steps {
		ps = append(ps, g.validateStep(i, s, pos, consumer)...)
	}
	switch roots := g.Roots(); {
	case len(g.Steps) == 0:
		add("", ProblemEmpty, "the strategy has no steps")
	case len(roots) == 0:
		add("", ProblemInputOrder, "the strategy has no root: its inputs form a cycle")
	case len(roots) > 1:
		add("", ProblemMultipleRoots, "the strategy has %d roots (%s); combine them into one", len(roots), joinIDs(roots))
	}
	return ps
}

// validateStep checks one step; consumer records which step consumes each
// input so far, to find inputs consumed twice.
func (g *Graph) validateStep(i int, s Step, pos map[StepID]int, consumer map[StepID]StepID) []Problem {
	var ps []Problem
	add := func(code, format string, args ...any) {
		ps = append(ps, Problem{Step: s.ID, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if !s.Kind.valid() {
		add(ProblemUnknownKind, "step %s has no valid kind", s.ID)
	}
	if strings.TrimSpace(s.SearchName) == "" {
		add(ProblemMissingSearch, "step %s has no search", s.ID)
	}
	if s.RecordType != g.RecordType {
		add(Code(ErrRecordTypeMismatch), "step %s returns %q records but the strategy is of %q", s.ID, s.RecordType, g.RecordType)
	}
	if s.Kind.valid() && len(s.Inputs) != s.Kind.inputs() {
		add(ProblemInputCount, "%s step %s has %d inputs, want %d", s.Kind, s.ID, len(s.Inputs), s.Kind.inputs())
	}
	for _, in := range s.Inputs {
		j, ok := pos[in]
		switch {
		case in == s.ID:
			add(ProblemInputOrder, "step %s takes itself as input", s.ID)
			continue
		case !ok:
			add(Code(ErrStepNotFound), "step %s takes %s as input, but there is no step %s", s.ID, in, in)
			continue
		case j > i:
			add(ProblemInputOrder, "step %s takes %s as input, which was created after it", s.ID, in)
		}
		if other, taken := consumer[in]; taken {
			add(Code(ErrStepConsumed), "step %s is an input of both %s and %s; a step is consumed at most once", in, other, s.ID)
		} else {
			consumer[in] = s.ID
		}
		if rt := g.Steps[j].RecordType; rt != s.RecordType {
			add(Code(ErrRecordTypeMismatch), "step %s (%q) takes %s (%q) as input", s.ID, s.RecordType, in, rt)
		}
	}
	switch {
	case s.Kind == KindCombine && !s.Operator.Valid():
		add(Code(ErrInvalidOperator), "combine step %s has no valid operator (%q)", s.ID, s.Operator)
	case s.Kind != KindCombine && s.Operator != "":
		add(Code(ErrInvalidOperator), "%s step %s has an operator; only combines do", s.Kind, s.ID)
	}
	switch {
	case s.Operator == Colocate && s.Colocation == nil:
		add(Code(ErrInvalidColocation), "COLOCATE step %s has no colocation parameters", s.ID)
	case s.Operator != Colocate && s.Colocation != nil:
		add(Code(ErrInvalidColocation), "step %s has colocation parameters but is not a COLOCATE", s.ID)
	case s.Colocation != nil:
		if err := s.Colocation.validate(); err != nil {
			add(Code(ErrInvalidColocation), "step %s: %v", s.ID, err)
		}
	}
	switch {
	case s.CountStatus == CountOK && s.Count == nil:
		add(ProblemCount, "step %s has count status ok but no count", s.ID)
	case s.CountStatus != CountOK && s.Count != nil:
		add(ProblemCount, "step %s has count status %s but a count of %d", s.ID, s.CountStatus, *s.Count)
	}
	return ps
}

// Check returns an *InvalidGraphError when Validate finds problems.
func (g *Graph) Check() error {
	if ps := g.Validate(); len(ps) > 0 {
		return &InvalidGraphError{Problems: ps, Roots: g.Roots()}
	}
	return nil
}
