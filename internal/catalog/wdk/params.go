package wdk

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"strategist/internal/catalog"
)

// fill checks values against a search's parameters and completes them the
// way a step must be sent (WDK creates steps without filling defaults):
//
//   - an unknown name, a non-empty input-step value, a malformed or
//     over-long pick, a term outside an independent vocabulary, or an
//     omitted parameter without a default is a *catalog.ValidationError
//     keyed by parameter (a two-value single-pick would be WDK's HTTP 500);
//   - multi-pick values are sent as JSON-array strings, a bare value as a
//     one-element array (WDK would split it on commas, silently);
//   - omitted parameters take their default (initialDisplayValue), read for
//     the given values when they depend on one of them;
//   - input-step parameters are "".
//
// With validate, WDK checks the values too (POST contextParamValues) and
// its errors.byKey come back as the ValidationError.
func (c *Client) fill(ctx context.Context, site string, d *SearchDetails, given map[string]string, validate bool) (map[string]string, error) {
	verr := &catalog.ValidationError{Search: d.Name}
	vals := make(map[string]string, len(d.Params))
	dependent := dependentNames(d)
	for name, v := range given {
		p, ok := d.Param(name)
		if !ok {
			verr.Add(name, fmt.Sprintf("Parameter '%s' is not in container '%s' (its parameters: %s)", name, d.Name, strings.Join(d.ParamNames, ", ")))
			continue
		}
		if p.Type == catalog.ParamInputStep {
			if v != "" {
				verr.Add(name, "Answer Params in new steps must have the null value (empty string): inputs are wired by the strategy's step tree")
			}
			continue
		}
		nv, msg := normalizeValue(p, v, !dependent[name])
		if msg != "" {
			verr.Add(name, msg)
			continue
		}
		vals[name] = nv
	}
	var omitted []string
	for _, p := range d.Params {
		if p.Type == catalog.ParamInputStep {
			continue
		}
		if _, ok := given[p.Name]; ok {
			continue
		}
		if !p.HasDefault && !p.AllowEmpty {
			verr.Add(p.Name, "Cannot be empty.")
			continue
		}
		omitted = append(omitted, p.Name)
	}
	if !verr.Empty() {
		return nil, verr
	}

	defaults := d
	if validate || omitsDependent(d, given, omitted) {
		rd, err := c.ReviseSearch(ctx, site, d.RecordType, d.Name, vals)
		if err != nil {
			return nil, err
		}
		if validate {
			if err := withoutInputKeys(rd.Validation, d).Err(d.Name); err != nil {
				return nil, err
			}
		}
		defaults = rd
	}
	for _, name := range omitted {
		p, ok := defaults.Param(name)
		if !ok || !p.HasDefault {
			p, _ = d.Param(name)
		}
		vals[name] = p.Default
	}
	for _, name := range d.InputParams {
		vals[name] = ""
	}
	return vals, nil
}

// dependentNames lists the parameters whose vocabulary depends on another
// parameter's value: their vocabulary in the details is only right for the
// defaults, so only WDK can check them.
func dependentNames(d *SearchDetails) map[string]bool {
	out := map[string]bool{}
	for _, p := range d.Params {
		for _, dep := range p.DependentParams {
			out[dep] = true
		}
	}
	return out
}

// omitsDependent reports whether an omitted parameter depends on a given
// one, so its default must be read for the given value.
func omitsDependent(d *SearchDetails, given map[string]string, omitted []string) bool {
	for name := range given {
		p, ok := d.Param(name)
		if !ok {
			continue
		}
		for _, dep := range p.DependentParams {
			if slices.Contains(omitted, dep) {
				return true
			}
		}
	}
	return false
}

// withoutInputKeys drops WDK's complaints about input-step parameters,
// which are empty until a step tree wires them.
func withoutInputKeys(v Validation, d *SearchDetails) Validation {
	if v.IsValid || len(d.InputParams) == 0 {
		return v
	}
	out := v
	out.ByKey = map[string][]string{}
	for k, msgs := range v.ByKey {
		if !slices.Contains(d.InputParams, k) {
			out.ByKey[k] = msgs
		}
	}
	if len(out.General) == 0 && len(out.ByKey) == 0 && len(v.ByKey) > 0 {
		out.IsValid = true
	}
	return out
}

// normalizeValue puts one value in WDK's encoding for its type and checks
// what can be checked without WDK. It returns a message on a problem.
func normalizeValue(p *Param, v string, checkVocab bool) (string, string) {
	switch p.Type {
	case catalog.ParamMultiPick:
		terms, msg := pickTerms(v)
		if msg != "" {
			return "", msg
		}
		if p.MaxSelected > 0 && len(terms) > p.MaxSelected {
			return "", fmt.Sprintf("at most %d values may be selected, got %d", p.MaxSelected, len(terms))
		}
		if checkVocab {
			if msg := checkTerms(p, terms); msg != "" {
				return "", msg
			}
		}
		b, _ := json.Marshal(terms)
		return string(b), ""
	case catalog.ParamSinglePick:
		t := strings.TrimSpace(v)
		if strings.HasPrefix(t, "[") {
			terms, msg := pickTerms(t)
			if msg != "" {
				return "", msg
			}
			switch len(terms) {
			case 0:
				return "", "Cannot be empty."
			case 1:
				v = terms[0]
			default:
				return "", fmt.Sprintf("only one value may be selected, got %d", len(terms))
			}
		}
		if checkVocab && v != "" {
			if msg := checkTerms(p, []string{v}); msg != "" {
				return "", msg
			}
		}
		return v, ""
	}
	return v, ""
}

// pickTerms reads a multi-pick value: a JSON array of terms, or one bare
// term (never split on commas: real terms contain them).
func pickTerms(v string) ([]string, string) {
	t := strings.TrimSpace(v)
	if t == "" {
		return []string{}, ""
	}
	if !strings.HasPrefix(t, "[") {
		return []string{v}, ""
	}
	var raw []text
	if err := json.Unmarshal([]byte(t), &raw); err != nil {
		return nil, fmt.Sprintf("not a JSON array of terms: %v", err)
	}
	terms := make([]string, len(raw))
	for i, r := range raw {
		terms[i] = string(r)
	}
	return terms, ""
}

// checkTerms checks terms against a vocabulary, suggesting the term when a
// display label was given.
func checkTerms(p *Param, terms []string) string {
	if len(p.Vocabulary) == 0 {
		return ""
	}
	for _, t := range terms {
		found := false
		for _, v := range p.Vocabulary {
			if v.Term == t {
				found = true
				break
			}
		}
		if found {
			continue
		}
		for _, v := range p.Vocabulary {
			if strings.EqualFold(v.Display, t) || strings.EqualFold(v.Term, t) {
				return fmt.Sprintf("'%s' is not a term of %s; did you mean the term '%s' (shown as '%s')?", t, p.Name, v.Term, v.Display)
			}
		}
		return fmt.Sprintf("'%s' is not a term of %s", t, p.Name)
	}
	return ""
}

// expandLeaves replaces selected parents of a countOnlyLeaves tree with
// the leaves below them: the sites may answer 0 records for a parent node.
func expandLeaves(p *Param, v string) string {
	if p.Type != catalog.ParamMultiPick || !p.TreeVocabulary || !p.CountOnlyLeaves {
		return v
	}
	terms, msg := pickTerms(v)
	if msg != "" || len(terms) == 0 {
		return v
	}
	leaves := leavesUnder(p.Vocabulary)
	out := make([]string, 0, len(terms))
	seen := map[string]bool{}
	for _, t := range terms {
		for _, l := range leaves[t] {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
		if _, known := leaves[t]; !known && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
