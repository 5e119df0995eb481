package plan

import (
	"fmt"
	"strings"

	"strategist/internal/strategy"
)

// CheckSteps checks the plan's step nodes against the strategy they reuse
// steps of, as it stands when the plan is built: every step must exist,
// and no reused step may lie below another (reusing s5 takes what is below
// it along; freeing a step below it would take s5 apart). A plan without
// step nodes passes whatever the strategy. Problems point at each node's
// "stepId" and list the strategy's step ids, so a model can pick a valid
// one.
func (p *Plan) CheckSteps(snap strategy.Snapshot) error {
	reused := p.Steps()
	if len(reused) == 0 {
		return nil
	}
	var ps problems
	ids := make([]string, len(snap.Steps))
	for i, s := range snap.Steps {
		ids[i] = string(s.ID)
	}
	for _, n := range p.Nodes {
		if n.Kind != KindStep {
			continue
		}
		at := pointer(n.Path, "stepId")
		if _, ok := snap.Step(n.StepID); !ok {
			ps.add(at, unknownStep(n.StepID, ids), ids...)
			continue
		}
		for _, other := range reused {
			if other != n.StepID && snap.Subtree(other)[n.StepID] {
				ps.add(at, fmt.Sprintf("step %s is part of step %s, which the plan also reuses; reuse %s alone, or %s without %s",
					n.StepID, other, other, n.StepID, other))
				break
			}
		}
	}
	return ps.err()
}

// unknownStep says that a step does not exist and which do.
func unknownStep(id strategy.StepID, ids []string) string {
	if len(ids) == 0 {
		return fmt.Sprintf("there is no step %s: the conversation's strategy has no steps yet, so there is nothing to reuse; plan a task instead", id)
	}
	return fmt.Sprintf("there is no step %s in the conversation's strategy; its steps are %s (get_strategy describes them)",
		id, strings.Join(ids, ", "))
}
