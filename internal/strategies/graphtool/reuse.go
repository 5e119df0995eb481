package graphtool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"strategist/internal/strategy"
)

// A task retried after its server stopped must not build its steps twice.
// Every step a sub-agent's tools add carries a key (strategy.Step.Key):
// the task's origin (Binding.Origin, the same for every attempt and every
// run of the turn) and a digest of the call that made it (its search,
// parameters, weight and inputs as given, or its operator and inputs; not
// its display name). Before
// adding a step, the tools look for a step with the same key that this
// attempt does not hold yet; if there is one, an earlier attempt made it
// with the same call, and the tools return it (Reused) instead, putting it
// in the attempt's scope: no new version, no new snapshot. A transform over
// a reused step names the reused id, so its key matches the earlier
// transform too, and the whole interrupted subtree is picked up call by
// call. A retry that takes another path finds the earlier attempt's steps
// in its way (an input it wants already consumed by one of them): those
// are removed first (clearLeftovers), and whatever else is left over is
// removed when the plan completes.
//
// The executor's own steps are keyed the same way with the turn as origin:
// a turn resumed on another server asks the model again for the round that
// was cut short, and its create_step, transform_step or combine_steps of a
// step already made returns that step.

// stepKey is the key of the step m adds for the task origin. The display
// name is left out: a retry that names the same search the same way but
// calls it something else still gets the step back.
func stepKey(origin string, m strategy.Mutation) string {
	switch v := m.(type) {
	case strategy.AddSearch:
		v.DisplayName = ""
		m = v
	case strategy.AddTransform:
		v.DisplayName = ""
		m = v
	case strategy.Combine:
		v.DisplayName = ""
		m = v
	}
	body, _ := json.Marshal(m) // plain fields; maps marshal with sorted keys
	sum := sha256.Sum256(append([]byte(fmt.Sprintf("%T\n", m)), body...))
	return origin + "#" + hex.EncodeToString(sum[:8])
}

// reuse returns the step an earlier attempt of the task made with the same
// call (key), put in this attempt's scope, or nil when there is none; it
// then clears the earlier attempt's steps that would stand in m's way.
func (t *tools) reuse(ctx context.Context, strategyID, key string, m strategy.Mutation) (*StepResult, error) {
	snap, err := t.s.b.Service.Get(ctx, t.s.b.UserID, strategyID)
	if err != nil {
		return nil, err
	}
	set := t.tracked()
	for _, s := range snap.Steps {
		if s.Key != key || set.Contains(s.ID) {
			continue
		}
		set.Add(s.ID)
		out := &StepResult{Step: stepView(s), Reused: true, Version: snap.Version, Roots: t.roots(snap)}
		if t.scope != nil {
			out.Scope = t.scope.IDs()
			out.Change = fmt.Sprintf("step %s %q was already made by an earlier attempt of this task with the same call; it is yours now", s.ID, s.DisplayName)
		} else {
			out.Change = fmt.Sprintf("step %s %q was already made with the same call before this turn was resumed; it is reused, not made again", s.ID, s.DisplayName)
		}
		return out, nil
	}
	if t.scope == nil {
		return nil, nil // the executor edits the whole strategy: nothing is in its way
	}
	return nil, t.clearLeftovers(ctx, strategyID, snap, m)
}

// clearLeftovers deletes, top first, the steps an earlier attempt of the
// task built on the steps m takes as inputs, when this attempt holds the
// input but not what was built on it: the retry took another path, and
// the input must be a root again for m.
func (t *tools) clearLeftovers(ctx context.Context, strategyID string, snap strategy.Snapshot, m strategy.Mutation) error {
	var inputs []strategy.StepID
	switch m := m.(type) {
	case strategy.AddTransform:
		inputs = []strategy.StepID{m.Input}
	case strategy.Combine:
		inputs = []strategy.StepID{m.Left, m.Right}
	}
	prefix := t.s.b.Origin + "#"
	for _, in := range inputs {
		if !t.scope.Contains(in) {
			continue // the scope check refuses it
		}
		chain := consumers(snap, in)
		if len(chain) == 0 || slices.ContainsFunc(chain, func(id strategy.StepID) bool {
			s, _ := snap.Step(id)
			return t.scope.Contains(id) || !strings.HasPrefix(s.Key, prefix)
		}) {
			continue // a root, or built on by someone else: the mutation says so
		}
		for i := len(chain) - 1; i >= 0; i-- {
			res, err := t.s.b.Service.Apply(ctx, t.s.b.UserID, strategyID, strategy.DeleteStep{Step: chain[i]})
			if err != nil {
				return fmt.Errorf("remove step %s, left by an earlier attempt: %w", chain[i], err)
			}
			snap = res.Snapshot
		}
	}
	return nil
}

// consumers returns the steps above id, nearest first: its consumer, that
// step's consumer, ... up to a root.
func consumers(snap strategy.Snapshot, id strategy.StepID) []strategy.StepID {
	var chain []strategy.StepID
	for cur := id; ; {
		next, ok := consumerOf(snap, cur)
		if !ok || next == id || slices.Contains(chain, next) {
			return chain
		}
		chain = append(chain, next)
		cur = next
	}
}

func consumerOf(snap strategy.Snapshot, id strategy.StepID) (strategy.StepID, bool) {
	for _, s := range snap.Steps {
		if slices.Contains(s.Inputs, id) {
			return s.ID, true
		}
	}
	return "", false
}
