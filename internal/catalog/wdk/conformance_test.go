package wdk

import (
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/catalog/catalogtest"
)

// TestConformance runs the behaviour every catalog shares against the
// client and the fake site.
func TestConformance(t *testing.T) {
	catalogtest.Run(t, func(t *testing.T) (catalog.Catalog, catalogtest.Fixture) {
		c := newTestClient(t, nil)
		t.Cleanup(func() { c.fake.checkNoViolations(t) })
		return c.Client, catalogtest.Fixture{
			Site:       "plasmodb",
			RecordType: "transcript",
			GOSearch:   "GenesByGoTerm",
			Required:   map[string]string{"go_typeahead": `["GO:0006412"]`},
			MultiPick:  "go_term_evidence",
			Terms:      [2]string{"Curated", "Computed"},
			Boolean:    boolSearch,
			Operator:   "bq_operator",
			// Translation (genes 1-3) and DNA replication (genes 2-4).
			A: goTerm("GO:0006412", 0),
			B: goTerm("GO:0006260", 0),
		}
	})
}
