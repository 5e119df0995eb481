package english

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJoinedSpans(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"generation of precursor metabolites and energy genes", []string{"metabolites energy"}},
		{"nucleobase, nucleoside and nucleotide metabolic process", []string{"nucleobase nucleoside", "nucleoside nucleotide"}},
		{"DNA repair or DNA replication", []string{"repair DNA"}},
		// Numbers, locations, ids and fillers are never part of a name.
		{"genes on chromosomes 5 and 6", nil},
		{"PF3D7_1133400 and MSP1", nil},
		{"tRNA genes and then remove chromosome 3", nil},
		{`"actin polymerization or depolymerization"`, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, JoinedSpans(tt.in)); diff != "" {
			t.Errorf("JoinedSpans(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestKeepWhole: a name written with its connective is quoted, so Parse
// reads it as one term; a name written without one, or not written, is
// left alone.
func TestKeepWhole(t *testing.T) {
	tests := []struct {
		text, name, want string
		ok               bool
	}{
		{"genes for generation of precursor metabolites and energy on chromosome 5", "generation of precursor metabolites and energy",
			`genes for "generation of precursor metabolites and energy" on chromosome 5`, true},
		{"Actin polymerization or depolymerization genes", "actin polymerization or depolymerization",
			`"Actin polymerization or depolymerization" genes`, true},
		{"RNA splicing, via endonucleolytic cleavage and ligation", "RNA splicing, via endonucleolytic cleavage and ligation",
			`"RNA splicing, via endonucleolytic cleavage and ligation"`, true},
		{"DNA repair or translation", "DNA repair", "DNA repair or translation", false},
		{"DNA repair or translation", "generation of precursor metabolites and energy", "DNA repair or translation", false},
	}
	for _, tt := range tests {
		got, ok := KeepWhole(tt.text, tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("KeepWhole(%q, %q) = %q, %v; want %q, %v", tt.text, tt.name, got, ok, tt.want, tt.ok)
		}
	}
	quoted, _ := KeepWhole("generation of precursor metabolites and energy, excluding chromosome 3", "generation of precursor metabolites and energy")
	if got := Parse(quoted).Root.String(); got != "MINUS(term:generation of precursor metabolites and energy, location:3)" {
		t.Errorf("Parse(%q) = %s", quoted, got)
	}
	// A comma inside the name is the name's: it splits nothing.
	quoted, _ = KeepWhole("The energy coupled proton transmembrane transport, against electrochemical gradient genes, with chromosome 13 removed.",
		"energy coupled proton transmembrane transport, against electrochemical gradient")
	if got := Parse(quoted).Root.String(); got != "MINUS(term:energy coupled proton transmembrane transport, against electrochemical gradient, location:13)" {
		t.Errorf("Parse(%q) = %s", quoted, got)
	}
}

// TestLiteralWords: the words of a text search asked for are one term,
// never a place, up to a connective or a location that qualifies them.
func TestLiteralWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"text search for apicoplast", "term:apicoplast"},
		{"tRNA genes excluding text search for the apicoplast", "MINUS(term:tRNA, term:apicoplast)"},
		{"text search for kinases on chromosome 7", "INTERSECT(term:kinases, location:7)"},
		{"full-text search for rhoptry neck or DNA repair", "UNION(term:rhoptry neck, term:DNA repair)"},
		// Asked for in a request's frame, a text search is still one.
		{"Suggest a text search for merozoite surface", "term:merozoite surface"},
		{"could you build me a text search for rhoptry neck, but don't run it yet", "term:rhoptry neck"},
		// A keyword search, or words the description is to mention.
		{"keyword search 'heat shock', chromosome 11 only", "INTERSECT(term:heat shock, location:11)"},
		{"genes whose product description contains ribonuclease", "term:ribonuclease"},
		{"annotation mentioning the word helicase, not on chromosome 3", "MINUS(term:helicase, location:3)"},
		{"search the gene descriptions for the word rhomboid", "term:rhomboid"},
		{"full-text lookup of \"falcipain\", chromosome 11 only", "INTERSECT(term:falcipain, location:11)"},
		{"keyword 'heat shock', only chromosome 12", "INTERSECT(term:heat shock, location:12)"},
		{"description keyword aminopeptidase, chr 14 left out", "MINUS(term:aminopeptidase, location:14)"},
		{"free-text: ookinete", "term:ookinete"},
		{"text search: falcipain", "term:falcipain"},
	}
	for _, tt := range tests {
		p := Parse(tt.in)
		if got := p.Root.String(); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if c := p.Root.Leaves()[0]; !c.Literal && tt.want != "MINUS(term:tRNA, term:apicoplast)" {
			t.Errorf("Parse(%q): %q is not a literal text search", tt.in, c.Text)
		}
	}
}

// TestPlaceBesideGOID: a place written beside a GO id qualifies it and is
// never dropped.
func TestPlaceBesideGOID(t *testing.T) {
	for in, want := range map[string]string{
		"chr. 5 GO:0006281":       "INTERSECT(location:5, go:GO:0006281)",
		"GO:0006281 chromosome 7": "INTERSECT(go:GO:0006281, location:7)",
		// And two lists asked for as one are their union.
		"two sets in one: DNA repair genes and translation genes": "UNION(term:DNA repair, term:translation)",
		// Plan-only words, wherever they are written, say nothing of the genes.
		"DNA repair genes on chromosome 3 - hold off building, let me see the plan": "INTERSECT(term:DNA repair, location:3)",
		"tRNA genes on chromosome 5, don't run it yet, show me the plan first":      "INTERSECT(term:tRNA, location:5)",
		"plan only, nothing built yet: translation genes":                           "term:translation",
		"could you plan (not run) the DNA repair genes for me":                      "term:DNA repair",
	} {
		if got := Parse(in).Root.String(); got != want {
			t.Errorf("Parse(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestPlacesIntersectedAreAUnion: a gene lies on one sequence, so places
// the words join by "and" or a comma are any of them, however the list is
// led in; and a range is its chromosomes.
func TestPlacesIntersectedAreAUnion(t *testing.T) {
	for in, want := range map[string]string{
		"DNA repair scattered across chromosomes 3, 6 and 9": "INTERSECT(term:DNA repair, UNION(UNION(location:3, location:6), location:9))",
		"translation genes from chr 2 up to chr 4":           "INTERSECT(term:translation, UNION(UNION(location:2, location:3), location:4))",
		"tRNA genes, chromosomes 7–9 inclusive":              "INTERSECT(term:tRNA, UNION(UNION(location:7, location:8), location:9))",
	} {
		if got := Parse(in).Root.String(); got != want {
			t.Errorf("Parse(%q) = %s, want %s", in, got, want)
		}
	}
}
