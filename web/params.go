package web

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"strategist/internal/catalog"
)

// The results panel's parameter editor: one field per parameter a
// researcher can set, drawn from the catalog's description of the search
// and prefilled with the step's values. The form's fields carry each value
// in a shape a browser can edit; ParamValues turns them back into WDK's
// encoding, and the catalog (through the strategy service) checks them.

// Field kinds of the parameter editor.
const (
	FieldSelect = "select" // one term of a listed vocabulary
	FieldMulti  = "multi"  // several terms of a listed vocabulary
	FieldLines  = "lines"  // terms of a vocabulary too large to list, one a line
	FieldNumber = "number"
	FieldRange  = "range" // a number range: two numbers
	FieldText   = "text"
)

// maxListedOptions is the largest vocabulary the editor lists as options;
// a larger one (GO terms) is typed, one term a line.
const maxListedOptions = 300

// ParamField is one field of the parameter editor.
type ParamField struct {
	Name  string // the parameter's name
	Label string // its display name
	Help  string
	Kind  string
	// Options are the vocabulary of a select or multi field, the step's
	// terms selected; a term of the step's the vocabulary lacks is listed
	// too, so the field shows what the step has.
	Options []ParamOption
	// Value is the text of a text, number or lines field.
	Value string
	// Min and Max are the ends of a range field.
	Min, Max string
	// Optional is true when the parameter may be left empty.
	Optional bool
	// Chosen are a lines field's terms with their labels, as the
	// vocabulary names them (a term it lacks has its term for a label).
	Chosen []ParamOption
}

// TermChoice is a term the parameter editor's typeahead offers for a
// vocabulary too large to list: the term, its label, the synonym it was
// found by ("" when its own name matched) and, on the offline snapshot,
// how many genes the step would have with this term alone.
type TermChoice struct {
	Term, Label, Synonym string
	Count                *int
}

// TermSuggestions is the typeahead's answer to a query over one
// parameter's vocabulary.
type TermSuggestions struct {
	Param, Query string
	Terms        []TermChoice
	// Near is set when no term matched: Terms are the nearest in
	// spelling, offered as a possible typo.
	Near bool
	// More counts the matches left out of Terms.
	More int
}

// Counted reports whether any term has a count (the offline snapshot's).
func (s TermSuggestions) Counted() bool {
	return slices.ContainsFunc(s.Terms, func(t TermChoice) bool { return t.Count != nil })
}

// ParamOption is one term of a vocabulary field.
type ParamOption struct {
	Term, Label string
	Selected    bool
}

// FormName is the form field that carries the parameter's value
// ("p.<name>"; a range has "p.<name>.min" and "p.<name>.max").
func (f ParamField) FormName() string { return "p." + f.Name }

// Size is the number of rows a multi-select or lines field shows.
func (f ParamField) Size() int {
	if f.Kind == FieldLines {
		return max(2, min(6, strings.Count(f.Value, "\n")+2))
	}
	return max(2, min(6, len(f.Options)))
}

// editable says whether the editor offers p: a visible parameter that is
// not read-only nor an input step nor a kind the page cannot edit.
func editable(s *catalog.Search, p *catalog.Param) bool {
	if !p.IsVisible || p.IsReadOnly || slices.Contains(s.InputParams, p.Name) {
		return false
	}
	switch p.Type {
	case catalog.ParamInputStep, catalog.ParamInputDataset, catalog.ParamFilter:
		return false
	}
	return true
}

// fieldKind is how the editor shows p.
func fieldKind(p *catalog.Param) string {
	listed := len(p.Vocabulary) > 0 && len(p.Vocabulary) <= maxListedOptions && p.VocabularySize <= len(p.Vocabulary)
	switch {
	case p.Type == catalog.ParamSinglePick && listed:
		return FieldSelect
	case p.Type == catalog.ParamMultiPick && listed:
		return FieldMulti
	case p.Type == catalog.ParamMultiPick:
		return FieldLines
	case p.Type == catalog.ParamNumberRange:
		return FieldRange
	case p.Type == catalog.ParamNumber, p.Type == catalog.ParamString && p.IsNumber:
		return FieldNumber
	}
	return FieldText
}

