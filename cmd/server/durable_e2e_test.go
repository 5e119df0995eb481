package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/pgtest"
)

// durableEnv runs every server of the durable-turn tests: the scripted build
// of durable_phases.json, whose waits make each phase last 0.8 s (the
// executor's first answer, n1's finish, n2's first call, each combine),
// one sub-agent at a time so the phases come in order, and a one-second
// rescue.
var durableEnv = map[string]string{
	"STRATEGIST_MODEL":                "scripted:durable_phases.json",
	"STRATEGIST_TURN_RESCUE":          "1s",
	"STRATEGIST_SUBAGENT_CONCURRENCY": "1",
	"STRATEGIST_TEST_COMBINE_HOLD":    "800ms",
}

// TestThreeProcesses runs three servers on one database and kills
// (SIGKILL) the one running a delegation at each phase of it: before the
// first node, in the middle of a node (its step made, its finish not),
// between two nodes, and during a combine. Each time a survivor resumes
// the turn, and what the researcher gets is what an uninterrupted build
// gives: the same strategy (steps, parameters, counts, the root's 89
// genes), no step made twice (the same additions in the log, none
// deleted), one turn_end, completed, and a transcript that keeps every
// invariant (gapless sequence numbers, every start ended, nodes in
// dependency order).
func TestThreeProcesses(t *testing.T) {
	// Not parallel: real processes with deadlines (see TestRestartAfterCrash).
	// One database for every run, a conversation each; every run has
	// servers of its own, since a scripted engine uses each answer once
	// per process.
	dbURL := pgtest.NewURL(t)
	token := newToken(t, dbURL)
	refProc := startProc(t, dbURL, durableEnv)
	ref := refProc.as(token)
	refConv := ref.newConversation()
	ref.startTurn(refConv, "execute", "Build it")
	refRecs := ref.collect(refConv, 0, 60*time.Second, untilTurnEnds(1))
	eventtest.Check(t, refRecs)
	if p := payload(t, refRecs[len(refRecs)-1]); p["status"] != "completed" {
		t.Fatalf("the uninterrupted build ended %v", p)
	}
	refShape := strategyShape(t, ref, refConv)
	if !strings.Contains(strings.SplitN(refShape, "\n", 2)[0], " MINUS ") || !strings.HasSuffix(strings.SplitN(refShape, "\n", 2)[0], "= 89") {
		t.Fatalf("the uninterrupted build's strategy is not the expected one:\n%s", refShape)
	}
	refAdds := additions(t, refRecs)
	refCalls := modelCalls(t, refRecs)
	refProc.Kill()

	phases := []struct {
		name string
		// at says, from the stream so far, that the phase has come.
		at func([]event.Record) bool
		// check looks at what the resumed run did in that phase.
		check func(t *testing.T, resumed []event.Record)
	}{
		{"before the first node", func(recs []event.Record) bool { return len(find(recs, "turn_start")) > 0 },
			func(t *testing.T, resumed []event.Record) {
				if n := len(find(resumed, "subagent_task_retry")); n != 0 {
					t.Errorf("%d retries, want none: no node had started", n)
				}
			}},
		{"in the middle of a node", func(recs []event.Record) bool {
			for _, r := range find(recs, "subagent_tool_call_end") {
				if p := payload(t, r); p["nodeId"] == "n1" && p["name"] == "create_step" {
					return true
				}
			}
			return false
		}, func(t *testing.T, resumed []event.Record) {
			wantRetry(t, resumed, "n1", `after it had made s1 "DNA replication" (GenesByGoTerm)`)
			var reused bool
			for _, r := range find(resumed, "subagent_tool_call_end") {
				var p struct {
					NodeID, Name string
					Result       struct{ Reused bool }
				}
				_ = json.Unmarshal(r.Payload, &p)
				reused = reused || (p.NodeID == "n1" && p.Name == "create_step" && p.Result.Reused)
			}
			if !reused {
				t.Error("n1's retry did not get its step back from create_step")
			}
		}},
		{"between two nodes", func(recs []event.Record) bool { return nodeEnds(t, recs)["n1"] == "done" },
			func(t *testing.T, resumed []event.Record) {
				wantRetry(t, resumed, "n2", "before it made any step")
			}},
		{"during a combine", func(recs []event.Record) bool {
			for _, r := range find(recs, "graph_snapshot") {
				var p struct{ Change struct{ Op string } }
				_ = json.Unmarshal(r.Payload, &p)
				if p.Change.Op == "combine" {
					return true
				}
			}
			return false
		}, func(t *testing.T, resumed []event.Record) {
			for _, r := range find(resumed, "subagent_task_start") {
				if p := payload(t, r); p["nodeId"] == "n1" || p["nodeId"] == "n2" {
					if ends := nodeEnds(t, resumed); ends[p["nodeId"].(string)] != "done" {
						t.Errorf("%s ran again", p["nodeId"])
					}
				}
			}
		}},
	}
	for _, ph := range phases {
		t.Run(ph.name, func(t *testing.T) {
			envs := make([]map[string]string, 3)
			for i := range envs {
				envs[i] = map[string]string{"DATABASE_URL": withAppName(dbURL, fmt.Sprintf("strategist-%d", i))}
				for k, v := range durableEnv {
					envs[i][k] = v
				}
			}
			procs := startProcs(t, dbURL, envs...)
			a := procs[0].as(token)
			conv := a.newConversation()
			turn := a.startTurn(conv, "execute", "Build it")
			runner := runnerOf(t, dbURL, turn)
			watcher := procs[(runner+1)%3].as(token)
			before := watcher.collect(conv, 0, 30*time.Second, ph.at)
			procs[runner].Kill()
			killed := time.Now()
			watcher.collect(conv, 0, 30*time.Second, func(recs []event.Record) bool { return len(find(recs, "turn_resumed")) > 0 })
			rescue := time.Since(killed)
			after := watcher.collect(conv, 0, 60*time.Second, untilTurnEnds(1))

			eventtest.Check(t, after)
			for i, r := range before {
				if after[i].Seq != r.Seq || after[i].Type != r.Type || string(after[i].Payload) != string(r.Payload) {
					t.Fatalf("event %d changed across the crash: %s -> %s", r.Seq, r.Type, after[i].Type)
				}
			}
			ends := find(after, "turn_end")
			if len(ends) != 1 || payload(t, ends[0])["status"] != "completed" {
				t.Fatalf("turn ends: %d, last %v", len(ends), payload(t, after[len(after)-1]))
			}
			if n := len(find(after, "turn_resumed")); n != 1 {
				t.Errorf("turn_resumed events = %d, want 1", n)
			}
			if got := strategyShape(t, watcher, conv); got != refShape {
				t.Errorf("strategy after the crash:\n%s\nwithout a crash:\n%s", got, refShape)
			}
			if got := additions(t, after); got != refAdds {
				t.Errorf("changes to the strategy: %s; without a crash: %s", got, refAdds)
			}
			if n := maxRunningTasks(t, after); n != 1 {
				t.Errorf("at most %d tasks ran at once, want 1 (STRATEGIST_SUBAGENT_CONCURRENCY=1)", n)
			}
			resumed := after[len(before):]
			ph.check(t, resumed)
			calls := modelCalls(t, after)
			t.Logf("%s: turn_resumed %.2f s after the kill (STRATEGIST_TURN_RESCUE=1s); model calls answered %d, uninterrupted %d (+%d)",
				ph.name, rescue.Seconds(), calls, refCalls, calls-refCalls)
		})
	}
}

