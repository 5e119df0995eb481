package wdk

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

func geneIDs(ids string) *catalog.Query {
	return &catalog.Query{Search: GeneIDsSearch, Params: map[string]string{"ds_gene_ids": ids}}
}

// TestListStepsGoUpAsDatasets: a gene ids step holds the identifiers;
// validating, answering and building it uploads them as one dataset of the
// user's (once for the same ids), which the site evaluates, and what
// Validate returns keeps the identifiers.
func TestListStepsGoUpAsDatasets(t *testing.T) {
	c := newTestClient(t, nil)
	const ids = `["pfa0005w","PF3D7_0414900","PF3D7_9999999"]`
	got, err := c.Validate(bg, "plasmodb", GeneIDsSearch, map[string]string{"ds_gene_ids": ids})
	if err != nil || got["ds_gene_ids"] != ids {
		t.Fatalf("Validate() = %v, %v; want the identifiers kept", got, err)
	}
	a, err := c.Answer(bg, "plasmodb", geneIDs(ids), catalog.Page{Limit: 10})
	if err != nil {
		t.Fatalf("Answer() error = %v", err)
	}
	var genes []string
	for _, r := range a.Records {
		genes = append(genes, r.GeneID)
	}
	if a.Count != 2 || !cmp.Equal(genes, []string{"PF3D7_0100100", "PF3D7_0414900"}) {
		t.Errorf("Answer() = %d genes %v, want the previous id's gene and the current one", a.Count, genes)
	}
	// In a tree (a temporary strategy), and again: still one dataset.
	tree := &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": "INTERSECT"},
		Inputs: []*catalog.Query{geneIDs(ids), goTerm("GO:0006260", 0)}}
	if a, err := c.Answer(bg, "plasmodb", tree, catalog.Page{}); err != nil || a.Count != 1 {
		t.Errorf("Answer(list ∩ DNA replication) = %+v, %v; want PF3D7_0414900 alone", a, err)
	}
	ups := c.fake.recorded(http.MethodPost, "/users/"+strconv.FormatInt(registeredID, 10)+"/datasets")
	if len(ups) != 1 {
		t.Fatalf("%d dataset uploads, want 1 for the same ids", len(ups))
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(ups[0].Body), &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"sourceType": "idList", "sourceContent": map[string]any{"ids": []any{"pfa0005w", "PF3D7_0414900", "PF3D7_9999999"}}}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("dataset upload mismatch (-want +got):\n%s", diff)
	}
	for _, r := range c.fake.recorded(http.MethodPost, "/users/") {
		if r.Path == "/users/"+strconv.FormatInt(registeredID, 10)+"/steps" && !json.Valid([]byte(r.Body)) {
			t.Errorf("step body %s", r.Body)
		}
	}

	// The site takes a dataset id there, never the ids themselves: a step
	// sent with them as they are is refused.
	if _, err := c.CreateStep(bg, "plasmodb", NewStep{SearchName: GeneIDsSearch, SearchConfig: SearchConfig{Parameters: map[string]string{"ds_gene_ids": ids}}}); !errors.As(err, new(*catalog.ValidationError)) {
		t.Errorf("CreateStep(ids in place of a dataset) error = %v, want the site's ValidationError", err)
	}

	// A value naming no identifier is refused before anything is sent.
	var ve *catalog.ValidationError
	if _, err := c.Answer(bg, "plasmodb", geneIDs(`[]`), catalog.Page{}); !errors.As(err, &ve) || len(ve.ByKey["ds_gene_ids"]) == 0 {
		t.Errorf("Answer(no ids) error = %v, want a ValidationError on ds_gene_ids", err)
	}
	c.fake.checkNoViolations(t)
}

// TestResolveGenesOnTheSite: current, transcript and previous ids (a
// retired id naming two genes among them) are resolved by the site's gene
// ids search; unknown ids are listed, duplicates in other case dropped.
func TestResolveGenesOnTheSite(t *testing.T) {
	c := newTestClient(t, nil)
	res, err := c.ResolveGenes(bg, "plasmodb", []string{"PFA0005w", "pf3d7_0102200", "PF3D7_0201800.2", "PF3D7_0100100",
		"PF_tRNA_2", "NOT_A_GENE", "PFD0590c", "PF3D7_0102200", "also-unknown"})
	if err != nil {
		t.Fatalf("ResolveGenes() error = %v", err)
	}
	want := &catalog.GeneResolution{
		Genes: []string{"PF3D7_0100100", "PF3D7_0102200", "PF3D7_0201800", "PF3D7_1123600", "PF3D7_1409500", "PF3D7_0414900"},
		Mapped: []catalog.IDMapping{{From: "PFA0005w", To: "PF3D7_0100100"}, {From: "PF3D7_0201800.2", To: "PF3D7_0201800"},
			{From: "PF_tRNA_2", To: "PF3D7_1123600"}, {From: "PF_tRNA_2", To: "PF3D7_1409500"}, {From: "PFD0590c", To: "PF3D7_0414900"}},
		Unknown: []string{"NOT_A_GENE", "also-unknown"},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ResolveGenes() mismatch (-want +got):\n%s", diff)
	}
	// Current ids alone cost one look-up.
	before := len(c.fake.recorded(http.MethodPost, "/record-types/transcript/searches/GeneByLocusTag/reports/standard"))
	if res, err := c.ResolveGenes(bg, "plasmodb", []string{"PF3D7_0100100", "PF3D7_1017500"}); err != nil || len(res.Genes) != 2 || len(res.Mapped)+len(res.Unknown) != 0 {
		t.Errorf("ResolveGenes(current ids) = %+v, %v", res, err)
	}
	if n := len(c.fake.recorded(http.MethodPost, "/record-types/transcript/searches/GeneByLocusTag/reports/standard")) - before; n != 1 {
		t.Errorf("current ids took %d look-ups, want 1", n)
	}
	c.fake.checkNoViolations(t)
}

