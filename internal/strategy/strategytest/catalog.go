// Package strategytest holds the tests' catalog of the graph model and of
// the strategy service: a small PlasmoDB-shaped catalog with WDK's
// validation rules in miniature and a set evaluator, so graphs and counts
// can be tested without the offline data. It imports only internal/catalog,
// so the model's own tests can use it.
package strategytest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"strategist/internal/catalog"
)

// Catalog is a small PlasmoDB-shaped catalog over 100 genes g001..g100,
// with WDK's validation rules in miniature and a set evaluator, so the
// graph and counts can be tested without the offline data.
type Catalog struct {
	searches map[string]*catalog.Search

	mu      sync.Mutex
	calls   map[string]int // Answer calls by query key
	failing bool           // Answer fails with catalog.ErrUnavailable
}

// The catalog's site, record types, searches and terms.
const (
	// SpanSearch is strategy.SpanSearch (this package cannot import the
	// model whose tests use it).
	SpanSearch = "GenesBySpanLogic"

	Site             = "plasmodb"
	RecordType       = "transcript"
	BooleanSearch    = "boolean_question_TranscriptRecordClasses_TranscriptRecordClass"
	BooleanLeft      = "bq_left_op_TranscriptRecordClasses_TranscriptRecordClass"
	BooleanRight     = "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass"
	Organism         = "Plasmodium falciparum 3D7"
	OrganismJSON     = `["Plasmodium falciparum 3D7"]`
	GOTranslation    = "GO:0006412"
	GOReplication    = "GO:0006260"
	PopsetRecordType = "popsetSequence"
	PopsetSearch     = "PopsetByCountry"
	ProvenanceSource = "fake"
)

// Terms makes vocabulary terms displayed as themselves.
func Terms(ts ...string) []catalog.Term {
	out := make([]catalog.Term, len(ts))
	for i, t := range ts {
		out[i] = catalog.Term{Term: t, Display: t}
	}
	return out
}

// NewCatalog returns the catalog, answering and counting calls.
func NewCatalog() *Catalog {
	organism := catalog.Param{Name: "organism", Type: catalog.ParamMultiPick, Vocabulary: Terms(Organism), Default: OrganismJSON, HasDefault: true}
	input := func(name string) catalog.Param { return catalog.Param{Name: name, Type: catalog.ParamInputStep} }
	single := func(name, def string, vocab ...string) catalog.Param {
		return catalog.Param{Name: name, Type: catalog.ParamSinglePick, Vocabulary: Terms(vocab...), Default: def, HasDefault: def != ""}
	}
	str := func(name, def string) catalog.Param {
		return catalog.Param{Name: name, Type: catalog.ParamString, Default: def, HasDefault: def != ""}
	}
	search := func(name string, kind catalog.SearchKind, evaluable bool, rt string, params ...catalog.Param) *catalog.Search {
		s := &catalog.Search{SearchSummary: catalog.SearchSummary{Name: name, DisplayName: "Genes by " + name, RecordType: rt, Kind: kind, Evaluable: evaluable}, Params: params}
		for _, p := range params {
			if p.Type == catalog.ParamInputStep {
				s.InputParams = append(s.InputParams, p.Name)
			}
		}
		return s
	}
	span := []catalog.Param{str("span_sentence", ""), single("span_operation", "overlap", "overlap", "a_contain_b", "b_contain_a"),
		single("span_strand", "Both strands", "Both strands", "same strand", "opposite strand"), single("span_output", "none", "none", "a", "b"),
		single("region_a", "exact", "exact", "upstream", "downstream", "custom"), single("region_b", "exact", "exact", "upstream", "downstream", "custom")}
	for _, side := range []string{"a", "b"} {
		span = append(span, input("span_"+side),
			single("span_begin_"+side, "start", "start", "stop"), single("span_begin_direction_"+side, "+", "+", "-"), str("span_begin_offset_"+side, "0"),
			single("span_end_"+side, "stop", "start", "stop"), single("span_end_direction_"+side, "+", "+", "-"), str("span_end_offset_"+side, "0"))
	}
	all := []*catalog.Search{
		search("GenesByTaxon", catalog.KindLeaf, true, RecordType, organism),
		search("GenesByGoTerm", catalog.KindLeaf, true, RecordType, organism,
			catalog.Param{Name: "go_typeahead", Type: catalog.ParamMultiPick, IsVisible: true, Vocabulary: []catalog.Term{
				{Term: GOTranslation, Display: "translation (" + GOTranslation + ")"}, {Term: GOReplication, Display: "DNA replication (" + GOReplication + ") – a note"}}}),
		search("GenesByGeneType", catalog.KindLeaf, true, RecordType, organism, single("geneType", "", "protein coding", "tRNA encoding")),
		search("GenesByMolecularWeight", catalog.KindLeaf, false, RecordType, organism, str("min_molecular_weight", "10000"), str("max_molecular_weight", "50000")),
		search("GenesByWeightFilter", catalog.KindTransform, true, RecordType, input("gene_result"), str("min_weight", "0"), str("max_weight", "100")),
		search("GenesByOrthologs", catalog.KindTransform, false, RecordType, input("gene_result"), organism, single("isSyntenic", "no", "yes", "no")),
		search(BooleanSearch, catalog.KindCombine, true, RecordType, input(BooleanLeft), input(BooleanRight),
			single("bq_operator", "INTERSECT", "UNION", "INTERSECT", "MINUS", "RMINUS", "LONLY", "RONLY")),
		search(SpanSearch, catalog.KindCombine, false, RecordType, span...),
		search(PopsetSearch, catalog.KindLeaf, true, PopsetRecordType, str("country", "")),
	}
	f := &Catalog{searches: map[string]*catalog.Search{}, calls: map[string]int{}}
	for _, s := range all {
		f.searches[s.Name] = s
	}
	return f
}

