package planner_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog/offline"
	"strategist/internal/offlinetest"
	"strategist/internal/planner"
)

// TestCountPlan: count_plan counts every node of a plan with the catalog
// before anything is built (an exclusion that removes nothing has its left
// input's count), says why a node has no count, and saves nothing.
func TestCountPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat, err := offline.Open(offlinetest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureOn(t, cat)
	tools, db, svc, u, conv := f.tools, f.db, f.strategies, f.uid, f.conv
	const org = `"organism":"[\"Plasmodium falciparum 3D7\"]"`
	repair := `{"type":"task","task":"repair","context":{"searchName":"GenesByGoTerm","parameters":{"go_typeahead":"[\"GO:0006281\"]",` + org + `}}}`
	apicoplast := `{"type":"task","task":"apicoplast","context":{"searchName":"GenesByLocation","parameters":{"chromosomeOptional":"PFC10_API_IRAB","organismSinglePick":"Plasmodium falciparum 3D7"}}}`
	peptides := `{"type":"task","task":"peptides","context":{"searchName":"GenesWithSignalPeptide","parameters":{` + org + `}}}`
	counts := func(plan string) []string {
		t.Helper()
		out, err := call(t, tools, "count_plan", `{"plan":`+plan+`}`)
		if err != nil {
			t.Fatal(err)
		}
		cp := out.(*planner.CountedPlan)
		var got []string
		for _, n := range cp.Nodes {
			switch {
			case n.Count != nil:
				got = append(got, strconv.Itoa(*n.Count))
			case n.Note != "":
				got = append(got, "none")
			default:
				got = append(got, "none, and no reason")
			}
		}
		if len(cp.Nodes) == 0 || cp.Root != cp.Nodes[len(cp.Nodes)-1].Node {
			t.Errorf("root %s is not the last node of %+v", cp.Root, cp.Nodes)
		}
		return got
	}
	// Excluding the apicoplast genome from DNA repair (60 genes) removes
	// nothing: the combine has its left input's count.
	if diff := cmp.Diff([]string{"60", "68", "60"}, counts(`{"type":"combine","operator":"MINUS","left":`+repair+`,"right":`+apicoplast+`}`)); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	// Signal peptides are not evaluable offline, nor is what combines them.
	if diff := cmp.Diff([]string{"60", "none", "none"}, counts(`{"type":"combine","operator":"AND","left":`+repair+`,"right":`+peptides+`}`)); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if arts, _ := db.Artifacts(ctx, u, conv); len(arts) != 0 {
		t.Errorf("counting saved %d artifacts", len(arts))
	}
	if snap, err := svc.Conversation(ctx, u, conv); err == nil && len(snap.Steps) > 0 {
		t.Errorf("counting made a strategy of %d steps", len(snap.Steps))
	}
}
