package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/eventlog"
	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// reliabilityEnv runs every replica of the reliability run: the offline
// engine (which answers any number of runs alike), plans accepted by the
// server itself, a one-second rescue, and each combine held for 0.8 s so
// that a build lasts long enough to be hit in its middle.
var reliabilityEnv = map[string]string{
	"STRATEGIST_MODEL":             "offline",
	"STRATEGIST_AUTO_APPROVE":      "true",
	"STRATEGIST_TURN_RESCUE":       "1s",
	"STRATEGIST_TEST_COMBINE_HOLD": "800ms",
}

// reliabilityRequest is planned as (DNA repair ∪ DNA replication) minus
// chromosome 14: three tasks and two combines, 89 genes.
const reliabilityRequest = "DNA repair or DNA replication genes not on chromosome 14"

// TestReliabilityShortRun is the reliability harness's short run: three
// replicas on a PostgreSQL of the test's own, one build (a plan the
// server accepts itself, then its delegation) per fault, each fault struck
// at a moment of the build (the plan's end, the build's start, a combine): a replica killed (SIGKILL) or stopped as a
// deploy stops it (SIGTERM), the database restarted (fast and immediate),
// stalled for 15 s (every server process stopped), every replica's session
// terminated, every connection the server allows taken for 5 s, and the
// running replica's owner session terminated. Every build must end completed with
// its root's 89 genes, every turn once, each run after the one before it
// (one run at a time), with a transcript that keeps every invariant. It
// logs, per fault, the runs of the build's turns and how long the build
// took after the fault.
//
// It takes a few minutes and starts processes of its own, so it runs only
// when asked: STRATEGIST_RELIABILITY=1 go test -run TestReliabilityShortRun -v ./cmd/server/
// (make reliability); STRATEGIST_RELIABILITY=<words> runs the faults whose
// name holds them ("stalled", "restart").
func TestReliabilityShortRun(t *testing.T) {
	if os.Getenv("STRATEGIST_RELIABILITY") == "" {
		t.Skip("the reliability harness runs with STRATEGIST_RELIABILITY=1")
	}
	cl := pgtest.NewCluster(t)
	dbURL := cl.URL()
	token := newToken(t, dbURL) // migrates the database
	pool := pgtest.Connect(t, dbURL)
	db, err := store.New(pool, store.WithRetryFor(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	env := func(i int) map[string]string {
		e := map[string]string{"DATABASE_URL": withAppName(dbURL, fmt.Sprintf("strategist-%d", i))}
		for k, v := range reliabilityEnv {
			e[k] = v
		}
		return e
	}
	procs := startProcs(t, dbURL, env(0), env(1), env(2))
	replace := func(i int) { procs[i] = startProc(t, dbURL, env(i)) }

	// at is a moment of a build, read from its conversation's log.
	type at struct {
		name string
		hit  func(recs []event.Record) bool
	}
	// The plan's end: its approval is in the same transaction
	// (store.EndTurn.Then), so the build has just started.
	planEnded := at{"at the plan's end", func(recs []event.Record) bool { return len(find(recs, "turn_end")) > 0 }}
	buildStarted := at{"before the first step", func(recs []event.Record) bool { return len(find(recs, "handoff_accepted")) > 0 }}
	inCombine := at{"during a combine", func(recs []event.Record) bool {
		for _, r := range find(recs, "graph_snapshot") {
			var p struct{ Change struct{ Op string } }
			if json.Unmarshal(r.Payload, &p) == nil && p.Change.Op == "combine" {
				return true
			}
		}
		return false
	}}
	faults := []struct {
		name   string
		at     at
		strike func(runner int)
	}{
		{"none", buildStarted, func(int) {}},
		{"kill -9", planEnded, func(r int) { procs[r].Kill(); replace(r) }},
		{"kill -9", buildStarted, func(r int) { procs[r].Kill(); replace(r) }},
		{"kill -9", inCombine, func(r int) { procs[r].Kill(); replace(r) }},
		{"SIGTERM", inCombine, func(r int) { procs[r].Terminate(); replace(r) }},
		{"database restart (fast)", inCombine, func(int) { cl.Restart(t, "fast") }},
		{"database restart (immediate)", inCombine, func(int) { cl.Restart(t, "immediate") }},
		{"database stalled 15 s", inCombine, func(int) {
			cl.Pause(t)
			time.Sleep(15 * time.Second)
			cl.Continue(t)
		}},
		{"every session terminated", inCombine, func(int) {
			if _, err := pool.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name LIKE 'strategist-%'`); err != nil {
				t.Fatal(err)
			}
		}},
		{"connections starved 5 s", inCombine, func(int) {
			// Every connection the server allows is taken, and held: no
			// replica opens another (they sign in as a superuser, as the
			// test does, so the reserved ones are taken too).
			var free int
			if err := pool.QueryRow(context.Background(), `SELECT current_setting('max_connections')::int - count(*)
				FROM pg_stat_activity WHERE backend_type = 'client backend'`).Scan(&free); err != nil {
				t.Fatal(err)
			}
			hog := pgtest.Connect(t, withAppName(dbURL, "hog")+fmt.Sprintf("&pool_max_conns=%d", free))
			held := make([]func(), 0, free)
			for range free {
				c, err := hog.Acquire(context.Background())
				if err != nil {
					break
				}
				held = append(held, c.Release)
			}
			t.Logf("connections starved: %d held, every one the server had left", len(held))
			time.Sleep(5 * time.Second)
			for _, release := range held {
				release()
			}
			hog.Close()
		}},
		{"owner session terminated", inCombine, func(r int) {
			if _, err := pool.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE application_name LIKE 'strategist-' || $1 || ' %'`, fmt.Sprint(r)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	var report []string
	for _, f := range faults {
		name := f.name + ", " + f.at.name
		if only := os.Getenv("STRATEGIST_RELIABILITY"); only != "1" && !strings.Contains(name, only) {
			continue
		}
		client := procs[0].as(token)
		conv := client.newConversation()
		plan := client.startTurn(conv, "plan", reliabilityRequest)
		recs := waitLog(t, db, conv, 60*time.Second, f.at.hit)
		turn := plan
		if execs := find(recs, "handoff_accepted"); len(execs) > 0 {
			turn = execs[0].TurnID
		}
		runner := runnerOf(t, dbURL, turn)
		struck := time.Now()
		f.strike(runner)
		recs = waitLog(t, db, conv, 3*time.Minute, untilTurnEnds(2))
		took := time.Since(struck)

		eventtest.Check(t, recs)
		ok := true
		runs := map[string]int{}
		for _, r := range find(recs, "turn_start") {
			runs[r.TurnID] = 1
		}
		for _, r := range find(recs, "turn_resumed") {
			runs[r.TurnID]++
		}
		for _, r := range find(recs, "turn_end") {
			if p := payload(t, r); p["status"] != "completed" {
				t.Errorf("%s: turn %s ended %v (%v)", name, r.TurnID, p["status"], p["error"])
				ok = false
			}
		}
		shape := strategyShape(t, procs[(runner+1)%3].as(token), conv)
		if root := strings.SplitN(shape, "\n", 2)[0]; !strings.HasSuffix(root, "= 89") {
			t.Errorf("%s: the build's root is not the 89 genes:\n%s", name, shape)
			ok = false
		}
		outcome := "completed, root 89"
		if !ok {
			outcome = "WRONG"
			t.Logf("%s: the conversation's log:\n%s", name, eventtest.Mask(recs))
		}
		report = append(report, fmt.Sprintf("| %s | %s | plan %d, build %d | %.1f s |", name, outcome, runs[plan], runs[turn], took.Seconds()))
	}
	t.Logf("reliability short run:\n| fault, moment | build | runs | fault to last turn_end |\n|---|---|---|---|\n%s", strings.Join(report, "\n"))
}

// waitLog reads a conversation's log from the database until stop holds
// (through the store, which waits out a database that is away).
func waitLog(t *testing.T, db *store.DB, conv string, timeout time.Duration, stop func([]event.Record) bool) []event.Record {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var recs []event.Record
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rows, err := db.EventsRange(ctx, conv, 0, 1<<40)
		cancel()
		if err == nil {
			recs = make([]event.Record, len(rows))
			for i, r := range rows {
				recs[i] = eventlog.FromRow(r)
			}
			if stop(recs) {
				return recs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("conversation %s not there after %s (last error %v):\n%s", conv, timeout, err, eventtest.Mask(recs))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
