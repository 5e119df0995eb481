package web

import (
	"strconv"

	"strategist/internal/strategy"
)

// extraLines is how many rows the overlap and the no-op note add to a box.
func (n graphNode) extraLines() int {
	lines := 0
	if n.Overlap != nil {
		lines++
	}
	if n.Noop != "" {
		lines++
	}
	return lines
}

// OverlapText is the overlap row: "both 19 · left only 89 · right only
// 280", VEuPathDB's three regions of a combine.
func (n graphNode) OverlapText() string {
	o := n.Overlap
	return "both " + strconv.Itoa(o.Both) + " · left only " + strconv.Itoa(o.LeftOnly) + " · right only " + strconv.Itoa(o.RightOnly)
}

// noopText says that a combine leaves its left input as it is, read from
// exact counts: a MINUS whose count is its left input's removes nothing,
// an INTERSECT equal to its left input keeps all of it, a UNION equal to
// it adds nothing. Approximate or unknown counts say nothing.
func noopText(st strategy.Step, steps map[strategy.StepID]strategy.Step) string {
	if st.Kind != strategy.KindCombine || len(st.Inputs) != 2 {
		return ""
	}
	left, ok := steps[st.Inputs[0]]
	if !ok || !exactCount(st) || !exactCount(left) || *st.Count != *left.Count {
		return ""
	}
	switch st.Operator {
	case strategy.Minus:
		return "removes nothing: no left gene is in the right"
	case strategy.Intersect:
		return "keeps all: every left gene is in the right"
	case strategy.Union:
		return "adds nothing: every right gene is in the left"
	}
	return ""
}

// exactCount reports whether a step's count is known and exact.
func exactCount(st strategy.Step) bool {
	return st.CountStatus == strategy.CountOK && st.Count != nil && !stepApproximate(st)
}
