package rank

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"GenesByGoTerm", []string{"go", "term"}},
		{"GeneByLocusTag", []string{"locus", "tag"}},
		{"tRNA encoding genes", []string{"trna", "encoding"}},
		{"Orthology, orthologs", []string{"ortholog", "ortholog"}},
		{"IDs of the process", []string{"id", "process"}},
		{"<i>P. falciparum</i> kinases", []string{"p", "falciparum", "kinase"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Tokens(tt.in)); diff != "" {
			t.Errorf("Tokens(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestRank(t *testing.T) {
	sum := func(name, display, rt string) catalog.SearchSummary {
		return catalog.SearchSummary{Name: name, DisplayName: display, RecordType: rt}
	}
	ix := New([]Doc{
		{Search: sum("GenesByTaxon", "Organism", "transcript"), Keywords: []string{"species"}},
		{Search: sum("GenesByGoTerm", "GO Term", "transcript"), Help: "Gene Ontology terms"},
		{Search: sum("GenesByGoSlim", "GO Slim", "transcript")},
		{Search: sum("PathwaysByGoTerm", "<i>GO</i> pathways", "pathway")},
	})
	names := func(ss []catalog.SearchSummary) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	tests := []struct {
		query, recordType string
		limit             int
		want              []string
	}{
		{"GO term", "transcript", 0, []string{"GenesByGoTerm", "GenesByGoSlim"}},
		{"GO term", "pathway", 0, []string{"PathwaysByGoTerm"}},
		{"species", "", 0, []string{"GenesByTaxon"}},
		{"gene ontology", "", 0, []string{"GenesByGoTerm"}},
		{"GO term", "", 1, []string{"GenesByGoTerm"}},
		{"", "transcript", 0, []string{"GenesByTaxon", "GenesByGoTerm", "GenesByGoSlim"}},
		{"zebrafish", "", 0, nil},
	}
	for _, tt := range tests {
		got := ix.Rank(tt.query, tt.recordType, tt.limit)
		if diff := cmp.Diff(tt.want, names(got)); diff != "" {
			t.Errorf("Rank(%q, %q, %d) mismatch (-want +got):\n%s", tt.query, tt.recordType, tt.limit, diff)
		}
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score {
				t.Errorf("Rank(%q) scores not descending: %+v", tt.query, got)
			}
		}
	}
}
