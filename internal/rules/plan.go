package rules

import (
	"strategist/internal/english"
	"strategist/internal/plan"
	"strategist/internal/strategy"

	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// mapped is a parsed request with every clause mapped.
type mapped struct {
	p   english.Parsed
	res *resolution
	// byLabel numbers steps with the same label apart.
	names map[*english.Clause]string
	// followNote says how a follow-up changes the strategy that exists.
	followNote string
}

func newMapped(p english.Parsed, res *resolution) *mapped {
	p.Notes = append(slices.Clip(p.Notes), res.notes...)
	m := &mapped{p: p, res: res, names: map[*english.Clause]string{}}
	seen := map[string]int{}
	for _, c := range p.Root.Leaves() {
		l := res.leaves[c]
		name := l.label
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s (%d)", name, seen[name])
		}
		m.names[c] = name
	}
	return m
}

// failures lists the clauses that could not be built at all.
func (m *mapped) failures() []string {
	if m.res.refusal != "" {
		return []string{m.res.refusal}
	}
	var out []string
	for _, c := range m.p.Root.Leaves() {
		if l := m.res.leaves[c]; l.fail != "" {
			out = append(out, l.fail)
		}
	}
	return out
}

// plan writes the delegation plan: one task per clause, with its search
// and parameters in the context, combined as the request's tree.
func (m *mapped) plan(n *english.Node) *plan.TreeNode {
	if c := n.Clause; c != nil {
		l := m.res.leaves[c]
		if l.step != "" {
			return &plan.TreeNode{Type: plan.KindStep, StepID: strategy.StepID(l.step)}
		}
		ctx, _ := marshal(plan.TaskContext{SearchName: l.search, Parameters: l.params, DisplayName: m.names[c], Phrase: c.Text})
		return &plan.TreeNode{Type: plan.KindTask, Task: l.task, Hint: hint(l), Context: ctx}
	}
	return &plan.TreeNode{Type: plan.KindCombine, Operator: strategy.Operator(n.Op), Left: m.plan(n.Left), Right: m.plan(n.Right),
		DisplayName: limit(n.Describe(), 120)}
}

// hint tells a sub-agent (a model, if one reads it) which search to use.
func hint(l *leaf) string {
	return limit(fmt.Sprintf("Use %s with %s. Chosen by Strategist's offline planner: %s.", l.search, paramList(l.params), l.how), 1900)
}

// searchTree renders the mapped tree with searches and their key values:
// MINUS(UNION(GenesByGoTerm GO:0006260, ...), GenesByLocation Pf3D7_14_v3).
func (m *mapped) searchTree(n *english.Node) string {
	if c := n.Clause; c != nil {
		l := m.res.leaves[c]
		if l.step != "" {
			return "step " + l.step
		}
		return l.search + " " + keyValue(l)
	}
	return string(n.Op) + "(" + m.searchTree(n.Left) + ", " + m.searchTree(n.Right) + ")"
}

// keyValue is the value that makes a leaf what it is.
func keyValue(l *leaf) string {
	for _, k := range []string{paramGO, paramGeneType, paramChromosome, paramIDs, paramText} {
		if v, ok := l.params[k]; ok {
			return unlist(v)
		}
	}
	return unlist(firstValue(l.params))
}

// unlist shows a multi-pick value as its terms: ["a","b"] is a, b.
func unlist(v string) string {
	var terms []string
	if json.Unmarshal([]byte(v), &terms) == nil {
		return strings.Join(terms, ", ")
	}
	return v
}

func firstValue(params map[string]string) string {
	for _, k := range sortedKeys(params) {
		return params[k]
	}
	return ""
}

// paramList renders parameter values as name=value pairs, sorted.
func paramList(params map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(params) {
		parts = append(parts, k+"="+params[k])
	}
	if len(parts) == 0 {
		return "its default parameters"
	}
	return strings.Join(parts, ", ")
}

// limit cuts s to n runes.
func limit(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
