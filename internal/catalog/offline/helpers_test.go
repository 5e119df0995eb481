package offline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/offlinetest"
)

// testDataDir is the gene data (offlinetest.DataDir: STRATEGIST_DATA_DIR,
// else data/ at the repository root); without it the test is skipped,
// except under CI=true where it fails.
func testDataDir(tb testing.TB) string {
	tb.Helper()
	return offlinetest.DataDir(tb)
}

// testCatalog loads the data and builds a catalog (or skips, see testDataDir).
func testCatalog(tb testing.TB) *Catalog {
	tb.Helper()
	d, err := Load(testDataDir(tb))
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	c, err := New(Config{Data: d})
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return c
}

// rawData is the tests' own reading of the export files, kept deliberately
// plain and separate from the loader so the figures are checked against an
// independent computation.
type rawData struct {
	genes      map[string]bool
	geneType   map[string]string // gene -> type
	chromosome map[string]string // gene -> sequence (from geneID_mappings.txt)
	goSets     map[string]map[string]bool
}

func readRaw(tb testing.TB, dir string) *rawData {
	tb.Helper()
	read := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
		var out []string
		for i, l := range strings.Split(string(b), "\n") {
			if i > 0 && strings.TrimSpace(l) != "" {
				out = append(out, l)
			}
		}
		return out
	}
	r := &rawData{genes: map[string]bool{}, geneType: map[string]string{}, chromosome: map[string]string{}, goSets: map[string]map[string]bool{}}
	txToGene := map[string]string{}
	for _, l := range read("pf3d7/GeneAnnotationPlasmoDB.txt") {
		cols := strings.Split(l, "\t")
		r.genes[cols[0]] = true
		r.geneType[cols[0]] = cols[3]
		txToGene[cols[1]] = cols[0]
	}
	for _, l := range read("pf3d7/geneID_mappings.txt") {
		cols := strings.Split(l, "\t")
		g := cols[0]
		if !r.genes[g] {
			g = txToGene[g]
		}
		if g != "" {
			r.chromosome[g] = cols[1]
		}
	}
	for _, l := range read("pf3d7/go_gene_lists.txt") {
		id, list, _ := strings.Cut(l, "\t")
		set := map[string]bool{}
		for _, g := range strings.Split(strings.Trim(list, `"`), ",") {
			if g != "" {
				set[g] = true
			}
		}
		r.goSets[id] = set
	}
	return r
}

func union(sets ...map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, s := range sets {
		for g := range s {
			out[g] = true
		}
	}
	return out
}

// Query builders for tests.

const (
	testOrg    = `["Plasmodium falciparum 3D7"]`
	boolSearch = "boolean_question_TranscriptRecordClasses_TranscriptRecordClass"
	leftParam  = "bq_left_op_TranscriptRecordClasses_TranscriptRecordClass"
	rightParam = "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass"
	site       = SiteID
)

func goQuery(weight int, ids ...string) *catalog.Query {
	return &catalog.Query{Search: "GenesByGoTerm", Weight: weight, Params: map[string]string{
		"organism": testOrg, "go_typeahead": encodeTerms(ids),
	}}
}

func boolQuery(op string, l, r *catalog.Query) *catalog.Query {
	return &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": op}, Inputs: []*catalog.Query{l, r}}
}

func chromosomeQuery(ch string) *catalog.Query {
	return &catalog.Query{Search: "GenesByLocation", Params: map[string]string{"chromosomeOptional": ch}}
}
