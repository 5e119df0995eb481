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

// organismTree is a treeBox vocabulary the size of an organism picker: a
// root, 40 genera, 5,000 species and strains below them.
func organismTree() []catalog.Term {
	terms := []catalog.Term{{Term: "All", Display: "All organisms"}}
	for g := range 40 {
		genus := fmt.Sprintf("Genus%02d", g)
		terms = append(terms, catalog.Term{Term: genus, Display: genus, Parent: "All"})
		for s := range 125 {
			sp := fmt.Sprintf("%s species%03d strain %d", genus, s, s%7)
			terms = append(terms, catalog.Term{Term: sp, Display: sp, Parent: genus})
		}
	}
	return terms
}

// BenchmarkFillLargeVocabulary is the client's own work to check and
// complete one step's values (no request) when its search has an
// organism tree of 5,041 terms: what every Validate and every node of an
// Answer pays after the search's details are cached.
func BenchmarkFillLargeVocabulary(b *testing.B) {
	tree := organismTree()
	d := &SearchDetails{SearchInfo: SearchInfo{Name: "GenesByTaxon", RecordType: "transcript"}, Params: []Param{{
		Param: catalog.Param{Name: "organism", Type: catalog.ParamMultiPick, DisplayType: "treeBox",
			MaxSelected: -1, Vocabulary: tree},
		TreeVocabulary: true, CountOnlyLeaves: true,
	}}}
	c := &Client{}
	given := map[string]string{"organism": `["Genus03","Genus07 species004 strain 4"]`}
	b.ReportAllocs()
	for b.Loop() {
		vals, err := c.fill(bg, "plasmodb", d, given, false)
		if err != nil {
			b.Fatal(err)
		}
		if expandLeaves(d, &d.Params[0], vals["organism"]) == "" {
			b.Fatal("no value")
		}
	}
}
