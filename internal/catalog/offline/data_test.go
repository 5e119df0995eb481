package offline

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

// writeData writes a small data directory with the quirks of the real
// export: trailing TABs, N/A and null markers, a multi-transcript gene, CR
// line endings and trailing commas in the GO lists, and a gene missing from
// the mappings.
func writeData(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func sampleFiles() map[string]string {
	return map[string]string{
		FileGeneAnnotation: "[Gene ID]\t[Transcript ID]\t[Product Description]\t[Gene Type]\t[Gene Name or Symbol]\t[Entrez Gene ID]\t[UniProt ID]\t\n" +
			"PF3D7_0100100\tPF3D7_0100100.1\terythrocyte membrane protein 1, PfEMP1\tprotein coding\tVAR\tN/A\tN/A\t\n" +
			"PF3D7_0105400\tPF3D7_0105400.1\tconserved protein\tprotein coding\tN/A\tN/A\tN/A\t\n" +
			"PF3D7_0105400\tPF3D7_0105400.2\tconserved protein\tprotein coding\tN/A\tN/A\tN/A\t\n" +
			"PF3D7_1400100\tPF3D7_1400100.1\ttRNA Glutamine\ttRNA encoding\tN/A\tN/A\tN/A\t\n" +
			"PF3D7_API00100\tPF3D7_API00100.1\tribosomal protein S4\tprotein coding\trps4\tN/A\tN/A\t\n" +
			"malmito_rna_23\tmalmito_rna_23.1\tunspecified product\trRNA encoding\tRNA23t\tN/A\tN/A\t\n",
		FileGeneMappings: "[Gene ID]\t[Genomic Sequence ID]\t[UniProt ID]\t[Entrez Gene ID]\t[Gene Name or Symbol]\t[Previous ID(s)]\t\n" +
			"PF3D7_0100100\tPf3D7_01_v3\tnull\tnull\tVAR\tMAL1P4.01, PFA0005w\t\n" +
			"PF3D7_0105400.1\tPf3D7_01_v3\tnull\tnull\tnull\tMAL1P1.44, PFA0265c\t\n" +
			"PF3D7_0105400.2\tPf3D7_01_v3\tnull\tnull\tnull\tMAL1P1.44, PFA0265c\t\n" +
			"PF3D7_1400100\tPf3D7_14_v3\tnull\tnull\tnull\tnull\t\n" +
			"PFC10_API0001:tRNA\tPFC10_API_IRAB\tnull\tnull\tnull\tnull\t\n",
		FileGOGeneLists: "GO_ID\tGenes\r" +
			"GO:0006412\t\"PF3D7_0100100,PF3D7_1400100,\"\r" +
			"GO:0006260\t\"PF3D7_0105400,\"\r",
		FileGOTerms: "go_id\tname\tontology\tstatus_in_GO_2022-07-01\treplaced_by\n" +
			"GO:0006412\ttranslation\tBP\tcurrent\t\n" +
			"GO:0006260\tDNA replication\tBP\tcurrent\t\n" +
			"GO:0004672\tprotein kinase activity\tMF\tcurrent\t\n",
		FileGOSynonyms: "go_id\tsynonym\n" +
			"GO:0006412\tprotein biosynthesis\n" +
			"GO:0006412\tprotein synthesis\n",
		FileGODefinitions: "go_id\tdefinition\n" +
			"GO:0006260\tThe cellular metabolic process in which a cell duplicates one or more molecules of DNA.\n" +
			"GO:0006412\t\n",
	}
}

func TestLoadParsesExportQuirks(t *testing.T) {
	d, err := Load(writeData(t, sampleFiles()))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if d.NumGenes() != 5 {
		t.Errorf("NumGenes = %d, want 5", d.NumGenes())
	}
	got := []Gene{}
	for _, id := range []string{"PF3D7_0100100", "PF3D7_0105400", "PF3D7_1400100", "PF3D7_API00100", "malmito_rna_23"} {
		g, ok := d.Gene(id)
		if !ok {
			t.Fatalf("Gene(%s) missing", id)
		}
		got = append(got, g)
	}
	want := []Gene{
		{ID: "PF3D7_0100100", TranscriptIDs: []string{"PF3D7_0100100.1"}, Product: "erythrocyte membrane protein 1, PfEMP1", Type: "protein coding", Symbol: "VAR", Chromosome: "Pf3D7_01_v3", PreviousIDs: []string{"MAL1P4.01", "PFA0005w"}},
		{ID: "PF3D7_0105400", TranscriptIDs: []string{"PF3D7_0105400.1", "PF3D7_0105400.2"}, Product: "conserved protein", Type: "protein coding", Chromosome: "Pf3D7_01_v3", PreviousIDs: []string{"MAL1P1.44", "PFA0265c"}},
		{ID: "PF3D7_1400100", TranscriptIDs: []string{"PF3D7_1400100.1"}, Product: "tRNA Glutamine", Type: "tRNA encoding", Chromosome: "Pf3D7_14_v3"},
		{ID: "PF3D7_API00100", TranscriptIDs: []string{"PF3D7_API00100.1"}, Product: "ribosomal protein S4", Type: "protein coding", Symbol: "rps4", Chromosome: "PFC10_API_IRAB", ChromosomeFromID: true},
		{ID: "malmito_rna_23", TranscriptIDs: []string{"malmito_rna_23.1"}, Product: "unspecified product", Type: "rRNA encoding", Symbol: "RNA23t", Chromosome: "M76611", ChromosomeFromID: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("genes mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"protein coding", "rRNA encoding", "tRNA encoding"}, d.GeneTypes()); diff != "" {
		t.Errorf("GeneTypes mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Pf3D7_01_v3", "Pf3D7_14_v3", "PFC10_API_IRAB", "M76611"}, d.Chromosomes()); diff != "" {
		t.Errorf("Chromosomes mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GO:0006412", "GO:0006260"}, d.GOTermIDs()); diff != "" {
		t.Errorf("GOTermIDs mismatch (-want +got):\n%s", diff)
	}
	if tm, ok := d.GOTermInfo("GO:0004672"); !ok || tm.Ontology != "MF" {
		t.Errorf("GOTermInfo(GO:0004672) = %+v, %v", tm, ok)
	}
	if got := d.GOSynonyms("GO:0006412"); !slices.Equal(got, []string{"protein biosynthesis", "protein synthesis"}) {
		t.Errorf("GOSynonyms(GO:0006412) = %q", got)
	}
	if got := d.GODefinition("GO:0006260"); !strings.HasPrefix(got, "The cellular metabolic process") || d.GODefinition("GO:0006412") != "" {
		t.Errorf("GODefinition(GO:0006260) = %q; GO:0006412 (no definition) = %q", got, d.GODefinition("GO:0006412"))
	}

	c, err := New(Config{Data: d})
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Answer(context.Background(), site, goQuery(0, "GO:0006412"), catalog.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if a.Count != 2 {
		t.Errorf("GO:0006412 on the sample = %d genes, want 2", a.Count)
	}
}

func TestLoadMissing(t *testing.T) {
	for _, missing := range dataFiles() {
		t.Run(missing, func(t *testing.T) {
			files := sampleFiles()
			delete(files, missing)
			dir := writeData(t, files)
			_, err := Load(dir)
			me, ok := errors.AsType[*MissingDataError](err)
			if !ok {
				t.Fatalf("Load = %v, want *MissingDataError", err)
			}
			if me.File != missing || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "make data") {
				t.Errorf("error %q names %q, want %q and a hint to run make data", err, me.File, missing)
			}
		})
	}
	_, err := Load(filepath.Join(t.TempDir(), "absent"))
	if me, ok := errors.AsType[*MissingDataError](err); !ok || me.File != FileGeneAnnotation {
		t.Errorf("Load(absent dir) = %v, want *MissingDataError naming %s", err, FileGeneAnnotation)
	}
}

func TestLoadMalformed(t *testing.T) {
	tests := []struct {
		name, file, body string
	}{
		{"bad annotation header", FileGeneAnnotation, "id\ttranscript\n"},
		{"empty mappings", FileGeneMappings, ""},
		{"GO row without tab", FileGOGeneLists, "GO_ID\tGenes\rGO:0006412 PF3D7_0100100\r"},
		{"GO gene not in annotation", FileGOGeneLists, "GO_ID\tGenes\rGO:0006412\t\"PF3D7_9999999,\"\r"},
		{"GO terms without ids", FileGOTerms, "go_id\tname\tontology\nxyz\tname\tBP\n"},
		{"synonyms without a header", FileGOSynonyms, "GO:0006412\tprotein synthesis\n"},
		{"definitions without ids", FileGODefinitions, "go_id\tdefinition\ntranslation\tThe making of proteins.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := sampleFiles()
			files[tt.file] = tt.body
			_, err := Load(writeData(t, files))
			pe, ok := errors.AsType[*ParseError](err)
			if !ok || pe.File != tt.file {
				t.Errorf("Load = %v, want *ParseError for %s", err, tt.file)
			}
		})
	}
}

// TestCatalogWithoutData: searches are listed and validated, Answer says
// to run make data.
func TestCatalogWithoutData(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "no-data-here"))
	if err != nil {
		t.Fatalf("Open without data: %v", err)
	}
	if _, ok := errors.AsType[*MissingDataError](c.DataErr()); !ok {
		t.Errorf("DataErr = %v, want *MissingDataError", c.DataErr())
	}
	ctx := context.Background()
	list, err := c.Searches(ctx, site, RecordTypeTranscript)
	if err != nil || len(list) != 22 {
		t.Fatalf("Searches = %d, %v; want 22", len(list), err)
	}
	// Vocabularies that need no data still check terms.
	if _, err := c.Validate(ctx, site, "GenesByTaxon", map[string]string{"organism": `["Homo sapiens"]`}); err == nil {
		t.Error("organism outside the vocabulary accepted without data")
	}
	if _, err := c.Validate(ctx, site, boolSearch, map[string]string{"bq_operator": "XOR"}); err == nil {
		t.Error("unknown operator accepted without data")
	}
	// Data vocabularies are unknown: structure is checked, terms are not.
	if _, err := c.Validate(ctx, site, "GenesByGoTerm", map[string]string{"organism": testOrg, "go_typeahead": `["GO:0006412"]`}); err != nil {
		t.Errorf("GO term rejected without data: %v", err)
	}
	if _, err := c.Validate(ctx, site, "GenesByGeneType", map[string]string{"organism": testOrg, "geneType": "a,b"}); err == nil {
		t.Error("comma string accepted for a multi-pick without data")
	}
	_, err = c.Answer(ctx, site, goQuery(0, "GO:0006412"), catalog.Page{})
	if !errors.Is(err, catalog.ErrUnavailable) || !strings.Contains(err.Error(), "make data") {
		t.Errorf("Answer without data = %v, want catalog.ErrUnavailable mentioning make data", err)
	}
	if _, ok := errors.AsType[*MissingDataError](err); !ok {
		t.Errorf("Answer without data = %v, want it to wrap the *MissingDataError", err)
	}
	// Bad parameters are still reported as such.
	_, err = c.Answer(ctx, site, &catalog.Query{Search: "GenesByTaxon"}, catalog.Page{})
	if _, ok := errors.AsType[*catalog.ValidationError](err); !ok {
		t.Errorf("Answer with a missing parameter and no data = %v, want *catalog.ValidationError", err)
	}
}

func TestFindDataDir(t *testing.T) {
	if got := FindDataDir("/explicit"); got != "/explicit" {
		t.Errorf("FindDataDir(explicit) = %q", got)
	}
	// Without a setting it is ./data, whatever lies beside the working
	// directory: one rule, no second place to look.
	base := t.TempDir()
	work := filepath.Join(base, "app")
	for _, p := range []string{work, filepath.Join(base, "shared", "data", "pf3d7")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	if got := FindDataDir(""); got != "data" {
		t.Errorf("FindDataDir without a setting = %q, want data", got)
	}
}
