package english

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTree(t *testing.T) {
	tests := []struct {
		name, in, want string
		organism       string
	}{
		{"the acceptance request", "Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14",
			"MINUS(UNION(term:DNA replication, term:DNA repair), location:14)", "P. falciparum"},
		{"and binds tighter than or, on the left", "DNA repair and chromosome 5 or tRNA genes",
			"UNION(INTERSECT(term:DNA repair, location:5), term:tRNA)", ""},
		{"and binds tighter than or, on the right", "DNA repair or chromosome 5 and tRNA genes",
			"UNION(term:DNA repair, INTERSECT(location:5, term:tRNA))", ""},
		{"an exclusion's right side runs to the next exclusion", "DNA repair genes excluding chromosome 13 or chromosome 14",
			"MINUS(term:DNA repair, UNION(location:13, location:14))", ""},
		{"exclusions are left-associative", "translation excluding chromosome 1 excluding tRNA genes",
			"MINUS(MINUS(term:translation, location:1), term:tRNA)", ""},
		{"a list of the researcher's, quoted", "genes in my list 'kinase screen' that are on chromosome 5",
			"INTERSECT(list:kinase screen, location:5)", ""},
		{"a list in double quotes", `genes in my gene list "Kinase Screen" on chromosome 5`, "INTERSECT(list:Kinase Screen, location:5)", ""},
		{"a list in curly quotes", "genes in my list \u2018kinase screen\u2019 on chromosome 5", "INTERSECT(list:kinase screen, location:5)", ""},
		{"a list called by name, minus", "my list called hits minus chromosome 14", "MINUS(list:hits, location:14)", ""},
		{"but not", "DNA repair but not chromosome 14", "MINUS(term:DNA repair, location:14)", ""},
		{"except", "translation except genes on the apicoplast", "MINUS(term:translation, location:apicoplast)", ""},
		{"except for", "glycolysis, except for genes on chromosome 2", "MINUS(term:glycolysis, location:2)", ""},
		{"minus", "DNA replication minus DNA repair", "MINUS(term:DNA replication, term:DNA repair)", ""},
		{"not on", "DNA repair genes not on chromosome 14", "MINUS(term:DNA repair, location:14)", ""},
		{"and not", "DNA repair and not chromosome 14", "MINUS(term:DNA repair, location:14)", ""},
		{"without", "kinases without signal peptides", "MINUS(term:kinases, term:signal peptides)", ""},
		{"and/or", "DNA repair and/or translation", "UNION(term:DNA repair, term:translation)", ""},
		{"a location qualifies the rest of its clause", "tRNA genes on chromosome 5", "INTERSECT(term:tRNA, location:5)", ""},
		{"a gene type qualifies the rest of its clause", "protein coding genes involved in DNA repair",
			"INTERSECT(term:protein coding, term:DNA repair)", ""},
		{"and between chromosomes means or", "genes on chromosomes 5 and 7", "UNION(location:5, location:7)", ""},
		{"and between gene types means or; a list comma takes the list's connective", "tRNA, rRNA and snoRNA genes",
			"UNION(UNION(term:tRNA, term:rRNA), term:snoRNA)", ""},
		{"a list comma before or", "DNA repair, translation or glycolysis",
			"UNION(UNION(term:DNA repair, term:translation), term:glycolysis)", ""},
		{"gene ids joined by and are one list", "PF3D7_1133400 and MSP1", "ids:PF3D7_1133400,MSP1", ""},
		{"gene ids joined by commas and or", "genes PF3D7_1133400, PF3D7_0930300 or AMA1", "ids:PF3D7_1133400,PF3D7_0930300,AMA1", ""},
		{"GO ids", "GO:0006281 or GO:0006260", "UNION(go:GO:0006281, go:GO:0006260)", ""},
		{"an organism alone is all its genes", "P. falciparum genes", "taxon", "P. falciparum"},
		{"all genes but some", "Find all genes except those on chromosome 1", "MINUS(taxon, location:1)", ""},
		{"an exclusion with nothing before it", "Excluding chromosome 14", "MINUS(taxon, location:14)", ""},
		{"Roman numerals", "genes on chromosome XIV", "location:14", ""},
		{"chr14", "chr14 genes", "location:14", ""},
		{"a misspelt chromosome", "genes on chromosme 3", "location:3", ""},
		{"the mitochondrion", "mitochondrial genes", "location:mitochondrion", ""},
		{"a bare number after a chromosome", "chromosome 5 or 7", "UNION(location:5, location:7)", ""},
		{"a typo stays a term for the catalog to judge", "DNA replicaton", "term:DNA replicaton", ""},
		{"Plasmodium falciparum 3D7 is the organism", "Plasmodium falciparum 3D7 genes involved in translation", "term:translation", "Plasmodium falciparum 3D7"},
		{"nothing mappable is still a term", "zzqx flurble", "term:zzqx flurble", ""},
		{"a quoted phrase keeps its connectives", `genes in "actin polymerization or depolymerization" but not on chromosome 3`,
			"MINUS(term:actin polymerization or depolymerization, location:3)", ""},
		{"fillers only", "please", "<nil>", ""},
		{"empty", "", "<nil>", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(tt.in)
			if got := p.Root.String(); got != tt.want {
				t.Errorf("Parse(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if p.Organism != tt.organism {
				t.Errorf("Parse(%q).Organism = %q, want %q", tt.in, p.Organism, tt.organism)
			}
		})
	}
}

