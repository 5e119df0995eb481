package rules

import (
	"fmt"
	"regexp"
	"strings"

	"strategist/internal/english"
)

// operatorWords name a combine's operator in a change to it.
const operatorWords = `(union|intersect|intersection|minus|subtraction)`

// operatorEditRE reads a change to a combine's operator: "flip the last
// combine to a UNION", "turn the intersection into a union", "change
// the operator from INTERSECT to UNION", "make it a union", "use MINUS
// instead". The words between the verb and the new operator say which
// combine.
var operatorEditRE = regexp.MustCompile(`(?i)^\s*(?:(?:now|ok|okay|please|and|then|also|actually|instead|no),?\s+)*(?:` +
	`(?:flip|switch|change|turn|convert)\s+(.*?)\s*(?:\bfrom\s+(?:an?\s+)?\w+\s+)?\b(?:to|into)\s+(?:an?\s+)?` + operatorWords +
	`|make\s+(.*?)\s*\b(?:an?\s+)?` + operatorWords +
	`|use\s+(?:an?\s+)?` + operatorWords + `(?:\s+(?:step\s+)?instead|\s+there)` +
	`)\b(?:\s+(?:step|combine|operator))?(?:\s*[,.;!—–-]\s*.*|\s+(?:and|so|then)\s+.*|\s*)$`)

// operators reads an operator word.
var operators = map[string]english.Op{
	"union": english.OpUnion, "intersect": english.OpIntersect, "intersection": english.OpIntersect,
	"minus": english.OpMinus, "subtraction": english.OpMinus,
}

// editedOperator finds the combine a change of operator names and the
// strategy rebuilt with the new operator, its inputs reused as they are.
// ok is false when the message is not such a change; otherwise a reason
// is given when it cannot be made.
func (o *strategyOverview) editedOperator(user string) (tree *english.Node, note, why string, ok bool) {
	m := operatorEditRE.FindStringSubmatch(user)
	if m == nil {
		return nil, "", "", false
	}
	which, word := m[1]+m[3], strings.ToLower(m[2]+m[4]+m[5])
	op := operators[word]
	var combines []stepSummary
	for _, s := range o.Steps {
		if len(s.Inputs) == 2 && s.Operator != "" {
			combines = append(combines, s)
		}
	}
	low := strings.ToLower(which)
	var hits []stepSummary
	switch {
	case len(combines) == 0:
		return nil, "", "the strategy has no combine whose operator could change; nothing was changed", true
	case strings.Contains(low, "last") || strings.Contains(low, "final") || strings.Contains(low, "top") ||
		strings.Contains(low, "root") || strings.Contains(low, "outer") || len(combines) == 1:
		// The last combine is the one nearest the strategy's result.
		if s, ok := o.outerCombine(o.RootStepID); ok {
			hits = []stepSummary{s}
		}
	default:
		// The combines of the operators the words name ("intersect" and
		// "intersection" name one).
		named := map[string]bool{}
		for w, op := range operators {
			named[string(op)] = named[string(op)] || strings.Contains(low, w)
		}
		for _, s := range combines {
			if named[s.Operator] {
				hits = append(hits, s)
			}
		}
	}
	if len(hits) != 1 {
		return nil, "", fmt.Sprintf("the strategy has %d combines (%s): say which to change, for example \"change the last combine to a %s\"; nothing was changed",
			len(combines), names(combines), strings.ToLower(string(op))), true
	}
	s := hits[0]
	if s.Operator == string(op) {
		return nil, "", fmt.Sprintf("step %s (%s) is already a %s; nothing was changed", s.StepID, s.DisplayName, s.Operator), true
	}
	part := &english.Node{Op: op, Left: o.stepNode(s.Inputs[0]), Right: o.stepNode(s.Inputs[1])}
	tree = o.rebuild(o.RootStepID, s.StepID, part)
	if !reaches(tree, part) {
		return nil, "", fmt.Sprintf("step %s (%s) lies below a transform, which a change of operator would have to make again; nothing was changed", s.StepID, s.DisplayName), true
	}
	return tree, fmt.Sprintf("I change step %s (%s) from %s to %s, its inputs as they are, and keep the rest of the strategy",
		s.StepID, s.DisplayName, s.Operator, op), "", true
}

// outerCombine is the combine nearest the result of step id: id itself
// when it combines, else the first found below a transform.
func (o *strategyOverview) outerCombine(id string) (stepSummary, bool) {
	s, ok := o.step(id)
	switch {
	case !ok:
		return stepSummary{}, false
	case len(s.Inputs) == 2:
		return s, true
	case len(s.Inputs) == 1:
		return o.outerCombine(s.Inputs[0])
	}
	return stepSummary{}, false
}

// holds reports whether step target is id or one of its inputs, at any depth.
func (o *strategyOverview) holds(id, target string) bool {
	if id == target {
		return true
	}
	s, _ := o.step(id)
	for _, in := range s.Inputs {
		if o.holds(in, target) {
			return true
		}
	}
	return false
}

// reaches reports whether node part is in tree n.
func reaches(n, part *english.Node) bool {
	return n == part || n != nil && n.Clause == nil && (reaches(n.Left, part) || reaches(n.Right, part))
}
