package rules

import (
	"fmt"

	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// undoPlan is the plan that brings back the strategy as it was before the
// last change: its root when that step still exists, else its tree, with
// the steps that still exist reused and the others searched again.
func undoPlan(o *strategyOverview) (*plan.TreeNode, string) {
	prev := o.Previous
	if prev == nil || prev.RootStepID == "" {
		return nil, "there is no earlier strategy to go back to (before this strategy's first build there was none); Undo on the strategy panel takes that build back, or describe the genes you want instead"
	}
	if prev.RootStillExists {
		return &plan.TreeNode{Type: plan.KindStep, StepID: strategy.StepID(prev.RootStepID)}, ""
	}
	return replan(prev.Steps, prev.RootStepID, func(id string) bool { _, ok := o.step(id); return ok })
}

// replan is the plan that builds step id of steps again: the steps reuse
// allows are reused as they are, the others searched, transformed and
// combined again with the values they were given.
func replan(steps []stepSummary, id string, reuse func(id string) bool) (*plan.TreeNode, string) {
	byID := map[string]stepSummary{}
	for _, s := range steps {
		byID[s.StepID] = s
	}
	var build func(id string) (*plan.TreeNode, string)
	build = func(id string) (*plan.TreeNode, string) {
		if reuse(id) {
			return &plan.TreeNode{Type: plan.KindStep, StepID: strategy.StepID(id)}, ""
		}
		s, ok := byID[id]
		if !ok {
			return nil, "the strategy's step " + id + " is not recorded"
		}
		var inputs []*plan.TreeNode
		for _, in := range s.Inputs {
			n, why := build(in)
			if n == nil {
				return nil, why
			}
			inputs = append(inputs, n)
		}
		ctx, _ := marshal(plan.TaskContext{SearchName: s.SearchName, Parameters: s.KeyParameters, DisplayName: s.DisplayName})
		switch len(inputs) {
		case 0:
			return &plan.TreeNode{Type: plan.KindTask, Task: "Find " + s.DisplayName + " again (" + s.SearchName + ")", Context: ctx}, ""
		case 1:
			return &plan.TreeNode{Type: plan.KindTask, Task: "Transform again: " + s.DisplayName + " (" + s.SearchName + ")", Context: ctx, Input: inputs[0]}, ""
		case 2:
			return &plan.TreeNode{Type: plan.KindCombine, Operator: strategy.Operator(s.Operator), Left: inputs[0], Right: inputs[1], DisplayName: limit(s.DisplayName, 120)}, ""
		}
		return nil, fmt.Sprintf("the strategy's step %s has %d inputs", id, len(inputs))
	}
	return build(id)
}

// undoTurn plans going back to the strategy before the last change.
func undoTurn(a *asks, o *strategyOverview, goal string) response {
	if o == nil {
		return say(intro + "\n\nThere is nothing to undo: this conversation has no strategy yet.")
	}
	tree, why := undoPlan(o)
	if tree == nil {
		return say(intro + "\n\nI could not plan the undo: " + why + ".")
	}
	text := fmt.Sprintf("%s\n\nI planned going back to the strategy before the last change (its root was step %s): %d step%s reused, %d search%s run again.",
		intro, o.Previous.RootStepID, len(tree.Steps()), plural(len(tree.Steps())), tree.Tasks(), pluralES(tree.Tasks()))
	return draftTree(a, goal, tree, "undo", text,
		"Click **Build this plan** to go back. The steps of today's strategy that the earlier one does not use are removed, and Undo brings them back.")
}

// draftTree saves a tree the planner made without the request's grammar
// (an undo, a transform) as the delegation draft and requests its build,
// saying text and, once the build can be requested, ready. what names the
// plan in a refusal.
func draftTree(a *asks, goal string, tree *plan.TreeNode, what, text, ready string) response {
	if !a.t.has("save_delegation_draft") {
		return say(intro + "\n\nThis role cannot save a plan, so nothing will be built from here.")
	}
	draft := a.get(newCall("save_delegation_draft", map[string]any{"goal": goal, "plan": tree}))
	if draft == nil {
		return response{calls: a.calls}
	}
	if !draft.ok {
		return say(fmt.Sprintf("%s\n\nThe plan to %s was refused (%s: %s). %s", intro, what, draft.code, draft.msg, problemList(draft)))
	}
	var build *done
	if a.t.has("request_executor_build") {
		var saved struct {
			ArtifactID string `json:"artifactId"`
		}
		draft.decode(&saved)
		if build = a.get(newCall("request_executor_build", map[string]string{"goal": goal, "artifact_id": saved.ArtifactID})); build == nil {
			return response{calls: a.calls}
		}
	}
	if build != nil && build.ok {
		text += "\n\n" + ready
	}
	return say(text)
}
