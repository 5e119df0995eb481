package rules

import (
	"strategist/internal/english"

	"fmt"
	"strings"
)

// stepResult is the wire form of create_step, transform_step and
// combine_steps results: only the fields read.
type stepResult struct {
	Step struct {
		StepID      string            `json:"stepId"`
		SearchName  string            `json:"searchName"`
		DisplayName string            `json:"displayName"`
		Parameters  map[string]string `json:"parameters"`
		Operator    string            `json:"operator"`
		Count       countView         `json:"count"`
	} `json:"step"`
}

func createCall(search string, params map[string]string, display string) call {
	return newCall("create_step", map[string]any{"search_name": search, "parameters": params, "display_name": limit(display, 200)})
}

func combineCall(left, right string, op english.Op, display string) call {
	return newCall("combine_steps", map[string]any{"left_step_id": left, "right_step_id": right, "operator": string(op),
		"display_name": limit(display, 200)})
}

// builder builds a mapped tree with the graph tools: every leaf's step in
// one response, then each level of combines in the next, so independent
// calls run together.
type builder struct {
	a     *asks
	steps []builtStep // in tree order, for the report
}

func newBuilder(a *asks) *builder { return &builder{a: a} }

// build returns the root step once everything is built; "" while calls are
// pending; or a message saying what failed.
func (b *builder) build(m *mapped, root *english.Node) (string, string) {
	if !b.a.t.has("create_step") || (root.Clause == nil && !b.a.t.has("combine_steps")) {
		return "", "This role has no create_step or combine_steps tool, so I cannot build the strategy."
	}
	step, failed := b.node(m, root)
	if failed != "" {
		return "", failed
	}
	return step, ""
}

// node builds n and returns its step, "" if waiting for calls.
func (b *builder) node(m *mapped, n *english.Node) (string, string) {
	if c := n.Clause; c != nil {
		l := m.res.leaves[c]
		d := b.a.get(createCall(l.search, l.params, m.names[c]))
		if d == nil {
			return "", ""
		}
		var sr stepResult
		if !d.decode(&sr) {
			return "", fmt.Sprintf("Creating the step for %s (%s) failed: %s (%s).", english.Quote(c.Text), l.search, d.msg, d.code)
		}
		b.steps = append(b.steps, builtStep{label: m.names[c], step: sr.Step.StepID})
		return sr.Step.StepID, ""
	}
	left, lf := b.node(m, n.Left)
	right, rf := b.node(m, n.Right)
	if lf != "" || rf != "" {
		return "", strings.TrimSpace(lf + " " + rf)
	}
	if left == "" || right == "" {
		return "", ""
	}
	name := limit(n.Describe(), 120)
	d := b.a.get(combineCall(left, right, n.Op, name))
	if d == nil {
		return "", ""
	}
	var sr stepResult
	if !d.decode(&sr) {
		return "", fmt.Sprintf("Combining %s and %s with %s failed: %s (%s).", left, right, n.Op, d.msg, d.code)
	}
	b.steps = append(b.steps, builtStep{label: name, step: sr.Step.StepID})
	return sr.Step.StepID, ""
}
