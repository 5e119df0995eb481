package strategy

import (
	"fmt"
	"strings"
)

// Operator is how a combine step joins its two inputs. The values are WDK's
// boolean operator terms (what bq_operator takes) plus COLOCATE, which WDK
// runs as a separate span-logic search. Words people use ("AND", "NOT") are
// mapped onto these terms once, by ParseOperator, so nothing downstream ever
// sees an alias.
type Operator string

// The operators. LONLY and RONLY keep one side and ignore the other; they are
// not differences (WDK BooleanOperator).
const (
	Intersect Operator = "INTERSECT" // left ∩ right, weights summed
	Union     Operator = "UNION"     // left ∪ right, weights summed
	Minus     Operator = "MINUS"     // left \ right, left weights
	RMinus    Operator = "RMINUS"    // right \ left, right weights
	LOnly     Operator = "LONLY"     // left, right ignored
	ROnly     Operator = "RONLY"     // right, left ignored
	Colocate  Operator = "COLOCATE"  // left genes near right genes (GenesBySpanLogic)
)

// Operators returns every operator in the order shown to people and models,
// for tool schemas and error messages.
func Operators() []Operator {
	return []Operator{Intersect, Union, Minus, RMinus, LOnly, ROnly, Colocate}
}

// alias maps an accepted spelling (after normalisation) onto an operator.
// WDK's own display words (LEFT_MINUS, RIGHT_ONLY, ...) are accepted too
// because the live site shows them.
func alias(norm string) (Operator, bool) {
	switch norm {
	case "INTERSECT", "AND":
		return Intersect, true
	case "UNION", "OR":
		return Union, true
	case "MINUS", "NOT", "MINUS_LEFT", "LMINUS", "LEFT_MINUS":
		return Minus, true
	case "RMINUS", "MINUS_RIGHT", "RIGHT_MINUS":
		return RMinus, true
	case "LONLY", "LEFT_ONLY":
		return LOnly, true
	case "RONLY", "RIGHT_ONLY":
		return ROnly, true
	case "COLOCATE":
		return Colocate, true
	}
	return "", false
}

// ParseOperator reads an operator name or alias: case does not matter, and
// spaces and hyphens count as underscores ("minus right" is RMINUS). Every
// caller (graph tools, the delegation plan parser, HTTP) goes through it so
// the aliases are the same everywhere.
func ParseOperator(s string) (Operator, error) {
	norm := strings.ToUpper(strings.TrimSpace(s))
	norm = strings.NewReplacer(" ", "_", "-", "_").Replace(norm)
	if op, ok := alias(norm); ok {
		return op, nil
	}
	return "", &OperatorError{Value: s}
}

// Valid reports whether op is one of the canonical operators (not an alias).
func (op Operator) Valid() bool {
	switch op {
	case Intersect, Union, Minus, RMinus, LOnly, ROnly, Colocate:
		return true
	}
	return false
}

// Boolean reports whether op runs as WDK's boolean search (every operator
// except COLOCATE).
func (op Operator) Boolean() bool { return op.Valid() && op != Colocate }

// OperatorError is an operator name that is neither an operator nor an
// accepted alias.
type OperatorError struct {
	Value string
}

// Error names the value and the operators and aliases accepted.
func (e *OperatorError) Error() string {
	ops := Operators()
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = string(o)
	}
	return fmt.Sprintf("unknown operator %q (use one of %s; AND, OR, NOT, MINUS_LEFT, LMINUS and MINUS_RIGHT are accepted aliases)",
		e.Value, strings.Join(names, ", "))
}

// Is makes errors.Is(err, ErrInvalidOperator) true.
func (e *OperatorError) Is(target error) bool { return target == ErrInvalidOperator }

// Strand says which strand a co-located gene may lie on relative to the
// other input's gene.
type Strand string

// The strands of a COLOCATE combine.
const (
	StrandBoth     Strand = "both"
	StrandSame     Strand = "same"
	StrandOpposite Strand = "opposite"
)

// wdkTerm is the span_strand vocabulary term of GenesBySpanLogic.
func (s Strand) wdkTerm() string {
	switch s {
	case StrandSame:
		return "same strand"
	case StrandOpposite:
		return "opposite strand"
	default:
		return "Both strands"
	}
}

// MaxColocationDistance bounds upstream and downstream distances (bp); a
// window wider than any Plasmodium chromosome is a mistake, not a query.
const MaxColocationDistance = 10_000_000

// Colocation are the parameters of a COLOCATE combine: the right input's
// genes are widened by Upstream bases before their start and Downstream
// bases after their end, and left genes overlapping that window on the
// chosen Strand are kept. They travel with the step (and into the WDK
// export) so a delegated COLOCATE never falls back to defaults.
type Colocation struct {
	Upstream   int    `json:"upstream"`
	Downstream int    `json:"downstream"`
	Strand     Strand `json:"strand"`
}

// ParseStrand reads a strand name; "" means both. "either", "any" and WDK's
// vocabulary terms ("same strand") are accepted.
func ParseStrand(s string) (Strand, error) {
	norm := strings.ToLower(strings.TrimSpace(s))
	norm = strings.TrimSuffix(strings.TrimSuffix(norm, " strands"), " strand")
	switch norm {
	case "", "both", "either", "any":
		return StrandBoth, nil
	case "same":
		return StrandSame, nil
	case "opposite":
		return StrandOpposite, nil
	}
	return "", fmt.Errorf("%w: unknown strand %q (use same, opposite or both)", ErrInvalidColocation, s)
}

// validate checks the distances and the strand.
func (c Colocation) validate() error {
	if c.Upstream < 0 || c.Downstream < 0 {
		return fmt.Errorf("%w: upstream and downstream must be ≥ 0 (got %d and %d)", ErrInvalidColocation, c.Upstream, c.Downstream)
	}
	if c.Upstream > MaxColocationDistance || c.Downstream > MaxColocationDistance {
		return fmt.Errorf("%w: upstream and downstream must be ≤ %d bp", ErrInvalidColocation, MaxColocationDistance)
	}
	switch c.Strand {
	case StrandBoth, StrandSame, StrandOpposite:
		return nil
	}
	return fmt.Errorf("%w: unknown strand %q (use same, opposite or both)", ErrInvalidColocation, c.Strand)
}
