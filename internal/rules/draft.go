package rules

import (
	"slices"

	"strategist/internal/english"
)

// previousRequest is the researcher's previous message read as a request
// of its own (not a question, not a follow-up): the plan a change made in
// plan mode, before the build, edits.
func previousRequest(previous string) (english.Parsed, bool) {
	if previous == "" || english.Classify(previous).Intent != english.IntentSearch {
		return english.Parsed{}, false
	}
	prev := english.Parse(previous)
	return prev, prev.Root != nil && prev.Follow == english.FollowNone
}

// draftFollowUp reads a change made in plan mode before anything is built
// ("DNA repair genes on chromosome 14", then "same, but also exclude
// chromosome 13") as an edit of the plan the previous request drafted: its
// tree joined with the new part, or with the replaced clause swapped. It
// reports false when the previous message was no search request or the
// replaced clause is not one clause of it.
func draftFollowUp(p *english.Parsed, previous string) (string, bool) {
	prev, ok := previousRequest(previous)
	if !ok || p.Part == nil || prev.Organism != p.Organism && p.Organism != "" {
		return "", false
	}
	ops := map[english.FollowUp]english.Op{english.FollowExclude: english.OpMinus, english.FollowRestrict: english.OpIntersect, english.FollowAdd: english.OpUnion}
	note := "this changes the plan drafted for your previous request (" + prev.Root.Describe() + ")"
	if op, ok := ops[p.Follow]; ok {
		p.Root, p.Follow = &english.Node{Op: op, Left: prev.Root, Right: p.Part}, english.FollowNone
		p.Organism, p.Evidence = prev.Organism, prev.Evidence
		return note, true
	}
	if p.Follow != english.FollowReplace || p.Part.Clause == nil {
		return "", false
	}
	var hits []*english.Clause
	for _, c := range prev.Root.Leaves() {
		if p.Replaced != nil && p.Replaced.Clause != nil {
			if sameClause(c, p.Replaced.Clause) {
				hits = append(hits, c)
			}
		} else if c.Kind == p.Part.Clause.Kind {
			hits = append(hits, c)
		}
	}
	if len(hits) != 1 {
		return "", false
	}
	p.Root, p.Follow = swapClause(prev.Root, hits[0], p.Part), english.FollowNone
	p.Organism, p.Evidence = prev.Organism, prev.Evidence
	return note, true
}

// draftWithout reads "take that exclusion out again" in plan mode, before
// anything is built, as the previous request's tree without its outermost
// exclusion (MINUS) or restriction (INTERSECT): that operator's left side.
func draftWithout(p *english.Parsed, previous, kind string) (string, bool) {
	prev, ok := previousRequest(previous)
	if !ok {
		return "", false
	}
	want := map[string][]english.Op{"exclusion": {english.OpMinus}, "restriction": {english.OpIntersect}, "filter": {english.OpMinus, english.OpIntersect}}[kind]
	drop := outermost(prev.Root, want)
	if drop == nil {
		return "", false
	}
	*p = prev
	p.Root = withoutNode(prev.Root, drop)
	return "this takes the " + kind + " (" + drop.Right.Describe() + ") out of the plan drafted for your previous request", true
}

// outermost is the operator node of one of ops nearest the root, nil when
// the tree has none.
func outermost(n *english.Node, ops []english.Op) *english.Node {
	queue := []*english.Node{n}
	for len(queue) > 0 {
		n, queue = queue[0], queue[1:]
		if n == nil || n.Clause != nil {
			continue
		}
		if slices.Contains(ops, n.Op) {
			return n
		}
		queue = append(queue, n.Left, n.Right)
	}
	return nil
}

// sameClause reports whether two clauses name the same thing: the same
// place, or the same words.
func sameClause(a, b *english.Clause) bool {
	if a.Kind != b.Kind {
		return false
	}
	if a.Kind == english.KindLocation {
		return a.Location == b.Location
	}
	return english.Normalize(a.Text) == english.Normalize(b.Text)
}

// swapClause is the tree with one leaf replaced by part.
func swapClause(n *english.Node, leaf *english.Clause, part *english.Node) *english.Node {
	if n.Clause != nil {
		if n.Clause == leaf {
			return part
		}
		return n
	}
	return &english.Node{Op: n.Op, Left: swapClause(n.Left, leaf, part), Right: swapClause(n.Right, leaf, part)}
}
