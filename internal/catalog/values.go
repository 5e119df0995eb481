package catalog

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parameter values travel in WDK's string encoding: a multi-pick value is a
// JSON-array string of terms, a single-pick value one bare term, a number
// its decimal text, a number range {"min":"…","max":"…"}. Both catalogs
// check values with the functions below, so a value comes back encoded the
// same way, and a mistake is reported in the same words, whichever catalog
// serves the site.

// The problems every catalog reports in the same words. "Cannot be empty."
// and "Invalid value '…'." are WDK's own.
const (
	MsgEmpty          = "Cannot be empty."
	MsgInputStepValue = "Answer Params in new steps must have the null value (empty string): inputs are wired by the strategy's step tree."
)

// UnknownParamMessage is the problem of a name that is not a parameter of
// the search.
func UnknownParamMessage(search, name string, params []string) string {
	return fmt.Sprintf("Parameter '%s' is not a parameter of %s (its parameters: %s).", name, search, strings.Join(params, ", "))
}

// InvalidTermMessage is WDK's problem of a term outside the vocabulary.
func InvalidTermMessage(term string) string { return fmt.Sprintf("Invalid value '%s'.", term) }

// DecodeTerms reads a multi-pick value: a JSON array of terms, or one bare
// term. A bare value is never split on commas: terms contain them, and a
// list must be an array. Numbers in an array are read as their text. An
// empty value is no terms.
func DecodeTerms(v string) ([]string, bool) {
	s := strings.TrimSpace(v)
	if s == "" {
		return []string{}, true
	}
	if !strings.HasPrefix(s, "[") {
		return []string{v}, true
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, false
	}
	terms := make([]string, 0, len(raw))
	for _, r := range raw {
		var t string
		if err := json.Unmarshal(r, &t); err == nil {
			terms = append(terms, t)
			continue
		}
		if r[0] == '[' || r[0] == '{' || string(r) == "null" {
			return nil, false
		}
		terms = append(terms, string(r)) // a bare number or boolean
	}
	return terms, true
}

