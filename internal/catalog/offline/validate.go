package offline

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"strategist/internal/catalog"
)

// Validation messages. "Cannot be empty." and "Invalid value '…'." are the
// site's own words, so agents see the same text online and offline.
const (
	msgEmpty       = "Cannot be empty."
	msgInputNotNil = "Answer Params in new steps must have the null value (empty string)."
)

// validate checks params against d with the site's rules and returns the
// complete, normalised set: omitted parameters take their default,
// multi-pick values become JSON-array strings and single-pick values bare
// terms. Problems come back together in one *catalog.ValidationError.
func (c *Catalog) validate(d *searchDef, params map[string]string) (map[string]string, *catalog.ValidationError) {
	ve := &catalog.ValidationError{Search: d.search.Name}
	unknown := make([]string, 0)
	for name := range params {
		if _, ok := d.params[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		ve.Add(name, fmt.Sprintf("Parameter '%s' is not a parameter of %s (its parameters: %s).",
			name, d.search.Name, strings.Join(paramNames(d), ", ")))
	}
	filled := make(map[string]string, len(d.search.Params))
	for i := range d.search.Params {
		p := &d.search.Params[i]
		v, given := params[p.Name]
		if !given {
			switch {
			case p.HasDefault:
				v = p.Default
			case p.SiteDefault:
				continue // the live site fills it from its vocabulary
			case p.AllowEmpty:
				v = ""
			default:
				ve.Add(p.Name, msgEmpty)
				continue
			}
		}
		norm, problems := c.checkValue(d.params[p.Name], v)
		for _, msg := range problems {
			ve.Add(p.Name, msg)
		}
		if len(problems) == 0 {
			filled[p.Name] = norm
		}
	}
	if !ve.Empty() {
		return nil, ve
	}
	return filled, nil
}

func paramNames(d *searchDef) []string {
	out := make([]string, len(d.search.Params))
	for i, p := range d.search.Params {
		out[i] = p.Name
	}
	return out
}

// emptyOK says whether "" is an acceptable value: the parameter allows
// empty values, or its default is itself empty.
func emptyOK(p *catalog.Param) bool {
	return p.AllowEmpty || (p.HasDefault && p.Default == "")
}

// checkValue validates one value and returns it normalised, or the problems.
func (c *Catalog) checkValue(pd *paramDef, v string) (string, []string) {
	p := pd.param
	switch p.Type {
	case catalog.ParamInputStep:
		if v != "" {
			return "", []string{msgInputNotNil}
		}
		return "", nil
	case catalog.ParamSinglePick:
		return c.checkSingle(pd, v)
	case catalog.ParamMultiPick:
		return c.checkMulti(pd, v)
	case catalog.ParamNumberRange:
		return checkRange(p, v)
	}
	if strings.TrimSpace(v) == "" {
		if emptyOK(p) {
			return v, nil
		}
		return "", []string{msgEmpty}
	}
	switch p.Type {
	case catalog.ParamNumber:
		return checkNumber(p, v)
	case catalog.ParamTimestamp:
		if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
			return "", []string{fmt.Sprintf("'%s' is not a timestamp (whole seconds).", v)}
		}
	case catalog.ParamString:
		if p.IsNumber {
			return checkNumber(p, v)
		}
	}
	return v, nil
}

