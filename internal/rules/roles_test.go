package rules_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/agent"
	"strategist/internal/eval"
	"strategist/internal/event"
)

const acceptanceRequest = "Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14"

// TestPlanThenBuild plays the acceptance scenario through the real planner
// and executor tools, the real agent loop, sub-agents and Postgres: the
// plan turn maps the request through the catalog, saves both artifacts and
// requests the build; the execute turn delegates, validates and reports
// the evaluator's counts.
func TestPlanThenBuild(t *testing.T) {
	w := newWorld(t)
	raw := loadData(t)

	plan := w.turn(t, "plan", acceptanceRequest)
	if plan.end.Reason != agent.StopCompleted {
		t.Fatalf("plan turn ended %v: %v", plan.end.Reason, plan.end.Err)
	}
	if plan.end.Rounds > 16 {
		t.Errorf("plan turn took %d rounds, more than the planner's 16", plan.end.Rounds)
	}
	if f := plan.failedCalls(); len(f) > 0 {
		t.Errorf("failed calls: %v", f)
	}
	calls := plan.calls()
	for _, want := range []string{"search_for_searches", "get_search_parameters", "save_planning_artifact", "save_delegation_draft", "request_executor_build"} {
		if !slices.Contains(calls, want) {
			t.Errorf("plan turn never called %s: %v", want, calls)
		}
	}
	arts := find[*event.ArtifactSaved](plan.emitted)
	if len(arts) != 2 || arts[0].Artifact.Kind != "planning" || arts[1].Artifact.Kind != "delegation_draft" {
		t.Fatalf("artifacts = %+v, want planning then delegation_draft", arts)
	}
	for _, want := range []string{"not a language model", "GenesByGoTerm", "GO:0006260", "GO:0006281", "Pf3D7_14_v3", "Nothing: every part"} {
		if !strings.Contains(arts[0].Artifact.SummaryMarkdown, want) {
			t.Errorf("planning artifact does not mention %q:\n%s", want, arts[0].Artifact.SummaryMarkdown)
		}
	}
	wantTree := "MINUS(UNION(GenesByGoTerm GO:0006260, GenesByGoTerm GO:0006281), GenesByLocation Pf3D7_14_v3)"
	if got := planTree(t, arts[1].Artifact.Plan); got != wantTree {
		t.Errorf("delegation draft = %s, want %s", got, wantTree)
	}
	handoffs := find[*event.HandoffRequested](plan.emitted)
	if len(handoffs) != 1 {
		t.Fatalf("handoffs = %d, want 1", len(handoffs))
	}
	for _, want := range []string{"not a language model", "(DNA replication or DNA repair) excluding chromosome 14", "Build this plan"} {
		if !strings.Contains(plan.end.Text, want) {
			t.Errorf("planner's answer does not say %q:\n%s", want, plan.end.Text)
		}
	}

	build := w.turn(t, "execute", buildMessage(t, handoffs[0]))
	if build.end.Reason != agent.StopCompleted {
		t.Fatalf("execute turn ended %v: %v", build.end.Reason, build.end.Err)
	}
	if f := build.failedCalls(); len(f) > 0 {
		t.Errorf("failed calls: %v", f)
	}
	if diff := cmp.Diff([]string{"delegate_strategy_subtasks", "validate_strategy", "get_result_count", "get_result_count",
		"get_result_count", "get_result_count", "get_result_count"}, build.calls()); diff != "" {
		t.Errorf("execute calls mismatch (-want +got):\n%s", diff)
	}
	plans := find[*event.SubagentPlan](build.emitted)
	if len(plans) != 1 {
		t.Fatalf("subagent plans = %d", len(plans))
	}
	var kinds []string
	for _, n := range plans[0].Nodes {
		kinds = append(kinds, n.Kind)
	}
	if diff := cmp.Diff([]string{"task", "task", "combine", "task", "combine"}, kinds); diff != "" {
		t.Errorf("plan nodes mismatch (-want +got):\n%s", diff)
	}
	for _, e := range find[*event.SubagentTaskEnd](build.emitted) {
		if e.Status != event.NodeDone {
			t.Errorf("node %s ended %s: %s", e.NodeID, e.Status, e.Error)
		}
	}
	snap, root := rootCount(t, build.emitted)
	want := eval.Minus(eval.Union(raw.GO("GO:0006260"), raw.GO("GO:0006281")), raw.On("Pf3D7_14_v3"))
	if root.Count == nil || *root.Count != len(want) || len(want) != 89 {
		t.Errorf("root count = %v, want %d (raw data), 89 (the README example)", root.Count, len(want))
	}
	if len(snap.Roots) != 1 {
		t.Errorf("strategy roots = %v, want one", snap.Roots)
	}
	t.Logf("planner:\n%s\n\nartifact:\n%s\n\nexecutor:\n%s", plan.end.Text, arts[0].Artifact.SummaryMarkdown, build.end.Text)
	for _, want := range []string{"not a language model", "**89 genes**", "**108 genes**", "PlasmoDB export (offline snapshot), 2017", "the strategy is complete"} {
		if !strings.Contains(build.end.Text, want) {
			t.Errorf("executor's answer does not say %q:\n%s", want, build.end.Text)
		}
	}

	// A follow-up question about the result: the executor runs enrich_step
	// on the root and answers with the top terms and their adjusted
	// p-values; the strategy is not changed.
	enriched := w.turn(t, "execute", "What are these genes enriched for?")
	if enriched.end.Reason != agent.StopCompleted {
		t.Fatalf("enrichment turn ended %v: %v", enriched.end.Reason, enriched.end.Err)
	}
	if diff := cmp.Diff([]string{"get_strategy", "enrich_step"}, enriched.calls()); diff != "" {
		t.Errorf("enrichment calls mismatch (-want +got):\n%s", diff)
	}
	if f := enriched.failedCalls(); len(f) > 0 {
		t.Errorf("failed calls: %v", f)
	}
	t.Logf("enrichment:\n%s", enriched.end.Text)
	for _, want := range []string{"not a language model", "root step " + string(snap.RootStepID), "**DNA repair** (GO:0006281)",
		"**DNA replication** (GO:0006260)", "BH p = ", "molecular function", "PlasmoDB export (offline snapshot), 2017"} {
		if !strings.Contains(enriched.end.Text, want) {
			t.Errorf("the enrichment answer does not say %q:\n%s", want, enriched.end.Text)
		}
	}
	if len(find[*event.GraphSnapshot](enriched.emitted)) != 0 {
		t.Error("the enrichment question changed the strategy")
	}
	// In plan mode the planner says where to ask.
	planned := w.turn(t, "plan", "GO enrichment of the result")
	if !strings.Contains(planned.end.Text, "execute") || !strings.Contains(planned.end.Text, "GO enrichment") || slices.Contains(planned.calls(), "save_delegation_draft") {
		t.Errorf("plan-mode enrichment request: calls %v, answer:\n%s", planned.calls(), planned.end.Text)
	}
}

