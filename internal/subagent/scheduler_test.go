package subagent

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/llm"
	"strategist/internal/plan"
	"strategist/internal/strategy"
)

const (
	task1 = `{"type":"task","task":"Find protein kinases"}`
	task2 = `{"type":"task","task":"Find genes on chromosome 5"}`
	task4 = `{"type":"task","task":"Find ribosomal genes"}`
	task5 = `{"type":"task","task":"Find genes on chromosome 14"}`
)

// treePlan is a diamond-free tree of four tasks and three combines whose
// two branches can run in parallel:
// n7 = (n1 OR n2) = n3  AND  (n4 MINUS n5) = n6.
const treePlan = `{"type":"combine","operator":"AND",
	"left":{"type":"combine","operator":"OR","left":` + task1 + `,"right":` + task2 + `},
	"right":{"type":"combine","operator":"MINUS","left":` + task4 + `,"right":` + task5 + `}}`

func TestRunTree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Distinct latencies make the step ids deterministic: the four
		// creates come first (s1..s4), then the finishes and combines.
		engine := script(t,
			reply("n1", 10, createCall("GenesByText")), reply("n1", 100, finishCall("s1")),
			reply("n2", 20, createCall("GenesByLocation")), reply("n2", 100, finishCall("s2")),
			reply("n4", 30, createCall("GenesByText")), reply("n4", 100, finishCall("s3")),
			reply("n5", 40, createCall("GenesByLocation")), reply("n5", 100, finishCall("s4")),
		)
		h := newHarness(t, engine, Config{})
		start := time.Now()
		res, err := h.sched.Run(t.Context(), h.delegation(t, treePlan))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got, want := time.Since(start), 140*time.Millisecond; got != want {
			t.Errorf("makespan = %v, want %v (the longest branch)", got, want)
		}
		want := []string{
			"plan n1,n2,n3,n4,n5,n6,n7",
			"start n1 #1", "start n2 #1", "start n4 #1", "start n5 #1",
			"call n1 create_step", "return n1 create_step ok",
			"call n2 create_step", "return n2 create_step ok",
			"call n4 create_step", "return n4 create_step ok",
			"call n5 create_step", "return n5 create_step ok",
			"call n1 finish_subtask", "return n1 finish_subtask ok", "usage n1", "end n1 done #1 s1",
			"call n2 finish_subtask", "return n2 finish_subtask ok", "usage n2", "end n2 done #1 s2",
			"start n3 #1", "end n3 done #1 s5",
			"call n4 finish_subtask", "return n4 finish_subtask ok", "usage n4", "end n4 done #1 s3",
			"call n5 finish_subtask", "return n5 finish_subtask ok", "usage n5", "end n5 done #1 s4",
			"start n6 #1", "end n6 done #1 s6",
			"start n7 #1", "end n7 done #1 s7",
		}
		events := h.events.all()
		if diff := cmp.Diff(want, transcript(events)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		checkEvents(t, events)
		if got := h.engine.peak(); got != 4 {
			t.Errorf("peak concurrent model calls = %d, want 4 (both branches in parallel)", got)
		}
		if res.Status != DelegationCompleted || res.RootStepID != "s7" || res.DelegationID != "del-1" {
			t.Errorf("result = %s root %s id %s", res.Status, res.RootStepID, res.DelegationID)
		}
		var statuses []string
		for _, n := range res.Nodes {
			statuses = append(statuses, n.ID+":"+string(n.Status)+":"+string(n.RootStepID))
			if n.Kind == plan.KindTask && (n.Summary != "built "+string(n.RootStepID) || n.Usage.TotalTokens == 0) {
				t.Errorf("node %s: summary %q, usage %+v", n.ID, n.Summary, n.Usage)
			}
		}
		if diff := cmp.Diff([]string{"n1:done:s1", "n2:done:s2", "n3:done:s5", "n4:done:s3", "n5:done:s4", "n6:done:s6", "n7:done:s7"}, statuses); diff != "" {
			t.Errorf("node results mismatch (-want +got):\n%s", diff)
		}
		snap, _ := h.graph.Snapshot(t.Context())
		if snap.RootStepID != "s7" || len(snap.Steps) != 7 {
			t.Errorf("strategy = root %q, %d steps; want one tree of 7 under s7", snap.RootStepID, len(snap.Steps))
		}
		s7, _ := snap.Step("s7")
		if diff := cmp.Diff([]strategy.StepID{"s5", "s6"}, s7.Inputs); diff != "" || s7.Operator != strategy.Intersect {
			t.Errorf("root step = %s %v, want INTERSECT of s5 and s6", s7.Operator, s7.Inputs)
		}
		if diff := cmp.Diff([]string{"n1:done#1 s1", "n3:done#1 s5", "n7:done#1 s7"}, h.store.nodeRows("n1", "n3", "n7")); diff != "" {
			t.Errorf("stored nodes mismatch (-want +got):\n%s", diff)
		}
		if h.store.status != DelegationCompleted || len(h.store.created) != 1 || len(h.store.created[0].Nodes) != 7 {
			t.Errorf("stored delegation = %s, %d created", h.store.status, len(h.store.created))
		}
		if unused := engine.Unused(); len(unused) > 0 {
			t.Errorf("script not played: %v", unused)
		}
	})
}