// TestReadAndCopyStrategies: a saved strategy with a list step reads back
// with its identifiers (the genes its dataset finds) and input-step values
// empty; another user copies it by its signature, and an unknown signature
// is WDK's 422.
func TestReadAndCopyStrategies(t *testing.T) {
	c := newTestClient(t, nil)
	plan := &StepPlan{Step: NewStep{SearchName: boolSearch, SearchConfig: SearchConfig{Parameters: map[string]string{
		"bq_left_op_TranscriptRecordClasses_TranscriptRecordClass": "", "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass": "", "bq_operator": "UNION"}}},
		Inputs: []*StepPlan{
			{Step: NewStep{SearchName: GeneIDsSearch, CustomName: "my list", SearchConfig: SearchConfig{Parameters: map[string]string{"ds_gene_ids": `["PFA0005w","PF3D7_1409500"]`}}}},
			{Step: NewStep{SearchName: "GenesByGoTerm", SearchConfig: SearchConfig{Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`,
				"organism": `["Plasmodium falciparum 3D7"]`, "go_term_evidence": `["Curated","Computed"]`, "go_term_slim": "No", "go_term": "N/A"}}}},
		}}
	id, tree, err := c.BuildStrategy(bg, "plasmodb", NewStrategy{Name: "list or replication", IsSaved: true}, plan)
	if err != nil {
		t.Fatalf("BuildStrategy() error = %v", err)
	}
	if st, _ := c.fake.Step(tree.PrimaryInput.StepID); !catalog.IsDatasetID(st.Params["ds_gene_ids"]) {
		t.Errorf("the saved list step holds ds_gene_ids %q, want a dataset id", st.Params["ds_gene_ids"])
	}
	s, err := c.ReadStrategy(bg, "plasmodb", id)
	if err != nil {
		t.Fatalf("ReadStrategy() error = %v", err)
	}
	list := s.Steps[tree.PrimaryInput.StepID]
	if got := list.SearchConfig.Parameters["ds_gene_ids"]; got != `["PF3D7_0100100","PF3D7_1409500"]` || list.CustomName != "my list" {
		t.Errorf("the list step reads back as %q (%q), want its genes", got, list.CustomName)
	}
	if p := s.Steps[tree.StepID].SearchConfig.Parameters; p["bq_left_op_TranscriptRecordClasses_TranscriptRecordClass"] != "" || p["bq_operator"] != "UNION" {
		t.Errorf("the combine reads back as %v, want empty inputs", p)
	}

	st, _ := c.fake.Strategy(id)
	other := newClientFor(t, c.fake, c.sites["plasmodb"].base, &http.Client{Transport: &http.Transport{}}, func(cfg *Config) {
		cfg.Tokens = staticTokens{"plasmodb": otherToken}
	})
	copyID, err := other.CopyStrategy(bg, "plasmodb", st.Signature)
	if err != nil {
		t.Fatalf("CopyStrategy() error = %v", err)
	}
	cp, err := other.ReadStrategy(bg, "plasmodb", copyID)
	if err != nil || cp.Name != "list or replication" || len(cp.Steps) != 3 || cp.Steps[cp.StepTree.PrimaryInput.StepID].SearchConfig.Parameters["ds_gene_ids"] != `["PF3D7_0100100","PF3D7_1409500"]` {
		t.Errorf("the copy reads %+v, %v", cp, err)
	}
	if s, _ := c.fake.Strategy(copyID); s.Owner != otherID {
		t.Errorf("the copy belongs to %d, want %d", s.Owner, otherID)
	}
	var ve *catalog.ValidationError
	if _, err := other.CopyStrategy(bg, "plasmodb", "0123456789abcdef"); !errors.As(err, &ve) {
		t.Errorf("CopyStrategy(unknown signature) error = %v, want a ValidationError", err)
	}
	c.fake.checkNoViolations(t)
}
