package offline

import (
	"sync"
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/catalog/catalogtest"
)

// TestConformance runs the behaviour every catalog shares against the
// snapshot.
func TestConformance(t *testing.T) {
	dir := testDataDir(t)
	load := sync.OnceValues(func() (*Data, error) { return Load(dir) }) // once for every subtest
	catalogtest.Run(t, func(t *testing.T) (catalog.Catalog, catalogtest.Fixture) {
		d, err := load()
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		c, err := New(Config{Data: d})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		return c, catalogtest.Fixture{
			Site:       site,
			RecordType: RecordTypeTranscript,
			GOSearch:   "GenesByGoTerm",
			Required:   map[string]string{"organism": testOrg, "go_typeahead": `["GO:0006412"]`},
			MultiPick:  "go_term_evidence",
			Terms:      [2]string{"Curated", "Computed"},
			Boolean:    boolSearch,
			Operator:   "bq_operator",
			// Translation genes, and the genes whose annotation mentions
			// "ribosomal".
			A:            goQuery(0, "GO:0006412"),
			B:            &catalog.Query{Search: "GenesByText", Params: map[string]string{"text_search_organism": testOrg, "text_expression": "ribosomal"}},
			NotEvaluable: &catalog.Query{Search: "GenesByMolecularWeight", Params: map[string]string{"organism": testOrg}},
		}
	})
}
