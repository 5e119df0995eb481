package strategies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"strategist/internal/catalog"
	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// RequirementReport is what a build's requirement check found, for one
// version of a strategy: each requirement of the plan in plan order (a
// node's inputs before the node), with the step that implements it.
type RequirementReport struct {
	StrategyID string          `json:"strategyId"`
	Version    int             `json:"version"`
	RootStepID strategy.StepID `json:"rootStepId,omitempty"`
	RootCount  *int            `json:"rootCount"`
	// RootApproximate marks a result count a text search made approximate.
	RootApproximate bool                `json:"rootApproximate,omitempty"`
	Requirements    []event.Requirement `json:"requirements"`
}

// maxExamples is how many genes a requirement shows.
const maxExamples = 3

// CheckRequirements checks a built strategy against the plan that stated
// what the request asked for: for each of the plan's nodes (a search with
// its stated values, a combine, a transform, a reused step) it finds the
// step that implements it, its count, how many of its genes the result
// keeps, and a few genes with the attribute that qualified them. bound
// names the step a node was built as, where the builder knows it (a
// delegation's node results); other nodes are found in the graph by their
// search and values, or by their operator and inputs. Everything is
// computed here from the graph and the catalog; a step whose genes the
// catalog cannot compute is marked not evaluable, never counted.
func (s *Service) CheckRequirements(ctx context.Context, userID, strategyID string, p *plan.Plan, bound map[string]strategy.StepID) (*RequirementReport, error) {
	if p == nil || len(p.Nodes) == 0 {
		return nil, fmt.Errorf("strategy: check requirements: %w: the plan has no node", strategy.ErrInvalidGraph)
	}
	snap, g, _, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return nil, err
	}
	c := &checker{s: s, g: g, bound: bound, matched: map[string]strategy.StepID{}, genes: map[strategy.StepID]*stepGeneSet{}}
	c.root = c.resolveRoot(p)
	out := &RequirementReport{StrategyID: snap.StrategyID, Version: snap.Version, RootStepID: c.root, Requirements: []event.Requirement{}}
	if st, ok := g.Step(c.root); ok && st.CountStatus == strategy.CountOK {
		out.RootCount = st.Count
		out.RootApproximate = st.CountProvenance != nil && st.CountProvenance.Approximate
	}
	for _, n := range p.Nodes {
		r, err := c.node(ctx, n)
		if err != nil {
			return nil, err
		}
		out.Requirements = append(out.Requirements, r)
	}
	return out, nil
}

// checker matches one plan against one graph.
type checker struct {
	s       *Service
	g       *strategy.Graph
	root    strategy.StepID
	bound   map[string]strategy.StepID
	matched map[string]strategy.StepID // plan node id -> step
	genes   map[strategy.StepID]*stepGeneSet
}

// resolveRoot is the result the requirements are checked against: the
// plan root's step when the builder named it, else the strategy's one
// root ("" when it has several and none was named).
func (c *checker) resolveRoot(p *plan.Plan) strategy.StepID {
	if id, ok := c.bound[p.Root]; ok {
		if _, ok := c.g.Step(id); ok {
			return id
		}
	}
	root, _ := c.g.Root()
	return root
}

