package catalogtool_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
	"strategist/internal/catalog/catalogtool"
	"strategist/internal/tool"
)

func TestNewRequiresCatalogAndSite(t *testing.T) {
	for _, cfg := range []catalogtool.Config{
		{Site: "plasmodb"},
		{Catalog: noDataCatalog(t)},
		{Catalog: noDataCatalog(t), Site: "plasmodb", MaxListedTerms: -1},
	} {
		if _, err := catalogtool.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

func TestToolsDeclared(t *testing.T) {
	set := newSet(t, catalogtool.Config{Catalog: noDataCatalog(t), Site: "plasmodb"})
	ts, err := tool.NewToolset(set.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"list_sites", "list_record_types", "search_for_searches", "get_search_parameters", "lookup_genes"}
	if diff := cmp.Diff(want, ts.Names()); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
}

func TestListSitesAndRecordTypes(t *testing.T) {
	set := newSet(t, catalogtool.Config{Catalog: noDataCatalog(t), Site: "plasmodb"})
	got, err := call(t, set, "list_sites", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	want := &catalogtool.SitesResult{CurrentSite: "plasmodb",
		Sites: []catalogtool.SiteInfo{{ID: "plasmodb", DisplayName: "PlasmoDB", Offline: true, Current: true}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list_sites (-want +got):\n%s", diff)
	}

	got, err = call(t, set, "list_record_types", `null`)
	if err != nil {
		t.Fatal(err)
	}
	rts := got.(*catalogtool.RecordTypesResult)
	if rts.Site != "plasmodb" || len(rts.RecordTypes) == 0 {
		t.Fatalf("list_record_types = %+v", rts)
	}
	if first := rts.RecordTypes[0]; first.Name != "transcript" || first.DisplayName != "Gene" || first.SearchCount == 0 {
		t.Errorf("first record type = %+v, want transcript (Gene) with searches", first)
	}

	// A site the catalog does not have is NOT_FOUND.
	other := newSet(t, catalogtool.Config{Catalog: noDataCatalog(t), Site: "toxodb"})
	_, err = call(t, other, "list_record_types", `{}`)
	if te := toolError(t, err); te.Code != catalogtool.CodeNotFound {
		t.Errorf("unknown site: code %s, want NOT_FOUND", te.Code)
	}
}

func TestSearchForSearchesRanking(t *testing.T) {
	set := newSet(t, catalogtool.Config{Catalog: noDataCatalog(t), Site: "plasmodb"})
	tests := []struct {
		args      string
		first     string
		evaluable bool
	}{
		{`{"query":"GO term biological process"}`, "GenesByGoTerm", true},
		{`{"query":"genes on chromosome 14","limit":3}`, "GenesByLocation", true},
		{`{"query":"gene type tRNA","record_type":"transcript"}`, "GenesByGeneType", true},
		{`{"query":"list of gene ids"}`, "GeneByLocusTag", true},
		{`{"query":"protein molecular weight"}`, "GenesByMolecularWeight", false},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			got, err := call(t, set, "search_for_searches", tt.args)
			if err != nil {
				t.Fatal(err)
			}
			res := got.(*catalogtool.SearchesResult)
			if len(res.Searches) == 0 {
				t.Fatalf("no searches; hint %q", res.Hint)
			}
			first := res.Searches[0]
			if first.Name != tt.first || first.Evaluable != tt.evaluable || first.Kind != catalog.KindLeaf || first.RecordType != "transcript" {
				t.Errorf("first = %+v, want %s (evaluable %v)", first, tt.first, tt.evaluable)
			}
			for i := 1; i < len(res.Searches); i++ {
				if res.Searches[i].Score > res.Searches[i-1].Score {
					t.Errorf("scores not descending at %d: %v", i, res.Searches)
				}
			}
		})
	}

	got, err := call(t, set, "search_for_searches", `{"query":"GO term","limit":2}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.(*catalogtool.SearchesResult).Searches); n > 2 {
		t.Errorf("limit 2 gave %d searches", n)
	}
	got, err = call(t, set, "search_for_searches", `{"query":"xyzzy plugh"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res := got.(*catalogtool.SearchesResult); len(res.Searches) != 0 || res.Hint == "" {
		t.Errorf("nonsense query = %+v, want no searches and a hint", res)
	}
}

func TestSearchForSearchesBadArguments(t *testing.T) {
	set := newSet(t, catalogtool.Config{Catalog: noDataCatalog(t), Site: "plasmodb"})
	tests := []struct {
		args string
		code string
	}{
		{`{"query":""}`, tool.CodeValidation},
		{`{}`, tool.CodeValidation},
		{`{"query":"go","limit":500}`, tool.CodeValidation},
		{`{"query":"go","recordtype":"transcript"}`, tool.CodeValidation},
		{`{"query":"go","record_type":"sequence"}`, catalogtool.CodeNotFound},
	}
	for _, tt := range tests {
		_, err := call(t, set, "search_for_searches", tt.args)
		if te := toolError(t, err); te.Code != tt.code {
			t.Errorf("%s: code %s (%s), want %s", tt.args, te.Code, te.Message, tt.code)
		}
	}
	_, err := call(t, set, "search_for_searches", `{"query":"go","record_type":"sequence"}`)
	te := toolError(t, err)
	if diff := cmp.Diff([]string{"transcript"}, te.Details["recordTypesWithSearches"]); diff != "" {
		t.Errorf("record types offered (-want +got):\n%s", diff)
	}
}

// paramByName finds a parameter in a get_search_parameters result.
func paramByName(t *testing.T, d *catalogtool.SearchDetails, name string) catalogtool.ParamInfo {
	t.Helper()
	i := slices.IndexFunc(d.Parameters, func(p catalogtool.ParamInfo) bool { return p.Name == name })
	if i < 0 {
		t.Fatalf("no parameter %s in %s", name, d.Name)
	}
	return d.Parameters[i]
}

func TestGetSearchParametersGoTerm(t *testing.T) {
	set := newSet(t, catalogtool.Config{Catalog: dataCatalog(t), Site: "plasmodb"})
	got, err := call(t, set, "get_search_parameters", `{"record_type":"transcript","search_name":"GenesByGoTerm"}`)
	if err != nil {
		t.Fatal(err)
	}
	d := got.(*catalogtool.SearchDetails)
	if d.Name != "GenesByGoTerm" || d.RecordType != "transcript" || d.Kind != catalog.KindLeaf || !d.Evaluable || d.Note != "" {
		t.Errorf("search = %s %s %s evaluable %v note %q", d.Name, d.RecordType, d.Kind, d.Evaluable, d.Note)
	}
	if !strings.Contains(d.OfflineNote, "biological-process") || !strings.Contains(d.Encoding, "JSON-array") {
		t.Errorf("offline note %q / encoding %q", d.OfflineNote, d.Encoding)
	}
	var names []string
	for _, p := range d.Parameters {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"organism", "go_term_evidence", "go_term_slim", "go_typeahead", "go_term"}, names); diff != "" {
		t.Errorf("parameters (-want +got):\n%s", diff)
	}

	organism := paramByName(t, d, "organism")
	if !organism.Required || organism.Default != nil || organism.Format != `a JSON-array string of terms, e.g. "[\"Plasmodium falciparum 3D7\"]"` {
		t.Errorf("organism = %+v; want required, no default, the leaf term as example", organism)
	}
	if diff := cmp.Diff([]catalogtool.Term{{Term: "Plasmodiidae"}, {Term: "Plasmodium", Parent: "Plasmodiidae"},
		{Term: "Plasmodium falciparum 3D7", Parent: "Plasmodium"}}, organism.Values); diff != "" {
		t.Errorf("organism values (-want +got):\n%s", diff)
	}

	slim := paramByName(t, d, "go_term_slim")
	if slim.Required || slim.Default == nil || *slim.Default != "No" || len(slim.Values) != 2 ||
		!slices.Equal(slim.DependentParams, []string{"go_typeahead"}) || slim.Format != `one term, e.g. "No"` {
		t.Errorf("go_term_slim = %+v", slim)
	}
	if wildcard := paramByName(t, d, "go_term"); wildcard.Default == nil || *wildcard.Default != "N/A" || wildcard.Required {
		t.Errorf("go_term = %+v, want default N/A", wildcard)
	}

	// 1,875 GO terms (1,864 gene sets of the 2017 file and 11 current ids
	// GO has merged some of them into) are trimmed to examples with a way
	// to search them.
	terms := paramByName(t, d, "go_typeahead")
	if !terms.Required || terms.VocabularySize != 1875 || len(terms.Values) != 5 ||
		!strings.Contains(terms.VocabularyHint, "vocabulary_query") {
		t.Errorf("go_typeahead = size %d, %d values, hint %q", terms.VocabularySize, len(terms.Values), terms.VocabularyHint)
	}
	if v := terms.Values[0]; !strings.HasPrefix(v.Term, "GO:") || !strings.Contains(v.Display, v.Term) {
		t.Errorf("GO example %+v: want a GO id with its name", v)
	}
}

func TestGetSearchParametersVocabularyQuery(t *testing.T) {
	set := newSet(t, catalogtool.Config{Catalog: dataCatalog(t), Site: "plasmodb", MaxListedTerms: 4})
	tests := []struct {
		query     string
		first     catalogtool.Term
		wantCount int // values listed
		hint      string
	}{
		{"DNA repair", catalogtool.Term{Term: "GO:0006281", Display: "DNA repair (GO:0006281)"}, 4, "the best 4 are shown"},
		{"go:0006260", catalogtool.Term{Term: "GO:0006260", Display: "DNA replication (GO:0006260)"}, 1, "the 1 terms matching"},
		{"GO:0098609", catalogtool.Term{Term: "GO:0098609", Display: "cell-cell adhesion (GO:0098609) – listed in the 2017 data as GO:0016337"}, 2, "the 2 terms matching"},
		{"zzzz", catalogtool.Term{}, 0, "none of the 1875 terms"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := call(t, set, "get_search_parameters",
				fmt.Sprintf(`{"record_type":"transcript","search_name":"GenesByGoTerm","vocabulary_query":%q}`, tt.query))
			if err != nil {
				t.Fatal(err)
			}
			p := paramByName(t, got.(*catalogtool.SearchDetails), "go_typeahead")
			if len(p.Values) != tt.wantCount || !strings.Contains(p.VocabularyHint, tt.hint) {
				t.Fatalf("%d values, hint %q; want %d values, hint with %q", len(p.Values), p.VocabularyHint, tt.wantCount, tt.hint)
			}
			if tt.wantCount > 0 {
				// A term the query names exactly comes with GO's definition.
				exact := strings.EqualFold(tt.query, tt.first.Term) || strings.HasPrefix(strings.ToLower(tt.first.Display), strings.ToLower(tt.query)+" (")
				if got := p.Values[0].Definition; (got != "") != exact {
					t.Errorf("definition %q, want one exactly when the query names the term", got)
				}
				first := p.Values[0]
				first.Definition = ""
				if diff := cmp.Diff(tt.first, first); diff != "" {
					t.Errorf("best match (-want +got):\n%s", diff)
				}
			}
			// Small vocabularies stay listed whole whatever the query.
			if slim := paramByName(t, got.(*catalogtool.SearchDetails), "go_term_slim"); len(slim.Values) != 2 {
				t.Errorf("go_term_slim values = %v", slim.Values)
			}
		})
	}
}

// TestGetSearchParametersVocabularySuggestions: a vocabulary_query that
// matches no term gets the terms nearest in spelling, marked as
// suggestions and not as values; a query that matches gets none.
func TestGetSearchParametersVocabularySuggestions(t *testing.T) {
	set := newSet(t, catalogtool.Config{Catalog: dataCatalog(t), Site: "plasmodb"})
	lookup := func(t *testing.T, query string) catalogtool.ParamInfo {
		t.Helper()
		got, err := call(t, set, "get_search_parameters",
			fmt.Sprintf(`{"record_type":"transcript","search_name":"GenesByGoTerm","vocabulary_query":%q}`, query))
		if err != nil {
			t.Fatal(err)
		}
		return paramByName(t, got.(*catalogtool.SearchDetails), "go_typeahead")
	}
	tests := []struct {
		query string
		first catalogtool.Term
	}{
		{"DNA repiar", catalogtool.Term{Term: "GO:0006281", Display: "DNA repair (GO:0006281)"}},          // a swap is one edit
		{"dna replicaton", catalogtool.Term{Term: "GO:0006260", Display: "DNA replication (GO:0006260)"}}, // a letter left out
		{"tranlsation", catalogtool.Term{Term: "GO:0006412", Display: "translation (GO:0006412)"}},
		{"rtanslation", catalogtool.Term{Term: "GO:0006412", Display: "translation (GO:0006412)"}}, // its first letters
		// A typo of one of GO's synonyms suggests its term, with the synonym.
		{"apoptosys", catalogtool.Term{Term: "GO:0006915", Display: "apoptotic process (GO:0006915)", Synonym: "apoptosis"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := lookup(t, tt.query)
			if len(p.Values) != 0 || len(p.Suggestions) == 0 || len(p.Suggestions) > 5 {
				t.Fatalf("%d values, %d suggestions; want none and 1 to 5", len(p.Values), len(p.Suggestions))
			}
			if diff := cmp.Diff(tt.first, p.Suggestions[0]); diff != "" {
				t.Errorf("nearest suggestion (-want +got):\n%s", diff)
			}
			if !strings.Contains(p.VocabularyHint, "none of the") || !strings.Contains(p.VocabularyHint, "suggestions") {
				t.Errorf("hint %q does not say the suggestions are not matches", p.VocabularyHint)
			}
		})
	}
	if p := lookup(t, "DNA repair"); len(p.Suggestions) != 0 || len(p.Values) == 0 || p.Values[0].Term != "GO:0006281" {
		t.Errorf("exact hit: values %v, suggestions %v", p.Values, p.Suggestions)
	}
	if p := lookup(t, "zzzz"); len(p.Suggestions) != 0 || len(p.Values) != 0 {
		t.Errorf("nothing near: values %v, suggestions %v", p.Values, p.Suggestions)
	}
}

func TestGetSearchParametersCorrections(t *testing.T) {
	set := newSet(t, catalogtool.Config{Catalog: noDataCatalog(t), Site: "plasmodb"})

	// A guessed record type is corrected, not refused: search names are
	// unique within a site.
	got, err := call(t, set, "get_search_parameters", `{"record_type":"gene","search_name":"GenesByLocation"}`)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.(*catalogtool.SearchDetails); d.RecordType != "transcript" || !strings.Contains(d.Note, `use "transcript"`) {
		t.Errorf("record type %q, note %q", d.RecordType, d.Note)
	}

	// An unknown search is NOT_FOUND with the closest names.
	_, err = call(t, set, "get_search_parameters", `{"record_type":"transcript","search_name":"GenesByGOTerms"}`)
	te := toolError(t, err)
	if te.Code != catalogtool.CodeNotFound || !slices.Contains(te.Details["suggestions"].([]string), "GenesByGoTerm") ||
		!errors.Is(te, catalog.ErrNotFound) {
		t.Errorf("unknown search: %s %q %v", te.Code, te.Message, te.Details)
	}

	// A transform's input-step parameter is left to the graph tools.
	got, err = call(t, set, "get_search_parameters", `{"record_type":"transcript","search_name":"GenesByWeightFilter"}`)
	if err != nil {
		t.Fatal(err)
	}
	d := got.(*catalogtool.SearchDetails)
	if d.Kind != catalog.KindTransform || !slices.Equal(d.InputParams, []string{"gene_result"}) {
		t.Errorf("GenesByWeightFilter kind %s inputs %v", d.Kind, d.InputParams)
	}
	for _, p := range d.Parameters {
		if p.Type == catalog.ParamInputStep {
			t.Errorf("input-step parameter %s listed as a value to fill", p.Name)
		}
	}
	if p := paramByName(t, d, "min_weight"); !strings.HasPrefix(p.Format, "a number written as a string") {
		t.Errorf("min_weight format %q", p.Format)
	}

	// Without gene data a data vocabulary is unknown, and says so.
	got, err = call(t, set, "get_search_parameters", `{"record_type":"transcript","search_name":"GenesByGoTerm"}`)
	if err != nil {
		t.Fatal(err)
	}
	if p := paramByName(t, got.(*catalogtool.SearchDetails), "go_typeahead"); len(p.Values) != 0 || p.VocabularyHint == "" {
		t.Errorf("go_typeahead without data = %+v", p)
	}
}

func TestLookupGenes(t *testing.T) {
	set := newSet(t, catalogtool.Config{Catalog: dataCatalog(t), Site: "plasmodb"})
	got, err := call(t, set, "lookup_genes", `{"query":"AMA1"}`)
	if err != nil {
		t.Fatal(err)
	}
	res := got.(*catalogtool.GenesResult)
	want := []catalog.GeneMatch{{GeneID: "PF3D7_1133400", Symbol: "AMA1", Product: "apical membrane antigen 1",
		GeneType: "protein coding", Chromosome: "Pf3D7_11_v3", PreviousIDs: []string{"PF11_0344"},
		// Its most specific processes: the smallest current gene sets that
		// hold it, one per name.
		Processes: []catalog.Term{{Term: "GO:0044409", Display: "entry into host"}, {Term: "GO:0040011", Display: "locomotion"},
			{Term: "GO:0051701", Display: "biological process involved in interaction with host"},
			{Term: "GO:0044403", Display: "biological process involved in symbiotic interaction"},
			{Term: "GO:0044419", Display: "biological process involved in interspecies interaction between organisms"}},
		MatchedOn: catalog.MatchedSymbol, Matched: "AMA1"}}
	if diff := cmp.Diff(want, res.Genes); diff != "" {
		t.Errorf("lookup AMA1 (-want +got):\n%s", diff)
	}
	if res.Truncated || res.Total != 1 || !res.Provenance.Offline {
		t.Errorf("total %d truncated %v provenance %+v", res.Total, res.Truncated, res.Provenance)
	}

	got, err = call(t, set, "lookup_genes", `{"query":"protein kinase","limit":3}`)
	if err != nil {
		t.Fatal(err)
	}
	if res := got.(*catalogtool.GenesResult); len(res.Genes) != 3 || !res.Truncated || res.Total <= 3 {
		t.Errorf("kinases: %d genes of %d, truncated %v", len(res.Genes), res.Total, res.Truncated)
	}
}

// noLookup hides the offline catalog's LookupGenes: a catalog that cannot
// look genes up.
type noLookup struct{ catalog.Catalog }

func TestLookupGenesUnavailable(t *testing.T) {
	tests := []struct {
		name string
		cat  catalog.Catalog
	}{
		{"no gene data", noDataCatalog(t)},
		{"catalog without lookup", noLookup{noDataCatalog(t)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := newSet(t, catalogtool.Config{Catalog: tt.cat, Site: "plasmodb"})
			_, err := call(t, set, "lookup_genes", `{"query":"AMA1"}`)
			if te := toolError(t, err); te.Code != catalogtool.CodeUnavailable {
				t.Errorf("code %s (%s), want UNAVAILABLE", te.Code, te.Message)
			}
		})
	}
}

func TestToolError(t *testing.T) {
	ve := &catalog.ValidationError{Search: "GenesByGoTerm"}
	ve.Add("organism", "Cannot be empty.")
	ve.Add("", "one general problem")
	tests := []struct {
		name    string
		err     error
		code    string
		details map[string]any
	}{
		{"validation", fmt.Errorf("validate: %w", ve), catalogtool.CodeValidation, map[string]any{
			"search": "GenesByGoTerm", "byKey": map[string][]string{"organism": {"Cannot be empty."}}, "general": []string{"one general problem"}}},
		{"not found", fmt.Errorf("x: %w", catalog.ErrNotFound), catalogtool.CodeNotFound, nil},
		{"unavailable", fmt.Errorf("x: %w", catalog.ErrUnavailable), catalogtool.CodeUnavailable, nil},
		{"not evaluable", &catalog.NotEvaluableError{Search: "GenesByExonCount", Reason: "no exon data"}, catalogtool.CodeNotEvaluable,
			map[string]any{"search": "GenesByExonCount", "reason": "no exon data"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := toolError(t, catalogtool.ToolError("op", tt.err))
			if te.Code != tt.code {
				t.Errorf("code %s, want %s", te.Code, tt.code)
			}
			if diff := cmp.Diff(tt.details, te.Details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
			if !errors.Is(te, tt.err) {
				t.Errorf("tool error does not wrap %v", tt.err)
			}
		})
	}
	if err := catalogtool.ToolError("op", context.Canceled); err != context.Canceled {
		t.Errorf("context error = %v, want it unchanged", err)
	}
	plain := errors.New("disk on fire")
	if err := catalogtool.ToolError("op", plain); !errors.Is(err, plain) || err.Error() != "catalogtool: op: disk on fire" {
		t.Errorf("plain error = %v", err)
	}
	if catalogtool.ToolError("op", nil) != nil {
		t.Error("ToolError(nil) != nil")
	}
}
