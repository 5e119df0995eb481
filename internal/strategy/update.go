package strategy

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// UpdateStep changes an existing step in place; nil fields are left alone.
//
// Parameters are merged into the step's current values (the keys given
// replace theirs) and the result is validated again through the catalog.
// A combine's parameters follow from its operator and colocation, so a
// combine is updated through Operator and Colocation instead; switching an
// operator to or from COLOCATE switches the search it runs as. Changing
// what a step computes clears its count and those of every step
// downstream, which the strategy service counts again.
//
// A DisplayName given here is the researcher's: the step is marked Named and
// keeps it. An unnamed step's name is derived again from its new parameters
// (or, for a combine, its new operator), and the unnamed combines downstream
// follow it.
type UpdateStep struct {
	Step        StepID
	Parameters  map[string]string
	DisplayName *string
	Weight      *int
	Operator    *Operator
	Colocation  *Colocation
}

func (m UpdateStep) refs() []StepID { return []StepID{m.Step} }

func (m UpdateStep) prepare(ctx context.Context, cat SearchCatalog, base *Graph) (plan, error) {
	const op = "update step"
	refuse := func(format string, args ...any) error {
		return &StepError{Kind: ErrInvalidUpdate, Op: op, Step: m.Step, Roots: base.Roots(), Detail: fmt.Sprintf(format, args...)}
	}
	i := base.index(m.Step)
	if i < 0 {
		return nil, &StepError{Kind: ErrStepNotFound, Op: op, Step: m.Step, Roots: base.Roots(),
			Detail: fmt.Sprintf("there is no step %s", m.Step)}
	}
	cur := base.Steps[i].clone()
	if m.Parameters == nil && m.DisplayName == nil && m.Weight == nil && m.Operator == nil && m.Colocation == nil {
		return nil, refuse("nothing to update for step %s", m.Step)
	}
	p := &updatePlan{base: cur, next: cur.clone()}
	if cur.Kind == KindCombine {
		if m.Parameters != nil {
			return nil, refuse("the parameters of combine step %s follow from its operator; change operator or colocation instead", m.Step)
		}
		if m.Weight != nil {
			return nil, refuse("combine step %s takes its weight from its inputs", m.Step)
		}
		if m.Operator != nil || m.Colocation != nil {
			if err := p.recombine(ctx, cat, base, op, m); err != nil {
				return nil, err
			}
		}
	} else {
		if m.Operator != nil || m.Colocation != nil {
			return nil, refuse("%s step %s has no operator; only combines do", cur.Kind, m.Step)
		}
		if m.Parameters != nil {
			s, err := lookupSearch(ctx, cat, base, op, cur.SearchName)
			if err != nil {
				return nil, err
			}
			merged := cloneParams(cur.Parameters)
			for k, v := range m.Parameters {
				merged[k] = v
			}
			for _, in := range s.InputParams {
				if m.Parameters[in] != "" {
					return nil, refuse("%s is step %s's input; inputs cannot be changed by parameters", in, m.Step)
				}
				merged[in] = ""
			}
			params, err := validateParams(ctx, cat, base, op, s, merged)
			if err != nil {
				return nil, err
			}
			p.next.Parameters = params
			p.next.DisplayName = searchStepName(s, params)
			p.fields = append(p.fields, "parameters")
			for k, v := range params {
				if old, ok := cur.Parameters[k]; !ok || old != v {
					p.params = append(p.params, k)
				}
			}
			slices.Sort(p.params)
		}
		if m.Weight != nil {
			p.next.Weight = *m.Weight
			p.fields = append(p.fields, "weight")
		}
	}
	if m.DisplayName != nil {
		name, err := displayName(base, op, *m.DisplayName, "")
		if err != nil {
			return nil, err
		}
		p.next.DisplayName = name
		p.fields = append(p.fields, "displayName")
	}
	return p, nil
}

