package offline

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

func TestSitesAndRecordTypes(t *testing.T) {
	c := noDataCatalog(t)
	ctx := context.Background()
	sites, err := c.Sites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []catalog.Site{{ID: "plasmodb", DisplayName: "PlasmoDB", ProjectID: "PlasmoDB", Offline: true}}
	if diff := cmp.Diff(want, sites); diff != "" {
		t.Errorf("Sites mismatch (-want +got):\n%s", diff)
	}
	rts, err := c.RecordTypes(ctx, site)
	if err != nil {
		t.Fatal(err)
	}
	if len(rts) != 23 || rts[0].Name != "transcript" || rts[0].DisplayName != "Gene" || rts[0].SearchCount != 22 {
		t.Errorf("RecordTypes = %d types, first %+v", len(rts), rts[0])
	}
	for _, rt := range rts[1:] {
		if rt.SearchCount != 0 {
			t.Errorf("record type %s has %d searches offline", rt.Name, rt.SearchCount)
		}
	}
	if _, err := c.RecordTypes(ctx, "toxodb"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown site: %v", err)
	}
}

func TestSearchDetails(t *testing.T) {
	c := noDataCatalog(t)
	ctx := context.Background()
	list, err := c.Searches(ctx, site, "")
	if err != nil {
		t.Fatal(err)
	}
	evaluable := map[string]bool{}
	for _, s := range list {
		evaluable[s.Name] = s.Evaluable
	}
	wantEvaluable := map[string]bool{
		"GenesByTaxon": true, "GeneByLocusTag": true, "GenesByText": true, "GenesByGoTerm": true,
		"GenesByGeneType": true, "GenesByLocation": true, "GenesByWeightFilter": true, boolSearch: true,
		"GenesByMolecularWeight": false, "GenesByIsoelectricPoint": false, "GenesByExonCount": false,
		"GenesByTransmembraneDomains": false, "GenesWithSignalPeptide": false, "GenesByEcNumber": false,
		"GenesByInterproDomain": false, "GenesByParalogCount": false, "GenesByIntronJunctions": false,
		"GenesByExportPrediction": false, "GenesByMetabolicPathway": false, "GenesByOrthologPattern": false,
		"GenesByOrthologs": false, "GenesBySpanLogic": false,
	}
	if diff := cmp.Diff(wantEvaluable, evaluable); diff != "" {
		t.Errorf("searches and evaluability mismatch (-want +got):\n%s", diff)
	}

	b, err := c.Search(ctx, site, RecordTypeTranscript, boolSearch)
	if err != nil {
		t.Fatal(err)
	}
	if b.Kind != catalog.KindCombine || b.FullName != "InternalQuestions."+boolSearch {
		t.Errorf("boolean search = %+v", b.SearchSummary)
	}
	if diff := cmp.Diff([]string{leftParam, rightParam}, b.InputParams); diff != "" {
		t.Errorf("boolean input params mismatch (-want +got):\n%s", diff)
	}
	op, _ := b.Param("bq_operator")
	var terms []string
	for _, v := range op.Vocabulary {
		terms = append(terms, v.Term)
	}
	if diff := cmp.Diff([]string{"UNION", "INTERSECT", "MINUS", "RMINUS", "LONLY", "RONLY"}, terms); diff != "" || op.Default != "INTERSECT" {
		t.Errorf("bq_operator default %q, terms mismatch (-want +got):\n%s", op.Default, diff)
	}

	wf, err := c.Search(ctx, site, "", "GenesByWeightFilter")
	if err != nil || wf.Kind != catalog.KindTransform || len(wf.InputParams) != 1 || wf.InputParams[0] != "gene_result" {
		t.Errorf("GenesByWeightFilter = %+v, %v", wf, err)
	}
	span, err := c.Search(ctx, site, "", "GenesBySpanLogic")
	if err != nil || span.Kind != catalog.KindCombine || len(span.Params) != 20 {
		t.Errorf("GenesBySpanLogic kind %v with %d params, %v", span.Kind, len(span.Params), err)
	}
	text, err := c.Search(ctx, site, "", "GenesByText")
	if err != nil {
		t.Fatal(err)
	}
	dt, _ := text.Param("document_type")
	if dt.IsVisible || !dt.IsReadOnly || dt.Default != "gene" || len(dt.DependentParams) != 1 || dt.DependentParams[0] != "text_fields" {
		t.Errorf("document_type = %+v", dt)
	}

	// The result is the caller's copy.
	text.Params[0].Vocabulary[0].Term = "changed"
	again, _ := c.Search(ctx, site, "", "GenesByText")
	if again.Params[0].Vocabulary[0].Term == "changed" {
		t.Error("Search returned shared state")
	}
	if _, err := c.Search(ctx, site, "gene", "GenesByText"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("search under the wrong record type: %v", err)
	}
}

func TestDataVocabularies(t *testing.T) {
	c := testCatalog(t)
	ctx := context.Background()
	vocab := func(search, param string) []catalog.Term {
		t.Helper()
		s, err := c.Search(ctx, site, "", search)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := s.Param(param)
		if !ok {
			t.Fatalf("%s has no %s", search, param)
		}
		return p.Vocabulary
	}
	org := vocab("GenesByTaxon", "organism")
	wantOrg := []catalog.Term{
		{Term: "Plasmodiidae", Display: "Plasmodiidae"},
		{Term: "Plasmodium", Display: "Plasmodium", Parent: "Plasmodiidae"},
		{Term: "Plasmodium falciparum 3D7", Display: "Plasmodium falciparum 3D7", Parent: "Plasmodium"},
	}
	if diff := cmp.Diff(wantOrg, org); diff != "" {
		t.Errorf("organism vocabulary mismatch (-want +got):\n%s", diff)
	}
	if n := len(vocab("GenesByGeneType", "geneType")); n != 6 {
		t.Errorf("%d gene types, want 6", n)
	}
	chroms := vocab("GenesByLocation", "chromosomeOptional")
	if len(chroms) != 16 || chroms[0].Term != "Pf3D7_01_v3" || chroms[13].Term != "Pf3D7_14_v3" || chroms[14].Term != "PFC10_API_IRAB" || chroms[15].Term != "M76611" {
		t.Errorf("chromosome vocabulary = %+v", chroms)
	}
	gos := vocab("GenesByGoTerm", "go_typeahead")
	found := false
	for _, g := range gos {
		if g.Term == "GO:0006412" {
			found = g.Display == "translation (GO:0006412)"
		}
	}
	raw := readRaw(t, testDataDir(t))
	if want := len(raw.GOSets) + len(goMerged(raw)); len(gos) != want || len(raw.GOSets) != 1864 || !found {
		t.Errorf("%d GO terms, want %d (1864 gene sets and the current ids of merged ones); GO:0006412 displayed right: %v", len(gos), want, found)
	}
	loc, _ := c.Search(ctx, site, "", "GenesByLocation")
	ch, _ := loc.Param("chromosomeOptional")
	if !ch.HasDefault || ch.Default != "Pf3D7_01_v3" {
		t.Errorf("chromosomeOptional default = %q (%v)", ch.Default, ch.HasDefault)
	}
}
