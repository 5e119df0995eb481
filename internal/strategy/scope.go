package strategy

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// Scope is the set of steps a caller may build on: for a sub-agent, the
// steps it created and the roots its dependencies finished with. Sub-agents
// share one strategy, so without a scope one could combine another's
// half-built subtree. A Scope is a value; With returns a larger copy.
type Scope struct {
	ids map[StepID]bool
}

// NewScope returns a scope holding ids.
func NewScope(ids ...StepID) Scope {
	s := Scope{ids: make(map[StepID]bool, len(ids))}
	for _, id := range ids {
		s.ids[id] = true
	}
	return s
}

// With returns a copy of s that also holds ids.
func (s Scope) With(ids ...StepID) Scope {
	n := Scope{ids: maps.Clone(s.ids)}
	if n.ids == nil {
		n.ids = map[StepID]bool{}
	}
	for _, id := range ids {
		n.ids[id] = true
	}
	return n
}

// Contains reports whether id is in the scope.
func (s Scope) Contains(id StepID) bool { return s.ids[id] }

// IDs returns the scope's steps, sorted.
func (s Scope) IDs() []StepID {
	return slices.Sorted(maps.Keys(s.ids))
}

// Check refuses m when it reads or changes a step outside the scope. Adding
// a search step touches no existing step and is always allowed.
func (s Scope) Check(m Mutation, roots []StepID) error {
	for _, id := range m.refs() {
		if !s.Contains(id) {
			return &StepError{Kind: ErrOutOfScope, Op: "scope check", Step: id, Roots: roots,
				Detail: fmt.Sprintf("step %s is not yours to use; this task may use only %s", id, joinIDs(s.IDs()))}
		}
	}
	return nil
}

// Scoped wraps m so that it is refused when it touches steps outside s.
func Scoped(s Scope, m Mutation) Mutation { return scoped{scope: s, m: m} }

type scoped struct {
	scope Scope
	m     Mutation
}

func (sm scoped) refs() []StepID { return sm.m.refs() }

func (sm scoped) prepare(ctx context.Context, cat SearchCatalog, base *Graph) (plan, error) {
	if err := sm.scope.Check(sm.m, base.Roots()); err != nil {
		return nil, err
	}
	return sm.m.prepare(ctx, cat, base)
}

// Keyed wraps a mutation that adds a step (AddSearch, AddTransform,
// Combine, possibly Scoped) so that the step it adds carries key
// (Step.Key), in the same version. The key is written only by the
// mutation that creates the step; nothing else reads or changes it.
func Keyed(key string, m Mutation) Mutation { return keyed{key: key, m: m} }

type keyed struct {
	key string
	m   Mutation
}

func (km keyed) refs() []StepID { return km.m.refs() }

func (km keyed) prepare(ctx context.Context, cat SearchCatalog, base *Graph) (plan, error) {
	p, err := km.m.prepare(ctx, cat, base)
	if err != nil {
		return nil, err
	}
	return keyedPlan{key: km.key, p: p}, nil
}

type keyedPlan struct {
	key string
	p   plan
}

func (kp keyedPlan) holds(g *Graph) bool { return kp.p.holds(g) }

func (kp keyedPlan) apply(g *Graph) (*Graph, Change, error) {
	next, ch, err := kp.p.apply(g)
	if err != nil {
		return nil, Change{}, err
	}
	switch ch.Op {
	case OpAddSearch, OpAddTransform, OpCombine:
		for i := range next.Steps {
			if next.Steps[i].ID == ch.Step {
				next.Steps[i].Key = kp.key
			}
		}
	}
	return next, ch, nil
}

// Unwrap returns the mutation inside m's Scoped and Keyed wrappers.
func Unwrap(m Mutation) Mutation {
	for {
		switch w := m.(type) {
		case scoped:
			m = w.m
		case keyed:
			m = w.m
		default:
			return m
		}
	}
}
