package offline

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

// lookupKey is the part of a match the table compares.
type lookupKey struct {
	GeneID, On, Matched string
}

func TestLookupGenes(t *testing.T) {
	c := testCatalog(t)
	tests := []struct {
		name      string
		query     string
		limit     int
		want      []lookupKey // the first len(want) matches
		total     int         // 0: not checked
		unmatched []string
	}{
		{name: "gene id, any case", query: "pf3d7_1133400",
			want: []lookupKey{{"PF3D7_1133400", catalog.MatchedGeneID, "pf3d7_1133400"}}, total: 1},
		{name: "transcript id", query: "PF3D7_1133400.1",
			want: []lookupKey{{"PF3D7_1133400", catalog.MatchedTranscriptID, "PF3D7_1133400.1"}}, total: 1},
		{name: "previous id", query: "PF11_0344",
			want: []lookupKey{{"PF3D7_1133400", catalog.MatchedPreviousID, "PF11_0344"}}, total: 1},
		{name: "symbol", query: "ama1",
			want: []lookupKey{{"PF3D7_1133400", catalog.MatchedSymbol, "ama1"}}, total: 1},
		{name: "list in query order, unmatched reported", query: "PF3D7_0100200, PF3D7_1133400; PF3D7_9999999",
			want: []lookupKey{
				{"PF3D7_0100200", catalog.MatchedGeneID, "PF3D7_0100200"},
				{"PF3D7_1133400", catalog.MatchedGeneID, "PF3D7_1133400"},
			}, total: 2, unmatched: []string{"PF3D7_9999999"}},
		{name: "product words, exact product first", query: "apical membrane antigen 1",
			want: []lookupKey{{"PF3D7_1133400", catalog.MatchedProduct, "apical membrane antigen 1"}}},
		{name: "wildcard id", query: "PF3D7_11334*", limit: 3,
			want: []lookupKey{{"PF3D7_1133400", catalog.MatchedGeneID, "PF3D7_11334*"}}},
		{name: "nothing", query: "zzzz qqqq", total: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.LookupGenes(context.Background(), SiteID, tt.query, tt.limit)
			if err != nil {
				t.Fatalf("LookupGenes(%q): %v", tt.query, err)
			}
			var keys []lookupKey
			for _, g := range got.Genes[:min(len(tt.want), len(got.Genes))] {
				keys = append(keys, lookupKey{g.GeneID, g.MatchedOn, g.Matched})
			}
			if diff := cmp.Diff(tt.want, keys); diff != "" {
				t.Errorf("LookupGenes(%q) first matches (-want +got):\n%s", tt.query, diff)
			}
			if tt.total != 0 || len(tt.want) == 0 {
				if got.Total != tt.total {
					t.Errorf("Total = %d, want %d", got.Total, tt.total)
				}
			}
			if diff := cmp.Diff(tt.unmatched, got.Unmatched); diff != "" {
				t.Errorf("Unmatched (-want +got):\n%s", diff)
			}
			if tt.limit > 0 && len(got.Genes) > tt.limit {
				t.Errorf("%d genes for limit %d", len(got.Genes), tt.limit)
			}
			if !got.Provenance.Offline {
				t.Errorf("provenance %+v is not offline", got.Provenance)
			}
		})
	}
}

func TestLookupGenesProductRanking(t *testing.T) {
	c := testCatalog(t)
	got, err := c.LookupGenes(context.Background(), SiteID, "protein kinases", 500)
	if err != nil {
		t.Fatal(err)
	}
	if got.Total < 50 || len(got.Genes) != min(got.Total, maxGeneLookupLimit) {
		t.Fatalf("Total %d, %d genes; want many kinases, capped at %d", got.Total, len(got.Genes), maxGeneLookupLimit)
	}
	for _, g := range got.Genes {
		if g.MatchedOn != catalog.MatchedProduct {
			t.Errorf("%s matched on %s, want product", g.GeneID, g.MatchedOn)
		}
	}
	// "protein kinase, putative" has the words in a row and is the
	// shortest such product; the FIKK kinases come later.
	if p := got.Genes[0].Product; p != "protein kinase, putative" {
		t.Errorf("first product = %q, want %q", p, "protein kinase, putative")
	}
}

func TestLookupGenesErrors(t *testing.T) {
	noData, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noData.LookupGenes(context.Background(), SiteID, "AMA1", 0); !errors.Is(err, catalog.ErrUnavailable) {
		t.Errorf("without data: err = %v, want ErrUnavailable", err)
	}
	if _, err := noData.LookupGenes(context.Background(), "toxodb", "AMA1", 0); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown site: err = %v, want ErrNotFound", err)
	}
	c := testCatalog(t)
	_, err = c.LookupGenes(context.Background(), SiteID, "  ", 0)
	if ve, ok := errors.AsType[*catalog.ValidationError](err); !ok || len(ve.ByKey["query"]) == 0 {
		t.Errorf("empty query: err = %v, want a ValidationError on query", err)
	}
}