// TestPlannerDeterministic: the same request planned twice, in two
// conversations, makes the same calls with the same arguments and saves
// the same draft.
func TestPlannerDeterministic(t *testing.T) {
	var calls [2][]string
	var drafts [2]string
	for i := range 2 {
		w := newWorld(t)
		r := w.turn(t, "plan", acceptanceRequest)
		for _, ev := range r.events {
			if e, ok := ev.(agent.ToolCallStart); ok {
				calls[i] = append(calls[i], e.Name+" "+string(e.Args))
			}
		}
		arts := find[*event.ArtifactSaved](r.emitted)
		if len(arts) < 2 {
			t.Fatalf("run %d saved %d artifacts", i, len(arts))
		}
		drafts[i] = string(arts[1].Artifact.Plan)
	}
	for i := range calls[0] { // artifact ids differ between conversations
		if strings.HasPrefix(calls[0][i], "request_executor_build") {
			calls[0][i], calls[1][i] = "request_executor_build", "request_executor_build"
		}
	}
	if diff := cmp.Diff(calls[0], calls[1]); diff != "" {
		t.Errorf("calls differ between runs (-first +second):\n%s", diff)
	}
	if drafts[0] != drafts[1] {
		t.Errorf("drafts differ:\n%s\n%s", drafts[0], drafts[1])
	}
}

