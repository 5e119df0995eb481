package strategy

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"strategist/internal/catalog"
)

// A step's display name says what it computes, so it follows the data: a
// search or transform step's name is made from its search and parameter
// values again whenever its parameters change, and a combine's from its
// operator and its inputs' names whenever either changes. A name the
// researcher set (Step.Named) is theirs and is never replaced. Names never
// carry step ids: ids are the graph's bookkeeping, not what a step means.

// maxNameTerms bounds how many picked terms a derived name lists.
const maxNameTerms = 3

// searchStepName derives a name from a search and its parameter values:
// the values that make the step what it is (Stated), or the search's own
// name when every value is a default.
func searchStepName(s *catalog.Search, params map[string]string) string {
	var parts []string
	for _, sp := range Stated(s, params) {
		parts = append(parts, sp.Label)
	}
	name := strings.Join(parts, "; ")
	if name == "" {
		name = cmp.Or(strings.TrimSpace(s.ShortDisplayName), strings.TrimSpace(s.DisplayName), s.Name)
	}
	return clipName(name)
}

// StatedParam is one parameter value that makes a step what it is, with
// the value's label (terms by their vocabulary labels).
type StatedParam struct {
	Param catalog.Param
	Value string
	Label string
}

// Stated lists, in the search's order, the parameter values that make a
// search what it is: every visible parameter set to something other than
// its default (input steps left out), each with its label.
func Stated(s *catalog.Search, params map[string]string) []StatedParam {
	inputs := map[string]bool{}
	for _, in := range s.InputParams {
		inputs[in] = true
	}
	var out []StatedParam
	for _, p := range s.Params {
		v, ok := params[p.Name]
		if !ok || !p.IsVisible || inputs[p.Name] || p.Type == catalog.ParamInputStep || strings.TrimSpace(v) == "" {
			continue
		}
		if p.HasDefault && v == p.Default {
			continue
		}
		if label := valueLabel(p, v); label != "" {
			out = append(out, StatedParam{Param: p, Value: v, Label: label})
		}
	}
	return out
}

// TermLabel is a vocabulary term's label (termLabel), for one term of a
// parameter's value.
func TermLabel(p catalog.Param, term string) string { return termLabel(p, term) }

// valueLabel shows one parameter value: picked terms by their labels,
// numbers and ranges with the parameter's name, text as given.
func valueLabel(p catalog.Param, v string) string {
	switch p.Type {
	case catalog.ParamSinglePick, catalog.ParamMultiPick:
		terms, ok := catalog.DecodeTerms(v)
		if !ok || len(terms) == 0 {
			return ""
		}
		labels := make([]string, 0, maxNameTerms)
		for i, t := range terms {
			if i == maxNameTerms {
				labels = append(labels, fmt.Sprintf("%d more", len(terms)-maxNameTerms))
				break
			}
			labels = append(labels, termLabel(p, t))
		}
		return strings.Join(labels, ", ")
	case catalog.ParamString:
		return strings.TrimSpace(v)
	}
	return cmp.Or(strings.TrimSpace(p.DisplayName), p.Name) + " " + strings.TrimSpace(v)
}

// termLabel is a vocabulary term's label without the notes catalogs add
// after a dash ("… – merged into GO:… since 2017"), or the term itself.
func termLabel(p catalog.Param, term string) string {
	for _, t := range p.Vocabulary {
		if t.Term == term && strings.TrimSpace(t.Display) != "" {
			label, _, _ := strings.Cut(t.Display, " – ")
			return strings.TrimSpace(label)
		}
	}
	return term
}

// combineName derives a combine's name from its operator and its inputs'
// names, bracketing an input that is itself a combine where the grouping
// matters: "(DNA replication or DNA repair) excluding chromosome 14".
func combineName(op Operator, col *Colocation, left, right Step) string {
	side := func(s Step, first bool) string {
		if s.Kind != KindCombine || s.Named || first && s.Operator == op && op != Colocate || !compound(s.DisplayName) {
			return s.DisplayName
		}
		return "(" + s.DisplayName + ")"
	}
	l, r := side(left, true), side(right, false)
	var name string
	switch op {
	case Intersect:
		name = l + " and " + r
	case Union:
		name = l + " or " + r
	case Minus:
		name = l + " excluding " + r
	case RMinus:
		name = side(right, true) + " excluding " + side(left, false)
	case LOnly:
		name = l + " (ignoring " + r + ")"
	case ROnly:
		name = side(right, true) + " (ignoring " + side(left, false) + ")"
	case Colocate:
		name = l + " near " + r
		if col != nil {
			name = l + " " + nearWords(*col) + " " + r
		}
	default:
		name = l + " " + string(op) + " " + r
	}
	return clipName(name)
}

// nearWords says how close a colocation's genes are: "within 1000 bp
// upstream or 500 bp downstream of".
func nearWords(c Colocation) string {
	switch {
	case c.Upstream == 0 && c.Downstream == 0:
		return "overlapping"
	case c.Upstream == c.Downstream:
		return fmt.Sprintf("within %d bp of", c.Upstream)
	case c.Downstream == 0:
		return fmt.Sprintf("within %d bp upstream of", c.Upstream)
	case c.Upstream == 0:
		return fmt.Sprintf("within %d bp downstream of", c.Downstream)
	}
	return fmt.Sprintf("within %d bp upstream or %d bp downstream of", c.Upstream, c.Downstream)
}

// compound reports whether a combine's name joins two names with one of
// combineName's words, so that it needs brackets inside another combine's.
func compound(name string) bool {
	for _, w := range []string{" and ", " or ", " excluding ", " near ", " within ", " overlapping ", " (ignoring "} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// renameDownstream makes the names of the unnamed combines downstream of
// id follow their inputs again, after id's name changed.
func (g *Graph) renameDownstream(id StepID) {
	ids := g.downstream(id)
	for _, cur := range ids[1:] {
		i := g.index(cur)
		s := &g.Steps[i]
		if s.Kind != KindCombine || s.Named || len(s.Inputs) != 2 {
			continue
		}
		left, lok := g.Step(s.Inputs[0])
		right, rok := g.Step(s.Inputs[1])
		if !lok || !rok {
			continue
		}
		s.DisplayName = combineName(s.Operator, s.Colocation, left, right)
	}
}

// clipName bounds a derived name to MaxNameLength characters.
func clipName(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= MaxNameLength {
		return s
	}
	r := []rune(s)
	return string(r[:MaxNameLength-1]) + "…"
}
