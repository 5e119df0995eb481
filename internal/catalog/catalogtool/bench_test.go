package catalogtool_test

import (
	"context"
	"encoding/json"
	"testing"

	"strategist/internal/catalog/catalogtool"
	"strategist/internal/tool"
)

// benchTool runs one tool through Tool.Call (schema validation, decoding,
// handler) as the loop does, without the model.
func benchTool(b *testing.B, name, args string) {
	c := loadData(b)
	if c.DataErr() != nil {
		b.Skip("gene data not found; run `make data`")
	}
	set, err := catalogtool.New(catalogtool.Config{Catalog: c, Site: "plasmodb"})
	if err != nil {
		b.Fatal(err)
	}
	ts, err := tool.NewToolset(set.Tools()...)
	if err != nil {
		b.Fatal(err)
	}
	tool, _ := ts.Lookup(name)
	raw := json.RawMessage(args)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.Call(ctx, raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchForSearches(b *testing.B) {
	benchTool(b, "search_for_searches", `{"query":"genes annotated with a GO biological process"}`)
}

func BenchmarkGetSearchParameters(b *testing.B) {
	benchTool(b, "get_search_parameters", `{"record_type":"transcript","search_name":"GenesByGoTerm"}`)
}

func BenchmarkGetSearchParametersVocabularyQuery(b *testing.B) {
	benchTool(b, "get_search_parameters", `{"record_type":"transcript","search_name":"GenesByGoTerm","vocabulary_query":"DNA repair"}`)
}

func BenchmarkLookupGenesByID(b *testing.B) {
	benchTool(b, "lookup_genes", `{"query":"PF3D7_1133400 PF11_0344 AMA1"}`)
}

func BenchmarkLookupGenesByProduct(b *testing.B) {
	benchTool(b, "lookup_genes", `{"query":"apical membrane antigen"}`)
}

// A vocabulary query that matches no term: the nearest spellings are
// looked for across the whole vocabulary.
func BenchmarkGetSearchParametersVocabularyTypo(b *testing.B) {
	benchTool(b, "get_search_parameters", `{"record_type":"transcript","search_name":"GenesByGoTerm","vocabulary_query":"DNA repiar"}`)
}
