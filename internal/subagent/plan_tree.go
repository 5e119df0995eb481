package subagent

import (
	"bytes"
	"encoding/json"
	"fmt"

	"strategist/internal/strategy"
)

// treeNode is the nested form of a node, with keys in the order Parse
// documents (type, then the node's own keys, then its inputs).
type treeNode struct {
	Type        string               `json:"type"`
	Task        string               `json:"task,omitempty"`
	Hint        string               `json:"hint,omitempty"`
	Context     json.RawMessage      `json:"context,omitempty"`
	Input       *treeNode            `json:"input,omitempty"`
	Operator    strategy.Operator    `json:"operator,omitempty"`
	Left        *treeNode            `json:"left,omitempty"`
	Right       *treeNode            `json:"right,omitempty"`
	DisplayName string               `json:"displayName,omitempty"`
	Colocation  *strategy.Colocation `json:"colocation,omitempty"`
}

// Tree returns the plan in its nested form, canonical: operators resolved,
// texts trimmed, contexts compacted, COLOCATE's strand explicit. Parsing
// it gives the same plan, ids included; it is what a draft is saved as and
// what an execute turn is handed.
func (p *Plan) Tree() (json.RawMessage, error) {
	byID := make(map[string]*Node, len(p.Nodes))
	for i := range p.Nodes {
		byID[p.Nodes[i].ID] = &p.Nodes[i]
	}
	var build func(id string, depth int) (*treeNode, error)
	build = func(id string, depth int) (*treeNode, error) {
		n, ok := byID[id]
		if !ok || depth > MaxDepth {
			return nil, fmt.Errorf("subagent: plan tree: node %q is missing or nested too deep", id)
		}
		t := &treeNode{Type: n.Kind.String()}
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
		default:
			return nil, fmt.Errorf("subagent: plan tree: node %s has no kind", id)
		}
		return t, nil
	}
	root, err := build(p.Root, 1)
	if err != nil {
		return nil, err
	}
	b, err := marshalNoEscape(root)
	if err != nil {
		return nil, fmt.Errorf("subagent: plan tree: %w", err)
	}
	return b, nil
}

// marshalNoEscape encodes v as compact JSON without HTML escaping, so
// that texts and contexts come back byte for byte.
func marshalNoEscape(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
