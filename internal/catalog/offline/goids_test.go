package offline

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

// TestGOMergedIDs: a current GO id that the 2017 file lists only under
// older ids GO has merged into it is in the vocabulary, labelled with both
// ids, validates, and counts the file's sets for the older ids, with the
// provenance saying so. Expectations come from the raw files.
func TestGOMergedIDs(t *testing.T) {
	c := testCatalog(t)
	raw := readRaw(t, testDataDir(t))
	merged := goMerged(raw)
	if diff := cmp.Diff([]string{"GO:0016337"}, merged["GO:0098609"]); diff != "" {
		t.Fatalf("raw files: GO:0098609 listed as (-want +got):\n%s", diff)
	}
	if len(merged) < 2 {
		t.Fatalf("raw files give %d merged current ids, want several", len(merged))
	}
	s, err := c.Search(context.Background(), site, "", "GenesByGoTerm")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.Param("go_typeahead")
	labels := map[string]string{}
	for _, term := range p.Vocabulary {
		labels[term.Term] = term.Display
	}
	for current, listed := range merged {
		t.Run(current, func(t *testing.T) {
			if diff := cmp.Diff(listed, c.Data().GOListedAs(strings.ToLower(current))); diff != "" {
				t.Errorf("GOListedAs (-want +got):\n%s", diff)
			}
			label := labels[current]
			if !strings.Contains(label, "("+current+")") || !strings.Contains(label, "listed in the 2017 data as") {
				t.Errorf("label of %s = %q, want both ids", current, label)
			}
			for _, old := range listed {
				if !strings.Contains(label, old) || !strings.Contains(labels[old], "merged into "+current) {
					t.Errorf("labels %q / %q do not name %s and %s", label, labels[old], current, old)
				}
			}
			want := map[string]bool{}
			for _, old := range listed {
				want = union(want, raw.GOSets[old])
			}
			for _, id := range []string{current, strings.ToLower(current)} {
				a, err := c.Answer(context.Background(), site, goQuery(0, id), catalog.Page{Limit: 10000})
				if err != nil {
					t.Fatalf("Answer(%s): %v", id, err)
				}
				got := map[string]bool{}
				for _, r := range a.Records {
					got[r.GeneID] = true
				}
				if diff := cmp.Diff(want, got); diff != "" || len(want) == 0 {
					t.Errorf("Answer(%s) mismatch with the raw sets of %v (-want +got):\n%s", id, listed, diff)
				}
				note := current + " is listed in the 2017 data as "
				if !strings.Contains(a.Provenance.Note, note) || !strings.Contains(a.Provenance.Note, listed[0]) {
					t.Errorf("provenance note %q does not say %s…", a.Provenance.Note, note)
				}
			}
		})
	}
}

// TestGOMergedNoteInTrees: the note follows a merged id through combines
// and stays off answers that do not use one.
func TestGOMergedNoteInTrees(t *testing.T) {
	c := testCatalog(t)
	ctx := context.Background()
	const note = "GO:0098609 is listed in the 2017 data as GO:0016337."
	tree := boolQuery(opMinus, boolQuery(opUnion, goQuery(0, "GO:0098609"), goQuery(0, "GO:0006260")), chromosomeQuery("Pf3D7_14_v3"))
	a, err := c.Answer(ctx, site, tree, catalog.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(a.Provenance.Note, note) != 1 {
		t.Errorf("tree note = %q, want %q once", a.Provenance.Note, note)
	}
	plain, err := c.Answer(ctx, site, boolQuery(opUnion, goQuery(0, "GO:0016337"), goQuery(0, "GO:0006260")), catalog.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Provenance.Note, "listed in the 2017 data") {
		t.Errorf("the file's own id gets the merge note: %q", plain.Provenance.Note)
	}
	lonly, err := c.Answer(ctx, site, boolQuery(opLOnly, goQuery(0, "GO:0006260"), goQuery(0, "GO:0098609")), catalog.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(lonly.Provenance.Note, "listed in the 2017 data") {
		t.Errorf("LONLY keeps the note of the input it ignores: %q", lonly.Provenance.Note)
	}
}

// TestGOTermInfoCase: GO ids are looked up in any case.
func TestGOTermInfoCase(t *testing.T) {
	c := testCatalog(t)
	for _, id := range []string{"GO:0006281", "go:0006281", " Go:0006281 "} {
		if info, ok := c.Data().GOTermInfo(id); !ok || info.ID != "GO:0006281" || info.Name != "DNA repair" {
			t.Errorf("GOTermInfo(%q) = %+v, %v", id, info, ok)
		}
	}
	if ids := c.Data().GOTermIDs(); !slices.Contains(ids, "GO:0016337") || slices.Contains(ids, "GO:0098609") {
		t.Error("GOTermIDs lists the file's ids, not the current ids merged from them")
	}
}
