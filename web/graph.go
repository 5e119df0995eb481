package web

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"strategist/internal/event"
	"strategist/internal/strategy"
	"strategist/web/view"
)

// The strategy graph's geometry, in SVG user units. The tree is drawn as
// an indented outline, the root on top and each step's inputs below it,
// one step per row: it stays narrow enough for a phone whatever the
// number of leaves.
const (
	boxW   = 300
	boxH   = 62
	rowH   = 72
	indent = 22
	pad    = 4
)

// graphLayout is a strategy drawn as an outline; roots of an unfinished
// strategy one after the other.
type graphLayout struct {
	Width, Height int
	Nodes         []graphNode
	Edges         []graphEdge
}

// graphNode is one step's box; X and Y are its top-left corner, H its
// height (taller when the name takes more than one line).
type graphNode struct {
	Step strategy.Step
	X, Y int
	H    int
	Root bool
	// Name is the step's name wrapped to the box (at most nameLines
	// lines).
	Name []string
	// Overlap is a combine's inputs compared gene by gene, when their
	// genes could be read (the offline snapshot); Noop says that the
	// combine changes nothing of its left input ("removes nothing").
	Overlap *strategy.Overlap
	Noop    string
}

// The step names wrap: at most nameLines lines of nameWidth characters,
// each lineH units apart.
const (
	nameWidth = 34
	nameLines = 3
	lineH     = 18
)

// NameY is where the name's line i is drawn; DetailY, CountY, OverlapY
// and NoopY the rows below it.
func (n graphNode) NameY(i int) int { return n.Y + 19 + i*lineH }
func (n graphNode) DetailY() int    { return n.NameY(len(n.Name)) }
func (n graphNode) CountY() int     { return n.NameY(len(n.Name) + 1) }
func (n graphNode) OverlapY() int   { return n.NameY(len(n.Name) + 2) }
func (n graphNode) NoopY() int {
	if n.Overlap != nil {
		return n.NameY(len(n.Name) + 3)
	}
	return n.OverlapY()
}

// nameLine is line i of a wrapped name, with the space it was broken at,
// so that the name reads whole as text.
func nameLine(lines []string, i int, line string) string {
	if i < len(lines)-1 {
		return line + " "
	}
	return line
}

