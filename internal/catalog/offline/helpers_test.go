package offline

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"strategist/internal/catalog"
)

// testDataDir finds the gene data the way the tests promise: STRATEGIST_DATA_DIR,
// else data/ at the repository root, else ../shared/data next to the
// repository. Without data the test is skipped, except under CI=true where
// missing data is a failure.
func testDataDir(tb testing.TB) string {
	tb.Helper()
	root := repoRoot(tb)
	for _, dir := range []string{os.Getenv("STRATEGIST_DATA_DIR"), filepath.Join(root, "data"), filepath.Join(root, "..", "shared", "data")} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, FileGeneAnnotation)); err == nil {
			return dir
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("gene data not found (STRATEGIST_DATA_DIR, %s/data, %s/../shared/data); run `make data`", root, root)
	}
	tb.Skip("gene data not found; run `make data` to run this test")
	return ""
}

func repoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
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
	// goReplacedBy maps the GO ids go_terms.tsv marks secondary_id (merged
	// into another term by GO release 2022-07-01) to their current id.
	goReplacedBy map[string]string
}

// goMerged is the tests' own reading of which current GO ids the 2017
// file lists only under ids merged into them since: current ids without a
// set of their own, roots excepted, each with the file's ids for it.
func (r *rawData) goMerged() map[string][]string {
	out := map[string][]string{}
	for old, current := range r.goReplacedBy {
		_, own := r.goSets[current]
		_, listed := r.goSets[old]
		if listed && !own && current != "GO:0008150" {
			out[current] = append(out[current], old)
		}
	}
	for _, olds := range out {
		slices.Sort(olds)
	}
	return out
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
	r := &rawData{genes: map[string]bool{}, geneType: map[string]string{}, chromosome: map[string]string{}, goSets: map[string]map[string]bool{},
		goReplacedBy: map[string]string{}}
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
	for _, l := range read("pf3d7/go_terms.tsv") {
		cols := strings.Split(l, "\t")
		if len(cols) >= 5 && cols[3] == "secondary_id" {
			r.goReplacedBy[cols[0]] = cols[4]
		}
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