// recombine recompiles a combine for a new operator or colocation.
func (p *updatePlan) recombine(ctx context.Context, cat SearchCatalog, base *Graph, op string, m UpdateStep) error {
	operator := p.base.Operator
	if m.Operator != nil {
		parsed, err := ParseOperator(string(*m.Operator))
		if err != nil {
			return &StepError{Kind: ErrInvalidOperator, Op: op, Step: m.Step, Roots: base.Roots(), Cause: err}
		}
		operator = parsed
	}
	col := normaliseColocation(m.Colocation)
	if col == nil && operator == Colocate {
		col = cloneColocation(p.base.Colocation) // keep the distances when only the display changes
	}
	s, params, err := combineSearch(ctx, cat, base, op, operator, col)
	if err != nil {
		return err
	}
	p.next.SearchName, p.next.Parameters, p.next.Operator, p.next.Colocation = s.Name, params, operator, col
	if operator != p.base.Operator {
		p.fields = append(p.fields, "operator")
	}
	if !equalColocation(col, p.base.Colocation) {
		p.fields = append(p.fields, "colocation")
	}
	return nil
}

// updatePlan holds the step as prepare read it and as it will be.
type updatePlan struct {
	base, next Step
	fields     []string
	// params names the parameters whose values change, for the summary.
	params []string
}

func (p *updatePlan) holds(g *Graph) bool {
	i := g.index(p.base.ID)
	return i >= 0 && sameStep(g.Steps[i], p.base)
}

func (p *updatePlan) apply(g *Graph) (*Graph, Change, error) {
	const op = "update step"
	i := g.index(p.base.ID)
	if i < 0 {
		return nil, Change{}, &StepError{Kind: ErrStepNotFound, Op: op, Step: p.base.ID, Roots: g.Roots(),
			Detail: fmt.Sprintf("there is no step %s", p.base.ID)}
	}
	next := g.Clone()
	s := &next.Steps[i]
	oldName := s.DisplayName
	recount := false
	// Only what this update changes is written: a concurrent update of
	// another field of the same step stays.
	for _, f := range p.fields {
		switch f {
		case "parameters":
			s.Parameters = cloneParams(p.next.Parameters)
			if !s.Named && !slices.Contains(p.fields, "displayName") {
				s.DisplayName = p.next.DisplayName
			}
		case "weight":
			s.Weight = p.next.Weight
		case "displayName":
			s.DisplayName, s.Named = p.next.DisplayName, true
		case "operator", "colocation":
			s.SearchName, s.Parameters, s.Operator = p.next.SearchName, cloneParams(p.next.Parameters), p.next.Operator
			s.Colocation = cloneColocation(p.next.Colocation)
			if !s.Named && !slices.Contains(p.fields, "displayName") && len(s.Inputs) == 2 {
				left, lok := next.Step(s.Inputs[0])
				right, rok := next.Step(s.Inputs[1])
				if lok && rok {
					s.DisplayName = combineName(s.Operator, s.Colocation, left, right)
				}
			}
		}
		recount = recount || f != "displayName"
	}
	if s.DisplayName != oldName {
		next.renameDownstream(s.ID)
	}
	if recount {
		for _, id := range next.downstream(s.ID) {
			next.clearCount(id)
		}
	}
	// The summary (what Undo names) says which parameters changed.
	said := slices.Clone(p.fields)
	if i := slices.Index(said, "parameters"); i >= 0 && len(p.params) > 0 {
		said[i] = "parameters: " + strings.Join(p.params, ", ")
	}
	summary := fmt.Sprintf("updated step %s (%s)", s.ID, strings.Join(said, ", "))
	if len(p.fields) == 0 {
		summary = fmt.Sprintf("updated step %s (no change)", s.ID)
	}
	return next, Change{Op: OpUpdateStep, Step: s.ID, Fields: p.fields, Summary: summary}, nil
}

// clearCount forgets a step's count: what it computes changed.
func (g *Graph) clearCount(id StepID) {
	if i := g.index(id); i >= 0 {
		s := &g.Steps[i]
		s.Count, s.CountStatus, s.CountMessage, s.CountProvenance = nil, CountUnknown, "", nil
	}
}