// checkEvents checks the invariants every delegation's events keep: the
// plan first; each attempt of a node starts once and ends once; a node
// starts again only after an attempt ended failed or timeout; it starts
// only after its dependencies ended done; its tool calls fall between an
// attempt's start and end; a node that never started ends skipped or
// cancelled; all carry the turn and the delegation. checkStream then
// applies the product's stream invariants.
func checkEvents(t *testing.T, events []event.Event) {
	t.Helper()
	checkStream(t, events)
	sp, ok := events[0].(*event.SubagentPlan)
	if !ok {
		t.Fatalf("first event is %T, want the plan", events[0])
	}
	deps := map[string][]string{}
	for _, n := range sp.Nodes {
		deps[n.ID] = n.DependsOn
	}
	status := map[string]event.NodeStatus{}
	running := map[string]bool{}
	for i, ev := range events {
		if ev.Turn() != sp.TurnID {
			t.Errorf("event %d (%T) has turn %q", i, ev, ev.Turn())
		}
		switch e := ev.(type) {
		case *event.SubagentTaskStart:
			if running[e.NodeID] || (status[e.NodeID] != "" && status[e.NodeID] != event.NodeFailed && status[e.NodeID] != event.NodeTimeout) {
				t.Errorf("event %d: %s starts while running or after ending %s", i, e.NodeID, status[e.NodeID])
			}
			for _, d := range deps[e.NodeID] {
				if status[d] != event.NodeDone {
					t.Errorf("event %d: %s starts before its dependency %s is done", i, e.NodeID, d)
				}
			}
			running[e.NodeID], status[e.NodeID] = true, ""
		case *event.SubagentToolCallStart:
			if !running[e.NodeID] || e.DelegationID != sp.DelegationID {
				t.Errorf("event %d: a tool call of %s outside its run", i, e.NodeID)
			}
		case *event.SubagentToolCallEnd:
			if !running[e.NodeID] {
				t.Errorf("event %d: a tool call of %s outside its run", i, e.NodeID)
			}
		case *event.SubagentTaskEnd:
			neverRan := status[e.NodeID] == "" && (e.Status == event.NodeSkipped || e.Status == event.NodeCancelled)
			if !running[e.NodeID] && !neverRan {
				t.Errorf("event %d: %s ends %s without running", i, e.NodeID, e.Status)
			}
			if e.DelegationID != sp.DelegationID {
				t.Errorf("event %d: delegation %q", i, e.DelegationID)
			}
			running[e.NodeID], status[e.NodeID] = false, e.Status
		}
	}
	for id := range deps {
		if status[id] == "" || running[id] {
			t.Errorf("%s never ended", id)
		}
	}
}

