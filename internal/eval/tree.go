package eval

import (
	"fmt"
	"slices"
	"strings"
)

// Tree is an expected strategy, written in a small language:
//
//	MINUS(UNION(go:GO:0006260, go:GO:0006281), loc:Pf3D7_14_v3)
//
// Operators are INTERSECT, UNION and MINUS, with two or more operands
// folded from the left (MINUS(a, b, c) is a minus b, minus c). Leaves:
//
//	go:<GO id>               the 2017 file's gene set for the id, as listed
//	type:<gene type>         genes of a type as the export spells it (type:tRNA encoding)
//	loc:<sequence id>        genes on a sequence (loc:Pf3D7_05_v3, loc:M76611, loc:PFC10_API_IRAB)
//	ids:<gene id>,<gene id>  the genes named
//	taxon                    every gene of P. falciparum 3D7
//	text:<words>             the approximate text search (Data.Words)
//
// A leaf's value runs to the next ')' or to a ',' followed by another
// operand (an operator, a leaf kind or taxon), so ids may be listed with
// commas.
type Tree struct {
	Op       string  // INTERSECT, UNION or MINUS; "" for a leaf
	Operands []*Tree // an operator's operands, in order
	Kind     string  // a leaf's kind: go, type, loc, ids, taxon, text
	Value    string  // a leaf's value
}

// Operators of the tree language.
const (
	OpIntersect = "INTERSECT"
	OpUnion     = "UNION"
	OpMinus     = "MINUS"
)

var (
	operators = []string{OpIntersect, OpUnion, OpMinus}
	leafKinds = []string{"go", "type", "loc", "ids", "text"}
)

// ParseTree reads an expected tree.
func ParseTree(s string) (*Tree, error) {
	p := &treeParser{src: s}
	t, err := p.expr()
	if err != nil {
		return nil, fmt.Errorf("eval: tree %q: %w", s, err)
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("eval: tree %q: unexpected %q at %d", s, p.src[p.pos:], p.pos)
	}
	return t, nil
}

type treeParser struct {
	src string
	pos int
}

func (p *treeParser) space() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *treeParser) rest() string { return p.src[p.pos:] }

func (p *treeParser) expr() (*Tree, error) {
	p.space()
	for _, op := range operators {
		if strings.HasPrefix(p.rest(), op+"(") {
			p.pos += len(op) + 1
			return p.operands(op)
		}
	}
	if startsOperand(p.rest()) {
		return p.leaf()
	}
	return nil, fmt.Errorf("expected an operator or a leaf at %d", p.pos)
}

func (p *treeParser) operands(op string) (*Tree, error) {
	t := &Tree{Op: op}
	for {
		o, err := p.expr()
		if err != nil {
			return nil, err
		}
		t.Operands = append(t.Operands, o)
		p.space()
		if p.pos >= len(p.src) {
			return nil, fmt.Errorf("%s( is not closed", op)
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ')':
			p.pos++
			if len(t.Operands) < 2 {
				return nil, fmt.Errorf("%s needs two or more operands", op)
			}
			return t, nil
		default:
			return nil, fmt.Errorf("expected ',' or ')' at %d", p.pos)
		}
	}
}

// startsOperand reports whether s begins an operand: an operator, a leaf
// kind and its colon, or taxon.
func startsOperand(s string) bool {
	for _, op := range operators {
		if strings.HasPrefix(s, op+"(") {
			return true
		}
	}
	for _, k := range leafKinds {
		if strings.HasPrefix(s, k+":") {
			return true
		}
	}
	return s == "taxon" || strings.HasPrefix(s, "taxon,") || strings.HasPrefix(s, "taxon)") || strings.HasPrefix(s, "taxon ")
}

func (p *treeParser) leaf() (*Tree, error) {
	if strings.HasPrefix(p.rest(), "taxon") {
		p.pos += len("taxon")
		return &Tree{Kind: "taxon"}, nil
	}
	kind, _, _ := strings.Cut(p.rest(), ":")
	p.pos += len(kind) + 1
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == ')' {
			break
		}
		if c == ',' && startsOperand(strings.TrimLeft(p.src[p.pos+1:], " ")) {
			break
		}
		p.pos++
	}
	value := strings.TrimSpace(p.src[start:p.pos])
	if value == "" {
		return nil, fmt.Errorf("%s: has no value", kind)
	}
	return &Tree{Kind: kind, Value: value}, nil
}

// String writes the tree back in its language.
func (t *Tree) String() string {
	if t.Op == "" {
		if t.Kind == "taxon" {
			return "taxon"
		}
		return t.Kind + ":" + t.Value
	}
	parts := make([]string, len(t.Operands))
	for i, o := range t.Operands {
		parts[i] = o.String()
	}
	return t.Op + "(" + strings.Join(parts, ", ") + ")"
}

// Approximate reports whether the tree has a text leaf, whose offline
// answer is approximate.
func (t *Tree) Approximate() bool {
	if t.Kind == "text" {
		return true
	}
	return slices.ContainsFunc(t.Operands, (*Tree).Approximate)
}

// Eval computes the tree's genes from the raw data. A leaf naming nothing
// in the data (a GO id the 2017 file does not list, a gene type or sequence
// no gene has, an unknown gene id) is an error, so a mistyped case cannot
// pass for an empty set.
func (t *Tree) Eval(d *Data) (Set, error) {
	if t.Op != "" {
		acc, err := t.Operands[0].Eval(d)
		if err != nil {
			return nil, err
		}
		for _, o := range t.Operands[1:] {
			s, err := o.Eval(d)
			if err != nil {
				return nil, err
			}
			switch t.Op {
			case OpIntersect:
				acc = Intersect(acc, s)
			case OpUnion:
				acc = Union(acc, s)
			case OpMinus:
				acc = Minus(acc, s)
			}
		}
		return acc, nil
	}
	return t.leafSet(d)
}

func (t *Tree) leafSet(d *Data) (Set, error) {
	var s Set
	switch t.Kind {
	case "taxon":
		return d.All(), nil
	case "go":
		if _, ok := d.GOSets[t.Value]; !ok {
			return nil, fmt.Errorf("eval: %s is not in the 2017 GO file%s", t.Value, replacedHint(d, t.Value))
		}
		return d.GO(t.Value), nil
	case "type":
		s = d.OfType(t.Value)
	case "loc":
		s = d.On(t.Value)
	case "ids":
		ids := strings.Split(t.Value, ",")
		for i := range ids {
			ids[i] = strings.TrimSpace(ids[i])
		}
		s = d.IDs(ids...)
		if len(s) != len(ids) {
			return nil, fmt.Errorf("eval: ids:%s names genes the export lacks", t.Value)
		}
		return s, nil
	case "text":
		return d.Words(t.Value), nil
	default:
		return nil, fmt.Errorf("eval: unknown leaf kind %q", t.Kind)
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("eval: %s has no genes", t)
	}
	return s, nil
}

// replacedHint names the ids of the 2017 file that GO has since merged into
// id, for an error message.
func replacedHint(d *Data, id string) string {
	var old []string
	for o, by := range d.ReplacedBy {
		if by == id {
			if _, ok := d.GOSets[o]; ok {
				old = append(old, o)
			}
		}
	}
	if len(old) == 0 {
		return ""
	}
	slices.Sort(old)
	return fmt.Sprintf(" (it replaced %s, which the file lists: use that)", strings.Join(old, ", "))
}
