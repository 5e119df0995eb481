package plan

import (
	"encoding/json"
	"fmt"

	"strategist/internal/strategy"
)

// TreeNode is the written form of a plan node, the nested tree of the
// delegation plan with its keys in the order written here: what a planner writes, what a draft is saved
// as, what the browser shows. Type says which fields apply (Task, Hint,
// Context and Input for a task; Operator, Left, Right, DisplayName and
// Colocation for a combine; StepID for a step). Decoding one does not
// validate it: Parse does.
type TreeNode struct {
	Type        Kind                 `json:"type"`
	Task        string               `json:"task,omitempty"`
	Hint        string               `json:"hint,omitempty"`
	Context     json.RawMessage      `json:"context,omitempty"`
	Input       *TreeNode            `json:"input,omitempty"`
	Operator    strategy.Operator    `json:"operator,omitempty"`
	Left        *TreeNode            `json:"left,omitempty"`
	Right       *TreeNode            `json:"right,omitempty"`
	DisplayName string               `json:"displayName,omitempty"`
	Colocation  *strategy.Colocation `json:"colocation,omitempty"`
	StepID      strategy.StepID      `json:"stepId,omitempty"`
}

// DecodeTree reads a plan's written form without validating it (a reader
// that only shows a plan, which was validated when it was saved). Node
// types must be known; anything else is an error.
func DecodeTree(raw json.RawMessage) (*TreeNode, error) {
	var t TreeNode
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("plan: decode tree: %w", err)
	}
	return &t, nil
}

// Children returns the node's inputs in plan order: a task's input, a
// combine's left then right (nil ones left out).
func (t *TreeNode) Children() []*TreeNode {
	var out []*TreeNode
	for _, c := range []*TreeNode{t.Input, t.Left, t.Right} {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// Walk calls fn on every node of the tree, a node before its inputs.
// Nesting beyond MaxDepth is not walked.
func (t *TreeNode) Walk(fn func(n *TreeNode)) { t.walk(fn, 1) }

func (t *TreeNode) walk(fn func(n *TreeNode), depth int) {
	if t == nil || depth > MaxDepth {
		return
	}
	fn(t)
	for _, c := range t.Children() {
		c.walk(fn, depth+1)
	}
}

// count counts the nodes of kind k.
func (t *TreeNode) count(k Kind) int {
	n := 0
	t.Walk(func(nd *TreeNode) {
		if nd.Type == k {
			n++
		}
	})
	return n
}

// Tasks counts the task nodes of the tree.
func (t *TreeNode) Tasks() int { return t.count(KindTask) }

// Combines counts the combine nodes of the tree.
func (t *TreeNode) Combines() int { return t.count(KindCombine) }

// Steps returns the existing steps the tree reuses, in plan order.
func (t *TreeNode) Steps() []strategy.StepID {
	var ids []strategy.StepID
	t.Walk(func(n *TreeNode) {
		if n.Type == KindStep {
			ids = append(ids, n.StepID)
		}
	})
	return ids
}

// TaskContext reads a task node's context; ok is false when it names no
// search.
func (t *TreeNode) TaskContext() (TaskContext, bool) { return ReadTaskContext(t.Context) }

// JSON encodes the tree as written, without HTML escaping.
func (t *TreeNode) JSON() (json.RawMessage, error) {
	b, err := Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("plan: encode tree: %w", err)
	}
	return b, nil
}

// TreeNode returns the plan's root in its written form, canonical:
// operators resolved, texts trimmed, contexts compacted, COLOCATE's strand
// explicit.
func (p *Plan) TreeNode() (*TreeNode, error) {
	byID := make(map[string]*Node, len(p.Nodes))
	for i := range p.Nodes {
		byID[p.Nodes[i].ID] = &p.Nodes[i]
	}
	var build func(id string, depth int) (*TreeNode, error)
	build = func(id string, depth int) (*TreeNode, error) {
		n, ok := byID[id]
		if !ok || depth > MaxDepth {
			return nil, fmt.Errorf("plan: tree: node %q is missing or nested too deep", id)
		}
		t := &TreeNode{Type: n.Kind}
		var err error
		switch n.Kind {
		case KindTask:
			t.Task, t.Hint, t.Context = n.Task, n.Hint, n.Context
			if n.Input != "" {
				if t.Input, err = build(n.Input, depth+1); err != nil {
					return nil, err
				}
			}
		case KindCombine:
			t.Operator, t.DisplayName, t.Colocation = n.Operator, n.DisplayName, n.Colocation
			if t.Left, err = build(n.Left, depth+1); err != nil {
				return nil, err
			}
			if t.Right, err = build(n.Right, depth+1); err != nil {
				return nil, err
			}
		case KindStep:
			t.StepID = n.StepID
		default:
			return nil, fmt.Errorf("plan: tree: node %s has no kind", id)
		}
		return t, nil
	}
	return build(p.Root, 1)
}

// Tree returns the plan in its written form, canonical (see TreeNode), as
// JSON. Parsing it gives the same plan, ids included; it is what a draft
// is saved as and what an execute turn is handed.
func (p *Plan) Tree() (json.RawMessage, error) {
	root, err := p.TreeNode()
	if err != nil {
		return nil, err
	}
	return root.JSON()
}