// wrapName breaks a name into lines of at most width characters at
// spaces (a longer word is cut), at most lines of them, the last ending in
// an ellipsis when the name is longer.
func wrapName(s string, width, lines int) []string {
	var out []string
	var cur []rune
	for _, w := range strings.Fields(s) {
		word := []rune(w)
		for len(word) > 0 {
			switch {
			case len(cur) == 0 && len(word) <= width:
				cur, word = word, nil
			case len(cur) > 0 && len(cur)+1+len(word) <= width:
				cur = append(append(cur, ' '), word...)
				word = nil
			case len(cur) > 0:
				out, cur = append(out, string(cur)), nil
			default: // a word longer than a line
				out, word = append(out, string(word[:width])), word[width:]
			}
		}
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	if len(out) == 0 {
		return []string{""}
	}
	if len(out) > lines {
		out = out[:lines]
		out[lines-1] = clip(out[lines-1]+" …", width)
		if !strings.HasSuffix(out[lines-1], "…") {
			out[lines-1] += "…"
		}
	}
	return out
}

// graphEdge is the elbow from a step (down its left side) to an input's
// box.
type graphEdge struct{ X1, Y1, X2, Y2 int }

// Points is the edge as an SVG polyline.
func (e graphEdge) Points() string {
	return fmt.Sprintf("%d,%d %d,%d %d,%d", e.X1, e.Y1, e.X1, e.Y2, e.X2, e.Y2)
}

// layoutGraph places the steps of a snapshot: pre-order from each root,
// inputs in order (primary first), indented one level below the step they
// feed. Steps no root reaches (a graph mid-change) are drawn as roots of
// their own. A combine in overlaps shows its inputs' overlap.
func layoutGraph(s *strategy.Snapshot, overlaps map[strategy.StepID]strategy.Overlap) graphLayout {
	steps := make(map[strategy.StepID]strategy.Step, len(s.Steps))
	consumed := map[strategy.StepID]bool{}
	for _, st := range s.Steps {
		steps[st.ID] = st
		for _, in := range st.Inputs {
			consumed[in] = true
		}
	}
	roots := append([]strategy.StepID{}, s.Roots...)
	if len(roots) == 0 {
		for _, st := range s.Steps {
			if !consumed[st.ID] {
				roots = append(roots, st.ID)
			}
		}
	}
	var l graphLayout
	seen := map[strategy.StepID]bool{}
	maxDepth := 0
	y := pad
	var place func(id strategy.StepID, depth int) (graphNode, bool)
	place = func(id strategy.StepID, depth int) (graphNode, bool) {
		st, ok := steps[id]
		if !ok || seen[id] {
			return graphNode{}, false
		}
		seen[id] = true
		maxDepth = max(maxDepth, depth)
		name := wrapName(stepName(st), nameWidth, nameLines)
		n := graphNode{Step: st, X: pad + depth*indent, Y: y, Name: name, Root: id == s.RootStepID, Noop: noopText(st, steps)}
		if o, ok := overlaps[id]; ok {
			n.Overlap = &o
		}
		n.H = boxH + (len(name)-1+n.extraLines())*lineH
		y += n.H + rowH - boxH
		l.Nodes = append(l.Nodes, n)
		for _, in := range st.Inputs {
			if child, ok := place(in, depth+1); ok {
				l.Edges = append(l.Edges, graphEdge{X1: n.X + indent/2, Y1: n.Y + n.H, X2: child.X, Y2: child.Y + child.H/2})
			}
		}
		return n, true
	}
	for _, r := range roots {
		place(r, 0)
	}
	for _, st := range s.Steps {
		place(st.ID, 0)
	}
	l.Width = 2*pad + maxDepth*indent + boxW
	l.Height = max(y-(rowH-boxH), pad+boxH) + pad
	return l
}

// OperatorSymbol is the set symbol of a combine operator.
func OperatorSymbol(op string) string {
	switch strategy.Operator(op) {
	case strategy.Intersect:
		return "∩"
	case strategy.Union:
		return "∪"
	case strategy.Minus, strategy.RMinus:
		return "−"
	case strategy.LOnly:
		return "◧"
	case strategy.ROnly:
		return "◨"
	case strategy.Colocate:
		return "≈"
	}
	return "?"
}

// OperatorName says what a combine operator keeps, in words.
func OperatorName(op string) string {
	switch strategy.Operator(op) {
	case strategy.Intersect:
		return "INTERSECT: genes in both inputs"
	case strategy.Union:
		return "UNION: genes in either input"
	case strategy.Minus:
		return "MINUS: left input without the right's genes"
	case strategy.RMinus:
		return "RMINUS: right input without the left's genes"
	case strategy.LOnly:
		return "LONLY: the left input only"
	case strategy.ROnly:
		return "RONLY: the right input only"
	case strategy.Colocate:
		return "COLOCATE: left genes near right genes"
	}
	return op
}

// stepName is the name a step is shown by.
func stepName(st strategy.Step) string {
	if st.DisplayName != "" {
		return st.DisplayName
	}
	if st.Kind == strategy.KindCombine {
		return string(st.Operator)
	}
	return st.SearchName
}

// stepCountAttr is data-count: the count when known, else empty.
func stepCountAttr(st strategy.Step) string {
	if st.CountStatus == strategy.CountOK && st.Count != nil {
		return strconv.Itoa(*st.Count)
	}
	return ""
}

// stepCountText is the count line of a step's box.
func stepCountText(st strategy.Step) string {
	switch st.CountStatus {
	case strategy.CountOK:
		if st.Count != nil {
			return countText(*st.Count, stepApproximate(st))
		}
	case strategy.CountNotEvaluable:
		return "not evaluable offline"
	case strategy.CountError:
		return "count failed"
	}
	return "count unknown"
}

// countText says a number of genes: "8 genes", or for an approximate count
// (a text search contributed) "≈ 8 genes (approximate)", and "no text
// matches" rather than "0 genes", which would read as an exact absence.
func countText(n int, approximate bool) string {
	switch {
	case approximate && n == 0:
		return "no text matches"
	case approximate:
		return "≈ " + genes(n) + " (approximate)"
	}
	return genes(n)
}

// genes is "1 gene", "8 genes".
func genes(n int) string {
	if n == 1 {
		return "1 gene"
	}
	return strconv.Itoa(n) + " genes"
}

// stepApproximate reports whether a step's count is approximate (the
// offline text search contributed to it).
func stepApproximate(st strategy.Step) bool {
	return st.CountStatus == strategy.CountOK && st.CountProvenance != nil && st.CountProvenance.Approximate
}

// stepOffline reports whether a step's count comes from the offline
// snapshot.
func stepOffline(st strategy.Step) bool {
	return st.CountProvenance != nil && st.CountProvenance.Offline
}

// Detail is the box's second row: a combine's operator symbol and name,
// else its kind and search.
func (n graphNode) Detail() (sym, text string) {
	if n.Step.Kind == strategy.KindCombine {
		return OperatorSymbol(string(n.Step.Operator)), string(n.Step.Operator)
	}
	return "", n.Step.Kind.String() + " · " + clip(n.Step.SearchName, 26)
}

// Marks are the notes after a box's count: offline, result, and named
// (the researcher set its name, which changes no more).
func (n graphNode) Marks() []string {
	var marks []string
	if stepOffline(n.Step) {
		marks = append(marks, "offline")
	}
	if n.Root {
		marks = append(marks, "result")
	}
	if n.Step.Named {
		marks = append(marks, "named")
	}
	return marks
}

// markClass is a mark's class in the box: "result" keeps the rootmark class
// its style and tests know.
func markClass(m string) string {
	if m == "result" {
		return "rootmark"
	}
	return m
}

// Label is the box's accessible name: the words it shows, in the order it
// shows them (so that a person who says or reads the visible label finds
// the box), then the whole name when the box had to cut it short, and
// what pressing it does.
func (n graphNode) Label() string {
	var b strings.Builder
	b.WriteString(strings.Join(n.Name, " "))
	sym, detail := n.Detail()
	if sym != "" {
		b.WriteString(" " + sym)
	}
	b.WriteString(" " + detail + " " + string(n.Step.ID) + " " + stepCountText(n.Step))
	for _, m := range n.Marks() {
		b.WriteString(" · " + m)
	}
	if n.Overlap != nil {
		b.WriteString(" " + n.OverlapText())
	}
	if n.Noop != "" {
		b.WriteString(" " + n.Noop)
	}
	b.WriteString(".")
	if full := stepName(n.Step); strings.Join(n.Name, " ") != full {
		b.WriteString(" Full name: " + full + ".")
	}
	b.WriteString(" Shows its results.")
	return b.String()
}

// checkpointText is a history entry: what came next and the result then,
// "Before “exclude chromosome 5” — 60 genes".
func checkpointText(cp view.Checkpoint) string {
	state := "empty"
	switch {
	case cp.Root != nil:
		state = stepCountText(*cp.Root)
	case cp.Steps > 0:
		state = plural(cp.Steps, "step") + ", not one tree"
	}
	if cp.Latest {
		return "Latest — " + state + " (version " + strconv.Itoa(cp.Version) + ")"
	}
	return "Before " + cp.Before + " — " + state + " (version " + strconv.Itoa(cp.Version) + ")"
}

// emptyResultText says plainly that a step has no genes: an approximate
// zero (text search) as no text matches, else no genes.
func emptyResultText(v ResultsView) string {
	if v.Answer != nil && v.Answer.Provenance.Approximate {
		return "No text matches: this step finds no genes, so there is nothing to download or test for enrichment."
	}
	return "No genes: this step finds none, so there is nothing to download or test for enrichment."
}

// clip shortens s to n characters with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// nodeDOMID is a delegation node's element id; characters a CSS id
// selector would need escaped become underscores.
func nodeDOMID(n *view.Node) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, n.ID)
	return view.DOMID("dlg-", n.Key) + "-" + safe
}

