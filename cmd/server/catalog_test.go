package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
)

func TestRunCatalog(t *testing.T) {
	cat := geneCatalog(t)
	const org = `organism=["Plasmodium falciparum 3D7"]`
	tests := []struct {
		name    string
		args    []string
		wantErr bool
		want    []string
	}{
		{"search", []string{"search", "GO", "term"}, false, []string{" 1. GenesByGoTerm", "evaluable offline"}},
		{"search nothing", []string{"search", "zebrafish xylophone"}, false, []string{"No search matches"}},
		{"describe", []string{"describe", "GenesByGoTerm"}, false, []string{"GenesByGoTerm: GO Term (GeneQuestions.GenesByGoTerm)", "go_typeahead (multi-pick-vocabulary, typeAhead) required", "1875 terms", "Offline: "}},
		{"describe unknown", []string{"describe", "GenesByNothing"}, true, nil},
		{"count", []string{"count", "GenesByGoTerm", org, `go_typeahead=["GO:0006412"]`}, false, []string{"GenesByGoTerm: 286 genes", "source: PlasmoDB export (offline snapshot), 2017 (offline)", "... 281 more"}},
		{"count weight", []string{"count", "-weight", "7", "-records", "1", "GenesByGeneType", org, "geneType=tRNA encoding"}, false, []string{"GenesByGeneType: 79 genes", "  7  "}},
		{"count tree", []string{"count", "-tree", `{"searchName":"boolean_question_TranscriptRecordClasses_TranscriptRecordClass","parameters":{"bq_operator":"MINUS"},"inputs":[
			{"searchName":"boolean_question_TranscriptRecordClasses_TranscriptRecordClass","parameters":{"bq_operator":"UNION"},"inputs":[
				{"searchName":"GenesByGoTerm","parameters":{"organism":"[\"Plasmodium falciparum 3D7\"]","go_typeahead":"[\"GO:0006260\"]"}},
				{"searchName":"GenesByGoTerm","parameters":{"organism":"[\"Plasmodium falciparum 3D7\"]","go_typeahead":"[\"GO:0006281\"]"}}]},
			{"searchName":"GenesByLocation","parameters":{"chromosomeOptional":"Pf3D7_14_v3"}}]}`}, false, []string{": 89 genes"}},
		{"count invalid", []string{"count", "GenesByGoTerm", `go_typeahead=["GO:0004672"]`, "bogus=1"}, true, []string{"Invalid parameters for GenesByGoTerm:", "organism: Cannot be empty.", "bogus: Parameter 'bogus'", "molecular-function"}},
		{"count not evaluable", []string{"count", "GenesByMolecularWeight", org}, true, []string{"GenesByMolecularWeight: count not available offline."}},
		{"count text approximate", []string{"count", "GenesByText", `text_search_organism=Plasmodium falciparum 3D7`, "text_expression=kinase"}, false, []string{"(approximate)"}},
		{"count bad pair", []string{"count", "GenesByTaxon", "organism"}, true, []string{"usage:"}},
		{"no subcommand", nil, true, []string{"usage:"}},
		{"unknown subcommand", []string{"frobnicate"}, true, []string{"usage:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runCatalog(context.Background(), cat, tt.args, &out)
			if (err != nil) != tt.wantErr {
				t.Fatalf("runCatalog(%q) error = %v, want error %v\n%s", tt.args, err, tt.wantErr, out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestRunCatalogWithoutData(t *testing.T) {
	cat, err := offline.Open(filepath.Join(t.TempDir(), "none"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runCatalog(context.Background(), cat, []string{"search", "gene type"}, &out); err != nil || !strings.Contains(out.String(), "GenesByGeneType") {
		t.Errorf("search without data: %v\n%s", err, out.String())
	}
	out.Reset()
	err = runCatalog(context.Background(), cat, []string{"count", "GenesByTaxon", `organism=["Plasmodium falciparum 3D7"]`}, &out)
	if !errors.Is(err, catalog.ErrUnavailable) || !strings.Contains(err.Error(), "make data") {
		t.Errorf("count without data = %v, want catalog.ErrUnavailable telling to run make data", err)
	}
}
