package english

import "testing"

// TestWrappers: the ways researchers open, close and pad a request are
// structure, never search words.
func TestWrappers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Get me all the genes involved in DNA repair", "term:DNA repair"},
		{"hey, need DNA repair minus chr 4, cheers", "MINUS(term:DNA repair, location:4)"},
		{"Any chance you could put the proteolysis genes into a strategy for me?", "term:proteolysis"},
		{"Could you set up a search returning translation genes, with chromosome 3 discarded?", "MINUS(term:translation, location:3)"},
		{"Make me a strategy around glycolysis, keeping chromosome 9 and nothing else.", "INTERSECT(term:glycolysis, location:9)"},
		{"No rush: find the DNA replication genes that chromosome 12 holds.", "INTERSECT(term:DNA replication, location:12)"},
		{"Our supervisor in Oxford wants the tRNA genes on chromosome 2", "INTERSECT(term:tRNA, location:2)"},
		{"For Friday's journal club I need proteolysis genes minus chromosome 5.", "MINUS(term:proteolysis, location:5)"},
		{"As a new student in the lab, I'd like the DNA repair genes.", "term:DNA repair"},
		{"Fetch the translation genes; afterwards prune away chromosome 1.", "MINUS(term:translation, location:1)"},
		{"I'm looking for genes that are involved in translation", "term:translation"},
		{"I am interested in tRNA genes on chromosome 3", "INTERSECT(term:tRNA, location:3)"},
		{"Give me a list of snoRNA genes", "term:snoRNA"},
		{"Retrieve DNA replication genes, excluding chromosome 14", "MINUS(term:DNA replication, location:14)"},
		{"Can I see the genes on chromosome 7 that code for rRNA?", "INTERSECT(location:7, term:rRNA)"},
		{"What genes are involved in glycolysis?", "term:glycolysis"},
		{"Which of the genes on chromosome 2 are tRNA genes?", "INTERSECT(location:2, term:tRNA)"},
		{"Return every gene involved in proteolysis except those on the apicoplast", "MINUS(term:proteolysis, location:apicoplast)"},
		{"Search for genes annotated with GO:0006412", "go:GO:0006412"},
		{"Help me find genes related to DNA repair on chromosome 5", "INTERSECT(term:DNA repair, location:5)"},
		{"I want protein coding genes on chromosome 1", "INTERSECT(term:protein coding, location:1)"},
		{"Show all rRNA genes", "term:rRNA"},
		{"Find the set of genes involved in translation", "term:translation"},
		{"I'd love a list of genes that participate in DNA replication", "term:DNA replication"},
		{"Look up genes for cell adhesion", "term:cell adhesion"},
		{"Pull out all tRNA genes", "term:tRNA"},
		{"Any genes on chromosome 3 involved in DNA repair?", "INTERSECT(location:3, term:DNA repair)"},
		{"Are there tRNA genes on the apicoplast?", "INTERSECT(term:tRNA, location:apicoplast)"},
		{"Genes for DNA repair, please, but not on chromosome 14", "MINUS(term:DNA repair, location:14)"},
		{"Tell me which genes are on the mitochondrial genome", "location:mitochondrion"},
		{"Identify genes involved in both translation and DNA repair", "INTERSECT(term:translation, term:DNA repair)"},
		{"Could you pull the snRNA genes for me?", "term:snRNA"},
		{"Please find genes involved in DNA repair located on chromosome 11.", "INTERSECT(term:DNA repair, location:11)"},
		{"I would like to get the list of genes coding for tRNAs on chromosome 6", "INTERSECT(term:tRNAs, location:6)"},
		{"Show me the genes involved in translation on chromosome 14 but not the tRNA genes", "MINUS(INTERSECT(term:translation, location:14), term:tRNA)"},
		{"Hi, can you get DNA repair genes for me", "term:DNA repair"},
		{"I need all genes on chromosome 9 except the protein coding ones", "MINUS(location:9, term:protein coding)"},
		{"Find genes with roles in DNA repair", "term:DNA repair"},
		{"Genes that function in translation, on chromosome 12", "INTERSECT(term:translation, location:12)"},
		{"genes mapped to chromosome 3", "location:3"},
		{"genes from chromosome 3 and chromosome 4", "UNION(location:3, location:4)"},
		{"Show me a strategy that finds DNA repair genes", "term:DNA repair"},
		{"I'd like the genes annotated to translation", "term:translation"},
		{"Generate a list of translation genes not on chromosome 1", "MINUS(term:translation, location:1)"},
		{"what are the tRNA genes on chromosome 10", "INTERSECT(term:tRNA, location:10)"},
		{"Find me genes on chromosomes 2 or 3 that are involved in translation", "INTERSECT(UNION(location:2, location:3), term:translation)"},
		{"tRNA genes for my analysis", "term:tRNA"},
		{"DNA repair genes in PlasmoDB", "term:DNA repair"},
		{"genes on chromosome 3, if possible", "location:3"},
		{"snoRNA genes, thank you!", "term:snoRNA"},
		{"I'm trying to find the genes that are involved in DNA replication", "term:DNA replication"},
		{"Is it possible to get the genes for glycolysis?", "term:glycolysis"},
		{"Bring up the snRNA genes", "term:snRNA"},
		{"I'm curious about genes related to proteolysis", "term:proteolysis"},
		{"Any idea which genes are involved in glycolysis?", "term:glycolysis"},
		{"I would appreciate a list of snRNA genes", "term:snRNA"},
		{"For my thesis I need the tRNA genes", "term:tRNA"},
		{"Find genes for DNA repair in the malaria parasite", "term:DNA repair"},
	}
	for _, tt := range tests {
		if got := Parse(tt.in).Root.String(); got != tt.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
