package main

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
)

// TestPlanAcceptExecute runs the whole story with the scripted engine: a
// plan turn that ends in a handoff, its acceptance, and the execute turn that
// delegates three tasks and two combines to sub-agents.
func TestPlanAcceptExecute(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Script: "plan_build.json"})
	conv := a.newConversation()

	planTurn := a.startTurn(conv, "plan", "Find genes in DNA replication or DNA repair, excluding chromosome 14")
	plan := a.collect(conv, 0, 60*time.Second, untilTurnEnds(1))
	eventtest.Check(t, plan)
	eventtest.Golden(t, "testdata/golden/plan_turn.txt", eventtest.Mask(plan))
	if first := plan[0]; first.Type != "turn_start" || first.TurnID != planTurn {
		t.Fatalf("first event = %s of %s", first.Type, first.TurnID)
	}
	handoffs := find(plan, "handoff_requested")
	if len(handoffs) != 1 {
		t.Fatalf("handoff_requested events = %d", len(handoffs))
	}
	handoffID := payload(t, handoffs[0])["handoffId"].(string)
	if end := payload(t, plan[len(plan)-1]); end["status"] != "completed" {
		t.Fatalf("plan turn ended %v: %v", end["status"], end["error"])
	}

	var accepted struct{ TurnID string }
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/handoffs/"+handoffID+"/accept", nil, &accepted); st != http.StatusAccepted {
		t.Fatalf("accept = %d", st)
	}
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/handoffs/"+handoffID+"/accept", nil, nil); st != http.StatusConflict {
		t.Errorf("accepting twice = %d, want 409", st)
	}
	exec := a.collect(conv, plan[len(plan)-1].Seq, 120*time.Second, untilTurnEnds(1))
	all := append(append([]event.Record{}, plan...), exec...)
	eventtest.Check(t, all)
	eventtest.Golden(t, "testdata/golden/execute_turn.txt", eventtest.Canonical(exec))
	if exec[0].TurnID != accepted.TurnID {
		t.Fatalf("execute stream starts with turn %s, want %s", exec[0].TurnID, accepted.TurnID)
	}
	end := payload(t, exec[len(exec)-1])
	if end["status"] != "completed" {
		t.Fatalf("execute turn ended %v: %v", end["status"], end["error"])
	}

	// Two GO tasks ran at the same time: both started before either ended.
	starts, ends := map[string]int{}, map[string]int{}
	for i, r := range exec {
		p := payload(t, r)
		switch r.Type {
		case "subagent_task_start":
			starts[p["nodeId"].(string)] = i
		case "subagent_task_end":
			ends[p["nodeId"].(string)] = i
			if p["status"] != "done" {
				t.Errorf("node %s ended %v: %v", p["nodeId"], p["status"], p["error"])
			}
		}
	}
	if !(starts["n1"] < ends["n2"] && starts["n2"] < ends["n1"]) {
		t.Errorf("the two GO tasks did not overlap: starts %v ends %v", starts, ends)
	}

	var snap struct {
		RootStepID string
		Steps      []struct {
			ID          string `json:"id"`
			Kind        string
			Operator    string
			Count       *int
			CountStatus string
		}
	}
	if st := a.call("GET", "/api/v1/conversations/"+conv+"/strategy", nil, &snap); st != http.StatusOK {
		t.Fatalf("strategy = %d", st)
	}
	counts := map[string]int{}
	for _, s := range snap.Steps {
		if s.Count != nil {
			counts[s.Operator] = *s.Count
		}
		if s.ID == snap.RootStepID && (s.Count == nil || *s.Count != 89) {
			t.Errorf("root %s count = %v, want 89", s.ID, s.Count)
		}
	}
	if counts["UNION"] != 108 || counts["MINUS"] != 89 {
		t.Errorf("combine counts = %v, want UNION 108 and MINUS 89", counts)
	}

	// The conversation as a reloading client sees it.
	var detail struct {
		Mode         string
		LastEventSeq int64
		Messages     []json.RawMessage
		Artifacts    []struct{ Kind string }
		Delegation   struct {
			Status string
			Nodes  []struct{ Status string }
		}
		Turns []struct{ Status string }
	}
	a.call("GET", "/api/v1/conversations/"+conv, nil, &detail)
	if detail.Mode != "execute" || detail.LastEventSeq != exec[len(exec)-1].Seq || len(detail.Artifacts) != 2 ||
		detail.Delegation.Status != "completed" || len(detail.Delegation.Nodes) != 5 || len(detail.Turns) != 2 {
		t.Errorf("conversation detail = %+v", detail)
	}
}

// TestDirectStep is an execute turn that builds one step itself.
func TestDirectStep(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Script: "direct_step.json"})
	conv := a.newConversation()
	a.startTurn(conv, "execute", "tRNA genes please")
	recs := a.collect(conv, 0, 60*time.Second, untilTurnEnds(1))
	eventtest.Check(t, recs)
	eventtest.Golden(t, "testdata/golden/direct_step.txt", eventtest.Mask(recs))
	snaps := find(recs, "graph_snapshot")
	if len(snaps) == 0 {
		t.Fatal("no graph_snapshot")
	}
	var last struct {
		Snapshot struct {
			RootStepID string
			Steps      []struct{ Count *int }
		}
	}
	if err := json.Unmarshal(snaps[len(snaps)-1].Payload, &last); err != nil {
		t.Fatal(err)
	}
	if len(last.Snapshot.Steps) != 1 || last.Snapshot.Steps[0].Count == nil || *last.Snapshot.Steps[0].Count != 79 {
		t.Errorf("final snapshot = %+v, want one tRNA step of 79 genes", last.Snapshot)
	}
	if end := payload(t, recs[len(recs)-1]); end["status"] != "completed" {
		t.Errorf("turn ended %v", end)
	}
}