func joinIDs(ids []string) string { return strings.Join(ids, ", ") }

// delegationSummaryText counts a delegation's nodes by status.
func delegationSummaryText(d *view.Delegation) string {
	counts := d.Counts()
	var parts []string
	for _, s := range []event.NodeStatus{event.NodeDone, event.NodeRunning, view.NodeRetrying, event.NodeQueued, event.NodeFailed, event.NodeTimeout, event.NodeSkipped, event.NodeCancelled} {
		if counts[s] > 0 {
			parts = append(parts, strconv.Itoa(counts[s])+" "+string(s))
		}
	}
	return strconv.Itoa(len(d.Nodes)) + " nodes: " + strings.Join(parts, ", ")
}

// exportBlocked says why a strategy without exactly one result step cannot
// be exported to VEuPathDB, and what to do; it names the results as the
// researcher sees them, never by their ids.
func exportBlocked(s *strategy.Snapshot) string {
	names := make([]string, len(s.Roots))
	for i, r := range s.Roots {
		names[i] = "“" + rootLabel(s, r) + "”"
	}
	return fmt.Sprintf("Export for VEuPathDB needs one result step; this strategy has %d: %s. Combine them into one first.",
		len(s.Roots), strings.Join(names, ", "))
}

// rootLabel names a result step in the strategy panel's edit controls: its
// display name and count, never its id. Results of the same name are told
// apart by their place among the results.
func rootLabel(s *strategy.Snapshot, id strategy.StepID) string {
	label := func(id strategy.StepID) string {
		st, ok := s.Step(id)
		if !ok {
			return "a removed step"
		}
		name := clip(stepName(st), 60)
		if st.CountStatus == strategy.CountOK && st.Count != nil {
			name += " — " + stepCountText(st)
		}
		return name
	}
	own := label(id)
	same, place := 0, 0
	for _, r := range s.Roots {
		if label(r) == own {
			same++
			if r == id {
				place = same
			}
		}
	}
	if same > 1 {
		own += fmt.Sprintf(" (result %d of %d so named)", place, same)
	}
	return own
}

// buildingSummary heads the list of steps still to be made: how many, and
// how many of them run now.
func buildingSummary(nodes []*view.Node) string {
	running := 0
	for _, n := range nodes {
		if n.Active() {
			running++
		}
	}
	out := "Still to build: " + plural(len(nodes), "step")
	if running > 0 {
		out += fmt.Sprintf(", %d running", running)
	}
	return out
}
