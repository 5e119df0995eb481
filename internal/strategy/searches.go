package strategy

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"strategist/internal/catalog"
)

// SearchCatalog is what mutations need from a catalog: searches and their
// parameter rules. catalog.Catalog satisfies it.
type SearchCatalog interface {
	RecordTypes(ctx context.Context, site string) ([]catalog.RecordType, error)
	Searches(ctx context.Context, site, recordType string) ([]catalog.SearchSummary, error)
	Search(ctx context.Context, site, recordType, name string) (*catalog.Search, error)
	Validate(ctx context.Context, site, searchName string, params map[string]string) (map[string]string, error)
}

// Answerer runs query trees; counts and step results need nothing else.
type Answerer interface {
	Answer(ctx context.Context, site string, q *catalog.Query, page catalog.Page) (*catalog.Answer, error)
}

// Catalog is everything the strategy service (internal/strategies) uses from a catalog.
type Catalog interface {
	SearchCatalog
	Answerer
}

// Names WDK fixes for combines.
const (
	// booleanPrefix starts the url segment of every record class's boolean
	// search (WDK BooleanQuestion).
	booleanPrefix = "boolean_question_"
	// booleanOperatorParam is the boolean search's operator parameter
	// (WDK BooleanQuery.OPERATOR_PARAM).
	booleanOperatorParam = "bq_operator"
	// SpanSearch is WDK's genomic co-location search, which COLOCATE runs as.
	SpanSearch = "GenesBySpanLogic"
)

// lookupSearch finds a search of the graph's site and checks that it
// returns the graph's record type.
func lookupSearch(ctx context.Context, cat SearchCatalog, g *Graph, op, name string) (*catalog.Search, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, &StepError{Kind: ErrUnknownSearch, Op: op, Roots: g.Roots(), Detail: "a search name is required"}
	}
	s, err := cat.Search(ctx, g.SiteID, "", name)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, &StepError{Kind: ErrUnknownSearch, Op: op, Roots: g.Roots(),
			Detail: fmt.Sprintf("site %s has no search %q", g.SiteID, name)}
	}
	if err != nil {
		return nil, fmt.Errorf("strategy: %s: look up search %s: %w", op, name, err)
	}
	if s.RecordType != g.RecordType {
		return nil, &StepError{Kind: ErrRecordTypeMismatch, Op: op, Roots: g.Roots(),
			Detail: fmt.Sprintf("search %s returns %q records but this strategy is of %q", name, s.RecordType, g.RecordType)}
	}
	return s, nil
}

// checkKind refuses a search of the wrong kind, saying which step to use
// instead.
func checkKind(g *Graph, op string, s *catalog.Search, want catalog.SearchKind) error {
	if s.Kind == want {
		return nil
	}
	var hint string
	switch s.Kind {
	case catalog.KindLeaf:
		hint = "it takes no input; add it as a search step"
	case catalog.KindTransform:
		hint = "it transforms one input; add it as a transform step of an existing step"
	case catalog.KindCombine:
		hint = "it joins two inputs; use a combine step"
	default:
		hint = fmt.Sprintf("its kind is %q", s.Kind)
	}
	return &StepError{Kind: ErrSearchKind, Op: op, Roots: g.Roots(),
		Detail: fmt.Sprintf("%s is not a %s search: %s", s.Name, want, hint)}
}

// validateParams checks values through the catalog and returns the complete
// set it filled in, with every input-step parameter present and "" (WDK's
// rule for new steps: inputs are wired by the tree, never by a value).
func validateParams(ctx context.Context, cat SearchCatalog, g *Graph, op string, s *catalog.Search, params map[string]string) (map[string]string, error) {
	in := cloneParams(params)
	for _, p := range s.InputParams {
		if v := in[p]; v != "" {
			verr := &catalog.ValidationError{Search: s.Name}
			verr.Add(p, "this is an input-step parameter; give the input step instead of a value")
			return nil, &StepError{Kind: ErrInvalidParameters, Op: op, Roots: g.Roots(), Cause: verr}
		}
		in[p] = ""
	}
	filled, err := cat.Validate(ctx, g.SiteID, s.Name, in)
	if verr, ok := errors.AsType[*catalog.ValidationError](err); ok {
		return nil, &StepError{Kind: ErrInvalidParameters, Op: op, Roots: g.Roots(), Cause: verr}
	}
	if err != nil {
		return nil, fmt.Errorf("strategy: %s: validate parameters of %s: %w", op, s.Name, err)
	}
	out := cloneParams(filled)
	for _, p := range s.InputParams {
		out[p] = ""
	}
	return out, nil
}

