package subagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"strategist/internal/agent"
	"strategist/internal/event"
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

// Kind says whether a node is run by a sub-agent or by the scheduler.
type Kind int

// The node kinds. The zero value is unknown, which no parsed node has.
const (
	KindUnknown Kind = iota
	// KindTask is run by a sub-agent, which must return its root step.
	KindTask
	// KindCombine joins the roots of its two inputs, without a model.
	KindCombine
)

func (k Kind) String() string {
	switch k {
	case KindTask:
		return "task"
	case KindCombine:
		return "combine"
	}
	return "unknown"
}

// MarshalText encodes the kind by name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a kind name.
func (k *Kind) UnmarshalText(b []byte) error {
	for _, c := range []Kind{KindUnknown, KindTask, KindCombine} {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("subagent: unknown node kind %q", b)
}

// Node is one normalised node of a plan. Its id ("n1", "n2", ...) is what
// every event, row and log line of the delegation names it by.
type Node struct {
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Label is a short name for the node, for the browser and logs: the
	// first line of a task, or a combine's display name.
	Label string `json:"label"`
	// DependsOn lists the nodes whose results this node uses: a task's
	// input, or a combine's left and right (in that order).
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
}

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

// Tasks counts the task nodes.
func (p *Plan) Tasks() int {
	n := 0
	for _, nd := range p.Nodes {
		if nd.Kind == KindTask {
			n++
		}
	}
	return n
}

// EventNodes returns the nodes as the subagent_plan event lists them.
func (p *Plan) EventNodes() []event.PlanNode {
	out := make([]event.PlanNode, len(p.Nodes))
	for i, n := range p.Nodes {
		out[i] = event.PlanNode{ID: n.ID, Kind: n.Kind.String(), Label: n.Label,
			DependsOn: append([]string{}, n.DependsOn...), Operator: string(n.Operator)}
	}
	return out
}

// JSON returns the normalised plan as stored with the delegation.
func (p *Plan) JSON() (json.RawMessage, error) {
	b, err := marshalNoEscape(p)
	if err != nil {
		return nil, fmt.Errorf("subagent: encode plan: %w", err)
	}
	return b, nil
}

// ErrInvalidPlan is matched (errors.Is) by every *PlanError.
var ErrInvalidPlan = errors.New("subagent: invalid delegation plan")

// CodeInvalidPlan is the tool error code of a rejected plan.
const CodeInvalidPlan = "DELEGATION_PLAN_INVALID"

// Problem is one thing wrong with a plan. Path is a JSON pointer into the
// plan as submitted ("" is the plan itself); for a missing key it points
// at where the key should be.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	// Allowed lists the accepted keys or values when there is a short list.
	Allowed []string `json:"allowed,omitempty"`
}

func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "(plan)"
	}
	return path + ": " + p.Message
}

// PlanError lists every problem of a rejected plan, in document order, so
// a model can fix them all in one go.
type PlanError struct {
	Problems []Problem
	// Omitted counts problems beyond the first 50, which are not listed.
	Omitted int
}

func (e *PlanError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	msg := "subagent: invalid delegation plan: " + strings.Join(parts, "; ")
	if e.Omitted > 0 {
		msg += fmt.Sprintf(" (and %d more)", e.Omitted)
	}
	return msg
}

// Is makes errors.Is(err, ErrInvalidPlan) true.
func (e *PlanError) Is(target error) bool { return target == ErrInvalidPlan }

// ToolError renders the problems for a model: code DELEGATION_PLAN_INVALID
// with details.problems in the shape of the agent's argument problems
// (field, problem, allowed). field is the pointer of the plan within the
// tool's arguments ("/plan"), prefixed to every path.
func (e *PlanError) ToolError(field string) *agent.ToolError {
	problems := make([]agent.Problem, len(e.Problems))
	for i, p := range e.Problems {
		problems[i] = agent.Problem{Field: field + p.Path, Problem: p.Message, Allowed: p.Allowed}
	}
	msg := fmt.Sprintf("the delegation plan has %d problem(s); fix them all and try again", len(e.Problems)+e.Omitted)
	details := map[string]any{"problems": problems}
	if e.Omitted > 0 {
		details["omitted"] = e.Omitted
	}
	return &agent.ToolError{Code: CodeInvalidPlan, Message: msg, Details: details, Err: e}
}

// ParseArg parses a plan a tool received in its argument field ("/plan"):
// a rejected plan comes back as the *agent.ToolError a model can fix it
// from, every problem's path prefixed with field.
func ParseArg(raw json.RawMessage, field string) (*Plan, error) {
	plan, err := Parse(raw)
	if pe, ok := errors.AsType[*PlanError](err); ok {
		return nil, pe.ToolError(field)
	}
	return plan, err
}
