package subagent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// DefaultSystemPrompt is the sub-agents' system prompt: the contract of a
// delegated task. The task itself arrives as the user message (taskMessage).
const DefaultSystemPrompt = `You are a Strategist sub-agent. You build one part of a VEuPathDB search strategy: the task you are given, nothing more.

How to work:
1. Read the task, its hint and context, and the input steps you are given (the results of the tasks yours depends on). Inputs are authoritative: build on them, do not rebuild them.
2. Find the right search with the catalog tools (search_for_searches, get_search_parameters) before creating a step. Parameter values use WDK's string encoding: a multi-pick value is a JSON array written as a string, e.g. "[\"GO:0006260\"]".
3. Build your subtree with create_step, transform_step and combine_steps. You may only use steps you created and your input steps; every step is the input of at most one other step.
4. Your task must end with exactly one step at the top of your subtree (its root). If you were given input steps, your root must build on every one of them.
5. Then call finish_subtask(root_step_id, summary) with that step's id and one or two sentences on what it finds. The task is not done until finish_subtask accepts it; if it refuses, fix what it says and call it again.

Do not ask the researcher questions: decide from the task, the hint and the catalog, and say in the summary what you assumed.`

// Dependency is the result of a node a task depends on, as the sub-agent
// is shown it: the root step it ended with and what that step is.
type Dependency struct {
	NodeID       string            `json:"nodeId"`
	Label        string            `json:"task"`
	StepID       strategy.StepID   `json:"stepId"`
	Kind         string            `json:"kind,omitempty"`
	SearchName   string            `json:"searchName,omitempty"`
	DisplayName  string            `json:"displayName,omitempty"`
	Operator     strategy.Operator `json:"operator,omitempty"`
	Parameters   map[string]string `json:"parameters,omitempty"`
	Count        *int              `json:"count,omitempty"`
	CountStatus  string            `json:"countStatus,omitempty"`
	CountMessage string            `json:"countMessage,omitempty"`
}

// describeDependency fills a dependency from the step it ended with.
func describeDependency(nodeID, label string, s strategy.Step) Dependency {
	d := Dependency{NodeID: nodeID, Label: label, StepID: s.ID, Kind: s.Kind.String(), SearchName: s.SearchName,
		DisplayName: s.DisplayName, Operator: s.Operator, Parameters: s.Parameters,
		CountStatus: s.CountStatus.String(), CountMessage: s.CountMessage}
	if s.CountStatus == strategy.CountOK {
		d.Count = s.Count
	}
	return d
}

// taskMessage renders what a sub-agent is given as sections, with the
// structured parts (context, dependencies) as JSON: the overall goal, its
// task, hint and context, its input steps, and on a retry what went wrong
// before. The task text comes first after the heading so that a scripted
// engine can match on it.
func taskMessage(goal string, n plan.Node, deps []Dependency, attempt, maxAttempts int, previous string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Task %s\n\n%s\n", n.ID, n.Task)
	if n.Hint != "" {
		fmt.Fprintf(&b, "\n## Hint\n\n%s\n", n.Hint)
	}
	fmt.Fprintf(&b, "\n## Overall goal of the strategy\n\n%s\n", goal)
	if len(n.Context) > 0 {
		fmt.Fprintf(&b, "\n## Context from the plan\n\n```json\n%s\n```\n", indent(n.Context))
	}
	if len(deps) > 0 {
		raw, _ := plan.MarshalNoEscape(deps) // plain strings, maps and numbers
		fmt.Fprintf(&b, "\n## Input steps (build on these; your root must use every one)\n\n```json\n%s\n```\n", indent(raw))
	} else {
		b.WriteString("\n## Input steps\n\nNone: start from a search.\n")
	}
	if attempt > 1 {
		fmt.Fprintf(&b, "\n## Previous attempt\n\nThis is attempt %d of %d. The previous attempt failed and its steps were removed: %s\n",
			attempt, maxAttempts, previous)
	}
	b.WriteString("\n## When done\n\nCall finish_subtask with the id of your root step and a one- or two-sentence summary.\n")
	return b.String()
}

func indent(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}