// TestExecutePlainRequest builds a request typed in execute mode with the
// graph tools directly: both leaves in one response, then their combine.
func TestExecutePlainRequest(t *testing.T) {
	w := newWorld(t)
	raw := loadData(t)
	r := w.turn(t, "execute", "tRNA genes on chromosome 5")
	if r.end.Reason != agent.StopCompleted {
		t.Fatalf("execute turn ended %v: %v", r.end.Reason, r.end.Err)
	}
	if f := r.failedCalls(); len(f) > 0 {
		t.Errorf("failed calls: %v", f)
	}
	calls := r.calls()
	if n := strings.Count(strings.Join(calls, " "), "create_step"); n != 2 || !slices.Contains(calls, "combine_steps") {
		t.Errorf("calls = %v, want two create_step and a combine_steps", calls)
	}
	_, root := rootCount(t, r.emitted)
	want := eval.Intersect(raw.OfType("tRNA encoding"), raw.On("Pf3D7_05_v3"))
	if root.Count == nil || *root.Count != len(want) {
		t.Errorf("root count = %v, want %d", root.Count, len(want))
	}
	if root.Operator != "INTERSECT" {
		t.Errorf("root operator = %s, want INTERSECT", root.Operator)
	}
	if !strings.Contains(r.end.Text, "not a language model") {
		t.Errorf("answer does not say what it is:\n%s", r.end.Text)
	}
}

// TestSubagentFallsBack delegates a plan whose first task names a GO term
// the catalog does not have: the sub-agent's create_step is refused, the
// value left out is refused again (it is required), and the sub-agent
// falls back to a text search for the task's words and finishes.
func TestSubagentFallsBack(t *testing.T) {
	w := newWorld(t)
	plan := `{"type":"combine","operator":"UNION",
		"left":{"type":"task","task":"Find genes involved in zzqx repair","context":{"searchName":"GenesByGoTerm","phrase":"zzqx repair",
			"parameters":{"organism":"[\"Plasmodium falciparum 3D7\"]","go_typeahead":"[\"GO:9999999\"]"}}},
		"right":{"type":"task","task":"Find tRNA genes","context":{"searchName":"GenesByGeneType",
			"parameters":{"organism":"[\"Plasmodium falciparum 3D7\"]","geneType":"[\"tRNA encoding\"]"}}}}`
	msg := buildMessage(t, &event.HandoffRequested{HandoffID: "h1", Goal: "zzqx repair or tRNA genes", Plan: json.RawMessage(plan)})
	r := w.turn(t, "execute", msg)
	if r.end.Reason != agent.StopCompleted {
		t.Fatalf("execute turn ended %v: %v", r.end.Reason, r.end.Err)
	}
	for _, e := range find[*event.SubagentTaskEnd](r.emitted) {
		if e.Status != event.NodeDone {
			t.Errorf("node %s ended %s: %s", e.NodeID, e.Status, e.Error)
		}
	}
	var n1 []string
	for _, e := range find[*event.SubagentToolCallStart](r.emitted) {
		if e.NodeID == "n1" {
			n1 = append(n1, e.Name)
		}
	}
	if diff := cmp.Diff([]string{"create_step", "create_step", "get_search_parameters", "create_step", "finish_subtask"}, n1); diff != "" {
		t.Errorf("n1 calls mismatch (-want +got):\n%s", diff)
	}
	var summary string
	for _, e := range find[*event.SubagentToolCallStart](r.emitted) {
		if e.NodeID == "n1" && e.Name == "finish_subtask" {
			summary = string(e.Args)
		}
	}
	for _, want := range []string{"I could not map 'zzqx repair'", "text search", "not a language model"} {
		if !strings.Contains(summary, want) {
			t.Errorf("finish summary does not say %q: %s", want, summary)
		}
	}
}

// TestExecuteDeepRequestDelegates: a plain request with more levels of
// combines than the executor builds one round at a time is delegated.
func TestExecuteDeepRequestDelegates(t *testing.T) {
	w := newWorld(t)
	raw := loadData(t)
	r := w.turn(t, "execute", "translation excluding chromosome 1 excluding chromosome 2 excluding chromosome 3 excluding chromosome 4 excluding chromosome 5")
	if r.end.Reason != agent.StopCompleted {
		t.Fatalf("execute turn ended %v: %v", r.end.Reason, r.end.Err)
	}
	if !slices.Contains(r.calls(), "delegate_strategy_subtasks") {
		t.Errorf("calls = %v, want a delegation", r.calls())
	}
	want := raw.GO("GO:0006412")
	for _, c := range []string{"01", "02", "03", "04", "05"} {
		want = eval.Minus(want, raw.On("Pf3D7_"+c+"_v3"))
	}
	if _, root := rootCount(t, r.emitted); root.Count == nil || *root.Count != len(want) {
		t.Errorf("root count = %s, want %d", show(root.Count), len(want))
	}
}
