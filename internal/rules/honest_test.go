package rules_test

import (
	"strings"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/strategy"
)

// TestHonestRefusals: a request the offline catalog cannot answer builds
// nothing and says why, rather than a text search that would read as a
// result.
func TestHonestRefusals(t *testing.T) {
	tests := []struct {
		request string
		says    []string
	}{
		{"P. vivax genes involved in translation", []string{"no organism 'P. vivax'", "Plasmodium falciparum 3D7"}},
		{"Toxoplasma gondii genes", []string{"no organism 'Toxoplasma gondii'"}},
		{"Aspergillus oryzae genes involved in translation", []string{"no organism 'Aspergillus oryzae'", "Plasmodium falciparum 3D7"}},
		{"human genes involved in DNA repair", []string{"no organism 'human'"}},
		{"genes upregulated in gametocytes", []string{"expression", "no expression search"}},
		{"orthologs of human TP53", []string{"orthology", "GenesByOrthologs"}},
		{"genes on chromosome 15", []string{"no chromosome 15", "chromosome 14"}},
		{"P. falciparum Dd2 genes involved in proteolysis", []string{"no organism 'P. falciparum Dd2'"}},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			w := newWorld(t)
			plan := w.turn(t, "plan", tt.request)
			if plan.end.Reason != agent.StopCompleted {
				t.Fatalf("plan turn ended %v: %v", plan.end.Reason, plan.end.Err)
			}
			if h := find[*event.HandoffRequested](plan.emitted); len(h) > 0 {
				t.Errorf("a build was requested for a request that cannot be answered:\n%s", plan.end.Text)
			}
			for _, s := range tt.says {
				if !strings.Contains(plan.end.Text, s) {
					t.Errorf("answer does not say %q:\n%s", s, plan.end.Text)
				}
			}
		})
	}
}

// TestNotEvaluableBuilds: a phrase that names a search the offline
// snapshot cannot evaluate builds that search, with the values its words
// give, and reports no number for it.
func TestNotEvaluableBuilds(t *testing.T) {
	tests := []struct {
		request, tree string
		params        map[string]string
	}{
		{"genes with molecular weight between 10 and 50 kDa", "GenesByMolecularWeight Plasmodium falciparum 3D7",
			map[string]string{"min_molecular_weight": "10000", "max_molecular_weight": "50000"}},
		{"genes with transmembrane domains", "GenesByTransmembraneDomains Plasmodium falciparum 3D7", nil},
		{"genes with a predicted signal peptide", "GenesWithSignalPeptide Plasmodium falciparum 3D7", nil},
		{"genes with more than three paralogs", "GenesByParalogCount Plasmodium falciparum 3D7", map[string]string{"num_paralogs": `{"min":"4","max":"50"}`}},
		{"DNA repair genes with curated GO evidence", "GenesByGoTerm GO:0006281",
			map[string]string{"go_term_evidence": `["Curated"]`}},
		{"genes on chromosome 5 between 100,000 and 200,000 bp", "GenesByLocation Pf3D7_05_v3",
			map[string]string{"start_point": "100000", "end_point": "200000"}},
		{"proteins between 20 and 40 kDa", "GenesByMolecularWeight Plasmodium falciparum 3D7",
			map[string]string{"min_molecular_weight": "20000", "max_molecular_weight": "40000"}},
		{"genes with 2 or more transmembrane domains", "GenesByTransmembraneDomains Plasmodium falciparum 3D7",
			map[string]string{"min_tm": "2"}},
		{"genes containing a PF00069 Pfam domain", "GenesByInterproDomain",
			map[string]string{"domain_typeahead": `["PF00069"]`}},
		{"enzymes with EC 3.4.22", "GenesByEcNumber Plasmodium falciparum 3D7", map[string]string{"ec_number_pattern": "3.4.22"}},
		{"exported proteins on chromosome 5", "INTERSECT(GenesByExportPrediction Plasmodium falciparum 3D7, GenesByLocation Pf3D7_05_v3)", nil},
		// Two parts naming one search are one step with the values either
		// gave, not the search intersected with itself.
		{"proteins exported to the host cell, with an ExportPred score of at least 15", "GenesByExportPrediction Plasmodium falciparum 3D7",
			map[string]string{"min_exportpred_score": "15"}},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			w := newWorld(t)
			plan := w.turn(t, "plan", tt.request)
			handoffs := find[*event.HandoffRequested](plan.emitted)
			arts := find[*event.ArtifactSaved](plan.emitted)
			if len(handoffs) != 1 || len(arts) != 2 {
				t.Fatalf("no plan; the planner said:\n%s", plan.end.Text)
			}
			if got := strings.TrimSpace(planTree(t, arts[1].Artifact.Plan)); got != tt.tree {
				t.Errorf("plan = %s, want %s", got, tt.tree)
			}
			if !strings.Contains(plan.end.Text, "not evaluable offline") {
				t.Errorf("the plan does not say the search is not evaluable offline:\n%s", plan.end.Text)
			}
			build := w.turn(t, "execute", buildMessage(t, handoffs[0]))
			snap, root := rootCount(t, build.emitted)
			if root.Count != nil || root.CountStatus != strategy.CountNotEvaluable {
				t.Errorf("root count = %s (%v), want no number, not evaluable", show(root.Count), root.CountStatus)
			}
			for _, s := range snap.Steps {
				for k, v := range tt.params {
					if strings.HasPrefix(tt.tree+" ", s.SearchName+" ") && s.Parameters[k] != v {
						t.Errorf("%s = %q, want %q", k, s.Parameters[k], v)
					}
				}
			}
			if strings.Contains(build.end.Text, "0 genes") {
				t.Errorf("the report gives a number:\n%s", build.end.Text)
			}
		})
	}
}

// TestRefusedOrganismStays: the organism a conversation named last is its
// organism: later messages that name none are refused too, whether they
// read as a follow-up or as a request of their own, until one names P.
// falciparum 3D7.
func TestRefusedOrganismStays(t *testing.T) {
	w := newWorld(t)
	turns := []run{w.turn(t, "plan", "Plasmodium chabaudi genes involved in translation")}
	for _, msg := range []string{"now also exclude chromosome 5", "afterwards, the ones chromosome 9 holds"} {
		next := w.turn(t, "plan", msg)
		if !strings.Contains(next.end.Text, "'Plasmodium chabaudi'") {
			t.Errorf("%q does not name the conversation's organism:\n%s", msg, next.end.Text)
		}
		turns = append(turns, next)
	}
	for _, tr := range turns {
		if n := len(find[*event.HandoffRequested](tr.emitted)); n != 0 {
			t.Fatalf("%d builds requested:\n%s", n, tr.end.Text)
		}
	}
	named := w.turn(t, "plan", "tRNA genes on chromosome 5 in P. falciparum 3D7")
	if n := len(find[*event.HandoffRequested](named.emitted)); n != 1 {
		t.Errorf("a request naming P. falciparum 3D7 requested %d builds, want 1:\n%s", n, named.end.Text)
	}
}