// ParamFields are the editor's fields for a step of search s whose values
// are current, in the search's order.
func ParamFields(s *catalog.Search, current map[string]string) []ParamField {
	var out []ParamField
	for i := range s.Params {
		p := &s.Params[i]
		if !editable(s, p) {
			continue
		}
		cur, ok := current[p.Name]
		if !ok && p.HasDefault {
			cur = p.Default
		}
		f := ParamField{Name: p.Name, Label: p.DisplayName, Help: p.Help, Kind: fieldKind(p), Optional: catalog.EmptyAllowed(p)}
		if f.Label == "" {
			f.Label = p.Name
		}
		switch f.Kind {
		case FieldSelect, FieldMulti:
			chosen := []string{cur}
			if f.Kind == FieldMulti {
				chosen, _ = catalog.DecodeTerms(cur)
			}
			for _, t := range p.Vocabulary {
				f.Options = append(f.Options, ParamOption{Term: t.Term, Label: TermLabel(t), Selected: slices.Contains(chosen, t.Term)})
			}
			for _, c := range chosen {
				if c != "" && !slices.ContainsFunc(p.Vocabulary, func(t catalog.Term) bool { return t.Term == c }) {
					f.Options = append(f.Options, ParamOption{Term: c, Label: c, Selected: true})
				}
			}
		case FieldLines:
			terms, ok := catalog.DecodeTerms(cur)
			if !ok {
				terms = []string{cur}
			}
			f.Value = strings.Join(terms, "\n")
			f.Chosen = labelTerms(p.Vocabulary, terms)
		case FieldRange:
			var r map[string]json.RawMessage
			if json.Unmarshal([]byte(cur), &r) == nil {
				f.Min, f.Max = rangeEnd(r["min"]), rangeEnd(r["max"])
			}
		default:
			f.Value = cur
		}
		out = append(out, f)
	}
	return out
}

// labelTerms are terms with their labels in vocab.
func labelTerms(vocab []catalog.Term, terms []string) []ParamOption {
	labels := make(map[string]string, len(terms))
	for _, t := range terms {
		labels[t] = t
	}
	for _, t := range vocab {
		if _, ok := labels[t.Term]; ok {
			labels[t.Term] = TermLabel(t)
		}
	}
	var out []ParamOption
	for _, t := range terms {
		if t != "" {
			out = append(out, ParamOption{Term: t, Label: labels[t], Selected: true})
		}
	}
	return out
}

// TermLabel is a term's display label, with the term when they differ
// and the label does not hold it already ("DNA repair (GO:0006281)").
func TermLabel(t catalog.Term) string {
	if t.Display == "" || t.Display == t.Term {
		return t.Term
	}
	if strings.Contains(t.Display, t.Term) {
		return t.Display
	}
	return t.Display + " (" + t.Term + ")"
}

func rangeEnd(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// ParamValues reads the editor's form for a step of search s whose values
// are current: the parameters whose value the researcher changed, in WDK's
// encoding (the catalog checks them). A parameter missing from the form is
// left alone; a multi-pick compares as a set of terms.
func ParamValues(s *catalog.Search, current map[string]string, form url.Values) map[string]string {
	changed := map[string]string{}
	for i := range s.Params {
		p := &s.Params[i]
		if !editable(s, p) {
			continue
		}
		name := "p." + p.Name
		var v string
		switch fieldKind(p) {
		case FieldMulti, FieldLines:
			vals, ok := form[name]
			if !ok {
				continue
			}
			var terms []string
			for _, x := range vals {
				for line := range strings.SplitSeq(x, "\n") {
					if t := strings.TrimSpace(line); t != "" && !slices.Contains(terms, t) {
						terms = append(terms, t)
					}
				}
			}
			if old, ok := catalog.DecodeTerms(current[p.Name]); ok && sameTerms(old, terms) {
				continue
			}
			v = catalog.EncodeTerms(terms)
		case FieldRange:
			lo, okLo := form[name+".min"]
			hi, okHi := form[name+".max"]
			if !okLo || !okHi {
				continue
			}
			a, b := strings.TrimSpace(lo[0]), strings.TrimSpace(hi[0])
			var old map[string]json.RawMessage
			if json.Unmarshal([]byte(current[p.Name]), &old) == nil && a == rangeEnd(old["min"]) && b == rangeEnd(old["max"]) {
				continue
			}
			if a != "" || b != "" {
				enc, _ := json.Marshal(map[string]string{"min": a, "max": b})
				v = string(enc)
			}
			if v == current[p.Name] {
				continue
			}
		default:
			vals, ok := form[name]
			if !ok {
				continue
			}
			v = strings.TrimSpace(vals[0])
			if v == strings.TrimSpace(current[p.Name]) {
				continue
			}
		}
		changed[p.Name] = v
	}
	return changed
}

// sameTerms says whether a and b hold the same terms, in any order.
func sameTerms(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range a {
		if !slices.Contains(b, t) {
			return false
		}
	}
	return true
}
