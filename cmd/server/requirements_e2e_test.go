package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"strategist/internal/eval"
	"strategist/internal/event"
	"strategist/internal/event/eventtest"
)

// requirementsChecked is the one requirements_checked event of a build.
func requirementsChecked(t *testing.T, recs []event.Record) event.RequirementsChecked {
	t.Helper()
	found := records(recs, "requirements_checked")
	if len(found) != 1 {
		t.Fatalf("%d requirements_checked events in the build, want 1", len(found))
	}
	var rc event.RequirementsChecked
	decode(t, found[0], &rc)
	return rc
}

// checkAcceptanceRequirements: the acceptance build's answer lists each
// requirement the request stated (DNA replication, DNA repair, the union,
// chromosome 14 and its exclusion) with the step that implements it, its
// count, what the result keeps and genes whose attribute qualified them,
// every figure equal to the sets computed here from the raw files.
func checkAcceptanceRequirements(t *testing.T, data *eval.Data, run offlineRun) {
	t.Helper()
	rc := requirementsChecked(t, run.exec)
	root := run.strategy.RootStepID
	if rc.RootStepID != string(root) || rc.RootCount == nil || *rc.RootCount != 89 {
		t.Errorf("requirements checked against root %s (%v), want %s with 89 genes", rc.RootStepID, rc.RootCount, root)
	}
	replication, repair, chr14 := data.GO("GO:0006260"), data.GO("GO:0006281"), data.On("Pf3D7_14_v3")
	union := eval.Union(replication, repair)
	result := eval.Minus(union, chr14)
	type want struct {
		kind     event.RequirementKind
		count    int
		inResult int
		// qualifies says whether an example gene has the attribute.
		qualifies func(e event.GeneEvidence) bool
	}
	onGO := func(id string, set eval.Set) func(e event.GeneEvidence) bool {
		return func(e event.GeneEvidence) bool { return set[e.GeneID] && strings.Contains(e.Attribute, id) }
	}
	wants := []want{
		{event.RequirementSearch, len(replication), len(eval.Intersect(replication, result)), onGO("GO:0006260", replication)},
		{event.RequirementSearch, len(repair), len(eval.Intersect(repair, result)), onGO("GO:0006281", repair)},
		{event.RequirementEither, len(union), len(result), func(e event.GeneEvidence) bool {
			return onGO("GO:0006260", replication)(e) || onGO("GO:0006281", repair)(e)
		}},
		{event.RequirementSearch, len(chr14), len(eval.Intersect(chr14, result)), func(e event.GeneEvidence) bool {
			return chr14[e.GeneID] && strings.Contains(e.Attribute, "Pf3D7_14_v3")
		}},
		// The exclusion removed the union's chromosome-14 genes.
		{event.RequirementExclusion, len(result), len(eval.Intersect(union, chr14)), func(e event.GeneEvidence) bool {
			return union[e.GeneID] && chr14[e.GeneID] && strings.Contains(e.Attribute, "Pf3D7_14_v3")
		}},
	}
	if len(rc.Requirements) != len(wants) {
		t.Fatalf("%d requirements, want %d: %+v", len(rc.Requirements), len(wants), rc.Requirements)
	}
	for i, w := range wants {
		r := rc.Requirements[i]
		if r.Kind != w.kind || r.Status != event.RequirementMet || r.StepID == "" || r.Count == nil || *r.Count != w.count ||
			r.InResult == nil || *r.InResult != w.inResult {
			t.Errorf("requirement %d (%s): %s %s step %q count %v in result %v; want %s met, count %d (raw files), %d in the result",
				i, r.Text, r.Kind, r.Status, r.StepID, deref(r.Count), deref(r.InResult), w.kind, w.count, w.inResult)
		}
		if len(r.Examples) == 0 {
			t.Errorf("requirement %d (%s) shows no gene", i, r.Text)
		}
		for _, e := range r.Examples {
			if !w.qualifies(e) {
				t.Errorf("requirement %d (%s): example %s %q does not have the attribute that qualifies it in the raw files", i, r.Text, e.GeneID, e.Attribute)
			}
		}
	}
	// The organism the request named and the GO term are the stated values.
	if r := rc.Requirements[0]; len(r.Values) != 2 || r.Values[0].Label != "Plasmodium falciparum 3D7" || r.Values[1].Value != `["GO:0006260"]` {
		t.Errorf("DNA replication's stated values = %+v", r.Values)
	}
	answer := lastAnswer(t, run.exec)
	for _, s := range []string{"**Requirements the request stated**", fmt.Sprintf("removed %d genes", len(eval.Intersect(union, chr14)))} {
		if !strings.Contains(answer, s) {
			t.Errorf("the build's answer does not say %q:\n%s", s, answer)
		}
	}
}

