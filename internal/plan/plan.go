package plan

import (
	"bytes"
	"encoding/json"
	"fmt"

	"strategist/internal/strategy"
)

// Bounds of a delegation plan. A plan is drafted by a model; the bounds keep
// one mistaken draft from spawning an unbounded number of sub-agents or
// filling the event log.
const (
	// MaxTasks bounds the task nodes (sub-agents) of one plan.
	MaxTasks = 32
	// MaxDepth bounds the nesting of a plan; the root is at depth 1.
	MaxDepth = 8
	// MaxPlanBytes bounds the JSON text of a plan.
	MaxPlanBytes = 64 << 10
	// MaxTaskLength and MaxHintLength bound task and hint texts, in
	// characters.
	MaxTaskLength = 4000
	MaxHintLength = 2000
	// MaxContextBytes bounds a task's context object, compacted.
	MaxContextBytes = 16 << 10
	// maxProblems bounds the problems a PlanError lists; the rest are
	// counted.
	maxProblems = 50
)

// Kind says what a node is: work for a sub-agent, a combine the scheduler
// joins without a model, or a step of the strategy that the plan reuses.
type Kind int

// The node kinds. The zero value is unknown, which no parsed node has.
const (
	KindUnknown Kind = iota
	// KindTask is run by a sub-agent, which must return its root step.
	KindTask
	// KindCombine joins the roots of its two inputs, without a model.
	KindCombine
	// KindStep reuses a step the conversation's strategy already has: it
	// is done at once, its result that step.
	KindStep
)

// kinds lists the kinds a node can have, in the order their names are
// offered to a model.
var kinds = []Kind{KindTask, KindCombine, KindStep}

func (k Kind) String() string {
	switch k {
	case KindTask:
		return "task"
	case KindCombine:
		return "combine"
	case KindStep:
		return "step"
	}
	return "unknown"
}

// MarshalText encodes the kind by name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a kind name.
func (k *Kind) UnmarshalText(b []byte) error {
	for _, c := range append([]Kind{KindUnknown}, kinds...) {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("plan: unknown node kind %q", b)
}

// kindNames are the names of the node kinds, for messages.
func kindNames() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	return names
}

// Node is one normalised node of a plan. Its id ("n1", "n2", ...) is what
// every event, row and log line of the delegation names it by.
type Node struct {
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Label is a short name for the node, for the browser and logs: the
	// first line of a task, a combine's display name, "step s3".
	Label string `json:"label"`
	// DependsOn lists the nodes whose results this node uses: a task's
	// input, or a combine's left and right (in that order); a step node
	// has none.
	DependsOn []string `json:"dependsOn"`
	// Path is the JSON pointer of the node in the plan as submitted.
	Path string `json:"path"`

	// Task, Hint and Context describe a task node's work. Context is a
	// JSON object given by the planner, compacted; nil when none.
	Task    string          `json:"task,omitempty"`
	Hint    string          `json:"hint,omitempty"`
	Context json.RawMessage `json:"context,omitempty"`
	// Input is the node whose result a task transforms ("" for a task
	// that starts from a search).
	Input string `json:"input,omitempty"`

	// Operator, Left, Right, DisplayName and Colocation describe a
	// combine node. Operator is canonical (aliases resolved); Colocation
	// is set exactly when Operator is COLOCATE.
	Operator    strategy.Operator    `json:"operator,omitempty"`
	Left        string               `json:"left,omitempty"`
	Right       string               `json:"right,omitempty"`
	DisplayName string               `json:"displayName,omitempty"`
	Colocation  *strategy.Colocation `json:"colocation,omitempty"`

	// StepID is the existing step a step node reuses.
	StepID strategy.StepID `json:"stepId,omitempty"`
}

// TaskContext reads a task node's context; ok is false when it names no
// search.
func (n Node) TaskContext() (TaskContext, bool) { return ReadTaskContext(n.Context) }

// Plan is a validated, normalised delegation plan. Nodes are in post-order
// (a node's inputs before the node: a task's input, a combine's left
// subtree then its right subtree), numbered n1, n2, ... in that order, so
// the root is last. The order is the plan order in which ready nodes
// start, and ids are stable: parsing the same plan gives the same ids.
// Identical subtrees are kept apart, never merged: a strategy step is
// consumed at most once, so every node needs its own steps.
type Plan struct {
	Root  string `json:"root"`
	Nodes []Node `json:"nodes"`
}

// Node returns the node with the given id.
func (p *Plan) Node(id string) (Node, bool) {
	for _, n := range p.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return Node{}, false
}

// count counts the nodes of kind k.
func (p *Plan) count(k Kind) int {
	n := 0
	for _, nd := range p.Nodes {
		if nd.Kind == k {
			n++
		}
	}
	return n
}

// Tasks counts the task nodes.
func (p *Plan) Tasks() int { return p.count(KindTask) }

// Combines counts the combine nodes.
func (p *Plan) Combines() int { return p.count(KindCombine) }

// Steps returns the existing steps the plan reuses, in plan order.
func (p *Plan) Steps() []strategy.StepID {
	var ids []strategy.StepID
	for _, n := range p.Nodes {
		if n.Kind == KindStep {
			ids = append(ids, n.StepID)
		}
	}
	return ids
}

// JSON returns the normalised plan as stored with the delegation.
func (p *Plan) JSON() (json.RawMessage, error) {
	b, err := Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("plan: encode plan: %w", err)
	}
	return b, nil
}

// TaskContext is what a task's context tells its sub-agent: the search and
// its parameter values (WDK string encoding), as the planner checked them
// against the catalog. The context may hold more keys; these are the ones
// the roles agree on.
type TaskContext struct {
	SearchName  string            `json:"searchName"`
	Parameters  map[string]string `json:"parameters"`
	DisplayName string            `json:"displayName,omitempty"`
	// Phrase is the researcher's words the task stands for.
	Phrase string `json:"phrase,omitempty"`
}

// ReadTaskContext decodes a task's context; ok is false when it is absent,
// not an object of this shape, or names no search.
func ReadTaskContext(raw json.RawMessage) (TaskContext, bool) {
	var c TaskContext
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil || c.SearchName == "" {
		return TaskContext{}, false
	}
	return c, true
}

// JSON encodes the context as a task's context object.
func (c TaskContext) JSON() (json.RawMessage, error) { return Marshal(c) }

// Marshal encodes v as compact JSON without HTML escaping, so that
// texts and contexts come back byte for byte.
func Marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