// combineSearch resolves what a combine with operator op runs as and its
// parameters: the record type's boolean search with bq_operator, or
// GenesBySpanLogic with span parameters compiled from col.
func combineSearch(ctx context.Context, cat SearchCatalog, g *Graph, op string, operator Operator, col *Colocation) (*catalog.Search, map[string]string, error) {
	var (
		s      *catalog.Search
		params map[string]string
		err    error
	)
	if operator == Colocate {
		if col == nil {
			return nil, nil, &StepError{Kind: ErrInvalidColocation, Op: op, Roots: g.Roots(),
				Detail: "COLOCATE needs colocation parameters (upstream, downstream, strand)"}
		}
		if err := col.validate(); err != nil {
			return nil, nil, &StepError{Kind: ErrInvalidColocation, Op: op, Roots: g.Roots(), Detail: err.Error()}
		}
		if s, err = lookupSearch(ctx, cat, g, op, SpanSearch); err != nil {
			if errors.Is(err, ErrUnknownSearch) {
				return nil, nil, &StepError{Kind: ErrNoCombineSearch, Op: op, Roots: g.Roots(),
					Detail: fmt.Sprintf("COLOCATE runs as %s, which site %s does not offer", SpanSearch, g.SiteID)}
			}
			return nil, nil, err
		}
		params = spanParams(*col)
	} else {
		if col != nil {
			return nil, nil, &StepError{Kind: ErrInvalidColocation, Op: op, Roots: g.Roots(),
				Detail: fmt.Sprintf("colocation parameters belong to COLOCATE, not %s", operator)}
		}
		if s, err = booleanSearch(ctx, cat, g, op); err != nil {
			return nil, nil, err
		}
		params = map[string]string{booleanOperatorParam: string(operator)}
	}
	if s.Kind != catalog.KindCombine || len(s.InputParams) != 2 {
		return nil, nil, &StepError{Kind: ErrNoCombineSearch, Op: op, Roots: g.Roots(),
			Detail: fmt.Sprintf("%s does not take two inputs", s.Name)}
	}
	params, err = validateParams(ctx, cat, g, op, s, params)
	if err != nil {
		return nil, nil, err
	}
	return s, params, nil
}

// booleanSearch finds the boolean search of the graph's record type: the
// combine search whose name starts with boolean_question_, else the name
// WDK derives from the record class's full name.
func booleanSearch(ctx context.Context, cat SearchCatalog, g *Graph, op string) (*catalog.Search, error) {
	noBoolean := &StepError{Kind: ErrNoCombineSearch, Op: op, Roots: g.Roots(),
		Detail: fmt.Sprintf("site %s has no boolean search for %q records", g.SiteID, g.RecordType)}
	list, err := cat.Searches(ctx, g.SiteID, g.RecordType)
	if err != nil && !errors.Is(err, catalog.ErrNotFound) {
		return nil, fmt.Errorf("strategy: %s: list searches: %w", op, err)
	}
	name := ""
	for _, s := range list {
		if s.Kind == catalog.KindCombine && strings.HasPrefix(s.Name, booleanPrefix) {
			name = s.Name
			break
		}
	}
	if name == "" {
		rts, err := cat.RecordTypes(ctx, g.SiteID)
		if err != nil && !errors.Is(err, catalog.ErrNotFound) {
			return nil, fmt.Errorf("strategy: %s: list record types: %w", op, err)
		}
		for _, rt := range rts {
			if rt.Name == g.RecordType && rt.FullName != "" {
				name = booleanPrefix + strings.ReplaceAll(rt.FullName, ".", "_")
			}
		}
	}
	if name == "" {
		return nil, noBoolean
	}
	s, err := lookupSearch(ctx, cat, g, op, name)
	if errors.Is(err, ErrUnknownSearch) {
		return nil, noBoolean
	}
	return s, err
}

// spanParams compiles COLOCATE onto GenesBySpanLogic: genes of the left
// input (span_a, output "a") that overlap the right input's genes (span_b)
// widened to [start − upstream, stop + downstream], on the chosen strand.
// Region a is the exact gene; region b is "custom" so the offsets apply.
func spanParams(c Colocation) map[string]string {
	strand := map[Strand]string{StrandBoth: "either strand", StrandSame: "the same strand", StrandOpposite: "the opposite strand"}[c.Strand]
	return map[string]string{
		"span_sentence":          fmt.Sprintf("genes of the left input that lie within %d bp upstream or %d bp downstream of a gene of the right input, on %s", c.Upstream, c.Downstream, strand),
		"span_operation":         "overlap",
		"span_strand":            c.Strand.wdkTerm(),
		"span_output":            "a",
		"region_a":               "exact",
		"region_b":               "custom",
		"span_begin_a":           "start",
		"span_begin_direction_a": "+",
		"span_begin_offset_a":    "0",
		"span_end_a":             "stop",
		"span_end_direction_a":   "+",
		"span_end_offset_a":      "0",
		"span_begin_b":           "start",
		"span_begin_direction_b": "-",
		"span_begin_offset_b":    strconv.Itoa(c.Upstream),
		"span_end_b":             "stop",
		"span_end_direction_b":   "+",
		"span_end_offset_b":      strconv.Itoa(c.Downstream),
	}
}