// node checks one plan node; its inputs were checked before it.
func (c *checker) node(ctx context.Context, n plan.Node) (event.Requirement, error) {
	r := event.Requirement{ID: n.ID, Text: n.Label, Examples: []event.GeneEvidence{}}
	var id strategy.StepID
	switch n.Kind {
	case plan.KindStep:
		r.Kind = event.RequirementStep
		if _, ok := c.g.Step(n.StepID); ok {
			id = n.StepID
		}
	case plan.KindCombine:
		r.Kind, r.Operator = combineKind(n.Operator), string(n.Operator)
		r.Text = cmp.Or(n.DisplayName, n.Label)
		id = c.findCombine(n)
	case plan.KindTask:
		r.Kind = event.RequirementSearch
		if n.Input != "" {
			r.Kind = event.RequirementTransform
		}
		tc, ok := n.TaskContext()
		if ok {
			r.Text = cmp.Or(strings.TrimSpace(tc.Phrase), strings.TrimSpace(tc.DisplayName), n.Label)
		}
		var err error
		if id, err = c.findTask(ctx, n, tc, ok, &r); err != nil {
			return r, err
		}
	}
	if id == "" {
		r.Status = event.RequirementMissing
		if r.Note == "" {
			r.Note = "no step of the strategy implements it"
		}
		return r, nil
	}
	c.matched[n.ID] = id
	st, _ := c.g.Step(id)
	r.StepID, r.StepName = string(id), st.DisplayName
	if st.CountStatus == strategy.CountOK {
		r.Count = st.Count
		r.Approximate = st.CountProvenance != nil && st.CountProvenance.Approximate
	}
	if r.Status == "" {
		r.Status = event.RequirementMet
	}
	if !c.inResult(id) {
		r.Status = event.RequirementNotMet
		r.Note = joinNote(r.Note, fmt.Sprintf("step %s is not part of the strategy's result", id))
	}
	if err := c.evidence(ctx, id, &r); err != nil {
		return r, err
	}
	return r, nil
}

// combineKind names what a combine's operator requires.
func combineKind(op strategy.Operator) event.RequirementKind {
	switch op {
	case strategy.Intersect:
		return event.RequirementRestriction
	case strategy.Minus, strategy.RMinus:
		return event.RequirementExclusion
	case strategy.Union:
		return event.RequirementEither
	}
	return event.RequirementCombine
}

// findCombine is the step that joins the steps of the combine's inputs
// with its operator (either order for a symmetric one), or the step the
// builder named for it.
func (c *checker) findCombine(n plan.Node) strategy.StepID {
	if id, ok := c.bound[n.ID]; ok {
		if st, ok := c.g.Step(id); ok && st.Kind == strategy.KindCombine {
			return id
		}
	}
	l, r := c.matched[n.Left], c.matched[n.Right]
	if l == "" || r == "" {
		return ""
	}
	symmetric := n.Operator == strategy.Union || n.Operator == strategy.Intersect
	for _, st := range c.g.Steps {
		if st.Kind != strategy.KindCombine || len(st.Inputs) != 2 {
			continue
		}
		same := st.Operator == n.Operator && st.Inputs[0] == l && st.Inputs[1] == r
		swapped := st.Inputs[0] == r && st.Inputs[1] == l &&
			(symmetric && st.Operator == n.Operator || n.Operator == strategy.Minus && st.Operator == strategy.RMinus || n.Operator == strategy.RMinus && st.Operator == strategy.Minus)
		if same || swapped {
			return st.ID
		}
	}
	return ""
}

