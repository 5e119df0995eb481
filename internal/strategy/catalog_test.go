package strategy

import (
	"testing"

	"go.uber.org/goleak"

	"strategist/internal/strategy/strategytest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The model's tests run over the tests' catalog of strategytest, under the
// short names they were written with.
type fakeCatalog = strategytest.Catalog

func newFakeCatalog() *fakeCatalog { return strategytest.NewCatalog() }

const (
	testSite    = strategytest.Site
	testRT      = strategytest.RecordType
	boolName    = strategytest.BooleanSearch
	boolLeft    = strategytest.BooleanLeft
	boolRight   = strategytest.BooleanRight
	pf3d7JSON   = strategytest.OrganismJSON
	popsetRT    = strategytest.PopsetRecordType
	popsetSrch  = strategytest.PopsetSearch
	testProvSrc = strategytest.ProvenanceSource
)

// TestSpanSearchName: the tests' catalog names the span search as the
// model does.
func TestSpanSearchName(t *testing.T) {
	if strategytest.SpanSearch != SpanSearch {
		t.Errorf("strategytest.SpanSearch = %q, want %q", strategytest.SpanSearch, SpanSearch)
	}
}