// RecordTypes lists the site's two record types.
func (f *Catalog) RecordTypes(_ context.Context, site string) ([]catalog.RecordType, error) {
	if site != Site {
		return nil, catalog.ErrNotFound
	}
	return []catalog.RecordType{
		{Name: RecordType, FullName: "TranscriptRecordClasses.TranscriptRecordClass", DisplayName: "Gene"},
		{Name: PopsetRecordType, FullName: "PopsetRecordClasses.PopsetRecordClass", DisplayName: "Popset isolate"},
	}, nil
}

// Searches lists the searches of a record type.
func (f *Catalog) Searches(_ context.Context, site, recordType string) ([]catalog.SearchSummary, error) {
	if site != Site {
		return nil, catalog.ErrNotFound
	}
	var out []catalog.SearchSummary
	for _, s := range f.searches {
		if s.RecordType == recordType {
			out = append(out, s.SearchSummary)
		}
	}
	slices.SortFunc(out, func(a, b catalog.SearchSummary) int { return compareStrings(a.Name, b.Name) })
	return out, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Search describes one search.
func (f *Catalog) Search(_ context.Context, site, recordType, name string) (*catalog.Search, error) {
	s, ok := f.searches[name]
	if site != Site || !ok || recordType != "" && s.RecordType != recordType {
		return nil, fmt.Errorf("fake: search %s: %w", name, catalog.ErrNotFound)
	}
	c := *s
	return &c, nil
}

// Validate applies WDK's rules in miniature: unknown names, defaults,
// "Cannot be empty.", vocabulary Terms, input-step values "".
func (f *Catalog) Validate(ctx context.Context, site, name string, params map[string]string) (map[string]string, error) {
	s, err := f.Search(ctx, site, "", name)
	if err != nil {
		return nil, err
	}
	ve := &catalog.ValidationError{Search: name}
	for k := range params {
		if _, ok := s.Param(k); !ok {
			ve.Add(k, "Parameter '"+k+"' is not a parameter of "+name+".")
		}
	}
	out := map[string]string{}
	for _, p := range s.Params {
		v, given := params[p.Name]
		if !given {
			if !p.HasDefault && p.Type != catalog.ParamInputStep {
				ve.Add(p.Name, "Cannot be empty.")
				continue
			}
			v = p.Default
		}
		switch p.Type {
		case catalog.ParamInputStep:
			if v != "" {
				ve.Add(p.Name, "Answer Params in new steps must have the null value (empty string).")
			}
		case catalog.ParamSinglePick:
			if !slices.ContainsFunc(p.Vocabulary, func(t catalog.Term) bool { return t.Term == v }) {
				ve.Add(p.Name, fmt.Sprintf("Invalid value '%s'.", v))
			}
		case catalog.ParamMultiPick:
			var picks []string
			if err := json.Unmarshal([]byte(v), &picks); err != nil || len(picks) == 0 {
				ve.Add(p.Name, "Cannot be empty.")
			}
			for _, t := range picks {
				if !slices.ContainsFunc(p.Vocabulary, func(x catalog.Term) bool { return x.Term == t }) {
					ve.Add(p.Name, fmt.Sprintf("Invalid value '%s'.", t))
				}
			}
		case catalog.ParamString:
			if v == "" && p.Name != "span_sentence" {
				ve.Add(p.Name, "Cannot be empty.")
			}
		}
		out[p.Name] = v
	}
	if !ve.Empty() {
		return nil, ve
	}
	return out, nil
}

// Answer evaluates the tree over g001..g100 with WDK's set and weight
// rules, recording one call per query key.
func (f *Catalog) Answer(_ context.Context, site string, q *catalog.Query, page catalog.Page) (*catalog.Answer, error) {
	f.mu.Lock()
	f.calls[q.Key()]++
	failing := f.failing
	f.mu.Unlock()
	if failing {
		return nil, fmt.Errorf("fake: answer: %w", catalog.ErrUnavailable)
	}
	if site != Site {
		return nil, catalog.ErrNotFound
	}
	set, err := f.eval(q)
	if err != nil {
		return nil, err
	}
	ids := make([]int, 0, len(set))
	for g := range set {
		ids = append(ids, g)
	}
	slices.Sort(ids)
	ans := &catalog.Answer{Count: len(ids), Records: []catalog.Record{}, Provenance: catalog.Provenance{Source: ProvenanceSource, Year: 2017, Offline: true}}
	for i := page.Offset; i < len(ids) && i < page.Offset+page.Limit; i++ {
		ans.Records = append(ans.Records, catalog.Record{GeneID: fmt.Sprintf("g%03d", ids[i]), Weight: set[ids[i]]})
	}
	return ans, nil
}

func (f *Catalog) eval(q *catalog.Query) (map[int]int, error) {
	s, ok := f.searches[q.Search]
	if !ok {
		return nil, catalog.ErrNotFound
	}
	if !s.Evaluable {
		return nil, &catalog.NotEvaluableError{Search: q.Search, Reason: "no data in the fake"}
	}
	leaf := func(from, to int) map[int]int {
		out := map[int]int{}
		for g := from; g <= to; g++ {
			out[g] = q.Weight
		}
		return out
	}
	var ins []map[int]int
	for _, in := range q.Inputs {
		r, err := f.eval(in)
		if err != nil {
			return nil, err
		}
		ins = append(ins, r)
	}
	switch q.Search {
	case "GenesByTaxon":
		return leaf(1, 100), nil
	case "GenesByGoTerm":
		out := map[int]int{}
		var picks []string
		_ = json.Unmarshal([]byte(q.Params["go_typeahead"]), &picks)
		for _, t := range picks {
			r := map[string][2]int{GOTranslation: {1, 40}, GOReplication: {31, 60}}[t]
			for g, w := range leaf(r[0], r[1]) {
				out[g] = w
			}
		}
		return out, nil
	case "GenesByGeneType":
		if q.Params["geneType"] == "tRNA encoding" {
			return leaf(91, 100), nil
		}
		return leaf(1, 90), nil
	case "GenesByWeightFilter":
		lo, _ := strconv.Atoi(q.Params["min_weight"])
		hi, _ := strconv.Atoi(q.Params["max_weight"])
		out := map[int]int{}
		for g, w := range ins[0] {
			if w >= lo && w <= hi {
				out[g] = w
			}
		}
		return out, nil
	case BooleanSearch:
		return combineSets(q.Params["bq_operator"], ins[0], ins[1]), nil
	}
	return nil, fmt.Errorf("fake: cannot evaluate %s", q.Search)
}

func combineSets(op string, l, r map[int]int) map[int]int {
	out := map[int]int{}
	switch op {
	case "INTERSECT":
		for g, w := range l {
			if rw, ok := r[g]; ok {
				out[g] = w + rw
			}
		}
	case "UNION":
		for g, w := range l {
			out[g] = w
		}
		for g, w := range r {
			out[g] += w
		}
	case "MINUS", "RMINUS":
		if op == "RMINUS" {
			l, r = r, l
		}
		for g, w := range l {
			if _, ok := r[g]; !ok {
				out[g] = w
			}
		}
	case "LONLY":
		return l
	case "RONLY":
		return r
	}
	return out
}

// CallCount returns how many times Answer ran for key.
func (f *Catalog) CallCount(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

// TotalCalls returns how many times Answer ran.
func (f *Catalog) TotalCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

// SetFailing makes Answer fail with catalog.ErrUnavailable (or not).
func (f *Catalog) SetFailing(v bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing = v
}
