package wdk

import (
	"fmt"
	"net/http"
	"testing"

	"strategist/internal/catalog"
)

// syntheticSearches builds a catalog the size of PlasmoDB's transcript
// searches (359 in 2026-08) from varied words.
func syntheticSearches(n int) []SearchInfo {
	topics := []string{"GO Term", "Molecular Weight", "Isoelectric Point", "Exon Count", "Transmembrane Domain", "Signal Peptide",
		"EC Number", "InterPro Domain", "Paralog Count", "Metabolic Pathway", "Ortholog Pattern", "RNA-Seq Evidence",
		"Microarray Evidence", "Proteomics Evidence", "Text", "Gene Type", "Genomic Location", "Organism", "Gene ID", "Phenotype"}
	out := make([]SearchInfo, n)
	for i := range out {
		t := topics[i%len(topics)]
		out[i] = SearchInfo{
			Name:        fmt.Sprintf("GenesBy%s%d", t, i),
			FullName:    "GeneQuestions.GenesBy" + t,
			DisplayName: fmt.Sprintf("%s (dataset %d)", t, i),
			Summary:     "Find genes by " + t + " in a chosen organism and dataset.",
			Description: "Genes whose " + t + " matches the chosen criteria; data from release " + fmt.Sprint(60+i%10) + ".",
			RecordType:  "transcript",
		}
	}
	return out
}

// BenchmarkSearchForSearches ranks over a cached index, as
// SearchForSearches does after its first call per TTL.
func BenchmarkSearchForSearches(b *testing.B) {
	ix := newSearchIndex(syntheticSearches(360))
	b.ReportAllocs()
	for b.Loop() {
		if got := ix.Rank("genes with a signal peptide and transmembrane domains", "", 10); len(got) == 0 {
			b.Fatal("no result")
		}
	}
}

// BenchmarkSearchIndexBuild is the first call per TTL (after the list is
// fetched).
func BenchmarkSearchIndexBuild(b *testing.B) {
	list := syntheticSearches(360)
	b.ReportAllocs()
	for b.Loop() {
		newSearchIndex(list)
	}
}

// BenchmarkAnswerThreeStepTree measures the client's own cost of a
// three-step answer (steps, strategy, report, cleanup: 7 requests) against
// the in-process fake over loopback HTTP, catalog cached.
func BenchmarkAnswerThreeStepTree(b *testing.B) {
	f := newFakeWDK(b)
	c := newClientFor(b, f, f.serve(), &http.Client{Transport: &http.Transport{}}, nil)
	q := &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": "UNION"},
		Inputs: []*catalog.Query{goTerm("GO:0006260", 10), goTerm("GO:0006281", 5)}}
	if _, err := c.Answer(bg, "plasmodb", q, catalog.Page{Limit: 10}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Answer(bg, "plasmodb", q, catalog.Page{Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
}
