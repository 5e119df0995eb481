package wdk

import (
	"context"
	"slices"

	"strategist/internal/catalog"
)

// fill checks values against a search's parameters and completes them the
// way a step must be sent (WDK creates steps without filling defaults),
// with the rules every catalog shares (catalog.CheckValues): unknown names,
// non-empty input-step values, malformed or over-long picks, terms outside
// an independent vocabulary and omitted parameters without a default are a
// *catalog.ValidationError keyed by parameter, before any request (a
// two-value single-pick would be WDK's HTTP 500, and a bare multi-pick
// value would be split on commas, silently). A parameter whose vocabulary
// depends on another's value is checked by WDK only: its listed
// vocabulary is right for the defaults alone. Omitted parameters take
// their default (initialDisplayValue), read again for the given values
// when they depend on one of them.
//
// With validate, WDK checks the values too (POST contextParamValues) and
// its errors.byKey come back as the ValidationError.
func (c *Client) fill(ctx context.Context, site string, d *SearchDetails, given map[string]string, validate bool) (map[string]string, error) {
	dependent := dependentNames(d)
	vals, verr := catalog.CheckValues(d.Catalog(), given, func(p *catalog.Param) catalog.ValueRules {
		if dependent[p.Name] || len(p.Vocabulary) == 0 {
			return catalog.ValueRules{}
		}
		return catalog.ValueRules{Vocabulary: d.vocabulary(p.Name)}
	})
	if verr != nil {
		return nil, verr
	}
	sent := make(map[string]string, len(given))
	var omitted []string
	for _, p := range d.Params {
		if p.Type == catalog.ParamInputStep {
			continue
		}
		if _, ok := given[p.Name]; ok {
			sent[p.Name] = vals[p.Name]
			continue
		}
		omitted = append(omitted, p.Name)
	}
	if validate || omitsDependent(d, given, omitted) {
		// WDK checks a dataset parameter's value as a dataset of the
		// user's: the identifiers go up as one first.
		sent, err := c.withDatasets(ctx, site, d, sent)
		if err != nil {
			return nil, err
		}
		rd, err := c.ReviseSearch(ctx, site, d.RecordType, d.Name, sent)
		if err != nil {
			return nil, err
		}
		if validate {
			if err := withoutInputKeys(rd.Validation, d).Err(d.Name); err != nil {
				return nil, err
			}
		}
		for _, name := range omitted {
			if p, ok := rd.Param(name); ok && p.HasDefault {
				vals[name] = p.Default
			}
		}
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

// expandLeaves replaces selected parents of a countOnlyLeaves tree with
// the leaves below them: the sites may answer 0 records for a parent node.
func expandLeaves(d *SearchDetails, p *Param, v string) string {
	if p.Type != catalog.ParamMultiPick || !p.TreeVocabulary || !p.CountOnlyLeaves {
		return v
	}
	terms, ok := catalog.DecodeTerms(v)
	if !ok || len(terms) == 0 {
		return v
	}
	return catalog.EncodeTerms(d.vocabulary(p.Name).ExpandLeaves(terms))
}
