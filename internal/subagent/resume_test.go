package subagent

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/store"
	"strategist/internal/strategy"
)

// TestResumeRetriesCutShortTask: the turn's previous run finished n1 and
// was cut short in n2, which had made a step. The resumed delegation keeps
// n1, announces n2's retry (attempt 2) with the step it had made, and tells
// the fresh sub-agent the same.
func TestResumeRetriesCutShortTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t, reply("n2", 10, createCall("GenesByLocation")), reply("n2", 10, finishCall("s3")))
		h := newHarness(t, engine, Config{})
		d := h.delegation(t, twoTasks)
		planJSON, err := d.Plan.JSON()
		if err != nil {
			t.Fatal(err)
		}
		origin := planKey(d.TurnID, "", planJSON)
		mustApply(t, h.graph, strategy.AddSearch{SearchName: "GenesByText"})                                       // s1: n1's root
		mustApply(t, h.graph, strategy.Keyed(origin+"/n2#abc", strategy.AddSearch{SearchName: "GenesByLocation"})) // s2: n2's cut-short step
		h.store.previous = map[string]store.PreviousNode{
			"n1": {Status: store.NodeDone, Attempt: 1, RootStepID: "s1"},
			"n2": {Status: store.NodeRunning, Attempt: 1},
		}
		res, err := h.sched.Run(t.Context(), d)
		if err != nil || res.Status != DelegationCompleted {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		events := h.events.all()
		want := []string{
			"plan n1,n2,n3",
			"start n1 #1", "end n1 done #1 s1",
			"retry n2 #2", "start n2 #2",
			"call n2 create_step", "return n2 create_step ok",
			"call n2 finish_subtask", "return n2 finish_subtask ok", "usage n2", "end n2 done #2 s3",
			"start n3 #1", "end n3 done #1 s4",
		}
		if diff := cmp.Diff(want, transcript(events)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		checkEvents(t, events)
		reqs := requestsFor(engine, "n2")
		if len(reqs) == 0 || !strings.Contains(lastUser(reqs[0]), `attempt 1 was cut short: the server running it stopped after it had made s2`) {
			t.Errorf("the retry's task does not say where the cut-short attempt stopped:\n%s", lastUser(reqs[0]))
		}
	})
}

// TestResumeKeepsCutShortCombine: the previous run made n3's combine and
// stopped before recording it done; the resumed delegation takes that step
// rather than combining again.
func TestResumeKeepsCutShortCombine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, script(t), Config{})
		d := h.delegation(t, twoTasks)
		planJSON, err := d.Plan.JSON()
		if err != nil {
			t.Fatal(err)
		}
		origin := planKey(d.TurnID, "", planJSON)
		mustApply(t, h.graph, strategy.AddSearch{SearchName: "GenesByText"})
		mustApply(t, h.graph, strategy.AddSearch{SearchName: "GenesByLocation"})
		mustApply(t, h.graph, strategy.Keyed(origin+"/n3#combine", strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union}))
		h.store.previous = map[string]store.PreviousNode{
			"n1": {Status: store.NodeDone, Attempt: 1, RootStepID: "s1"},
			"n2": {Status: store.NodeDone, Attempt: 1, RootStepID: "s2"},
			"n3": {Status: store.NodeRunning, Attempt: 1},
		}
		before, _ := h.graph.Snapshot(t.Context())
		res, err := h.sched.Run(t.Context(), d)
		if err != nil || res.Status != DelegationCompleted || res.RootStepID != "s3" {
			t.Fatalf("Run = %+v, %v; want completed with root s3", res, err)
		}
		after, _ := h.graph.Snapshot(t.Context())
		if after.Version != before.Version || len(after.Steps) != 3 {
			t.Errorf("the strategy changed: version %d -> %d, %d steps", before.Version, after.Version, len(after.Steps))
		}
		checkEvents(t, h.events.all())
	})
}

func mustApply(t *testing.T, g Graph, m strategy.Mutation) {
	t.Helper()
	if _, err := g.Apply(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

// TestResumeBeforeFirstStep: the previous run was cut short in n1 before
// any step existed, so the conversation has no strategy yet. The resumed
// delegation reads that as an empty strategy and builds the plan, rather
// than failing on the strategy it cannot read.
func TestResumeBeforeFirstStep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t,
			reply("n1", 10, createCall("GenesByText")), reply("n1", 20, finishCall(createdStep)),
			reply("n2", 15, createCall("GenesByLocation")), reply("n2", 10, finishCall(createdStep)))
		h := newHarness(t, resolving{engine}, Config{})
		h.graph.lazy = true
		h.store.previous = map[string]store.PreviousNode{"n1": {Status: store.NodeRunning, Attempt: 1}}
		res, err := h.sched.Run(t.Context(), h.delegation(t, twoTasks))
		if err != nil || res.Status != DelegationCompleted || res.RootStepID == "" {
			t.Fatalf("Run = %+v, %v; want completed with a root", res, err)
		}
		snap, err := h.graph.Snapshot(t.Context())
		if err != nil || len(snap.Steps) != 3 {
			t.Errorf("strategy = %d steps, %v; want 3", len(snap.Steps), err)
		}
		checkEvents(t, h.events.all())
	})
}

// TestResumeAfterCompletedDelegation: the previous run completed the
// delegation (every node done, the result the strategy's one root) and
// stopped before the executor's last round was stored. The resumed run
// delegates the same plan again: it carries every node, asks no model,
// leaves the strategy as it was and completes with the same root.
func TestResumeAfterCompletedDelegation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t)
		h := newHarness(t, engine, Config{})
		mustApply(t, h.graph, strategy.AddSearch{SearchName: "GenesByText"})
		mustApply(t, h.graph, strategy.AddSearch{SearchName: "GenesByLocation"})
		mustApply(t, h.graph, strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union})
		h.store.previous = map[string]store.PreviousNode{
			"n1": {Status: store.NodeDone, Attempt: 1, RootStepID: "s1"},
			"n2": {Status: store.NodeDone, Attempt: 1, RootStepID: "s2"},
			"n3": {Status: store.NodeDone, Attempt: 1, RootStepID: "s3"},
		}
		before, _ := h.graph.Snapshot(t.Context())
		res, err := h.sched.Run(t.Context(), h.delegation(t, twoTasks))
		if err != nil || res.Status != DelegationCompleted || res.RootStepID != "s3" {
			t.Fatalf("Run = %+v, %v; want completed with root s3", res, err)
		}
		after, _ := h.graph.Snapshot(t.Context())
		if after.Version != before.Version || len(after.Steps) != 3 {
			t.Errorf("the strategy changed: version %d -> %d, %d steps", before.Version, after.Version, len(after.Steps))
		}
		if n := len(engine.Requests()); n != 0 {
			t.Errorf("%d model calls, want none", n)
		}
		checkEvents(t, h.events.all())
	})
}
