package graphtool

import (
	"slices"
	"sync"

	"strategist/internal/strategy"
)

// Scope is the growing set of steps one sub-agent run may build on: the
// roots its dependencies finished with, given at the start, and every step
// the run creates, added as each is created. Sub-agents share one strategy,
// so without it one could consume another's half-built subtree, or combine
// a step another sub-agent is still working on.
//
// A Scope belongs to one run. It is safe for the concurrent tool calls of
// one model response: mu guards ids, and each mutation is checked against a
// copy taken when the call starts.
type Scope struct {
	mu  sync.Mutex
	ids strategy.Scope // guarded by mu
}

// NewScope returns a scope holding ids (the dependencies' roots).
func NewScope(ids ...strategy.StepID) *Scope {
	return &Scope{ids: strategy.NewScope(ids...)}
}

// Add puts ids in the scope.
func (s *Scope) Add(ids ...strategy.StepID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = s.ids.With(ids...)
}

// Contains reports whether id is in the scope.
func (s *Scope) Contains(id strategy.StepID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids.Contains(id)
}

// IDs returns the scope's steps, sorted.
func (s *Scope) IDs() []strategy.StepID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids.IDs()
}

// Value returns the scope as it stands, for strategy.Scoped.
func (s *Scope) Value() strategy.Scope {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids.With()
}

// filter keeps the ids in the scope, in their order; a nil scope (the
// executor's) keeps them all.
func (s *Scope) filter(ids []strategy.StepID) []strategy.StepID {
	if s == nil {
		return ids
	}
	v := s.Value()
	return slices.DeleteFunc(slices.Clone(ids), func(id strategy.StepID) bool { return !v.Contains(id) })
}