func checkNumber(p *catalog.Param, v string) (string, []string) {
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

func bounds(p *catalog.Param) string {
	lo, hi := "-Inf", "Inf"
	if p.Min != nil {
		lo = strconv.FormatFloat(*p.Min, 'g', -1, 64)
	}
	if p.Max != nil {
		hi = strconv.FormatFloat(*p.Max, 'g', -1, 64)
	}
	return "[" + lo + ", " + hi + "]"
}

// checkRange validates a number-range value {"min":…,"max":…}; both ends are
// required, as numbers or numeric strings.
func checkRange(p *catalog.Param, v string) (string, []string) {
	if strings.TrimSpace(v) == "" {
		if emptyOK(p) {
			return v, nil
		}
		return "", []string{msgEmpty}
	}
	const format = `must be in the format {"min":"<number>","max":"<number>"} with both ends given`
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return "", []string{fmt.Sprintf("'%s' %s.", v, format)}
	}
	var ends [2]float64
	for i, k := range []string{"min", "max"} {
		r, ok := raw[k]
		if !ok {
			return "", []string{fmt.Sprintf("'%s' %s.", v, format)}
		}
		var s string
		if err := json.Unmarshal(r, &s); err != nil {
			s = string(r) // a bare JSON number
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return "", []string{fmt.Sprintf("'%s' %s.", v, format)}
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

// decodeArray reads a JSON-array string of terms.
func decodeArray(v string) ([]string, bool) {
	var terms []string
	if err := json.Unmarshal([]byte(v), &terms); err != nil {
		return nil, false
	}
	return terms, true
}

func (c *Catalog) checkSingle(pd *paramDef, v string) (string, []string) {
	p := pd.param
	s := strings.TrimSpace(v)
	term := v
	if strings.HasPrefix(s, "[") {
		terms, ok := decodeArray(s)
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
		if emptyOK(p) {
			return "", nil
		}
		return "", []string{msgEmpty}
	}
	term = pd.normalize(term)
	if msg, ok := c.checkTerm(pd, term); !ok {
		return "", []string{msg}
	}
	return term, nil
}

func (c *Catalog) checkMulti(pd *paramDef, v string) (string, []string) {
	p := pd.param
	s := strings.TrimSpace(v)
	var terms []string
	switch {
	case s == "":
	case strings.HasPrefix(s, "["):
		var ok bool
		if terms, ok = decodeArray(s); !ok {
			return "", []string{fmt.Sprintf(`'%s' is not a JSON array of terms such as ["a","b"].`, v)}
		}
	default:
		// A bare value is accepted when it is one term. It is never split
		// on commas: terms may contain commas, and a list must be a JSON
		// array.
		if _, isTerm := pd.terms[v]; !isTerm && strings.Contains(v, ",") {
			return "", []string{fmt.Sprintf(`'%s' is not one term; give several values as a JSON array string such as ["a","b"] (values are not split on commas).`, v)}
		}
		terms = []string{v}
	}
	for i, t := range terms {
		terms[i] = pd.normalize(t)
	}
	terms = dedupe(terms)
	if len(terms) == 0 {
		if emptyOK(p) {
			return encodeTerms(nil), nil
		}
		return "", []string{msgEmpty}
	}
	var problems []string
	for _, t := range terms {
		if msg, ok := c.checkTerm(pd, t); !ok {
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return "", problems
	}
	if n := countSelected(pd, terms); p.MaxSelected > 0 && n > p.MaxSelected {
		return "", []string{fmt.Sprintf("Number of selected values (%d) was not in range ( Inf, %d ] for parameter %s.", n, p.MaxSelected, p.DisplayName)}
	}
	return encodeTerms(terms), nil
}

// normalize writes a term as the vocabulary does where case carries no
// meaning: GO ids ("go:0006281" is GO:0006281).
func (pd *paramDef) normalize(term string) string {
	if pd.vocab == vocabGOTerms {
		if id, ok := canonicalGOID(term); ok {
			return id
		}
	}
	return term
}

func dedupe(terms []string) []string {
	var out []string
	for _, t := range terms {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// countSelected counts the leaves a selection covers in a tree vocabulary
// (the site counts only leaves), else the terms.
func countSelected(pd *paramDef, terms []string) int {
	if pd.leaves == nil {
		return len(terms)
	}
	seen := map[string]bool{}
	for _, t := range terms {
		for _, l := range pd.leaves[t] {
			seen[l] = true
		}
	}
	return len(seen)
}

// checkTerm checks one term against the vocabulary; unknown vocabularies
// (open ones, or data ones without data) accept any term.
func (c *Catalog) checkTerm(pd *paramDef, term string) (string, bool) {
	if pd.terms == nil {
		return "", true
	}
	if _, ok := pd.terms[term]; ok {
		return "", true
	}
	msg := fmt.Sprintf("Invalid value '%s'.", term)
	if pd.vocab == vocabGOTerms {
		id := goIDIn(term)
		if c.data != nil && id != "" {
			if t, ok := c.data.goTerms[id]; ok && t.Ontology != "BP" {
				return fmt.Sprintf("Invalid value '%s': %s (%s) is a %s term; the offline snapshot has biological-process gene sets only.",
					term, id, t.Name, ontologyName(t.Ontology)), false
			}
		}
		if id != "" && id != term {
			if _, ok := pd.terms[id]; ok {
				return msg + fmt.Sprintf(" Use the term '%s', not its display label.", id), false
			}
		}
		if id == term {
			return msg + " The offline snapshot has no biological-process gene set for this GO id.", false
		}
	}
	if t, ok := pd.byDisplay[strings.ToLower(term)]; ok {
		return msg + fmt.Sprintf(" Use the term '%s', not its display label.", t), false
	}
	if len(pd.terms) <= 12 {
		terms := make([]string, 0, len(pd.terms))
		for _, t := range pd.param.Vocabulary {
			terms = append(terms, t.Term)
		}
		msg += " Allowed: " + strings.Join(terms, ", ") + "."
	}
	return msg, false
}

// goIDIn finds the first GO:nnnnnnn id in s, in any case.
func goIDIn(s string) string {
	for i := 0; i+len("GO:0000000") <= len(s); i++ {
		if id, ok := canonicalGOID(s[i : i+len("GO:0000000")]); ok {
			return id
		}
	}
	return ""
}

func ontologyName(o string) string {
	switch o {
	case "MF":
		return "molecular-function"
	case "CC":
		return "cellular-component"
	case "BP":
		return "biological-process"
	}
	return o
}
