package english

import "testing"

func TestOrthologsOf(t *testing.T) {
	for _, c := range []struct {
		text string
		want *Orthologs
	}{
		{"Carry these to their orthologs in Plasmodium vivax P01.", &Orthologs{Organism: "Plasmodium vivax P01"}},
		{"now map the genes over to their syntenic orthologues in P. vivax P01", &Orthologs{Organism: "P. vivax P01", Syntenic: true}},
		{"convert this list into orthologs in P. knowlesi strain H", &Orthologs{Organism: "P. knowlesi strain H"}},
		{"What are the orthologs of these genes in Plasmodium berghei ANKA?", &Orthologs{Organism: "Plasmodium berghei ANKA"}},
		{"find their orthologs in P. yoelii yoelii 17X", &Orthologs{Organism: "P. yoelii yoelii 17X"}},
		{"Keep only those with syntenic orthologs in Plasmodium vivax P01.", &Orthologs{Organism: "Plasmodium vivax P01", Syntenic: true, Keep: true}},
		{"of these, just the ones that have an ortholog in P. vivax", &Orthologs{Organism: "P. vivax", Keep: true}},
		{"which of them have orthologs in P. knowlesi?", &Orthologs{Organism: "P. knowlesi", Keep: true}},
		{"restrict it to genes with orthologs in P. malariae UG01, syntenic only", &Orthologs{Organism: "P. malariae UG01", Syntenic: true, Keep: true}},
		// Requests of their own, or no organism.
		{"find the orthologs in P. vivax of DNA repair genes", nil},
		{"DNA repair genes with orthologs in Plasmodium vivax", nil},
		{"carry these to their orthologs", nil},
		{"keep only those on chromosome 5", nil},
	} {
		got, ok := orthologsOf(c.text)
		switch {
		case c.want == nil && ok:
			t.Errorf("%q: read as orthologs %+v", c.text, got)
		case c.want != nil && (!ok || got != *c.want):
			t.Errorf("%q = %+v, %v; want %+v", c.text, got, ok, *c.want)
		}
	}
	if p := Parse("Carry these to their orthologs in Plasmodium vivax P01."); p.Follow != FollowOrthologs || p.Orthologs == nil {
		t.Errorf("Parse: follow %v, orthologs %v", p.Follow, p.Orthologs)
	}
}
