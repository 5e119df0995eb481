package offline

import (
	"slices"
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/eval"
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

// readRaw reads the export files with the evaluation set's reader
// (internal/eval), kept deliberately plain and separate from Load so the
// figures are checked against an independent computation.
func readRaw(tb testing.TB, dir string) *eval.Data {
	tb.Helper()
	d, err := eval.Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// goMerged is the tests' own reading of which current GO ids the 2017
// file lists only under ids merged into them since: current ids without a
// set of their own, roots excepted, each with the file's ids for it.
func goMerged(r *eval.Data) map[string][]string {
	out := map[string][]string{}
	for old, current := range r.ReplacedBy {
		_, own := r.GOSets[current]
		_, listed := r.GOSets[old]
		if listed && !own && current != "GO:0008150" {
			out[current] = append(out[current], old)
		}
	}
	for _, olds := range out {
		slices.Sort(olds)
	}
	return out
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
		"organism": testOrg, "go_typeahead": catalog.EncodeTerms(ids),
	}}
}

func boolQuery(op string, l, r *catalog.Query) *catalog.Query {
	return &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": op}, Inputs: []*catalog.Query{l, r}}
}

func chromosomeQuery(ch string) *catalog.Query {
	return &catalog.Query{Search: "GenesByLocation", Params: map[string]string{"chromosomeOptional": ch}}
}
