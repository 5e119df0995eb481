package english

import (
	"strings"
	"testing"
)

// TestParseRewrites: the ways of writing the grammar reads by rewriting
// them first (context, sentences, ranges, regions, exclusions and
// restrictions placed first or after, headings of lists, lists cut by
// commas) give the tree they mean.
func TestParseRewrites(t *testing.T) {
	tests := []struct {
		name, in, want string
		note           string // a substring of the parse's notes
	}{
		{"exclusion first, with a colon", "Leave out chromosome 3: tRNA genes", "MINUS(term:tRNA, location:3)", ""},
		{"exclusion first, with a semicolon", "Not counting the mitochondrion; rRNA genes", "MINUS(term:rRNA, location:mitochondrion)", ""},
		{"exclusion first, then a question", "Setting aside chromosome 9, which genes do translation?", "MINUS(term:translation, location:9)", ""},
		{"restriction first", "Only chromosome 6: snoRNA genes", "INTERSECT(term:snoRNA, location:6)", ""},
		{"exclusion in a later sentence", "DNA repair genes. Exclude chromosome 14.", "MINUS(term:DNA repair, location:14)", ""},
		{"three sentences", "Protein folding genes. Keep only chromosome 10. Remove the apicoplast.",
			"MINUS(INTERSECT(term:Protein folding, location:10), location:apicoplast)", ""},
		{"exclusion written after", "proteolysis genes, chromosomes 1 through 3 excluded",
			"MINUS(term:proteolysis, UNION(UNION(location:1, location:2), location:3))", ""},
		{"exclusion mid-sentence", "Show tRNA genes, leaving aside chromosome 8", "MINUS(term:tRNA, location:8)", ""},
		{"a sentence of context", "I'm studying the proteasome. Which proteolysis genes are on chromosome 13?",
			"INTERSECT(term:proteolysis, location:13)", ""},
		{"a source of knowledge is context", "genes involved in DNA replication, based on what the literature says about forks",
			"term:DNA replication", ""},
		{"a manuscript is context", "For my manuscript: translation genes in the parasite", "term:translation", ""},
		{"a purpose of several words is context", "For our lab meeting slides: protein folding genes", "term:protein folding", ""},
		{"the genome worked with is context", "Using the current Pf3D7 annotation, which translation genes are on chromosome 3?",
			"INTERSECT(term:translation, location:3)", ""},
		{"the parasite is the organism", "parasite genes involved in proteolysis", "term:proteolysis", ""},
		{"a dash range", "genes on chromosomes 9–11", "UNION(UNION(location:9, location:10), location:11)", ""},
		{"connectives of union", "snRNA genes together with snoRNA genes", "UNION(term:snRNA, term:snoRNA)", ""},
		{"a heading names a list", "Vaccine candidates: DNA repair or DNA replication genes, tRNA or rRNA genes, and genes on chromosome 5",
			"INTERSECT(INTERSECT(UNION(term:DNA repair, term:DNA replication), UNION(term:tRNA, term:rRNA)), location:5)",
			"as a name for the genes the list after the colon describes"},
		{"places after a heading say where its genes lie", "rRNA genes: chromosomes 2, 4 or 6",
			"INTERSECT(term:rRNA, UNION(UNION(location:2, location:4), location:6))", ""},
		{"a heading of genes is a criterion", "DNA repair genes: protein coding, on chromosome 5, not on the apicoplast",
			"MINUS(INTERSECT(INTERSECT(term:DNA repair, term:protein coding), location:5), location:apicoplast)", ""},
		{"a location heading qualifies", "On the apicoplast: tRNA genes", "INTERSECT(term:tRNA, location:apicoplast)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(tt.in)
			if got := p.Root.String(); got != tt.want {
				t.Errorf("Parse(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if notes := strings.Join(p.Notes, "\n"); !strings.Contains(notes, tt.note) {
				t.Errorf("notes %q do not mention %q", notes, tt.note)
			}
		})
	}
}

// TestParseRegions: a region however written is the location search with
// its bounds.
func TestParseRegions(t *testing.T) {
	for _, in := range []string{
		"genes in Pf3D7_07_v3:250000-300000",
		"genes on chr7:250,000–300,000",
		"genes on chromosome 7 from 250 kb to 300 kb",
		"genes on chromosome 7 between 250 and 300 kb",
	} {
		p := Parse(in)
		leaves := p.Root.Leaves()
		if len(leaves) != 1 || leaves[0].Kind != KindLocation || leaves[0].Start != "250000" || leaves[0].End != "300000" {
			t.Errorf("Parse(%q) = %s with %+v, want one location 250000–300000", in, p.Root, leaves)
		}
	}
}
