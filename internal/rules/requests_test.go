package rules_test

import (
	"strconv"
	"strings"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/eval"
	"strategist/internal/event"
)

// TestRequests plans and builds requests of every kind through the real
// roles and checks the plan's tree, what the planning artifact says, and
// the root's count against a count computed here from the raw files.
func TestRequests(t *testing.T) {
	data := loadData(t)
	tests := []struct {
		name, request string
		tree          string
		want          func(d *eval.Data) eval.Set
		notes         []string // in the planning artifact
	}{
		{"gene type on a chromosome", "tRNA genes on chromosome 5",
			"INTERSECT(GenesByGeneType tRNA encoding, GenesByLocation Pf3D7_05_v3)",
			func(d *eval.Data) eval.Set { return eval.Intersect(d.OfType("tRNA encoding"), d.On("Pf3D7_05_v3")) }, nil},
		{"two gene types", "snoRNAs or rRNA genes",
			"UNION(GenesByGeneType snoRNA encoding, GenesByGeneType rRNA encoding)",
			func(d *eval.Data) eval.Set { return eval.Union(d.OfType("snoRNA encoding"), d.OfType("rRNA encoding")) }, nil},
		{"protein coding on the apicoplast", "protein coding genes on the apicoplast",
			"INTERSECT(GenesByGeneType protein coding, GenesByLocation PFC10_API_IRAB)",
			func(d *eval.Data) eval.Set { return eval.Intersect(d.OfType("protein coding"), d.On("PFC10_API_IRAB")) }, nil},
		{"and between chromosomes", "genes on chromosomes 1 and 2",
			"UNION(GenesByLocation Pf3D7_01_v3, GenesByLocation Pf3D7_02_v3)",
			func(d *eval.Data) eval.Set { return eval.Union(d.On("Pf3D7_01_v3"), d.On("Pf3D7_02_v3")) }, []string{"so I read 'and' between"}},
		{"gene ids and a symbol", "PF3D7_1133400 and MSP1",
			"GeneByLocusTag PF3D7_1133400,PF3D7_0930300",
			func(d *eval.Data) eval.Set { return eval.Set{"PF3D7_1133400": true, "PF3D7_0930300": true} }, []string{"MSP1 is PF3D7_0930300"}},
		{"a GO term with a typo", "DNA replicaton genes", "GenesByGoTerm GO:0006260",
			func(d *eval.Data) eval.Set { return d.GO("GO:0006260") }, []string{"I read 'DNA replicaton' as the GO term 'DNA replication' (a typo"}},
		{"a gene type with a typo", "tRAN genes", "GenesByGeneType tRNA encoding",
			func(d *eval.Data) eval.Set { return d.OfType("tRNA encoding") }, []string{"I read 'tRAN' as the gene type 'tRNA encoding' (a typo)"}},
		{"a gene type's long name with a typo", "ribsomal RNA genes", "GenesByGeneType rRNA encoding",
			func(d *eval.Data) eval.Set { return d.OfType("rRNA encoding") }, []string{"I read 'ribsomal RNA' as the gene type 'rRNA encoding' (a typo)"}},
		{"every gene but one type", "P. falciparum genes excluding protein coding genes",
			"MINUS(GenesByTaxon Plasmodium falciparum 3D7, GenesByGeneType protein coding)",
			func(d *eval.Data) eval.Set { return eval.Minus(d.All(), d.OfType("protein coding")) }, nil},
		{"exclusion of two locations", "genes involved in translation but not on chromosome 14 or the mitochondrion",
			"MINUS(GenesByGoTerm GO:0006412, UNION(GenesByLocation Pf3D7_14_v3, GenesByLocation M76611))",
			func(d *eval.Data) eval.Set {
				return eval.Minus(d.GO("GO:0006412"), eval.Union(d.On("Pf3D7_14_v3"), d.On("M76611")))
			}, nil},
		{"a synonym GO lists", "RNA editing genes", "GenesByGoTerm GO:0009451",
			func(d *eval.Data) eval.Set { return d.GO("GO:0009451") }, []string{"I read 'RNA editing' as the GO term 'RNA modification', of which GO lists 'RNA editing' as a synonym"}},
		{"a synonym", "glycolysis", "GenesByGoTerm GO:0006096",
			func(d *eval.Data) eval.Set { return d.GO("GO:0006096") }, []string{"I read 'glycolysis' as the GO term 'glycolytic process'"}},
		{"and is an intersection", "DNA replication and DNA repair",
			"INTERSECT(GenesByGoTerm GO:0006260, GenesByGoTerm GO:0006281)",
			func(d *eval.Data) eval.Set { return eval.Intersect(d.GO("GO:0006260"), d.GO("GO:0006281")) }, nil},
		{"a GO id minus a chromosome", "GO:0006281 minus chromosome 14",
			"MINUS(GenesByGoTerm GO:0006281, GenesByLocation Pf3D7_14_v3)",
			func(d *eval.Data) eval.Set { return eval.Minus(d.GO("GO:0006281"), d.On("Pf3D7_14_v3")) }, nil},
		{"a text search asked for", "text search for kinases", "GenesByText kinase*",
			func(d *eval.Data) eval.Set { return d.Words("kinase") }, []string{"you asked for a text search for 'kinases' (kinase*)"}},
		{"an elided phrase", "DNA replication or repair",
			"UNION(GenesByGoTerm GO:0006260, GenesByGoTerm GO:0006281)",
			func(d *eval.Data) eval.Set { return eval.Union(d.GO("GO:0006260"), d.GO("GO:0006281")) }, []string{"I read 'repair' as the GO term 'DNA repair'"}},
		{"a GO id is one part of its clause", "GO:0006281 genes on chromosome 14",
			"INTERSECT(GenesByGoTerm GO:0006281, GenesByLocation Pf3D7_14_v3)",
			func(d *eval.Data) eval.Set { return eval.Intersect(d.GO("GO:0006281"), d.On("Pf3D7_14_v3")) }, nil},
		{"a location qualifies the whole list", "DNA repair or DNA replication genes on chromosome 14",
			"INTERSECT(UNION(GenesByGoTerm GO:0006281, GenesByGoTerm GO:0006260), GenesByLocation Pf3D7_14_v3)",
			func(d *eval.Data) eval.Set {
				return eval.Intersect(eval.Union(d.GO("GO:0006281"), d.GO("GO:0006260")), d.On("Pf3D7_14_v3"))
			}, nil},
		{"a location list is a union", "tRNA genes on chromosome 5 or 6",
			"INTERSECT(GenesByGeneType tRNA encoding, UNION(GenesByLocation Pf3D7_05_v3, GenesByLocation Pf3D7_06_v3))",
			func(d *eval.Data) eval.Set {
				return eval.Intersect(d.OfType("tRNA encoding"), eval.Union(d.On("Pf3D7_05_v3"), d.On("Pf3D7_06_v3")))
			}, nil},
		{"and between chromosomes in a qualifier", "protein phosphorylation genes on chromosomes 5 and 6",
			"INTERSECT(GenesByGoTerm GO:0006468, UNION(GenesByLocation Pf3D7_05_v3, GenesByLocation Pf3D7_06_v3))",
			func(d *eval.Data) eval.Set {
				return eval.Intersect(d.GO("GO:0006468"), eval.Union(d.On("Pf3D7_05_v3"), d.On("Pf3D7_06_v3")))
			}, []string{"so I read 'and' between"}},
		{"a conversational request", "Show me DNA replication genes, then remove any on chromosome 14",
			"MINUS(GenesByGoTerm GO:0006260, GenesByLocation Pf3D7_14_v3)",
			func(d *eval.Data) eval.Set { return eval.Minus(d.GO("GO:0006260"), d.On("Pf3D7_14_v3")) }, nil},
		{"a question", "Which genes on the apicoplast genome encode rRNA?",
			"INTERSECT(GenesByLocation PFC10_API_IRAB, GenesByGeneType rRNA encoding)",
			func(d *eval.Data) eval.Set { return eval.Intersect(d.On("PFC10_API_IRAB"), d.OfType("rRNA encoding")) }, nil},
		{"a gene type by its long name", "ribosomal RNA genes", "GenesByGeneType rRNA encoding",
			func(d *eval.Data) eval.Set { return d.OfType("rRNA encoding") }, nil},
		{"two gene types by their long names", "transfer RNA and small nucleolar RNA genes",
			"UNION(GenesByGeneType tRNA encoding, GenesByGeneType snoRNA encoding)",
			func(d *eval.Data) eval.Set { return eval.Union(d.OfType("tRNA encoding"), d.OfType("snoRNA encoding")) }, nil},
		{"the apicoplast by its short name", "genes on API", "GenesByLocation PFC10_API_IRAB",
			func(d *eval.Data) eval.Set { return d.On("PFC10_API_IRAB") }, nil},
		{"the mitochondrion as a chromosome", "chromosome MIT genes", "GenesByLocation M76611",
			func(d *eval.Data) eval.Set { return d.On("M76611") }, nil},
		{"an organelle before a gene type", "mitochondrial rRNA genes",
			"INTERSECT(GenesByLocation M76611, GenesByGeneType rRNA encoding)",
			func(d *eval.Data) eval.Set { return eval.Intersect(d.On("M76611"), d.OfType("rRNA encoding")) }, nil},
		{"swapped letters", "DNA repiar genes", "GenesByGoTerm GO:0006281",
			func(d *eval.Data) eval.Set { return d.GO("GO:0006281") }, []string{"I read 'DNA repiar' as the GO term 'DNA repair' (a typo"}},
		{"a British spelling", "genes involved in chromatin organisation", "GenesByGoTerm GO:0006325",
			func(d *eval.Data) eval.Set { return d.GO("GO:0006325") }, nil},
		{"words the catalog does not know before a term", "I am keen on snoRNA genes", "GenesByGeneType snoRNA encoding",
			func(d *eval.Data) eval.Set { return d.OfType("snoRNA encoding") }, []string{"leaving out"}},
		{"words before a GO term", "genes busy in DNA repair", "GenesByGoTerm GO:0006281",
			func(d *eval.Data) eval.Set { return d.GO("GO:0006281") }, []string{"leaving out 'busy in'"}},
		// Words around a term that no GO term, synonym or gene type holds
		// are left out, however many, on either side.
		{"unknown words around a GO term", "could I grab everything classed under DNA repair for my seminar", "GenesByGoTerm GO:0006281",
			func(d *eval.Data) eval.Set { return d.GO("GO:0006281") }, []string{"leaving out 'grab everything classed under … for my seminar'"}},
		{"unknown words before a gene type", "fetch me every last snoRNA gene", "GenesByGeneType snoRNA encoding",
			func(d *eval.Data) eval.Set { return d.OfType("snoRNA encoding") }, []string{"leaving out"}},
		// A part that reads as a sentence and whose words name nothing the
		// catalog or the genes' products hold is an aside, left out.
		{"an aside beside the request", "the deadline is on friday for us: DNA repair genes on chromosome 14",
			"INTERSECT(GenesByGoTerm GO:0006281, GenesByLocation Pf3D7_14_v3)",
			func(d *eval.Data) eval.Set { return eval.Intersect(d.GO("GO:0006281"), d.On("Pf3D7_14_v3")) }, []string{"I left out 'deadline is on friday'"}},
		// Everyday names come from GO's own synonyms, not a table of ours.
		{"a process by its everyday name", "Krebs cycle genes", "GenesByGoTerm GO:0006099",
			func(d *eval.Data) eval.Set { return d.GO("GO:0006099") }, []string{"I read 'Krebs cycle' as the GO term 'tricarboxylic acid cycle', of which GO lists 'Krebs cycle' as a synonym"}},
		{"a current GO id the 2017 file lists under a merged id", "genes annotated with GO:0098609", "GenesByGoTerm GO:0098609",
			func(d *eval.Data) eval.Set { return d.GO("GO:0016337") }, []string{"GO:0016337"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			plan := w.turn(t, "plan", tt.request)
			if plan.end.Reason != agent.StopCompleted || plan.end.Rounds > 16 {
				t.Fatalf("plan turn ended %v after %d rounds: %v", plan.end.Reason, plan.end.Rounds, plan.end.Err)
			}
			if f := plan.failedCalls(); len(f) > 0 {
				t.Errorf("failed calls: %v", f)
			}
			arts := find[*event.ArtifactSaved](plan.emitted)
			handoffs := find[*event.HandoffRequested](plan.emitted)
			if len(arts) != 2 || len(handoffs) != 1 {
				t.Fatalf("%d artifacts and %d handoffs; planner said:\n%s", len(arts), len(handoffs), plan.end.Text)
			}
			if got := planTree(t, arts[1].Artifact.Plan); got != tt.tree {
				t.Errorf("plan = %s, want %s", got, tt.tree)
			}
			for _, n := range tt.notes {
				if !strings.Contains(arts[0].Artifact.SummaryMarkdown, n) {
					t.Errorf("planning artifact does not say %q:\n%s", n, arts[0].Artifact.SummaryMarkdown)
				}
			}
			build := w.turn(t, "execute", buildMessage(t, handoffs[0]))
			if build.end.Reason != agent.StopCompleted {
				t.Fatalf("execute turn ended %v: %v", build.end.Reason, build.end.Err)
			}
			_, root := rootCount(t, build.emitted)
			want := tt.want(data)
			if root.Count == nil || *root.Count != len(want) {
				t.Errorf("root count = %s, want %d (computed from the raw files)\n%s", show(root.Count), len(want), build.end.Text)
			}
		})
	}
}

func show(n *int) string {
	if n == nil {
		return "none"
	}
	return strconv.Itoa(*n)
}
