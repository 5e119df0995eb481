package strategies

import (
	"strconv"

	"strategist/internal/strategy"
	"strategist/internal/strategy/strategytest"
)

// The service's tests run over the tests' catalog of strategytest, under
// the short names they were written with.
type fakeCatalog = strategytest.Catalog

func newFakeCatalog() *fakeCatalog { return strategytest.NewCatalog() }

const (
	testSite    = strategytest.Site
	testRT      = strategytest.RecordType
	pf3d7JSON   = strategytest.OrganismJSON
	testProvSrc = strategytest.ProvenanceSource
)

func ptr[T any](v T) *T { return &v }

// The searches the tests add (as in the model's tests).
var (
	translation = strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006412"]`}, DisplayName: "Translation"}
	replication = strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}}
	trna        = strategy.AddSearch{SearchName: "GenesByGeneType", Parameters: map[string]string{"geneType": "tRNA encoding"}}
)

// counts is each step's count status (and count), by step.
func counts(g *strategy.Graph) map[strategy.StepID]string {
	out := map[strategy.StepID]string{}
	for _, s := range g.Steps {
		v := s.CountStatus.String()
		if s.Count != nil {
			v += " " + strconv.Itoa(*s.Count)
		}
		out[s.ID] = v
	}
	return out
}