// wantRetry checks that node was retried at attempt 2 with a cause that
// says the server stopped and contains where.
func wantRetry(t *testing.T, recs []event.Record, node, where string) {
	t.Helper()
	for _, r := range find(recs, "subagent_task_retry") {
		if p := payload(t, r); p["nodeId"] == node {
			cause, _ := p["cause"].(string)
			if p["attempt"] != float64(2) || !strings.Contains(cause, "the server running it stopped") || !strings.Contains(cause, where) {
				t.Errorf("%s's retry: attempt %v, cause %q; want attempt 2 saying %q", node, p["attempt"], cause, where)
			}
			return
		}
	}
	t.Errorf("no subagent_task_retry for %s", node)
}

// additions counts the strategy changes of a transcript by operation
// ("add_search:3 combine:2"): a step made twice, or made and removed,
// shows.
func additions(t *testing.T, recs []event.Record) string {
	t.Helper()
	counts := map[string]int{}
	for _, r := range find(recs, "graph_snapshot") {
		var p struct{ Change struct{ Op string } }
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			t.Fatal(err)
		}
		counts[p.Change.Op]++
	}
	var parts []string
	for _, op := range []string{"add_search", "add_transform", "combine", "delete_step", "update_step", ""} {
		if counts[op] > 0 {
			parts = append(parts, fmt.Sprintf("%s:%d", op, counts[op]))
		}
	}
	return strings.Join(parts, " ")
}

// withAppName sets the application_name of a connection URL, so that a
// process's sessions can be told apart in pg_stat_activity.
func withAppName(url, name string) string {
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "application_name=" + name
}

// runnerOf waits until a process claims the turn and returns its index
// (the process started with application_name strategist-<index>): its
// owner session's application_name is that, then the turn's owner name.
func runnerOf(t *testing.T, dbURL, turn string) int {
	t.Helper()
	pool := pgtest.Connect(t, dbURL)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var app string
		err := pool.QueryRow(context.Background(), `
SELECT coalesce(a.application_name, '') FROM turns t
LEFT JOIN pg_stat_activity a ON right(a.application_name, length(t.owner) + 1) = ' ' || t.owner
WHERE t.id = $1`, turn).Scan(&app)
		if err != nil {
			t.Fatal(err)
		}
		var i int
		if _, err := fmt.Sscanf(app, "strategist-%d", &i); err == nil {
			return i
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no process claimed the turn")
	return 0
}

// modelCalls counts the model calls a transcript of durable_phases.json
// shows answered: the main agent's (one usage event each) and the
// sub-agents' (each of their answers is one tool call). A call in flight
// when its server was killed was never answered and is not counted.
func modelCalls(t *testing.T, recs []event.Record) int {
	t.Helper()
	n := len(find(recs, "subagent_tool_call_start"))
	for _, r := range find(recs, "usage") {
		if payload(t, r)["scope"] == "main" {
			n++
		}
	}
	return n
}

// maxRunningTasks returns the most task attempts (combines do not count)
// a transcript shows running at once, across all its delegations.
func maxRunningTasks(t *testing.T, recs []event.Record) int {
	t.Helper()
	tasks := map[string]bool{} // delegation/node of the task nodes
	running := map[string]bool{}
	most := 0
	for _, r := range recs {
		var p struct {
			DelegationID, NodeID string
			Nodes                []struct{ ID, Kind string }
		}
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			t.Fatal(err)
		}
		key := p.DelegationID + "/" + p.NodeID
		switch r.Type {
		case "subagent_plan":
			for _, n := range p.Nodes {
				tasks[p.DelegationID+"/"+n.ID] = n.Kind == "task"
			}
		case "subagent_task_start":
			if tasks[key] {
				running[key] = true
			}
		case "subagent_task_end":
			delete(running, key)
		}
		most = max(most, len(running))
	}
	return most
}
