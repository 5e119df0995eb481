package english

import "testing"

// TestResearcherPhrasings reads requests the way researchers type them:
// qualifiers over lists, location lists, ids inside clauses, and the
// conversational words around a request.
func TestResearcherPhrasings(t *testing.T) {
	tests := []struct{ in, want string }{
		// A qualifier applies to the whole list it follows or precedes.
		{"DNA repair or DNA replication genes on chromosome 14", "INTERSECT(UNION(term:DNA repair, term:DNA replication), location:14)"},
		// Sets that carry their own qualifiers are a list of sets.
		{"DNA repair genes on chromosome 5 or tRNA genes on chromosome 7", "UNION(INTERSECT(term:DNA repair, location:5), INTERSECT(term:tRNA, location:7))"},
		{"kinase genes on chromosome 3 and protease genes on chromosome 9", "UNION(INTERSECT(term:kinase, location:3), INTERSECT(term:protease, location:9))"},
		{"DNA repair genes on chromosome 5, tRNA genes on chromosome 7 or genes involved in translation on chromosome 9",
			"UNION(INTERSECT(term:DNA repair, location:5), UNION(INTERSECT(term:tRNA, location:7), INTERSECT(term:translation, location:9)))"},
		{"On chromosome 14, DNA repair or DNA replication genes", "INTERSECT(UNION(term:DNA repair, term:DNA replication), location:14)"},
		{"DNA repair or DNA replication on chromosome 14", "INTERSECT(UNION(term:DNA repair, term:DNA replication), location:14)"},
		{"protein coding genes involved in DNA repair or DNA replication", "INTERSECT(term:protein coding, UNION(term:DNA repair, term:DNA replication))"},
		{"tRNA or rRNA genes involved in translation", "INTERSECT(UNION(term:tRNA, term:rRNA), term:translation)"},
		{"DNA repair genes or genes involved in translation", "UNION(term:DNA repair, term:translation)"},
		// A location with a set word of its own after "or" is an item of
		// the list, not a qualifier over it.
		{"DNA repair genes or genes on chromosome 3", "UNION(term:DNA repair, location:3)"},
		{"proteolysis genes, or any gene on the apicoplast", "UNION(term:proteolysis, location:apicoplast)"},
		// A verb phrase after "or" starts a new item with its own
		// location: a union, not the list qualified by the location.
		{"genes involved in proteolysis or lying on chromosome 2", "UNION(term:proteolysis, location:2)"},
		{"kinase genes or those found on chromosome 3", "UNION(term:kinase, location:3)"},
		{"translation genes, or situated on the apicoplast", "UNION(term:translation, location:apicoplast)"},
		{"DNA repair genes or genes that sit on chromosome 11", "UNION(term:DNA repair, location:11)"},
		{"tRNA genes or ones residing on chromosome 4", "UNION(term:tRNA, location:4)"},
		// A list with no verb of its own before the location is qualified.
		{"kinases or proteases located on chromosome 3", "INTERSECT(UNION(term:kinases, term:proteases), location:3)"},
		{"genes on chromosome 6 without a protein folding function", "MINUS(location:6, term:protein folding)"},
		// What follows an excluded place qualifies the genes, not the place.
		{"genes not on chromosome 9 involved in DNA replication", "MINUS(term:DNA replication, location:9)"},
		{"genes outside chromosome 2 that are involved in protein folding", "MINUS(term:protein folding, location:2)"},
		// Proteins qualified by a process name that process's genes.
		{"proteins involved in protein folding on chromosome 6", "INTERSECT(term:protein folding, location:6)"},
		{"proteins that take part in translation", "term:translation"},
		{"What proportion of genes on chromosome 9 are tRNAs?", "INTERSECT(location:9, term:tRNAs)"},
		// Exclusions in other words, and a set named by "anything".
		{"protein folding genes, then get rid of the ones on chromosome 4", "MINUS(term:protein folding, location:4)"},
		{"kinases, taking away whatever is on chromosome 2", "MINUS(term:kinases, location:2)"},
		{"DNA repair genes with computed evidence only", "term:DNA repair"},
		// A question's frame around the genes is not a term.
		{"How many tRNA genes does the parasite have?", "term:tRNA"},
		{"How many snoRNA genes does P. falciparum 3D7 have on chromosome 5?", "INTERSECT(term:snoRNA, location:5)"},
		// An exclusion placed first qualifies the whole request.
		{"Without chromosome 3, DNA repair genes", "MINUS(term:DNA repair, location:3)"},
		{"Excluding chromosome 3, which genes are involved in DNA repair?", "MINUS(term:DNA repair, location:3)"},
		{"Apart from the apicoplast: rRNA genes", "MINUS(term:rRNA, location:apicoplast)"},
		{"Leaving out chromosomes 13 and 14, translation genes", "MINUS(term:translation, UNION(location:13, location:14))"},
		// Ranges written with a hyphen or a dash.
		{"genes on chromosomes 3-5", "UNION(UNION(location:3, location:4), location:5)"},
		{"tRNA genes on chromosomes 12–14", "INTERSECT(term:tRNA, UNION(UNION(location:12, location:13), location:14))"},
		{"rRNA genes on chr 1 — 2", "INTERSECT(term:rRNA, UNION(location:1, location:2))"},
		// Context before a request is context.
		{"using PlasmoDB release 68, DNA repair genes", "term:DNA repair"},
		{"Two things: DNA repair genes on chromosome 5", "INTERSECT(term:DNA repair, location:5)"},
		{"For my thesis: translation genes", "term:translation"},
		// A part about the researcher, whatever its topic, opens the request.
		{"Preparing a talk about DNA replication — translation genes on chromosome 3", "INTERSECT(term:translation, location:3)"},
		{"We study mosquito-stage transmission; I need the DNA repair genes outside chromosome 14.", "MINUS(term:DNA repair, location:14)"},
		{"I'm a rotation student in a lipid lab and my PI asked for the translation genes on chromosome 13.", "INTERSECT(term:translation, location:13)"},
		{"My PI asked for this one: DNA repair, chromosomes 11 and 13 excluded.", "MINUS(term:DNA repair, UNION(location:11, location:13))"},
		{"Our lab works on cytoadherence — could I get the cell adhesion genes with chromosome 4 left out?", "MINUS(term:cell adhesion, location:4)"},
		{"First time using this tool. Translation genes — please just make the strategy.", "term:Translation"},
		{"GO:0006281, chromosome 7 taken away", "MINUS(go:GO:0006281, location:7)"},
		{"translation and DNA repair genes (either term), dropping chromosome 6", "MINUS(UNION(term:translation, term:DNA repair), location:6)"},
		{"DNA repair or translation - and only where they sit on chromosome 12.", "INTERSECT(UNION(term:DNA repair, term:translation), location:12)"},
		{"DNA repair / translation genes; none from chromosome 12", "MINUS(UNION(term:DNA repair, term:translation), location:12)"},
		{"chr 4/5/6 tRNA genes", "INTERSECT(term:tRNA, UNION(UNION(location:4, location:5), location:6))"},
		{"genes carrying GO:0006281, but not if they lie on chromosome 7", "MINUS(go:GO:0006281, location:7)"},
		{"DNA repair — chr 12-14", "INTERSECT(term:DNA repair, UNION(UNION(location:12, location:13), location:14))"},
		{"DNA repair [chr 9] — for Tuesday's lab meeting", "INTERSECT(term:DNA repair, location:9)"},
		{"DNA repair on chromosome 6; of those, I don't want any that are translation genes.", "MINUS(INTERSECT(term:DNA repair, location:6), term:translation)"},
		{"In Pf 3D7, which genes handle translation on chromosome 7?", "INTERSECT(term:translation, location:7)"},
		{"P. falciparum isolate 3D7, genes in translation", "term:translation"},
		{"porphyrin-containing compound metabolic process plus translation — everything off chromosome 2", "MINUS(UNION(term:porphyrin-containing compound metabolic process, term:translation), location:2)"},
		{"all snoRNA genes, chromosomes 8, 12 and 14 excepted", "MINUS(term:snoRNA, UNION(UNION(location:8, location:12), location:14))"},
		{"GO:0006281-annotated genes, but not those on chr 5", "MINUS(go:GO:0006281, location:5)"},
		{"put together a search strategy for translation genes with chromosome 14 removed", "MINUS(term:translation, location:14)"},
		{"chromosome 13's share of DNA repair", "INTERSECT(term:DNA repair, location:13)"},
		{"DNA repair, the whole set", "term:DNA repair"},
		{"DNA repair, but I'm only interested in chromosome 9", "INTERSECT(term:DNA repair, location:9)"},
		{"Leave chromosome 11 out of it. Then: DNA repair genes.", "MINUS(term:DNA repair, location:11)"},
		{"I'm after the DNA repair annotations, every gene", "term:DNA repair"},
		{"I'm interested in nucleotide metabolism in the parasite. Could you pull the DNA repair genes? Chromosome 14 should be left out.", "MINUS(term:DNA repair, location:14)"},
		{"either DNA repair or translation, pooled together", "UNION(term:DNA repair, term:translation)"},
		{"GO:0006281 members that are also in GO:0006412", "INTERSECT(go:GO:0006281, go:GO:0006412)"},
		{"all snRNA-encoding genes, and also DNA repair", "UNION(term:snRNA encoding, term:DNA repair)"},
		{"mitochondrial genome rRNA genes together with GO:0006281 genes from chromosome 2", "UNION(INTERSECT(location:mitochondrion, term:rRNA), INTERSECT(go:GO:0006281, location:2))"},
		{"first the entire DNA repair annotation", "term:DNA repair"},
		{"GO:0006281 merged with GO:0006412", "go:GO:0006281,GO:0006412"},
		// A request written in steps.
		{"Step 1: DNA repair. Step 2: keep only chromosome 10. Step 3: take away anything that is also translation.", "MINUS(INTERSECT(term:DNA repair, location:10), term:translation)"},
		{"1) DNA repair 2) just chr 10 3) minus anything in translation", "MINUS(INTERSECT(term:DNA repair, location:10), term:translation)"},
		{"Begin with DNA repair. Keep what overlaps chromosome 9. Subtract translation.", "MINUS(INTERSECT(term:DNA repair, location:9), term:translation)"},
		// A union announced in words.
		{"a combined set please: DNA repair together with translation", "UNION(term:DNA repair, term:translation)"},
		{"Two sets, one list: the DNA repair genes and the translation genes.", "UNION(term:DNA repair, term:translation)"},
		{"DNA repair OR translation, one merged list", "UNION(term:DNA repair, term:translation)"},
		{"DNA repair ∪ translation", "UNION(term:DNA repair, term:translation)"},
		{"lipid localization OR translation (a union, please)", "UNION(term:lipid localization, term:translation)"},
		{"the apicoplast rRNA genes, plus GO:0006281 genes on chromosome 1", "UNION(INTERSECT(location:apicoplast, term:rRNA), INTERSECT(go:GO:0006281, location:1))"},
		{"genes lying on chromosome 2 or taking part in DNA repair", "UNION(location:2, term:DNA repair)"},
		// A place part qualifies the whole request, wherever it is.
		{"DNA repair (chromosome 13 excluded)", "MINUS(term:DNA repair, location:13)"},
		{"tRNA genes; drop chromosomes 6, 11 and 12 entirely", "MINUS(term:tRNA, UNION(UNION(location:6, location:11), location:12))"},
		{"DNA repair or translation, chr 10 alone", "INTERSECT(UNION(term:DNA repair, term:translation), location:10)"},
		{"Just chromosome 14 for this one: DNA repair", "INTERSECT(term:DNA repair, location:14)"},
		{"the rRNA- and tRNA-encoding genes, but chromosome 7 only", "INTERSECT(UNION(term:rRNA encoding, term:tRNA encoding), location:7)"},
		// A first part about the work or the data, whatever its words.
		{"For chapter two of my dissertation, the proteolysis genes", "term:proteolysis"},
		{"My supervisor asked for a figure — translation genes on chromosome 3, please", "INTERSECT(term:translation, location:3)"},
		{"Based on the 2019 annotation export, tRNA genes", "term:tRNA"},
		{"As a quick sanity check: rRNA genes", "term:rRNA"},
		// A first part that names anything else is read.
		{"For DNA repair genes, only chromosome 4", "INTERSECT(term:DNA repair, location:4)"},
		// A request framed as asking for a search, a strategy or a plan is
		// the genes it names, and "don't build it yet" is how plan mode
		// works anyway: neither is a term.
		{"Build a kinase strategy", "term:kinase"},
		{"Build a comprehensive protease strategy for Plasmodium.", "term:protease"},
		{"Suggest one site search for genes with high gametocyte expression, but don't build anything yet.", "term:high gametocyte expression"},
		{"Could you propose a search for DNA repair genes on chromosome 4? Don't run it yet.", "INTERSECT(term:DNA repair, location:4)"},
		{"recommend a strategy for tRNA genes, but do not build it for now", "term:tRNA"},
		{"put together a full list of translation genes", "term:translation"},
		{"an exhaustive search for proteolysis genes, just plan it", "term:proteolysis"},
		// Verbs of what genes do are not the process's name.
		{"which genes handle tRNA aminoacylation?", "term:tRNA aminoacylation"},
		{"genes responsible for DNA replication on chromosome 2", "INTERSECT(term:DNA replication, location:2)"},
		{"proteins that mediate proteolysis", "term:proteolysis"},
		{"list every gene that takes part in lipid metabolism but is not protein coding", "MINUS(term:lipid metabolism, term:protein coding)"},
		// "only" before chromosomes without "on" restricts to the list.
		{"GPI anchor biosynthesis, only chromosomes 1 and 4", "INTERSECT(term:GPI anchor biosynthesis, UNION(location:1, location:4))"},
		{"GPI anchor biosynthesis; only chr 1-3", "INTERSECT(term:GPI anchor biosynthesis, UNION(UNION(location:1, location:2), location:3))"},
		{"tRNA genes only chromosomes 3 and 5", "INTERSECT(term:tRNA, UNION(location:3, location:5))"},
		{"hi, can you pull up every gene tied to lysine biosynthesis?", "term:lysine biosynthesis"},
		{"i need the ones doing histone acetylation but not the ones on chromosomes 4 or 5", "MINUS(term:histone acetylation, UNION(location:4, location:5))"},
		// The nuclear genome is the genes of neither organelle genome.
		{"any snRNA genes outside the nuclear genome?", "INTERSECT(term:snRNA, UNION(location:apicoplast, location:mitochondrion))"},
		{"tRNA genes on the nuclear chromosomes", "MINUS(term:tRNA, UNION(location:apicoplast, location:mitochondrion))"},
		{"DNA repair genes from 3D7", "term:DNA repair"},
		// A bare number where a place goes is that chromosome; with a unit
		// or a noun after it, it is not.
		{"tRNA genes on 5", "INTERSECT(term:tRNA, location:5)"},
		{"DNA repair genes, not on 3 or 4", "MINUS(term:DNA repair, UNION(location:3, location:4))"},
		{"proteins of 12 kDa on chromosome 3", "INTERSECT(term:proteins of 12 kDa, location:3)"},
		{"genes on 15", "term:15"},
		// A place's genes as the first item of a union are an item.
		{"chromosome 1 genes or translation genes", "UNION(location:1, term:translation)"},
		{"apicoplast genes or DNA repair genes", "UNION(location:apicoplast, term:DNA repair)"},
		// A last part added "too" is added.
		{"pigment metabolic process genes, and the snRNA genes too", "UNION(term:pigment metabolic process, term:snRNA)"},
		{"DNA repair genes, and also translation as well", "UNION(term:DNA repair, term:translation)"},
		// What the genes lack is taken away.
		{"signal peptide genes with no transmembrane domain", "MINUS(term:signal peptide, term:transmembrane domain)"},
		{"proteins lacking a signal peptide", "MINUS(term:proteins, term:signal peptide)"},
		{"DNA repair genes that lack a transmembrane domain", "MINUS(term:DNA repair, term:transmembrane domain)"},
		// An exclusion of words that say nothing alone stays a phrase to
		// ask about, never dropped to leave every gene.
		{"genes with no known function", "MINUS(taxon, term:known function)"},
		// Words at the end that pool the parts ask for their union.
		{"show me snoRNAs and snRNAs together", "UNION(term:snoRNAs, term:snRNAs)"},
		{"tRNA and rRNA genes in one list", "UNION(term:tRNA, term:rRNA)"},
		{"translation, DNA repair, proteolysis — combine all three", "UNION(UNION(term:translation, term:DNA repair), term:proteolysis)"},
		{"tRNA genes, rRNA genes; merge them", "UNION(term:tRNA, term:rRNA)"},
		// A search's genes have no rank: "top 10" names no genes.
		{"Show me the top 10 DNA repair genes", "term:DNA repair"},
		{"I'm investigating stage-specific expression in Plasmodium falciparum. Suggest one site search for genes with high gametocyte expression, but don't build anything yet.", "term:high gametocyte expression"},
		// An exclusion or restriction stated first, or in a sentence of
		// its own, qualifies the whole request.
		{"Chromosome 2 excluded, list the proteolysis genes", "MINUS(term:proteolysis, location:2)"},
		{"Skip chromosome 6 — I'm after the translation genes", "MINUS(term:translation, location:6)"},
		{"Anything except chromosome 3: tRNA genes", "MINUS(term:tRNA, location:3)"},
		{"Leaving out chromosomes 1, 2 and 3, give me the proteolysis genes", "MINUS(term:proteolysis, UNION(UNION(location:1, location:2), location:3))"},
		{"Confining it to chromosome 9; which genes do translation?", "INTERSECT(term:translation, location:9)"},
		{"I want the DNA repair genes. Drop chromosome 14, please.", "MINUS(term:DNA repair, location:14)"},
		{"tRNA genes, with one caveat: nothing from the apicoplast", "MINUS(term:tRNA, location:apicoplast)"},
		{"Not interested in chromosome 2. Show me rRNA genes.", "MINUS(term:rRNA, location:2)"},
		{"proteolysis genes, but leave chromosomes 8 and 9 out", "MINUS(term:proteolysis, UNION(location:8, location:9))"},
		{"tRNA genes lying anywhere but chromosome 4", "MINUS(term:tRNA, location:4)"},
		// A list of places written first, or without spaces.
		{"chromosomes 2 and 3 rRNA genes", "INTERSECT(term:rRNA, UNION(location:2, location:3))"},
		{"even-numbered chromosomes 2, 4 and 6: their tRNA genes", "INTERSECT(term:tRNA, UNION(UNION(location:2, location:4), location:6))"},
		{"tRNA genes on chromosomes 3,4,5", "INTERSECT(term:tRNA, UNION(UNION(location:3, location:4), location:5))"},
		{"Pf genes for translation", "term:translation"},
		// An organelle a process goes to is part of the process's name.
		{"protein import into the mitochondrion genes", "term:protein import into the mitochondrion"},
		{"tRNA genes of the mitochondrion", "INTERSECT(term:tRNA, location:mitochondrion)"},
		{"go:6511 genes on chromosome 3", "INTERSECT(go:GO:0006511, location:3)"},
		{"In P. falciparum (3D7 strain), proteolysis genes", "term:proteolysis"},
		{"Background: we study invasion. Request: tRNA genes on chromosome 3.", "INTERSECT(term:tRNA, location:3)"},
		{"Three things. First, translation genes. Then, only on chromosome 2.", "INTERSECT(term:Translation, location:2)"},
		{"snoRNA or tRNA genes, both on chromosome 1", "INTERSECT(UNION(term:snoRNA, term:tRNA), location:1)"},
		{"DNA repair genes, chromosomes 4, 5 and 6 only", "INTERSECT(term:DNA repair, UNION(UNION(location:4, location:5), location:6))"},
		{"tRNA genes on chr 3, chr 5 and chr 7", "INTERSECT(term:tRNA, UNION(UNION(location:3, location:5), location:7))"},
		{"Not chromosome 4 — just the proteolysis genes", "MINUS(term:proteolysis, location:4)"},
		{"chromosome 2 out. translation genes", "MINUS(term:translation, location:2)"},
		{"genes on chromosome 2 or genes involved in translation", "UNION(location:2, term:translation)"},
		{"rRNA genes, chromosomes 2, 3 and 4", "INTERSECT(term:rRNA, UNION(UNION(location:2, location:3), location:4))"},
		{"proteolysis genes, chromosomes 5–7", "INTERSECT(term:proteolysis, UNION(UNION(location:5, location:6), location:7))"},
		{"I'm curious about invasion. Which tRNA genes are there? Chromosome 4 should be left out.", "MINUS(term:tRNA, location:4)"},
		{"For our grant on drug resistance, I need the translation genes", "term:translation"},
		{"Keeping to chromosome 3 alone, the proteolysis genes", "INTERSECT(term:proteolysis, location:3)"},
		{"Setting the mitochondrial genome aside, which genes do translation?", "MINUS(term:translation, location:mitochondrion)"},
		{"Chromosomes 1 and 2 aside, I want the tRNA genes", "MINUS(term:tRNA, UNION(location:1, location:2))"},
		{"snoRNA genes on none of chromosomes 1, 2 or 3", "MINUS(term:snoRNA, UNION(UNION(location:1, location:2), location:3))"},
		{"tRNA-encoding genes (either kind) on chromosome 4", "INTERSECT(term:tRNA encoding, location:4)"},
		{"chr4 tRNAs + rRNAs", "INTERSECT(location:4, UNION(term:tRNAs, term:rRNAs))"},
		{"apicoplast genome tRNA genes", "INTERSECT(location:apicoplast, term:tRNA)"},
		{"notebook 3/4: translation genes. chr2 only. thx", "INTERSECT(term:translation, location:2)"},
		{"Merge two lists into one list: tRNA genes and snoRNA genes", "UNION(term:tRNA, term:snoRNA)"},
		{"lipid metabolism-related genes", "term:lipid metabolism"},
		{"genes on the 3rd chromosome", "location:3"},
		{"organellar rRNA genes", "INTERSECT(term:rRNA, UNION(location:apicoplast, location:mitochondrion))"},
		{"genes linked to translation", "term:translation"},
		{"tRNA genes along with the genes in proteolysis", "UNION(term:tRNA, term:proteolysis)"},
		{"Anything on the mitochondrial genome, plus anything in translation", "UNION(location:mitochondrion, term:translation)"},
		// A union in words.
		{"the union of proteolysis genes and tRNA genes", "UNION(term:proteolysis, term:tRNA)"},
		{"Merge the translation genes with the rRNA genes into a single list", "UNION(term:translation, term:rRNA)"},
		{"genes of the organellar genomes", "UNION(location:apicoplast, location:mitochondrion)"},
		{"nucleus-encoded tRNA genes", "MINUS(term:tRNA, UNION(location:apicoplast, location:mitochondrion))"},
		{"how many tRNA genes does chromosome 7 carry?", "INTERSECT(term:tRNA, location:7)"},
		{"search the descriptions for rhoptry", "term:rhoptry"},
		{"genes for gene silencing", "term:gene silencing"},
		// A location list is one unit.
		{"tRNA genes on chromosome 5 or 6", "INTERSECT(term:tRNA, UNION(location:5, location:6))"},
		{"protein phosphorylation genes on chromosomes 5 and 6", "INTERSECT(term:protein phosphorylation, UNION(location:5, location:6))"},
		{"DNA repair genes excluding chromosomes 13 and 14", "MINUS(term:DNA repair, UNION(location:13, location:14))"},
		{"genes on chromosomes 1 through 3", "UNION(UNION(location:1, location:2), location:3)"},
		{"genes on chromosome 3 or on the apicoplast", "UNION(location:3, location:apicoplast)"},
		// An id is one part of its clause.
		{"GO:0006281 genes on chromosome 14", "INTERSECT(go:GO:0006281, location:14)"},
		{"genes annotated with GO:0006281 on chromosome 14", "INTERSECT(go:GO:0006281, location:14)"},
		{"go:0006412", "go:GO:0006412"},
		{"GO 0006412 genes", "go:GO:0006412"},
		{"tRNA genes on chromosome 5 except PF3D7_0512600", "MINUS(INTERSECT(term:tRNA, location:5), ids:PF3D7_0512600)"},
		// Conversational wrappers are structure.
		{"Can you find me genes involved in translation?", "term:translation"},
		{"I need a list of tRNA genes on chromosome 3", "INTERSECT(term:tRNA, location:3)"},
		{"I'd like to see DNA repair genes please", "term:DNA repair"},
		{"Show me DNA replication genes, then remove any on chromosome 14", "MINUS(term:DNA replication, location:14)"},
		{"DNA replication genes but exclude those for DNA repair", "MINUS(term:DNA replication, term:DNA repair)"},
		{"Which genes on the apicoplast genome encode rRNA?", "INTERSECT(location:apicoplast, term:rRNA)"},
		{"DNA repair genes, and then keep only those on chromosome 5", "INTERSECT(term:DNA repair, location:5)"},
		{"DNA repair or DNA replication, then keep only the ones on chromosome 14", "INTERSECT(UNION(term:DNA repair, term:DNA replication), location:14)"},
		{"DNA repair genes but leave out chromosome 14", "MINUS(term:DNA repair, location:14)"},
		{"genes involved in translation that aren't on chromosome 1", "MINUS(term:translation, location:1)"},
		{"genes involved in translation that are not on chromosome 1", "MINUS(term:translation, location:1)"},
		{"DNA repair genes, skip chromosome 14", "MINUS(term:DNA repair, location:14)"},
		{"tRNA genes plus rRNA genes", "UNION(term:tRNA, term:rRNA)"},
		{"genes for both DNA repair and DNA replication", "INTERSECT(term:DNA repair, term:DNA replication)"},
		{"either DNA repair or translation", "UNION(term:DNA repair, term:translation)"},
		// Only gene-type names are one-of.
		{"mRNA processing and RNA splicing", "INTERSECT(term:mRNA processing, term:RNA splicing)"},
		{"ribosomal RNA and transfer RNA genes", "UNION(term:ribosomal RNA, term:transfer RNA)"},
		// Vocabulary of places.
		{"genes on API", "location:apicoplast"},
		{"chromosome MIT genes", "location:mitochondrion"},
		{"genes on the MIT chromosome", "location:mitochondrion"},
		{"mitochondrial rRNA genes", "INTERSECT(location:mitochondrion, term:rRNA)"},
		{"apicoplast genes involved in translation", "INTERSECT(location:apicoplast, term:translation)"},
		{"Pf3D7_05_v3 tRNA genes", "INTERSECT(location:Pf3D7_05_v3, term:tRNA)"},
		{"genes involved in translation or proteolysis, on chromosomes 3 or 4", "INTERSECT(UNION(term:translation, term:proteolysis), UNION(location:3, location:4))"},
		{"apicoplast-encoded tRNA or rRNA genes", "INTERSECT(location:apicoplast, UNION(term:tRNA, term:rRNA))"},
		{"apicoplast tRNA and rRNA genes", "INTERSECT(location:apicoplast, UNION(term:tRNA, term:rRNA))"},
		{"genes for glycolysis or gluconeogenesis found on chromosome 11", "INTERSECT(UNION(term:glycolysis, term:gluconeogenesis), location:11)"},
		{"genes involved in DNA repair or DNA replication that lie on chromosome 14", "INTERSECT(UNION(term:DNA repair, term:DNA replication), location:14)"},
		{"On the apicoplast: tRNA or rRNA genes", "INTERSECT(UNION(term:tRNA, term:rRNA), location:apicoplast)"},
		{"all the genes on chromosome 14 apart from tRNAs", "MINUS(location:14, term:tRNAs)"},
		{"translation genes with the exception of chromosome 3", "MINUS(term:translation, location:3)"},
		{"translation genes barring chromosome 3", "MINUS(term:translation, location:3)"},
		{"genes on chromosome 11 or 12 that are involved in proteolysis", "INTERSECT(term:proteolysis, UNION(location:11, location:12))"},
		{"tRNA and rRNA genes on chromosomes 3 and 4", "INTERSECT(UNION(term:tRNA, term:rRNA), UNION(location:3, location:4))"},
		{"genes on chromosome 8 involved in DNA repair or DNA replication", "INTERSECT(location:8, UNION(term:DNA repair, term:DNA replication))"},
		{"rRNA genes on the apicoplast and mitochondrial genomes", "INTERSECT(term:rRNA, UNION(location:apicoplast, location:mitochondrion))"},
		{"protein folding genes outside chromosomes 1, 2 and 3", "MINUS(term:protein folding, UNION(UNION(location:1, location:2), location:3))"},
		{"Please build a strategy for genes involved in glycolysis.", "term:glycolysis"},
		{"Could you build me a search for snRNA genes?", "term:snRNA"},
		{"Which tRNA genes lie on chromosome 13?", "INTERSECT(term:tRNA, location:13)"},
		{"Find me the genes that take part in cell adhesion and sit on chromosome 4", "INTERSECT(term:cell adhesion, location:4)"},
		{"Take the translation genes and keep only the ones on the apicoplast genome", "INTERSECT(term:translation, location:apicoplast)"},
		{"Start with translation genes and drop those on chromosome 14", "MINUS(term:translation, location:14)"},
		{"List the genes on the mitochondrial genome that encode proteins", "INTERSECT(location:mitochondrion, term:proteins)"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Parse(tt.in).Root.String(); got != tt.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestOrganisms(t *testing.T) {
	tests := []struct{ in, organism, tree string }{
		{"P. vivax genes involved in translation", "P. vivax", "term:translation"},
		{"Toxoplasma gondii genes involved in translation", "Toxoplasma gondii", "term:translation"},
		{"human genes involved in DNA repair", "human", "term:DNA repair"},
		{"Pf3D7 tRNA genes", "Pf3D7", "term:tRNA"},
		{"3D7 snoRNA genes", "3D7", "term:snoRNA"},
		{"P. falciparum Dd2 genes involved in proteolysis", "P. falciparum Dd2", "term:proteolysis"},
		{"Plasmodium falciparum 3D7 genes", "Plasmodium falciparum 3D7", "taxon"},
		{"orthologs of human TP53", "", "term:orthologs of human TP53"},
		// Any "Genus species", however rare the genus; of two organisms,
		// the one that is not P. falciparum is named (and then refused).
		{"Aspergillus oryzae genes involved in translation", "Aspergillus oryzae", "term:translation"},
		{"Culex pipiens tRNA genes", "Culex pipiens", "term:tRNA"},
		{"P. falciparum and P. berghei genes involved in translation", "P. berghei", "term:translation"},
		{"Find proteolysis genes", "", "term:proteolysis"},
		{"Show glycolysis genes", "", "term:glycolysis"},
	}
	for _, tt := range tests {
		p := Parse(tt.in)
		if p.Organism != tt.organism || p.Root.String() != tt.tree {
			t.Errorf("Parse(%q) = %q, %s; want %q, %s", tt.in, p.Organism, p.Root.String(), tt.organism, tt.tree)
		}
	}
}

func TestEvidence(t *testing.T) {
	tests := []struct{ in, evidence, tree string }{
		{"DNA repair genes with curated GO evidence", "Curated", "term:DNA repair"},
		{"translation genes based on computational annotations", "Computed", "term:translation"},
		{"DNA repair genes", "", "term:DNA repair"},
	}
	for _, tt := range tests {
		if p := Parse(tt.in); p.Evidence != tt.evidence || p.Root.String() != tt.tree {
			t.Errorf("Parse(%q) = evidence %q, %s; want %q, %s", tt.in, p.Evidence, p.Root.String(), tt.evidence, tt.tree)
		}
	}
}

func TestAmerican(t *testing.T) {
	for in, want := range map[string]string{
		"haemoglobin catabolism": "hemoglobin catabolism", "chromatin organisation": "chromatin organization",
		"cell signalling": "cell signaling", "haem biosynthesis": "heme biosynthesis", "DNA repair": "DNA repair",
		"promising": "promising", "catalyse": "catalyze",
	} {
		if got := American(in); got != want {
			t.Errorf("American(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRegion(t *testing.T) {
	p := Parse("genes on chromosome 5 between 100,000 and 200,000 bp")
	leaves := p.Root.Leaves()
	if p.Root.String() != "location:5" || leaves[0].Start != "100000" || leaves[0].End != "200000" {
		t.Errorf("Parse = %s %+v", p.Root, leaves[0])
	}
	p = Parse("tRNA genes from 1 to 1.5 Mb on chromosome 7")
	if p.Root.String() != "INTERSECT(term:tRNA, location:7)" || p.Root.Right.Clause.Start != "1000000" || p.Root.Right.Clause.End != "1500000" {
		t.Errorf("Parse = %s %+v", p.Root, p.Root.Right.Clause)
	}
	if p := Parse("genes with molecular weight between 10 and 50 kDa"); p.Root.Leaves()[0].Kind != KindTerm {
		t.Errorf("a weight range read as a region: %s", p.Root)
	}
}

// TestLongListsBalanced: a list of any length is a tree whose depth grows
// with the logarithm of its length, so a plan never nests too deep.
func TestLongListsBalanced(t *testing.T) {
	var depth func(n *Node) int
	depth = func(n *Node) int {
		if n == nil || n.Clause != nil {
			return 0
		}
		return 1 + max(depth(n.Left), depth(n.Right))
	}
	for _, tt := range []struct {
		in            string
		leaves, depth int
	}{
		{"genes on chromosomes 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 or 12", 12, 4},
		{"DNA repair genes excluding chromosomes 1 through 14", 15, 5},
		{"genes on chromosomes 2-14", 13, 4},
	} {
		p := Parse(tt.in)
		if got := len(p.Root.Leaves()); got != tt.leaves {
			t.Errorf("Parse(%q) has %d parts, want %d: %s", tt.in, got, tt.leaves, p.Root)
		}
		if got := depth(p.Root); got > tt.depth {
			t.Errorf("Parse(%q) nests %d deep, want at most %d: %s", tt.in, got, tt.depth, p.Root)
		}
	}
}

// TestFramesAndReferents reads the words around a request that name no
// genes (a frame, a sign-off, "nothing else") and the words that point
// back at the result so far ("the pair", "the combined list"), which a
// qualifier after them takes as a whole.
func TestFramesAndReferents(t *testing.T) {
	tests := []struct{ in, want string }{
		{"DNA repair — the full gene set, nothing filtered", "term:DNA repair"},
		{"chr 3 members of DNA repair, nothing else", "INTERSECT(term:DNA repair, location:3)"},
		{"Hi! I'm hoping you can assemble the proteolysis genes for me. Thanks in advance", "term:proteolysis"},
		{"Put together something that returns the translation genes sitting on chromosome 2, please", "INTERSECT(term:translation, location:2)"},
		{"Kindly propose a workflow: DNA repair genes, then discard chromosome 9's", "MINUS(term:DNA repair, location:9)"},
		{"quick favour — fetch me proteolysis genes without the chromosome 4 ones", "MINUS(term:proteolysis, location:4)"},
		{"DNA repair or proteolysis, restricted as a whole to chromosome 13", "INTERSECT(UNION(term:DNA repair, term:proteolysis), location:13)"},
		{"take DNA repair together with proteolysis and drop chromosome 10 from the combined list", "MINUS(UNION(term:DNA repair, term:proteolysis), location:10)"},
		{"tRNA genes together with rRNA genes, then confine the pair to chromosome 6", "INTERSECT(UNION(term:tRNA, term:rRNA), location:6)"},
		{"DNA repair plus translation, every gene of the pair minus chromosome 4", "MINUS(UNION(term:DNA repair, term:translation), location:4)"},
		{"DNA repair combined with translation — confine everything to chromosome 9", "INTERSECT(UNION(term:DNA repair, term:translation), location:9)"},
		{"overlap between DNA repair and translation", "INTERSECT(term:DNA repair, term:translation)"},
		{"which genes do DNA repair and translation share?", "INTERSECT(term:DNA repair, term:translation)"},
		{"which translation members does chromosome 11 contribute?", "INTERSECT(term:translation, location:11)"},
		{"chr 14 portion of DNA repair", "INTERSECT(term:DNA repair, location:14)"},
		{"DNA repair, less chr 14, less chr 13", "MINUS(MINUS(term:DNA repair, location:14), location:13)"},
		{"Please make a single set from DNA repair and from translation.", "UNION(term:DNA repair, term:translation)"},
		{"union: GO:0006281 and my genes PF3D7_1411200 PF3D7_1132200", "UNION(go:GO:0006281, ids:PF3D7_1411200,PF3D7_1132200)"},
		{"combine, please: DNA repair with translation", "UNION(term:DNA repair, term:translation)"},
		{"the apicoplast genes joined with proteolysis", "UNION(location:apicoplast, term:proteolysis)"},
		{"DNA repair genes on chromosome 4 that don't belong to translation", "MINUS(INTERSECT(term:DNA repair, location:4), term:translation)"},
		{"chr 4 taken out beforehand, what remains in DNA repair?", "MINUS(term:DNA repair, location:4)"},
		{"Having removed chromosomes 5 and 13, what's left of proteolysis?", "MINUS(term:proteolysis, UNION(location:5, location:13))"},
		{"Setting the mtDNA aside, I want every rRNA gene that's left", "MINUS(term:rRNA, location:mitochondrion)"},
		{"every tRNA gene, setting chromosomes 2 and 9 apart", "MINUS(term:tRNA, UNION(location:2, location:9))"},
		{"a) DNA repair b) limit to chr 7 c) then remove translation", "MINUS(INTERSECT(term:DNA repair, location:7), term:translation)"},
		{"Background first: we study gametocytes. Step one, proteolysis genes; step two, strip out chromosome 11.", "MINUS(term:Proteolysis, location:11)"},
		{"as a first step, the proteolysis annotation", "term:proteolysis"},
		{"draft, but don't run, a strategy for DNA repair on chromosome 13", "INTERSECT(term:DNA repair, location:13)"},
		{"just the plan for now, don't build: translation, chromosome 9 subtracted", "MINUS(term:translation, location:9)"},
		{"Thinking of DNA repair minus chromosome 12 — what would the plan be?", "MINUS(term:DNA repair, location:12)"},
		{"DNA repair, but only where chromosome 11 is concerned", "INTERSECT(term:DNA repair, location:11)"},
		{"what number of tRNA genes do chromosomes 11 and 14 carry between them?", "INTERSECT(term:tRNA, UNION(location:11, location:14))"},
		{"strain Pf3D7 — give me proteolysis", "term:proteolysis"},
		{"snoRNA loci, but solely chromosome 14", "INTERSECT(term:snoRNA loci, location:14)"},
		{"chromosome 9 proteins with three or more transmembrane helices", "INTERSECT(location:9, term:3 or more transmembrane helices)"},
		{"Chromosome 2 goes before anything else; after that I'd like proteolysis", "MINUS(term:proteolysis, location:2)"},
		// A gene type named again in brackets adds nothing; a type named
		// as a type is the type.
		{"ncRNA genes (non protein coding) on chr VIII", "INTERSECT(term:ncRNA, location:8)"},
		{"everything annotated to GO:0006446 merged with everything annotated to GO:0050776", "go:GO:0006446,GO:0050776"},
		{"(DNA repair genes on chr 6) + (translation genes on chr 4), then subtract whatever is in proteolysis",
			"MINUS(UNION(INTERSECT(term:DNA repair, location:6), INTERSECT(term:translation, location:4)), term:proteolysis)"},
		{"genes that regulate Ras signalling", "term:regulation of Ras signalling"},
		{"Forget the apicoplast. tRNA genes, all the rest of them.", "MINUS(term:tRNA, location:apicoplast)"},
		{"first DNA repair; second, remove translation from it; third, remove chromosome 14 as well",
			"MINUS(MINUS(term:DNA repair, term:translation), location:14)"},
		{"regulation of translation; chromosome one is not wanted", "MINUS(term:regulation of translation, location:1)"},
		// A union said after its parts, and a qualifier of the whole.
		{"DNA repair or proteolysis — repair either way", "UNION(term:DNA repair, term:proteolysis)"},
		{"GO:0006281 or GO:0006412, either one is fine", "UNION(go:GO:0006281, go:GO:0006412)"},
		{"DNA repair, translation or proteolysis — any of the three", "UNION(UNION(term:DNA repair, term:translation), term:proteolysis)"},
		{"either translation or proteolysis, I'm not fussy which", "UNION(term:translation, term:proteolysis)"},
		{"tRNA or rRNA genes, both kinds in one result", "UNION(term:tRNA, term:rRNA)"},
		{"tRNA and rRNA genes as one group, then knock chromosome 7 off that group", "MINUS(UNION(term:tRNA, term:rRNA), location:7)"},
		{"DNA repair together with translation (one set), apicoplast genes stripped from all of it", "MINUS(UNION(term:DNA repair, term:translation), location:apicoplast)"},
		{"For the pool of DNA repair plus translation genes, I only care about chromosome 12.", "INTERSECT(UNION(term:DNA repair, term:translation), location:12)"},
		{"tRNA or rRNA loci, provided they sit on chromosome 12 — applies to both", "INTERSECT(UNION(term:tRNA, term:rRNA loci), location:12)"},
		{"DNA repair along with translation; from the joint pool keep only chr 5 and chr 6", "INTERSECT(UNION(term:DNA repair, term:translation), UNION(location:5, location:6))"},
		{"every tRNA locus, then add the whole mitochondrial genome to them", "UNION(term:tRNA locus, location:mitochondrion)"},
		// Exclusions and restrictions first, in more words.
		{"proteolysis sans chromosome 14", "MINUS(term:proteolysis, location:14)"},
		{"Everything bar chromosome 12 — DNA repair", "MINUS(term:DNA repair, location:12)"},
		{"Chromosome 14 is off limits. Then translation.", "MINUS(term:Translation, location:14)"},
		{"Chromosome 9 is my only interest; proteolysis", "INTERSECT(term:proteolysis, location:9)"},
		{"Discounting the mitochondrion entirely, DNA repair", "MINUS(term:DNA repair, location:mitochondrion)"},
		{"GO:0006281 genes that GO:0006412 does not cover", "MINUS(go:GO:0006281, go:GO:0006412)"},
		{"my candidates PF3D7_0621200 PF3D7_1116200, together with all of GO:0006281", "UNION(ids:PF3D7_0621200,PF3D7_1116200, go:GO:0006281)"},
		{"Plasmodium falciparum, clone 3D7 — DNA repair on chromosome 4", "INTERSECT(term:DNA repair, location:4)"},
		{"P.f. 3D7: proteolysis genes", "term:proteolysis"},
		{"rRNA genes plus the genes of type 'non protein coding', all of them minus chromosome 1", "MINUS(UNION(term:rRNA, term:non protein coding), location:1)"},
		{"a union: GO:0006281 plus my three genes PF3D7_0513300 PF3D7_1029600", "UNION(go:GO:0006281, ids:PF3D7_0513300,PF3D7_1029600)"},
	}
	for _, tt := range tests {
		if got := Parse(tt.in).Root.String(); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestUnionsGrouped: parts a union's words group keep their own
// qualifiers: a bracketed part on a place, a whole set of its own, "in
// addition to".
func TestUnionsGrouped(t *testing.T) {
	for in, want := range map[string]string{
		"[thiamine metabolic process, chr 6] merged with [vitamin B6 metabolic process, chr 5]": "UNION(INTERSECT(term:thiamine metabolic process, location:6), INTERSECT(term:vitamin B6 metabolic process, location:5))",
		"all chromosome 3 genes in addition to telomere maintenance":                            "UNION(location:3, term:telomere maintenance)",
		"histone lysine methylation limited to the pair chromosome 11 / chromosome 12":          "INTERSECT(term:histone lysine methylation, UNION(location:11, location:12))",
		"DNA repair on chromosome 5 plus everything in proteolysis":                             "UNION(INTERSECT(term:DNA repair, location:5), term:proteolysis)",
	} {
		if got := Parse(in).Root.String(); got != want {
			t.Errorf("Parse(%q) = %s, want %s", in, got, want)
		}
	}
}