// findTask is the step that implements a task: the one the builder named
// (or the step of the task's search in its subtree), else a step of the
// task's search with the task's input, preferring one in the result whose
// values are those stated. It fills r's search, stated values and, when
// the step found states other values, the note saying which.
func (c *checker) findTask(ctx context.Context, n plan.Node, tc plan.TaskContext, hasContext bool, r *event.Requirement) (strategy.StepID, error) {
	bound, isBound := c.bound[n.ID]
	if _, ok := c.g.Step(bound); !ok {
		isBound = false
	}
	if !hasContext {
		if isBound {
			return bound, nil
		}
		r.Note = "the plan states no search for it, so no step could be matched"
		return "", nil
	}
	search, err := c.s.cat.Search(ctx, c.g.SiteID, c.g.RecordType, tc.SearchName)
	if err != nil && !errors.Is(err, catalog.ErrNotFound) {
		return "", fmt.Errorf("strategy: check requirements: search %s: %w", tc.SearchName, err)
	}
	var stated []strategy.StatedParam
	if search != nil {
		r.Search = cmp.Or(search.DisplayName, search.Name)
		stated = strategy.Stated(search, tc.Parameters)
		for _, sp := range stated {
			r.Values = append(r.Values, event.StatedValue{Param: sp.Param.Name, ParamLabel: cmp.Or(sp.Param.DisplayName, sp.Param.Name), Value: sp.Value, Label: sp.Label})
		}
	} else {
		r.Search = tc.SearchName
	}
	var candidates []strategy.Step
	for _, st := range c.g.Steps {
		if st.SearchName != tc.SearchName {
			continue
		}
		if in := c.matched[n.Input]; n.Input != "" && (len(st.Inputs) == 0 || st.Inputs[0] != in) {
			continue
		}
		candidates = append(candidates, st)
	}
	if isBound {
		// The node's own steps first: its root, then its subtree.
		sub := c.subtree(bound)
		candidates = slices.DeleteFunc(candidates, func(st strategy.Step) bool { return !sub[st.ID] })
		if len(candidates) == 0 {
			st, _ := c.g.Step(bound)
			r.Status = event.RequirementNotMet
			r.Note = fmt.Sprintf("it was built as %s, not with %s", cmp.Or(st.SearchName, string(st.Operator)), r.Search)
			return bound, nil
		}
	}
	if len(candidates) == 0 {
		r.Note = "no step of the strategy runs " + r.Search
		return "", nil
	}
	best, bestScore := candidates[0], -1
	for _, st := range candidates {
		score := 0
		if len(differences(stated, st.Parameters)) == 0 {
			score += 2
		}
		if c.inResult(st.ID) {
			score++
		}
		if score > bestScore {
			best, bestScore = st, score
		}
	}
	if diff := differences(stated, best.Parameters); len(diff) > 0 {
		r.Status = event.RequirementNotMet
		r.Note = "step " + string(best.ID) + " has " + strings.Join(diff, "; ")
	}
	return best.ID, nil
}

// differences says which stated values a step's parameters do not carry.
func differences(stated []strategy.StatedParam, params map[string]string) []string {
	var out []string
	for _, sp := range stated {
		got := params[sp.Param.Name]
		if sameValue(sp.Value, got) {
			continue
		}
		label := cmp.Or(sp.Param.DisplayName, sp.Param.Name)
		out = append(out, fmt.Sprintf("%s %q, not the stated %q", label, cmp.Or(valueLabel(sp.Param, got), got), sp.Label))
	}
	return out
}

// sameValue compares two values: picked terms in any order, else text.
func sameValue(a, b string) bool {
	ta, okA := catalog.DecodeTerms(a)
	tb, okB := catalog.DecodeTerms(b)
	if !okA || !okB {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	slices.Sort(ta)
	slices.Sort(tb)
	return slices.Equal(slices.Compact(ta), slices.Compact(tb))
}

// valueLabel shows a value by its terms' labels.
func valueLabel(p catalog.Param, v string) string {
	terms, ok := catalog.DecodeTerms(v)
	if !ok {
		return v
	}
	labels := make([]string, len(terms))
	for i, t := range terms {
		labels[i] = strategy.TermLabel(p, t)
	}
	return strings.Join(labels, ", ")
}

// subtree is a step and every step under it.
func (c *checker) subtree(id strategy.StepID) map[strategy.StepID]bool {
	out := map[strategy.StepID]bool{}
	var walk func(id strategy.StepID)
	walk = func(id strategy.StepID) {
		st, ok := c.g.Step(id)
		if !ok || out[id] || len(out) > len(c.g.Steps) {
			return
		}
		out[id] = true
		for _, in := range st.Inputs {
			walk(in)
		}
	}
	walk(id)
	return out
}

// inResult reports whether a step is part of the result the requirements
// are checked against.
func (c *checker) inResult(id strategy.StepID) bool {
	return c.root != "" && c.subtree(c.root)[id]
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