func deref(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// lastAnswer is a turn's last assistant message.
func lastAnswer(t *testing.T, recs []event.Record) string {
	t.Helper()
	msgs := records(recs, "assistant_message")
	if len(msgs) == 0 {
		t.Fatal("no assistant_message")
	}
	return field[string](t, msgs[len(msgs)-1], "content")
}

// TestOfflineRequirementNotEvaluable: a request with a requirement the
// offline snapshot cannot evaluate (signal peptides) is built, and the
// build's answer marks that requirement and the restriction above it as
// not evaluated, with why, while the chromosome's requirement is counted
// from the raw files.
func TestOfflineRequirementNotEvaluable(t *testing.T) {
	t.Parallel()
	srv := startOffline(t)
	data := loadGeneData(t)
	run := srv.scenario(t, "Find genes with a signal peptide on chromosome 5")
	eventtest.Check(t, run.all())
	rc := requirementsChecked(t, run.exec)
	var got []string
	for _, r := range rc.Requirements {
		got = append(got, fmt.Sprintf("%s %s %s count=%s", r.Kind, r.Search, r.Status, deref(r.Count)))
	}
	chr5 := len(data.On("Pf3D7_05_v3"))
	want := []string{
		"search Predicted Signal Peptide not_evaluable count=nil",
		fmt.Sprintf("search Genomic Location met count=%d", chr5),
		"restriction  not_evaluable count=nil",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requirements:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range rc.Requirements {
		if r.Status == event.RequirementNotEvaluable && !strings.Contains(r.Note, "not evaluable offline") {
			t.Errorf("%s is not evaluable without saying why: %q", r.Text, r.Note)
		}
	}
	if answer := lastAnswer(t, run.exec); !strings.Contains(answer, "**could not be evaluated**") {
		t.Errorf("the answer does not mark the requirement it could not evaluate:\n%s", answer)
	}
}

// TestOfflineKnownGenesAsControls: a request that names genes its result
// should have plans the rest and sets those genes as positive controls
// (a previous id mapped), and the build's answer reports which of them
// the result finds and loses, as the raw files say. "Test this strategy
// against my controls: ids" then scores the strategy against the ids it
// gives and builds nothing.
func TestOfflineKnownGenesAsControls(t *testing.T) {
	t.Parallel()
	srv := startOffline(t)
	data := loadGeneData(t)
	replication := data.GO("GO:0006260")
	// PFA0005w is PF3D7_0100100's previous id, not a DNA replication gene;
	// PF3D7_0108600 is one.
	if replication["PF3D7_0100100"] || !replication["PF3D7_0108600"] {
		t.Fatal("the raw files changed: pick other known genes")
	}
	run := srv.scenario(t, "Find genes involved in DNA replication, and make sure PFA0005w and PF3D7_0108600 are in it")
	eventtest.Check(t, run.all())
	if got := run.draftTree(t); got != "GenesByGoTerm GO:0006260" {
		t.Errorf("draft = %s, want DNA replication alone (the known genes are controls, not a search)", got)
	}
	if len(records(run.plan, "controls_changed")) != 1 {
		t.Errorf("the plan turn set no controls")
	}
	if answer := lastAnswer(t, run.plan); !strings.Contains(answer, "**positive controls** (PF3D7_0100100, PF3D7_0108600") || !strings.Contains(answer, "PFA0005w is the previous id of PF3D7_0100100") {
		t.Errorf("the plan's answer does not offer the genes as controls:\n%s", answer)
	}
	rc := requirementsChecked(t, run.exec)
	c := rc.Controls
	if c == nil || c.PositivesFound == nil || *c.PositivesFound != 1 || c.PositivesTotal != 2 || len(c.PositivesLost) != 1 || c.PositivesLost[0] != "PF3D7_0100100" {
		t.Fatalf("controls at the result = %+v, want 1 of 2 found, PF3D7_0100100 lost", c)
	}
	if answer := lastAnswer(t, run.exec); !strings.Contains(answer, "1 of 2 positives found") || !strings.Contains(answer, "lost 1: PF3D7_0100100") {
		t.Errorf("the build's answer does not say which known gene it lost:\n%s", answer)
	}

	// Test against other controls, given in the message: scored, not built.
	prefix := "/api/v1/conversations/" + run.conv
	var turn struct {
		TurnID string `json:"turnId"`
	}
	srv.call(t, http.MethodPost, prefix+"/turns", map[string]string{"message": "Test this strategy against my controls: PF3D7_0108600, PF3D7_0215800", "mode": "execute"}, &turn, http.StatusAccepted)
	follow := srv.follow(t, prefix, run.exec[len(run.exec)-1].Seq, turn.TurnID)
	eventtest.Check(t, append(run.all(), follow...))
	var tools []string
	for _, r := range follow {
		if r.Type == "tool_call_start" {
			tools = append(tools, field[string](t, r, "name"))
		}
	}
	if strings.Join(tools, ",") != "set_controls,score_controls" || len(records(follow, "graph_snapshot")) != 0 {
		t.Errorf("test against controls called %v and made %d snapshots; want set_controls and score_controls, no change", tools, len(records(follow, "graph_snapshot")))
	}
	both := 0
	for _, id := range []string{"PF3D7_0108600", "PF3D7_0215800"} {
		if replication[id] {
			both++
		}
	}
	if answer := lastAnswer(t, follow); !strings.Contains(answer, fmt.Sprintf("| %s (root) | %d of 2 |", run.strategy.RootStepID, both)) {
		t.Errorf("the scores do not give the root %d of 2 positives:\n%s", both, answer)
	}
}
