package strategy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// ImportWDK replaces a graph's steps by a strategy in WDK's terms, the
// form WDK exports (and Graph.WDK writes): its step bodies and stepTree.
// Every step is checked as if it were added by hand, inputs first (the
// search exists and returns the strategy's record type, its parameters
// validate, a boolean's bq_operator is an operator, a GenesBySpanLogic step
// is a co-location), so an imported strategy keeps every invariant of a
// built one. The steps get new ids from the graph's counter: an import is
// one version, undone like any other change. A strategy that cannot be
// imported is a *StepError of kind ErrInvalidImport naming the WDK step at
// fault and why.
type ImportWDK struct {
	Strategy *WDKStrategy
}

func (m ImportWDK) refs() []StepID { return nil }

func (m ImportWDK) prepare(ctx context.Context, cat SearchCatalog, base *Graph) (plan, error) {
	const op = "import strategy"
	refuse := func(step StepID, format string, args ...any) error {
		detail := fmt.Sprintf(format, args...)
		if step != "" {
			detail = fmt.Sprintf("step %s: %s", step, detail)
		}
		return &StepError{Kind: ErrInvalidImport, Op: op, Roots: base.Roots(), Detail: detail}
	}
	w := m.Strategy
	switch {
	case w == nil || w.StepTree.StepID == "":
		return nil, refuse("", "the strategy has no stepTree; send the JSON that GET …/strategy/wdk gives")
	case w.RecordType != "" && w.RecordType != base.RecordType:
		return nil, &StepError{Kind: ErrRecordTypeMismatch, Op: op, Roots: base.Roots(),
			Detail: fmt.Sprintf("the strategy is of %q records but this conversation's strategy is of %q", w.RecordType, base.RecordType)}
	case len(w.Steps) > MaxSteps:
		return nil, refuse("", "%d steps; a strategy has at most %d", len(w.Steps), MaxSteps)
	}
	scratch := &Graph{Name: base.Name, SiteID: base.SiteID, RecordType: base.RecordType, NextStep: base.NextStep, Steps: []Step{}}
	used := map[StepID]bool{}
	var build func(t *WDKStepTree, depth int) (StepID, error)
	build = func(t *WDKStepTree, depth int) (StepID, error) {
		if depth > len(w.Steps) || used[t.StepID] {
			return "", refuse(t.StepID, "the stepTree uses this step twice; a step is the input of at most one other")
		}
		used[t.StepID] = true
		body, ok := w.Steps[t.StepID]
		if !ok {
			return "", refuse(t.StepID, "the stepTree names a step that is not among the steps")
		}
		if t.PrimaryInput == nil && t.SecondaryInput != nil {
			return "", refuse(t.StepID, "a secondary input without a primary input")
		}
		var inputs []StepID
		for _, in := range []*WDKStepTree{t.PrimaryInput, t.SecondaryInput} {
			if in == nil {
				continue
			}
			id, err := build(in, depth+1)
			if err != nil {
				return "", err
			}
			inputs = append(inputs, id)
		}
		mut, err := importedStep(body, inputs)
		if err != nil {
			return "", refuse(t.StepID, "%s", err.Error())
		}
		next, change, err := scratch.Apply(ctx, cat, mut)
		if err != nil {
			var se *StepError
			if errors.As(err, &se) {
				return "", &StepError{Kind: ErrInvalidImport, Op: op, Roots: base.Roots(),
					Detail: fmt.Sprintf("step %s (%s): %s", t.StepID, body.SearchName, cmpDetail(se)), Cause: se.Cause}
			}
			return "", fmt.Errorf("strategy: %s: step %s: %w", op, t.StepID, err)
		}
		scratch = next
		return change.Step, nil
	}
	root, err := build(&w.StepTree, 0)
	if err != nil {
		return nil, err
	}
	for id := range w.Steps {
		if !used[id] {
			return nil, refuse(id, "the step is not in the stepTree")
		}
	}
	name := strings.TrimSpace(w.Name)
	if name != "" {
		if name, err = cleanName(name); err != nil {
			return nil, &StepError{Kind: ErrInvalidImport, Op: op, Roots: base.Roots(), Cause: err}
		}
	}
	nextStep := base.NextStep
	return importPlan{nextStep: nextStep, run: func(g *Graph) (*Graph, Change, error) {
		next := g.Clone()
		next.Steps = scratch.Clone().Steps
		next.NextStep = scratch.NextStep
		if name != "" {
			next.Name = name
		}
		return next, Change{Op: OpImport, Step: root,
			Summary: fmt.Sprintf("imported a WDK strategy of %d steps (root %s), replacing the %d steps there were", len(next.Steps), root, len(g.Steps))}, nil
	}}, nil
}

// cmpDetail is what a refused step says, without the scratch graph's roots.
func cmpDetail(se *StepError) string {
	if se.Detail != "" {
		return se.Detail
	}
	return se.Kind.Error()
}

// importPlan holds while no other change has taken step ids since it was
// prepared: the imported steps' ids are then still unused.
type importPlan struct {
	nextStep int
	run      func(g *Graph) (*Graph, Change, error)
}

func (p importPlan) holds(g *Graph) bool { return g.NextStep == p.nextStep }

func (p importPlan) apply(g *Graph) (*Graph, Change, error) { return p.run(g) }

// importedStep is the mutation that adds one WDK step over the inputs
// already imported.
func importedStep(body WDKStep, inputs []StepID) (Mutation, error) {
	params := maps.Clone(body.SearchConfig.Parameters)
	weight := 0
	if body.SearchConfig.WDKWeight != nil {
		weight = *body.SearchConfig.WDKWeight
	}
	switch len(inputs) {
	case 0:
		return AddSearch{SearchName: body.SearchName, Parameters: params, DisplayName: body.CustomName, Weight: weight}, nil
	case 1:
		return AddTransform{Input: inputs[0], SearchName: body.SearchName, Parameters: params, DisplayName: body.CustomName, Weight: weight}, nil
	}
	c := Combine{Left: inputs[0], Right: inputs[1], DisplayName: body.CustomName}
	switch {
	case strings.HasPrefix(body.SearchName, booleanPrefix):
		c.Operator = Operator(params[booleanOperatorParam])
		if c.Operator == "" {
			return nil, fmt.Errorf("the boolean step %s has no %s", body.SearchName, booleanOperatorParam)
		}
	case body.SearchName == SpanSearch:
		col, err := colocationOf(params)
		if err != nil {
			return nil, err
		}
		c.Operator, c.Colocation = Colocate, col
	default:
		return nil, fmt.Errorf("%s takes two inputs but is neither the boolean search nor %s", body.SearchName, SpanSearch)
	}
	return c, nil
}

// colocationOf reads a GenesBySpanLogic step back into the co-location it
// compiles (spanParams); any other span setup is refused rather than
// imported as something else.
func colocationOf(p map[string]string) (*Colocation, error) {
	up, err1 := strconv.Atoi(p["span_begin_offset_b"])
	down, err2 := strconv.Atoi(p["span_end_offset_b"])
	strand, err3 := ParseStrand(p["span_strand"])
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, fmt.Errorf("a %s step that is not a co-location Strategist can read: %w", SpanSearch, err)
	}
	col := Colocation{Upstream: up, Downstream: down, Strand: strand}
	want := spanParams(col)
	for k, v := range want {
		if k != "span_sentence" && p[k] != v {
			return nil, fmt.Errorf("a %s step whose %s is %q: only the co-location of the left input's genes near the right input's (%s %q) is imported", SpanSearch, k, p[k], k, v)
		}
	}
	return &col, nil
}
