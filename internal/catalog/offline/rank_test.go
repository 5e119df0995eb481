package offline

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

// The ranking needs no gene data, so these tests always run.
func noDataCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := New(Config{DataErr: &MissingDataError{Dir: "nowhere", File: FileGeneAnnotation}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestNoDataAnswers: without the gene data a tree with a search the
// engine never evaluates (span logic) is not evaluable, naming it; a tree
// of evaluable searches is unavailable for want of the data.
func TestNoDataAnswers(t *testing.T) {
	c := noDataCatalog(t)
	taxon := &catalog.Query{Search: "GenesByTaxon", Params: map[string]string{"organism": `["Plasmodium falciparum 3D7"]`}}
	span := &catalog.Query{Search: "GenesBySpanLogic", Params: map[string]string{"span_sentence": "A overlaps B"}, Inputs: []*catalog.Query{taxon, taxon}}
	_, err := c.Answer(context.Background(), site, span, catalog.Page{})
	if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); !ok || ne.Search != "GenesBySpanLogic" || ne.Reason == "" {
		t.Errorf("span logic without data: %v, want not evaluable naming GenesBySpanLogic", err)
	}
	_, err = c.Answer(context.Background(), site, taxon, catalog.Page{})
	if _, ok := errors.AsType[*NoDataError](err); !ok || !errors.Is(err, catalog.ErrUnavailable) {
		t.Errorf("taxon without data: %v, want *NoDataError", err)
	}
}

func TestSearchForSearchesRanking(t *testing.T) {
	c := noDataCatalog(t)
	tests := []struct {
		query string
		want  string
	}{
		{"GO term", "GenesByGoTerm"},
		{"gene ontology", "GenesByGoTerm"},
		{"biological process", "GenesByGoTerm"},
		{"chromosome", "GenesByLocation"},
		{"gene type tRNA", "GenesByGeneType"},
		{"text", "GenesByText"},
		{"product description keyword", "GenesByText"},
		{"gene id", "GeneByLocusTag"},
		{"list of gene IDs", "GeneByLocusTag"},
		{"molecular weight", "GenesByMolecularWeight"},
		{"orthologs", "GenesByOrthologs"},
		{"signal peptide", "GenesWithSignalPeptide"},
		{"transmembrane domains", "GenesByTransmembraneDomains"},
		{"isoelectric point", "GenesByIsoelectricPoint"},
		{"EC number enzyme", "GenesByEcNumber"},
		{"pfam domain", "GenesByInterproDomain"},
		{"exported proteins PEXEL", "GenesByExportPrediction"},
		{"metabolic pathway", "GenesByMetabolicPathway"},
		{"phylogenetic profile", "GenesByOrthologPattern"},
		{"paralogs", "GenesByParalogCount"},
		{"exon count", "GenesByExonCount"},
		{"intersect two results", boolSearch},
		{"filter by weight", "GenesByWeightFilter"},
		{"overlapping upstream genes", "GenesBySpanLogic"},
		{"organism", "GenesByTaxon"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := c.SearchForSearches(context.Background(), site, tt.query, "", 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || got[0].Name != tt.want {
				var names []string
				for _, s := range got {
					names = append(names, s.Name)
				}
				t.Errorf("SearchForSearches(%q) = %v, want %s first", tt.query, names, tt.want)
			}
		})
	}
}

func TestSearchForSearchesBehaviour(t *testing.T) {
	c := noDataCatalog(t)
	ctx := context.Background()
	first, err := c.SearchForSearches(ctx, site, "weight", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := c.SearchForSearches(ctx, site, "weight", "", 0)
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("ranking is not stable (-first +again):\n%s", diff)
	}
	for i := 1; i < len(first); i++ {
		if first[i].Score > first[i-1].Score {
			t.Errorf("scores not descending at %d: %v", i, first)
		}
	}
	limited, _ := c.SearchForSearches(ctx, site, "weight", "", 1)
	if len(limited) != 1 || limited[0].Name != first[0].Name {
		t.Errorf("limit 1 = %v", limited)
	}
	all, _ := c.SearchForSearches(ctx, site, "", "transcript", 0)
	if len(all) != 22 {
		t.Errorf("empty query lists %d searches, want 22", len(all))
	}
	none, _ := c.SearchForSearches(ctx, site, "zebrafish xylophone", "", 0)
	if len(none) != 0 {
		t.Errorf("unrelated query matched %v", none)
	}
	other, err := c.SearchForSearches(ctx, site, "GO term", "gene", 0)
	if err != nil || len(other) != 0 {
		t.Errorf("record type gene: %v, %v; want no searches", other, err)
	}
	if _, err := c.SearchForSearches(ctx, site, "GO", "no-such-type", 0); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown record type: %v", err)
	}
}
