package rules_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	catoffline "strategist/internal/catalog/offline"
	"strategist/internal/event"
)

// TestPlanFromANamedList: "genes in my list 'kinase screen' that are on
// chromosome 5" plans the gene ids search over the list's genes
// intersected with chromosome 5; the build's root count is the
// intersection computed from the raw files. A list the researcher does
// not have is said plainly and nothing is searched as text.
func TestPlanFromANamedList(t *testing.T) {
	d := loadData(t)
	w := newWorld(t)
	var genes []string
	on5, on14 := 0, 0
	for _, g := range d.Genes {
		switch {
		case d.Sequence[g] == "Pf3D7_05_v3" && on5 < 7:
			genes, on5 = append(genes, g), on5+1
		case d.Sequence[g] == "Pf3D7_14_v3" && on14 < 5:
			genes, on14 = append(genes, g), on14+1
		}
	}
	want := 0
	chr5 := d.On("Pf3D7_05_v3")
	for _, g := range genes {
		if chr5[g] {
			want++
		}
	}
	if want != 7 || len(genes) != 12 {
		t.Fatalf("test list: %d genes, %d on chromosome 5", len(genes), want)
	}
	if _, err := w.lists.Create(t.Context(), w.userID, catoffline.SiteID, "Kinase Screen", strings.Join(genes, "\n")); err != nil {
		t.Fatal(err)
	}

	plan := w.turn(t, "plan", "genes in my list 'kinase screen' that are on chromosome 5")
	handoffs := find[*event.HandoffRequested](plan.emitted)
	if len(handoffs) != 1 {
		t.Fatalf("no plan: calls %v, failed %v, answer %q", plan.calls(), plan.failedCalls(), plan.end.Text)
	}
	if got, wantTree := planTree(t, handoffs[0].Plan), "INTERSECT(GeneByLocusTag "+strings.Join(genes, ",")+", GenesByLocation Pf3D7_05_v3)"; got != wantTree {
		t.Errorf("plan = %s, want %s", got, wantTree)
	}
	if !slices.Contains(plan.calls(), "find_gene_list") || slices.Contains(plan.calls(), "create_step") {
		t.Errorf("planner calls %v", plan.calls())
	}
	build := w.turn(t, "execute", buildMessage(t, handoffs[0]))
	_, root := rootCount(t, build.emitted)
	if root.Count == nil || *root.Count != want {
		raw, _ := json.Marshal(root)
		t.Errorf("root = %s, want %d genes (the list on chromosome 5)", raw, want)
	}

	unknown := w.turn(t, "plan", "genes in my list 'phospho hits' on chromosome 5")
	if n := len(find[*event.HandoffRequested](unknown.emitted)); n != 0 {
		t.Errorf("an unknown list was planned: %s", unknown.end.Text)
	}
	if !strings.Contains(unknown.end.Text, "phospho hits") || !strings.Contains(unknown.end.Text, "Kinase Screen") {
		t.Errorf("answer %q does not name the unknown list and the researcher's lists", unknown.end.Text)
	}
	if c := unknown.calls(); slices.Contains(c, "save_delegation_draft") || slices.Contains(c, "request_executor_build") || strings.Contains(unknown.end.Text, "text search") ||
		!strings.Contains(unknown.end.Text, "your list 'phospho hits'") || strings.Contains(unknown.end.Text, "not found") {
		t.Errorf("an unknown list was drafted or searched as text: calls %v, answer %q", c, unknown.end.Text)
	}
	t.Logf("unknown list: %s", unknown.end.Text)
}
