package wdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"strategist/internal/catalog"
)

// decodeVocabulary reads a WDK vocabulary in either of its shapes:
//
//   - flat (select, checkBox, typeAhead): rows [term, display, parentTerm],
//     the parent usually null; shorter rows and {term, display, parent}
//     objects are accepted too;
//   - tree (treeBox): {data:{term, display}, children:[...]}, whose root is a
//     synthetic node (WDK sends "@@fake@@") that is not a term.
//
// Terms come out depth-first with Parent set for tree children. A tree also
// reports tree=true so callers know parents stand for their leaves.
func decodeVocabulary(raw json.RawMessage) (terms []catalog.Term, tree bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	switch raw[0] {
	case '[':
		var rows []json.RawMessage
		if err := json.Unmarshal(raw, &rows); err != nil {
			return nil, false, fmt.Errorf("vocabulary rows: %w", err)
		}
		terms = make([]catalog.Term, 0, len(rows))
		for _, r := range rows {
			t, ok := decodeRow(r)
			if ok {
				terms = append(terms, t)
			}
		}
		return terms, false, nil
	case '{':
		var root treeNode
		if err := json.Unmarshal(raw, &root); err != nil {
			return nil, false, fmt.Errorf("vocabulary tree: %w", err)
		}
		parent := ""
		if !syntheticRoot(root.Data.Term) {
			terms = append(terms, catalog.Term{Term: string(root.Data.Term), Display: displayOr(root.Data)})
			parent = string(root.Data.Term)
		}
		for i := range root.Children {
			terms = root.Children[i].flatten(parent, terms)
		}
		return terms, true, nil
	default:
		return nil, false, fmt.Errorf("vocabulary: unexpected JSON %.20q", raw)
	}
}

// syntheticRoot reports whether a tree root is WDK's placeholder node.
func syntheticRoot(term text) bool {
	return term == "" || strings.HasPrefix(string(term), "@@")
}

type treeData struct {
	Term    text `json:"term"`
	Display text `json:"display"`
}

type treeNode struct {
	Data     treeData   `json:"data"`
	Children []treeNode `json:"children"`
}

func (n *treeNode) flatten(parent string, out []catalog.Term) []catalog.Term {
	out = append(out, catalog.Term{Term: string(n.Data.Term), Display: displayOr(n.Data), Parent: parent})
	for i := range n.Children {
		out = n.Children[i].flatten(string(n.Data.Term), out)
	}
	return out
}

func displayOr(d treeData) string {
	if d.Display != "" {
		return string(d.Display)
	}
	return string(d.Term)
}

// decodeRow reads one flat vocabulary row.
func decodeRow(r json.RawMessage) (catalog.Term, bool) {
	r = bytes.TrimSpace(r)
	if len(r) > 0 && r[0] == '{' {
		var o struct {
			Term    text `json:"term"`
			Display text `json:"display"`
			Parent  text `json:"parent"`
		}
		if json.Unmarshal(r, &o) != nil || o.Term == "" {
			return catalog.Term{}, false
		}
		return catalog.Term{Term: string(o.Term), Display: displayOr(treeData{o.Term, o.Display}), Parent: string(o.Parent)}, true
	}
	var cells []text
	if json.Unmarshal(r, &cells) != nil || len(cells) == 0 || cells[0] == "" {
		return catalog.Term{}, false
	}
	t := catalog.Term{Term: string(cells[0]), Display: string(cells[0])}
	if len(cells) > 1 && cells[1] != "" {
		t.Display = string(cells[1])
	}
	if len(cells) > 2 {
		t.Parent = string(cells[2])
	}
	return t, true
}
