package rules

import (
	"fmt"
	"regexp"
	"strings"

	"strategist/internal/english"
	"strategist/internal/plan"
)

// countedPlan is count_plan's answer: each node's count, in post-order.
type countedPlan struct {
	Nodes []countedNode `json:"nodes"`
}

// countedNode is one node's count, nil with a note when it has none.
type countedNode struct {
	Count *int   `json:"count"`
	Note  string `json:"note"`
}

// root is the count of the plan's root (its last node), nil when it has
// none.
func (cp countedPlan) root() *int {
	if len(cp.Nodes) == 0 {
		return nil
	}
	return cp.Nodes[len(cp.Nodes)-1].Count
}

func countPlanCall(tree *plan.TreeNode) call {
	return newCall("count_plan", map[string]any{"plan": tree})
}

// anywayRE reads a researcher's wish to have a change built though it
// changes nothing: "…, anyway", "… regardless".
var anywayRE = regexp.MustCompile(`(?i)\b(?:anyway|anyhow|regardless)\b`)

// idle is an exclusion or restriction of a plan that would change
// nothing, with what it applies to and that count.
type idle struct {
	node   *english.Node // the MINUS or INTERSECT
	kept   *english.Node // the side that keeps its genes
	count  int
	remove bool // an exclusion (else a restriction)
}

// idleStep finds, in a counted plan, the first exclusion of places that
// would remove no gene or restriction to places that would keep every
// gene (its count equals the count of what it applies to). Places only:
// excluding a gene type or a process from genes that have none of it is
// what the words say, while a place excluded in vain is most often a
// place misread (the apicoplast's genome for its proteins). Plan
// nodes are in post-order, as the tree is walked here; false when the
// counts do not line up with the tree or none is idle.
func idleStep(root *english.Node, cp countedPlan, follow english.FollowUp) (idle, bool) {
	var order []*english.Node
	var walk func(n *english.Node)
	walk = func(n *english.Node) {
		if n.Clause == nil {
			walk(n.Left)
			walk(n.Right)
		}
		order = append(order, n)
	}
	walk(root)
	if len(order) != len(cp.Nodes) {
		return idle{}, false
	}
	count := map[*english.Node]*int{}
	for i, n := range order {
		count[n] = cp.Nodes[i].Count
	}
	for _, n := range order {
		if n.Clause != nil || count[n] == nil || count[n.Left] == nil {
			continue
		}
		restriction := n.Op == english.OpIntersect && (allLocations(n.Right) || follow == english.FollowRestrict && n == root)
		exclusion := n.Op == english.OpMinus && allLocations(n.Right)
		if !exclusion && !restriction || *count[n] != *count[n.Left] || *count[n.Left] == 0 {
			continue
		}
		return idle{node: n, kept: n.Left, count: *count[n], remove: n.Op == english.OpMinus}, true
	}
	return idle{}, false
}

// mayIdle reports whether a tree has an exclusion or a restriction to
// places that counting could find idle: only such plans are counted
// before they are built.
func mayIdle(n *english.Node, follow english.FollowUp) bool {
	if n == nil || n.Clause != nil {
		return false
	}
	if (n.Op == english.OpMinus || n.Op == english.OpIntersect) && allLocations(n.Right) || n.Op == english.OpIntersect && follow == english.FollowRestrict {
		return true
	}
	return mayIdle(n.Left, follow) || mayIdle(n.Right, follow)
}

// allLocations reports whether a subtree names only places.
func allLocations(n *english.Node) bool {
	for _, c := range n.Leaves() {
		if c.Kind != english.KindLocation {
			return false
		}
	}
	return true
}

// idleAsk is the question asked instead of planning a step that changes
// nothing: build without it, or build it as asked (the researcher's own
// message, with "anyway"). Each option gives the count.
func idleAsk(m *mapped, id idle, user string) call {
	what := id.node.Right.Describe()
	kept := id.kept.Describe()
	var question, without string
	if id.remove {
		question = fmt.Sprintf("Excluding %s would remove nothing: none of the %d genes of %s are in it. Should I leave the exclusion out, or build it as you asked?",
			what, id.count, kept)
		without = "leave the exclusion out"
	} else {
		question = fmt.Sprintf("Keeping only %s would change nothing: all %d genes of %s are already there. Should I leave the restriction out, or build it as you asked?",
			what, id.count, kept)
		without = "leave the restriction out"
	}
	rest := withoutNode(m.p.Root, id.node)
	msg := rest.Describe()
	if m.p.Follow != english.FollowNone {
		msg = "never mind"
	}
	opts := []askOption{
		{Label: fmt.Sprintf("%s: %s (%d gene%s)", without, rest.Describe(), id.count, plural(id.count)), Message: msg},
		{Label: fmt.Sprintf("build it as asked: %s (%d gene%s, the same)", m.p.Root.Describe(), id.count, plural(id.count)),
			Message: strings.TrimRight(strings.TrimSpace(user), ".!?") + ", anyway"},
	}
	return newCall("ask_researcher", map[string]any{"question": question, "options": opts, "free_text": true})
}

// withoutNode is the tree with one operator node replaced by its left
// side.
func withoutNode(n, drop *english.Node) *english.Node {
	if n == drop {
		return n.Left
	}
	if n.Clause != nil {
		return n
	}
	return &english.Node{Op: n.Op, Left: withoutNode(n.Left, drop), Right: withoutNode(n.Right, drop)}
}

// idleNote says plainly, for a plan built anyway, that a step changes
// nothing.
func idleNote(id idle) string {
	if id.remove {
		return fmt.Sprintf("Excluding %s removes nothing: none of the %d genes of %s are in it; I built it as you asked",
			id.node.Right.Describe(), id.count, id.kept.Describe())
	}
	return fmt.Sprintf("Keeping only %s changes nothing: all %d genes of %s are already there; I built it as you asked",
		id.node.Right.Describe(), id.count, id.kept.Describe())
}
