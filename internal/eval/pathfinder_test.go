package eval

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestStructureCaseFile(t *testing.T) {
	cases, err := LoadStructureCases(filepath.Join("testdata", "pathfinder.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 55 {
		t.Errorf("%d PathFinder cases, want the corpus's PlasmoDB conversations", len(cases))
	}
	kinds := map[string]int{}
	for _, c := range cases {
		switch {
		case c.Builds == nil:
			kinds["either"]++
		case *c.Builds:
			kinds["build"]++
		default:
			kinds["no build"]++
		}
	}
	if kinds["build"] == 0 || kinds["no build"] == 0 || kinds["either"] == 0 {
		t.Errorf("kinds %v, want each", kinds)
	}
}

func TestNormalizeStructure(t *testing.T) {
	for in, want := range map[string]string{
		"GenesWithSignalPeptide": "GenesWithSignalPeptide",
		"INTERSECT(GenesByTransmembraneDomains, GenesWithSignalPeptide)":                   "INTERSECT(GenesByTransmembraneDomains, GenesWithSignalPeptide)",
		"UNION(GenesWithSignalPeptide,GenesByTransmembraneDomains)":                        "UNION(GenesByTransmembraneDomains, GenesWithSignalPeptide)",
		"MINUS(GenesWithSignalPeptide, GenesByTransmembraneDomains)":                       "MINUS(GenesWithSignalPeptide, GenesByTransmembraneDomains)",
		"GenesByOrthologs(INTERSECT(GenesWithSignalPeptide, GenesByTransmembraneDomains))": "GenesByOrthologs(INTERSECT(GenesByTransmembraneDomains, GenesWithSignalPeptide))",
	} {
		got, err := NormalizeStructure(in)
		if err != nil || got != want {
			t.Errorf("NormalizeStructure(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "UNION(A", "MINUS(A)", "A)"} {
		if _, err := NormalizeStructure(bad); err == nil {
			t.Errorf("NormalizeStructure(%q) succeeded", bad)
		}
	}
}

func TestScoreStructure(t *testing.T) {
	yes, no := true, false
	norm := func(c StructureCase) StructureCase {
		if c.Structure != "" {
			c.normStructure, _ = NormalizeStructure(c.Structure)
		}
		return c
	}
	built := Observation{Built: true, Structure: "MINUS(GenesWithSignalPeptide, GenesByTransmembraneDomains)", Steps: 3,
		RecordType: "transcript", Parameters: map[string]map[string]string{
			"GenesWithSignalPeptide": {}, "GenesByTransmembraneDomains": {"min_tm": "1"}}}
	minus := norm(StructureCase{Builds: &yes, Structure: "MINUS(GenesWithSignalPeptide, GenesByTransmembraneDomains)", Steps: 3,
		RootOperator: "MINUS", RecordType: "transcript", Parameters: map[string]map[string]string{"GenesByTransmembraneDomains": {"min_tm": "1"}}})
	tests := []struct {
		name string
		c    StructureCase
		o    Observation
		want bool
		why  string
	}{
		{"the expected structure", minus, built, true, ""},
		{"nothing built", minus, Observation{}, false, "nothing built"},
		{"a build where none is wanted", StructureCase{Builds: &no}, built, false, "built MINUS"},
		{"nothing built, as wanted", StructureCase{Builds: &no}, Observation{}, true, ""},
		{"either, nothing built", StructureCase{OmitSearches: []string{"GenesByText"}}, Observation{}, true, ""},
		{"either, a text step", StructureCase{OmitSearches: []string{"GenesByText"}},
			Observation{Built: true, Structure: "GenesByText", Parameters: map[string]map[string]string{"GenesByText": {}}}, false, "runs GenesByText"},
		{"the operator swapped", norm(StructureCase{Builds: &yes, Structure: "UNION(GenesWithSignalPeptide, GenesByTransmembraneDomains)"}), built, false, "structure"},
		{"a parameter lost", norm(StructureCase{Builds: &yes, Parameters: map[string]map[string]string{"GenesByTransmembraneDomains": {"min_tm": "15"}}}), built, false, `min_tm="1", not "15"`},
	}
	for _, tt := range tests {
		ok, why := ScoreStructure(tt.c, tt.o)
		if ok != tt.want || !strings.Contains(strings.Join(why, "; "), tt.why) {
			t.Errorf("%s: ScoreStructure = %v %v, want %v %q", tt.name, ok, why, tt.want, tt.why)
		}
	}
}
