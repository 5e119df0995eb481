package graphtool_test

import (
	"context"
	"testing"

	"strategist/internal/catalog/offline"
	"strategist/internal/genelist"
	"strategist/internal/strategies"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/tool"
)

// TestCreateListStep: a saved list starts a strategy and combines with a
// search; offline it counts exactly (the list's genes on chromosome 14).
func TestCreateListStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	lists, err := genelist.New(genelist.Config{Store: f.db, Resolver: f.cat, DefaultSite: offline.SiteID})
	if err != nil {
		t.Fatal(err)
	}
	// Two chromosome-14 genes (one by its previous id), one elsewhere, one unknown.
	l, err := lists.Create(ctx, f.user, "", "Kinase screen", "PF3D7_1400100\nPF14_0002\nPF3D7_0100100\nPF3D7_9999999")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Genes) != 3 {
		t.Fatalf("list of %d genes: %+v", len(l.Genes), l)
	}
	b := f.binding()
	b.Lists, b.Scorer = lists, f.svc
	tools, err := graphtool.ExecutorTools(b)
	if err != nil {
		t.Fatal(err)
	}
	tb := toolboxOf(t, tools)
	step := must[*graphtool.StepResult](tb, "create_list_step", `{"list":"kinase SCREEN"}`)
	if step.Step.Count.Value == nil || *step.Step.Count.Value != 3 || step.Step.DisplayName != "List: Kinase screen" || step.Step.SearchName != genelist.ListSearch {
		t.Errorf("list step = %+v", step.Step)
	}
	must[*graphtool.StepResult](tb, "create_step", chromosome)
	both := must[*graphtool.StepResult](tb, "combine_steps", `{"left_step_id":"s1","right_step_id":"s2","operator":"INTERSECT"}`)
	if both.Step.Count.Value == nil || *both.Step.Count.Value != 2 {
		t.Errorf("list ∩ chromosome 14 = %+v, want the list's 2 genes there", both.Step)
	}
	tb.refuses("create_list_step", `{"list":"no such list"}`, "LIST_NOT_FOUND")

	// The step's genes save as a list; the strategy is scored against
	// controls; a gene is traced to the step that drops it.
	saved := must[*graphtool.SavedList](tb, "save_gene_list", `{"step_id":"s3","name":"on chromosome 14"}`)
	if saved.Size != 2 {
		t.Errorf("saved list = %+v, want the 2 genes of s3", saved)
	}
	tb.refuses("score_controls", `{}`, "NO_CONTROLS")
	if _, err := lists.SetControls(ctx, f.user, f.conversation, &l.ID, &saved.ListID); err != nil {
		t.Fatal(err)
	}
	scores := must[*graphtool.ControlsResult](tb, "score_controls", `{}`)
	if len(scores.Steps) != 3 || scores.Root != "s3" {
		t.Fatalf("score_controls = %+v", scores)
	}
	root := scores.Steps[2]
	if *root.PositivesFound != 2 || root.PositivesTotal != 3 || *root.NegativesFound != 2 || *root.Recall != 2.0/3.0 || *root.Precision != 0.5 ||
		root.MissedCount != 1 || root.PositivesMissed[0] != "PF3D7_0100100" {
		t.Errorf("root figures = %+v", root)
	}
	trace := must[*strategies.GeneTrace](tb, "trace_gene", `{"gene":"PFA0005w"}`)
	if trace.Gene != "PF3D7_0100100" || len(trace.LostAt) != 1 || trace.LostAt[0] != "s3" {
		t.Errorf("trace_gene PFA0005w = %+v, want PF3D7_0100100 lost at s3", trace)
	}
	tb.refuses("trace_gene", `{"gene":"PF3D7_9999999"}`, tool.CodeValidation)

	// Without lists the tool is not offered.
	plain, err := graphtool.ExecutorTools(f.binding())
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range plain {
		if tool.Name() == "create_list_step" {
			t.Error("create_list_step offered without lists")
		}
	}
}

func toolboxOf(t *testing.T, tools []tool.Tool) toolbox {
	t.Helper()
	ts, err := tool.NewToolset(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return toolbox{t: t, ts: ts}
}