// failPlan: n4 = n1 AND n3, where n3 transforms the result of n2.
const failPlan = `{"type":"combine","operator":"AND","left":` + task1 + `,
	"right":{"type":"task","task":"Orthologs of those genes","input":` + task5 + `}}`

func TestRunFailureSkipsDependents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t,
			reply("n1", 10, createCall("GenesByText")), reply("n1", 10, finishCall("s2")),
			reply("n2", 5, createCall("GenesByLocation")),
			reply("n2", 10, `"error":"model overloaded"`),
			reply("n2", 10, `"error":"model overloaded again"`),
			reply("n2", 10, `"error":"model still overloaded"`),
		)
		h := newHarness(t, engine, Config{})
		res, err := h.sched.Run(t.Context(), h.delegation(t, failPlan))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		want := []string{
			"plan n1,n2,n3,n4",
			"start n1 #1", "start n2 #1",
			"call n2 create_step", "return n2 create_step ok",
			"call n1 create_step", "return n1 create_step ok",
			"usage n2", "end n2 failed #1: agent: subagent model call 2: scripted: model overloaded",
			"retry n2 #2", "start n2 #2",
			"call n1 finish_subtask", "return n1 finish_subtask ok", "usage n1", "end n1 done #1 s2",
			"usage n2", "end n2 failed #2: agent: subagent model call 1: scripted: model overloaded again",
			"retry n2 #3", "start n2 #3",
			"usage n2", "end n2 failed #3: agent: subagent model call 1: scripted: model still overloaded",
			"end n3 skipped #0: skipped: n2 did not finish",
			"end n4 skipped #0: skipped: n2 did not finish",
		}
		events := h.events.all()
		if diff := cmp.Diff(want, transcript(events)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		checkEvents(t, events)
		if reqs := requestsFor(engine, "n3"); len(reqs) != 0 {
			t.Errorf("%d model calls for the skipped task n3", len(reqs))
		}
		// Every retry is told why the previous attempt failed.
		reqs := requestsFor(engine, "n2")
		if len(reqs) != 4 {
			t.Fatalf("%d calls for n2, want 4", len(reqs))
		}
		retry := lastUser(reqs[3])
		if !strings.Contains(retry, "This is attempt 3 of 3") || !strings.Contains(retry, "model overloaded again") {
			t.Errorf("third attempt's task does not summarise the second's error:\n%s", retry)
		}
		// The failed attempt's step is gone; n1's stays.
		snap, _ := h.graph.Snapshot(t.Context())
		if diff := cmp.Diff([]strategy.StepID{"s2"}, snap.Roots); diff != "" || len(snap.Steps) != 1 {
			t.Errorf("strategy after the failure (-want +got roots):\n%s\n%d steps", diff, len(snap.Steps))
		}
		if res.Status != DelegationFailed || res.RootStepID != "" {
			t.Errorf("result = %s root %q", res.Status, res.RootStepID)
		}
		if diff := cmp.Diff([]string{"n2:failed#3 ", "n3:skipped#0 ", "n4:skipped#0 "}, h.store.nodeRows("n2", "n3", "n4")); diff != "" {
			t.Errorf("stored nodes mismatch (-want +got):\n%s", diff)
		}
	})
}

// lastUser is the task message of a request.
func lastUser(r llm.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleUser {
			return r.Messages[i].Text
		}
	}
	return ""
}

// checkStream checks the events, inside a turn, against the stream
// invariants every transcript of the product keeps.
func checkStream(t *testing.T, events []event.Event) {
	t.Helper()
	turn := event.Base{TurnID: events[0].Turn()}
	all := append([]event.Event{&event.TurnStart{Base: turn, Mode: "execute"}}, events...)
	all = append(all, &event.TurnEnd{Base: turn, Status: event.TurnCompleted})
	records := make([]event.Record, len(all))
	for i, e := range all {
		name, payload, err := event.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		records[i] = event.Record{ConversationID: "conv-1", Seq: int64(i + 1), TurnID: e.Turn(), Type: name, Payload: payload}
	}
	eventtest.Check(t, records)
}
