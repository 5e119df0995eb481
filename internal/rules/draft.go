package rules

import (
	"slices"

	"strategist/internal/english"
)

// draftedRequest is the request the plan not built yet stands for, read
// from the researcher's messages since the last build (oldest first): a
// request of its own starts it afresh, and each change after it (exclude,
// restrict, add, replace) edits it as the planner drafted it, so that
// "glycolysis genes", "also include gluconeogenesis", "and leave out
// chromosome 11" is one plan. Questions leave it as it is.
func draftedRequest(messages []string) (english.Parsed, bool) {
	var draft english.Parsed
	ok := false
	for i, msg := range messages {
		if english.Classify(msg).Intent != english.IntentSearch {
			continue
		}
		p := english.Parse(msg)
		repeatFollowUp(&p, msg, lastRequest(messages[:i]))
		switch {
		case p.Root != nil && p.Follow == english.FollowNone:
			draft, ok = p, true
		case ok:
			if _, edited := draftFollowUp(&p, draft); edited {
				draft = p
			}
		}
	}
	return draft, ok
}

// draftFollowUp reads a change made in plan mode before anything is built
// ("DNA repair genes on chromosome 14", then "same, but also exclude
// chromosome 13") as an edit of the plan drafted before it: its tree
// joined with the new part, or with the replaced clause swapped. It
// reports false when the replaced clause is not one clause of it.
func draftFollowUp(p *english.Parsed, prev english.Parsed) (string, bool) {
	if prev.Root == nil || p.Part == nil || prev.Organism != p.Organism && p.Organism != "" {
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
// anything is built, as the drafted request's tree without its outermost
// exclusion (MINUS) or restriction (INTERSECT): that operator's left side.
func draftWithout(p *english.Parsed, prev english.Parsed, kind string) (string, bool) {
	if prev.Root == nil {
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

// lastRequest is the last of the messages that asks for genes (a request
// or a change), "" when none does: what "and chromosome 13 too" repeats,
// past a question asked in between.
func lastRequest(messages []string) string {
	for i := len(messages) - 1; i >= 0; i-- {
		if english.Classify(messages[i]).Intent == english.IntentSearch {
			return messages[i]
		}
	}
	return ""
}