// EncodeTerms writes terms as WDK's JSON-array string ("[]" for none),
// without HTML escaping.
func EncodeTerms(terms []string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if terms == nil {
		terms = []string{}
	}
	_ = enc.Encode(terms) // a []string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// Vocabulary indexes a parameter's terms for checking values: which terms
// exist, which term a display label (or a term in other case) stands for,
// and the leaves under each term of a tree. It is read-only once built.
type Vocabulary struct {
	list   []Term
	terms  map[string]bool
	labels map[string]string   // lower-cased display label -> term
	folded map[string]string   // lower-cased term -> term
	leaves map[string][]string // nil for a flat vocabulary
}

// NewVocabulary indexes terms (as Param.Vocabulary lists them).
func NewVocabulary(terms []Term) *Vocabulary {
	v := &Vocabulary{list: terms, terms: make(map[string]bool, len(terms)),
		labels: make(map[string]string, len(terms)), folded: make(map[string]string, len(terms))}
	for _, t := range terms {
		v.terms[t.Term] = true
		if l := strings.ToLower(t.Display); t.Display != t.Term && l != "" {
			if _, taken := v.labels[l]; !taken {
				v.labels[l] = t.Term
			}
		}
		if _, taken := v.folded[strings.ToLower(t.Term)]; !taken {
			v.folded[strings.ToLower(t.Term)] = t.Term
		}
	}
	v.leaves = LeavesUnder(terms)
	return v
}

// Has reports whether term is in the vocabulary.
func (v *Vocabulary) Has(term string) bool { return v.terms[term] }

// Problem says why a term is not allowed ("" when it is): WDK's words, then
// the term meant when a display label or a term in other case was given,
// or the allowed terms of a short vocabulary.
func (v *Vocabulary) Problem(term string) string {
	if v.terms[term] {
		return ""
	}
	msg := InvalidTermMessage(term)
	if t, ok := v.labels[strings.ToLower(term)]; ok {
		return msg + fmt.Sprintf(" Use the term '%s', not its display label.", t)
	}
	if t, ok := v.folded[strings.ToLower(term)]; ok {
		return msg + fmt.Sprintf(" Terms are case-sensitive: use '%s'.", t)
	}
	if len(v.list) <= maxListedTerms {
		names := make([]string, len(v.list))
		for i, t := range v.list {
			names[i] = t.Term
		}
		msg += " Allowed: " + strings.Join(names, ", ") + "."
	}
	return msg
}

// ExpandLeaves replaces each selected term of a tree vocabulary by the
// leaves below it (a leaf stands for itself), without repeats, in selection
// order; a term the vocabulary does not know is kept as given. A flat
// vocabulary returns terms unchanged.
func (v *Vocabulary) ExpandLeaves(terms []string) []string {
	if v == nil || v.leaves == nil {
		return terms
	}
	out := make([]string, 0, len(terms))
	seen := map[string]bool{}
	for _, t := range terms {
		below, known := v.leaves[t]
		if !known {
			below = []string{t}
		}
		for _, l := range below {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// maxListedTerms is the largest vocabulary whose terms a problem lists.
const maxListedTerms = 12

// CountSelected counts what a selection covers: in a tree vocabulary the
// leaves under the selected terms (WDK counts only leaves), else the terms.
func (v *Vocabulary) CountSelected(terms []string) int {
	if v == nil || v.leaves == nil {
		return len(terms)
	}
	seen := map[string]bool{}
	for _, t := range terms {
		if l, ok := v.leaves[t]; ok {
			for _, x := range l {
				seen[x] = true
			}
			continue
		}
		seen[t] = true
	}
	return len(seen)
}

// LeavesUnder maps each term of a tree vocabulary (terms with Parent set)
// to the leaf terms below it, a leaf to itself; nil for a flat vocabulary.
// A cycle in the parents stops the walk rather than looping.
func LeavesUnder(terms []Term) map[string][]string {
	children := map[string][]string{}
	for _, t := range terms {
		if t.Parent != "" {
			children[t.Parent] = append(children[t.Parent], t.Term)
		}
	}
	if len(children) == 0 {
		return nil
	}
	out := make(map[string][]string, len(terms))
	var walk func(term string, seen map[string]bool) []string
	walk = func(term string, seen map[string]bool) []string {
		if got, ok := out[term]; ok {
			return got
		}
		kids := children[term]
		if len(kids) == 0 || seen[term] {
			return []string{term}
		}
		seen[term] = true
		var leaves []string
		for _, k := range kids {
			leaves = append(leaves, walk(k, seen)...)
		}
		out[term] = leaves
		return leaves
	}
	for _, t := range terms {
		out[t.Term] = walk(t.Term, map[string]bool{})
	}
	return out
}

// ValueRules is what a catalog knows about one parameter's terms beyond
// Param. The zero value accepts any term: an open vocabulary, or one whose
// terms follow another parameter's value, which only the site can check.
type ValueRules struct {
	// Vocabulary checks terms and counts selections; nil accepts any term.
	Vocabulary *Vocabulary
	// Normalize writes a term as the vocabulary does where case means
	// nothing (GO ids); nil leaves terms as given.
	Normalize func(term string) string
	// Explain, when set, may give a more telling problem for a term outside
	// the vocabulary; "" falls back to Vocabulary.Problem.
	Explain func(term string) string
}

func (r *ValueRules) normalize(t string) string {
	if r.Normalize == nil {
		return t
	}
	return r.Normalize(t)
}

func (r *ValueRules) problem(t string) string {
	if r.Vocabulary == nil || r.Vocabulary.Has(t) {
		return ""
	}
	if r.Explain != nil {
		if msg := r.Explain(t); msg != "" {
			return msg
		}
	}
	return r.Vocabulary.Problem(t)
}

// EmptyAllowed says whether "" is an acceptable value of p: it allows
// empty values, or its default is itself empty.
func EmptyAllowed(p *Param) bool { return p.AllowEmpty || (p.HasDefault && p.Default == "") }

// EncodeValue checks one given value of p with WDK's rules for its type and
// returns it in WDK's encoding, or the problems: multi-picks as JSON-array
// strings (a bare term as a one-term array, duplicates dropped, at most
// MaxSelected leaves or terms), single-picks as one bare term (a one-term
// array is accepted), numbers and number ranges as plain decimals within
// Min and Max, timestamps as whole seconds, and "" only where allowed.
// Input-step parameters are the caller's concern (see CheckValues).
func EncodeValue(p *Param, v string, r ValueRules) (string, []string) {
	switch p.Type {
	case ParamSinglePick:
		return encodeSingle(p, v, &r)
	case ParamMultiPick:
		return encodeMulti(p, v, &r)
	case ParamNumberRange:
		return encodeRange(p, v)
	}
	if strings.TrimSpace(v) == "" {
		if EmptyAllowed(p) {
			return v, nil
		}
		return "", []string{MsgEmpty}
	}
	switch {
	case p.Type == ParamNumber, p.Type == ParamString && p.IsNumber:
		return encodeNumber(p, v)
	case p.Type == ParamTimestamp:
		if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
			return "", []string{fmt.Sprintf("'%s' is not a timestamp (whole seconds).", v)}
		}
	}
	return v, nil
}

func encodeSingle(p *Param, v string, r *ValueRules) (string, []string) {
	term := v
	if s := strings.TrimSpace(v); strings.HasPrefix(s, "[") {
		terms, ok := DecodeTerms(s)
		if !ok {
			return "", []string{fmt.Sprintf("'%s' is neither a term nor a JSON array of one term.", v)}
		}
		switch len(terms) {
		case 0:
			term = ""
		case 1:
			term = terms[0]
		default:
			return "", []string{fmt.Sprintf("%s takes one value; got %d.", p.DisplayName, len(terms))}
		}
	}
	if term == "" {
		if EmptyAllowed(p) {
			return "", nil
		}
		return "", []string{MsgEmpty}
	}
	term = r.normalize(term)
	if msg := r.problem(term); msg != "" {
		return "", []string{msg}
	}
	return term, nil
}

func encodeMulti(p *Param, v string, r *ValueRules) (string, []string) {
	terms, ok := DecodeTerms(v)
	if !ok {
		return "", []string{fmt.Sprintf(`'%s' is not a JSON array of terms such as ["a","b"].`, v)}
	}
	if s := strings.TrimSpace(v); s != "" && !strings.HasPrefix(s, "[") && strings.Contains(v, ",") &&
		(r.Vocabulary == nil || !r.Vocabulary.Has(r.normalize(v))) {
		return "", []string{fmt.Sprintf(`'%s' is not one term; give several values as a JSON array string such as ["a","b"] (values are not split on commas).`, v)}
	}
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		if t = r.normalize(t); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		if EmptyAllowed(p) {
			return EncodeTerms(nil), nil
		}
		return "", []string{MsgEmpty}
	}
	var problems []string
	for _, t := range out {
		if msg := r.problem(t); msg != "" {
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return "", problems
	}
	if n := r.Vocabulary.CountSelected(out); p.MaxSelected > 0 && n > p.MaxSelected {
		return "", []string{fmt.Sprintf("Number of selected values (%d) was not in range ( Inf, %d ] for parameter %s.", n, p.MaxSelected, p.DisplayName)}
	}
	return EncodeTerms(out), nil
}

func encodeNumber(p *Param, v string) (string, []string) {
	s := strings.TrimSpace(v)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		msg := fmt.Sprintf("'%s' is not a number.", v)
		if strings.Contains(s, ",") {
			msg = fmt.Sprintf("'%s' is not a number: write it without thousands separators.", v)
		}
		return "", []string{msg}
	}
	if p.Min != nil && f < *p.Min || p.Max != nil && f > *p.Max {
		return "", []string{fmt.Sprintf("'%s' is outside the allowed range %s.", v, bounds(p))}
	}
	return s, nil
}

func bounds(p *Param) string {
	lo, hi := "-Inf", "Inf"
	if p.Min != nil {
		lo = strconv.FormatFloat(*p.Min, 'g', -1, 64)
	}
	if p.Max != nil {
		hi = strconv.FormatFloat(*p.Max, 'g', -1, 64)
	}
	return "[" + lo + ", " + hi + "]"
}

// encodeRange reads a number range {"min":…,"max":…}, both ends given as
// numbers or numeric strings, and writes it with string ends.
func encodeRange(p *Param, v string) (string, []string) {
	if strings.TrimSpace(v) == "" {
		if EmptyAllowed(p) {
			return v, nil
		}
		return "", []string{MsgEmpty}
	}
	bad := []string{fmt.Sprintf(`'%s' must be in the format {"min":"<number>","max":"<number>"} with both ends given.`, v)}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return "", bad
	}
	var ends [2]float64
	for i, k := range []string{"min", "max"} {
		r, ok := raw[k]
		if !ok {
			return "", bad
		}
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			s = string(r) // a bare JSON number
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return "", bad
		}
		ends[i] = f
	}
	if ends[0] > ends[1] {
		return "", []string{fmt.Sprintf("'%s': min is greater than max.", v)}
	}
	if p.Min != nil && ends[0] < *p.Min || p.Max != nil && ends[1] > *p.Max {
		return "", []string{fmt.Sprintf("'%s' is outside the allowed range %s.", v, bounds(p))}
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return fmt.Sprintf(`{"min":"%s","max":"%s"}`, f(ends[0]), f(ends[1])), nil
}

// CheckValues checks the values given for a search's parameters with WDK's
// rules and completes them the way a step is created (WDK fills no
// defaults): an unknown name, a non-empty input-step value, or a bad value
// (EncodeValue) is a problem keyed by the parameter; omitted parameters
// take their default, as given (WDK's initialDisplayValue is already
// encoded), or "" where empty is allowed, and one with neither is "Cannot
// be empty."; SiteDefault parameters are left out for the site to fill;
// input-step parameters are "". rules gives what the catalog knows about a
// parameter's terms; it is asked only about given values.
func CheckValues(s *Search, given map[string]string, rules func(*Param) ValueRules) (map[string]string, *ValidationError) {
	ve := &ValidationError{Search: s.Name}
	var unknown []string
	for name := range given {
		if _, ok := s.Param(name); !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		names := make([]string, len(s.Params))
		for i, p := range s.Params {
			names[i] = p.Name
		}
		for _, name := range unknown {
			ve.Add(name, UnknownParamMessage(s.Name, name, names))
		}
	}
	filled := make(map[string]string, len(s.Params))
	for i := range s.Params {
		p := &s.Params[i]
		v, ok := given[p.Name]
		switch {
		case p.Type == ParamInputStep:
			if ok && v != "" {
				ve.Add(p.Name, MsgInputStepValue)
			}
			filled[p.Name] = ""
		case ok:
			norm, problems := EncodeValue(p, v, rules(p))
			for _, msg := range problems {
				ve.Add(p.Name, msg)
			}
			if len(problems) == 0 {
				filled[p.Name] = norm
			}
		case p.HasDefault:
			filled[p.Name] = p.Default
		case p.SiteDefault:
		case p.AllowEmpty:
			filled[p.Name] = ""
		default:
			ve.Add(p.Name, MsgEmpty)
		}
	}
	if !ve.Empty() {
		return nil, ve
	}
	return filled, nil
}