func TestParseVariantsAndNotes(t *testing.T) {
	tests := []struct {
		name, in string
		leaf     int
		variants []string
		note     string // a substring of the clause's or the parse's notes
	}{
		{"ellipsis shares the words before", "DNA replication or repair", 1, []string{"repair", "DNA repair"}, ""},
		{"one word before a longer phrase", "DNA or RNA binding", 0, []string{"DNA", "DNA binding"}, ""},
		// GO's own synonyms are the catalog's to find: no table of them here.
		{"an everyday name as written", "glycolysis", 0, []string{"glycolysis"}, ""},
		{"a host cell is GO's host", "erythrocyte invasion genes", 0, []string{"erythrocyte invasion", "host invasion"}, ""},
		{"red blood cells too", "red blood cell invasion", 0, []string{"red blood cell invasion", "host invasion"}, ""},
		{"plural", "DNA repair processes", 0, []string{"DNA repair processes", "DNA repair process", "DNA repair"}, ""},
		{"process naming", "heme biosynthesis", 0, []string{"heme biosynthesis", "heme biosynthetic process"}, ""},
		{"GO writes no articles", "protein import into the mitochondrion", 0, []string{"protein import into the mitochondrion", "protein import into mitochondrion"}, ""},
		{"chromosome typo", "genes on chromosme 3", 0, nil, "I read 'chromosme' as 'chromosome'"},
		{"and read as or", "genes on chromosomes 5 and 7", 0, nil, "so I read 'and' between"},
		{"GO id beside words", "GO:0006260 DNA replication", 0, []string{"GO:0006260"}, "and not the words 'DNA replication'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse(tt.in)
			leaves := p.Root.Leaves()
			if tt.leaf >= len(leaves) {
				t.Fatalf("Parse(%q) has %d leaves", tt.in, len(leaves))
			}
			c := leaves[tt.leaf]
			if diff := cmp.Diff(tt.variants, c.Variants); tt.variants != nil && diff != "" {
				t.Errorf("variants mismatch (-want +got):\n%s", diff)
			}
			notes := strings.Join(append(c.Notes, p.Notes...), "\n")
			if !strings.Contains(notes, tt.note) {
				t.Errorf("notes %q do not mention %q", notes, tt.note)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	p := Parse("Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14")
	if got, want := p.Root.Describe(), "(DNA replication or DNA repair) excluding chromosome 14"; got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
	p = Parse("DNA repair excluding chromosome 13 or chromosome 14")
	if got, want := p.Root.Describe(), "DNA repair excluding (chromosome 13 or chromosome 14)"; got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
}

func TestWords(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"trna", "tran", 1}, {"dna replicaton", "dna replication", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	// Near is Distance asked "within k?": the same count whenever it is
	// within k, and no for the rest, on words alike and far apart.
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		w := make([]rune, rng.IntN(12))
		for i := range w {
			w[i] = []rune("abcé")[rng.IntN(4)]
		}
		return string(w)
	}
	for range 20000 {
		a, b, k := word(), word(), rng.IntN(4)
		d := Distance(a, b)
		if got, ok := Near(a, b, k); ok != (d <= k) || ok && got != d {
			t.Fatalf("Near(%q, %q, %d) = %d, %v; Distance is %d", a, b, k, got, ok, d)
		}
	}
	long := strings.Repeat("ribonucleoprotein complex ", 4)
	if d, ok := Near(long, long[1:], 1); !ok || d != 1 || Distance(long, long[1:]) != 1 {
		t.Errorf("Near of names longer than a row's buffer = %d, %v", d, ok)
	}
	for in, want := range map[string]string{"kinases": "kinase", "processes": "process", "snoRNAs": "snoRNA", "activities": "activity", "gas": "gas", "virus": "virus"} {
		if got := Singular(in); got != want {
			t.Errorf("Singular(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKnownGenes: a request that names genes its result should have keeps
// them apart as known genes (positive controls), not as a search; a
// request to test against controls gives its ids as the controls.
func TestKnownGenes(t *testing.T) {
	for _, c := range []struct {
		text, root string
		known      []string
		follow     FollowUp
	}{
		{"Find genes involved in DNA replication, and make sure PF3D7_0100100 and PF3D7_1133400 are in it", "DNA replication", []string{"PF3D7_0100100", "PF3D7_1133400"}, FollowNone},
		{"DNA repair genes on chromosome 5; the result should include PFA0005w.", "", []string{"PFA0005w"}, FollowNone},
		{"kinases, with PF3D7_0100100 as positive controls", "kinases", []string{"PF3D7_0100100"}, FollowNone},
		{"Test this strategy against my controls: PF3D7_0100100, PF3D7_1405300", "", []string{"PF3D7_0100100", "PF3D7_1405300"}, FollowControls},
		// Anything but ids is read as the request it is.
		{"make sure kinases are in it", "", nil, FollowNone},
	} {
		p := Parse(c.text)
		if !slices.Equal(p.Known, c.known) || p.Follow != c.follow {
			t.Errorf("Parse(%q): known %v follow %v, want %v %v", c.text, p.Known, p.Follow, c.known, c.follow)
		}
		if c.root != "" && (p.Root == nil || !strings.Contains(p.Root.Describe(), c.root) || strings.Contains(p.Root.Describe(), "PF3D7")) {
			t.Errorf("Parse(%q).Root = %v, want %q without the known genes", c.text, p.Root, c.root)
		}
	}
}
