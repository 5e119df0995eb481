package wdkfake

import (
	"encoding/json"
)

// StepState is what the fake holds of a step.
type StepState struct {
	ID         int64
	Owner      int64
	Search     string
	Params     map[string]string
	Weight     int
	CustomName string
	Strategy   int64
}

// Step returns a copy of a step's state.
func (f *Fake) Step(id int64) (StepState, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.steps[id]
	if !ok {
		return StepState{}, false
	}
	params := make(map[string]string, len(st.params))
	for k, v := range st.params {
		params[k] = v
	}
	return StepState{ID: st.id, Owner: st.owner, Search: st.search, Params: params, Weight: st.weight,
		CustomName: st.customName, Strategy: st.strategy}, true
}

// PutStep stores a step as if created, and makes it the last id given
// out (a test's way to stage an account).
func (f *Fake) PutStep(s StepState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s.Params == nil {
		s.Params = map[string]string{}
	}
	f.steps[s.ID] = &step{id: s.ID, owner: s.Owner, search: s.Search, params: s.Params, weight: s.Weight,
		customName: s.CustomName, strategy: s.Strategy}
	f.nextStep = s.ID
}

// ResetStepIDs makes the next created step id next+1.
func (f *Fake) ResetStepIDs(next int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextStep = next
}

// StepCount returns how many steps exist and are not deleted.
func (f *Fake) StepCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, st := range f.steps {
		if !st.deleted {
			n++
		}
	}
	return n
}

// StrategyState is what the fake holds of a strategy.
type StrategyState struct {
	ID, Owner int64
	Name      string
	Root      int64
	// Signature is what a share link names the strategy by.
	Signature string
	// StepTree is the tree as posted ({stepId, primaryInput, secondaryInput}).
	StepTree json.RawMessage
}

// Strategy returns a strategy that is not deleted.
func (f *Fake) Strategy(id int64) (StrategyState, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.strategies[id]
	if !ok || s.deleted {
		return StrategyState{}, false
	}
	return StrategyState{ID: s.id, Owner: s.owner, Name: s.name, Root: s.root, Signature: s.signature, StepTree: append(json.RawMessage(nil), s.tree...)}, true
}

// StrategyCount returns how many strategies exist and are not deleted.
func (f *Fake) StrategyCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, s := range f.strategies {
		if !s.deleted {
			n++
		}
	}
	return n
}
