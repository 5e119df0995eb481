package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/pgtest"
	"strategist/internal/proctest"
)

// proc is a strategist server running as its own process.
type proc struct {
	*proctest.Proc
	t *testing.T
}

// startProc runs `strategist serve` against dbURL with the test data and
// scripts, and waits until it is ready.
func startProc(t *testing.T, dbURL string, env map[string]string) *proc {
	t.Helper()
	return startProcs(t, dbURL, env)[0]
}

// startProcs runs one server per env against dbURL, all at once (see
// startProc), and waits until all are ready.
func startProcs(t *testing.T, dbURL string, envs ...map[string]string) []*proc {
	t.Helper()
	all := make([]map[string]string, len(envs))
	for i, env := range envs {
		all[i] = map[string]string{"DATABASE_URL": dbURL, "STRATEGIST_DATA_DIR": dataDir(t), "STRATEGIST_SCRIPTS_DIR": mustAbs(t, "testdata/scripts")}
		for k, v := range env {
			all[i][k] = v
		}
	}
	var out []*proc
	for _, p := range proctest.StartAll(t, all...) {
		out = append(out, &proc{p, t})
	}
	return out
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// as returns a testApp-like client for a process with a user's token.
func (p *proc) as(token string) *testApp {
	return &testApp{t: p.t, URL: p.URL, Token: token, logs: p.Logs}
}

// newToken creates an account and API token in dbURL's database through the
// strategist command itself.
func newToken(t *testing.T, dbURL string) string {
	t.Helper()
	env := envMap(map[string]string{"DATABASE_URL": dbURL})
	email := fmt.Sprintf("ada%d@example.org", time.Now().UnixNano())
	if err := run(context.Background(), []string{"user", "create", "--email", email}, strings.NewReader("correct horse battery\n"), io.Discard, io.Discard, env); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(context.Background(), []string{"user", "token", "--email", email}, strings.NewReader(""), &out, io.Discard, env); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out.String())
}

// TestRestartAfterCrash kills the server running a delegation in the middle
// of its nodes while another replica runs beside it: the replica resumes the
// turn (turn_resumed) within the rescue interval and finishes it, the node
// done before the crash is not run again, nothing persisted before the crash
// is gone or changed, the strategy is the one an uninterrupted build makes,
// and the conversation then takes a new turn.
func TestRestartAfterCrash(t *testing.T) {
	// Not parallel: it waits on real processes with deadlines, which a
	// loaded machine can miss; it runs before the parallel tests, alone.
	dbURL := pgtest.NewURL(t)
	token := newToken(t, dbURL)
	first := startProc(t, dbURL, map[string]string{"STRATEGIST_MODEL": "scripted:crash_resume.json"})
	a := first.as(token)
	conv := a.newConversation()
	turn := a.startTurn(conv, "execute", "Build it")
	// n1 builds at once, n2 and n3 take 3 s each: the server dies with one
	// node done and two in the middle of their work.
	before := a.collect(conv, 0, 30*time.Second, func(recs []event.Record) bool {
		return nodeEnds(t, recs)["n1"] == "done"
	})
	// A second replica runs beside it; the first dies.
	second := startProc(t, dbURL, map[string]string{"STRATEGIST_TURN_RESCUE": "1s"})
	b := second.as(token)
	first.Kill()
	killed := time.Now()
	b.collect(conv, 0, 60*time.Second, func(recs []event.Record) bool { return len(find(recs, "turn_resumed")) > 0 })
	rescue := time.Since(killed)
	after := b.collect(conv, 0, 60*time.Second, untilTurnEnds(1))
	eventtest.Check(t, after)
	for i, r := range before {
		if after[i].Seq != r.Seq || after[i].Type != r.Type || string(after[i].Payload) != string(r.Payload) {
			t.Fatalf("event %d changed across the crash: %s %s -> %s %s", r.Seq, r.Type, r.Payload, after[i].Type, after[i].Payload)
		}
	}
	end := payload(t, after[len(after)-1])
	if end["status"] != "completed" || after[len(after)-1].TurnID != turn {
		t.Fatalf("after restart the turn ended %v", end)
	}
	if len(find(after, "turn_resumed")) != 1 {
		t.Errorf("turn_resumed events = %d, want 1", len(find(after, "turn_resumed")))
	}
	// The node done before the crash is not run again: its sub-agent made
	// its step once.
	n1Calls := 0
	for _, r := range find(after, "subagent_tool_call_start") {
		if p := payload(t, r); p["nodeId"] == "n1" && p["name"] == "create_step" {
			n1Calls++
		}
	}
	if n1Calls != 1 {
		t.Errorf("n1's create_step ran %d times, want once", n1Calls)
	}
	// The nodes cut short are retried: their next attempt is the second,
	// told why the first ended.
	var retried []string
	for _, r := range find(after[len(before):], "subagent_task_start") {
		if p := payload(t, r); p["attempt"] == float64(2) {
			retried = append(retried, p["nodeId"].(string))
		}
	}
	slices.Sort(retried)
	if !slices.Equal(retried, []string{"n2", "n4"}) {
		t.Errorf("tasks retried at attempt 2 = %v, want n2 and n4 (n1 was done, n3 and n5 combine)", retried)
	}
	// The strategy is the one a run without a crash builds (in a server of
	// its own: a scripted engine's responses are used once per process).
	refURL := pgtest.NewURL(t)
	ref := startProc(t, refURL, map[string]string{"STRATEGIST_MODEL": "scripted:crash_resume.json"}).as(newToken(t, refURL))
	other := ref.newConversation()
	ref.startTurn(other, "execute", "Build it")
	refRecs := ref.collect(other, 0, 60*time.Second, untilTurnEnds(1))
	if p := payload(t, refRecs[len(refRecs)-1]); p["status"] != "completed" {
		t.Fatalf("the uninterrupted build ended %v", p)
	}
	if got, want := strategyShape(t, b, conv), strategyShape(t, ref, other); got != want {
		t.Errorf("strategy after the crash:\n%s\nwithout a crash:\n%s", got, want)
	}
	// What the crash cost, for docs/BENCHMARKS.md: how long the turn waited
	// for a live replica, and the model calls made beyond an uninterrupted
	// build's (each model call reports one usage event).
	t.Logf("rescue: turn_resumed %.1f s after the kill (STRATEGIST_TURN_RESCUE=1s); model calls %d, uninterrupted %d",
		rescue.Seconds(), len(find(after, "usage")), len(find(refRecs, "usage")))
	var detail struct {
		Messages   []struct{ Role, Content string }
		Turns      []struct{ ID, Status string }
		Delegation struct {
			Status string
			Nodes  []struct{ Status string }
		}
	}
	b.call("GET", "/api/v1/conversations/"+conv, nil, &detail)
	if len(detail.Messages) == 0 || detail.Messages[0].Content != "Build it" {
		t.Errorf("the user message is gone: %+v", detail.Messages)
	}
	if len(detail.Turns) != 1 || detail.Turns[0].Status != "completed" {
		t.Errorf("turns = %+v", detail.Turns)
	}
	if detail.Delegation.Status != "completed" {
		t.Errorf("delegation = %+v", detail.Delegation)
	}
	var started struct{ TurnID string }
	if st := b.call("POST", "/api/v1/conversations/"+conv+"/turns",
		map[string]string{"mode": "execute", "message": "tRNA genes please", "model": "scripted:direct_step.json"}, &started); st != http.StatusAccepted {
		t.Fatalf("new turn after the crash = %d", st)
	}
	rest := b.collect(conv, after[len(after)-1].Seq, 30*time.Second, untilTurnEnds(1))
	if p := payload(t, rest[len(rest)-1]); p["status"] != "completed" {
		t.Errorf("the new turn ended %v", p)
	}
}

// strategyShape is a conversation's strategy as a tree of searches,
// parameters and operators, without ids: two builds of one plan compare
// equal.
func strategyShape(t *testing.T, a *testApp, conv string) string {
	t.Helper()
	var snap struct {
		RootStepID string `json:"rootStepId"`
		Steps      []struct {
			ID         string            `json:"id"`
			SearchName string            `json:"searchName"`
			Parameters map[string]string `json:"parameters"`
			Operator   string            `json:"operator"`
			Inputs     []string          `json:"inputs"`
			Count      *int              `json:"count"`
		} `json:"steps"`
	}
	a.call("GET", "/api/v1/conversations/"+conv+"/strategy", nil, &snap)
	byID := map[string]int{}
	for i, s := range snap.Steps {
		byID[s.ID] = i
	}
	var b strings.Builder
	var walk func(id, indent string)
	walk = func(id, indent string) {
		i, ok := byID[id]
		if !ok {
			fmt.Fprintf(&b, "%smissing %s\n", indent, id)
			return
		}
		s := snap.Steps[i]
		params, _ := json.Marshal(s.Parameters)
		count := -1
		if s.Count != nil {
			count = *s.Count
		}
		fmt.Fprintf(&b, "%s%s %s %s = %d\n", indent, s.SearchName, s.Operator, params, count)
		for _, in := range s.Inputs {
			walk(in, indent+"  ")
		}
	}
	walk(snap.RootStepID, "")
	fmt.Fprintf(&b, "%d steps\n", len(snap.Steps))
	return b.String()
}

// TestTwoProcesses streams from one server while another runs the turn, and
// cancels through the streaming one: the cancel reaches the owner.
func TestTwoProcesses(t *testing.T) {
	// Not parallel: it waits on real processes with deadlines, which a
	// loaded machine can miss; it runs before the parallel tests, alone.
	dbURL := pgtest.NewURL(t)
	token := newToken(t, dbURL)
	runner := startProc(t, dbURL, map[string]string{"STRATEGIST_MODEL": "scripted:cancel_delegation.json"})
	watcher := startProc(t, dbURL, nil)
	r, w := runner.as(token), watcher.as(token)
	conv := r.newConversation() // the runner's default model is the script

	type result struct {
		recs []event.Record
	}
	streamed := make(chan result, 1)
	ready := make(chan struct{})
	go func() {
		// The watcher's stream must be open before the turn starts, so the
		// turn's events reach it live (through LISTEN/NOTIFY), not by replay.
		var recs []event.Record
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.streamURL(conv), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			close(ready)
			streamed <- result{}
			return
		}
		defer resp.Body.Close()
		close(ready)
		for rec := range readFrames(resp.Body) {
			recs = append(recs, rec)
			if rec.Type == "turn_end" {
				break
			}
		}
		streamed <- result{recs}
	}()
	<-ready
	turn := r.startTurn(conv, "execute", "Build it")
	r.collect(conv, 0, 30*time.Second, func(recs []event.Record) bool {
		return len(find(recs, "subagent_task_start")) >= 3
	})
	if st := w.call("POST", "/api/v1/conversations/"+conv+"/turns/"+turn+"/cancel", nil, nil); st != http.StatusAccepted {
		t.Fatalf("cancel through the other process = %d", st)
	}
	got := (<-streamed).recs
	if len(got) == 0 {
		t.Fatalf("the watcher's stream saw nothing\nrunner:\n%s\nwatcher:\n%s", runner.Logs.String(), watcher.Logs.String())
	}
	eventtest.Check(t, got)
	if p := payload(t, got[len(got)-1]); got[len(got)-1].Type != "turn_end" || p["status"] != "cancelled" {
		t.Fatalf("the watcher saw the turn end %v", p)
	}
	ref := r.collect(conv, 0, 10*time.Second, untilTurnEnds(1))
	if len(ref) != len(got) {
		t.Errorf("the watcher saw %d events, the runner's log has %d", len(got), len(ref))
	}
}

// readFrames parses a raw SSE body into records (id, event, data).
func readFrames(body io.Reader) func(func(event.Record) bool) {
	return func(yield func(event.Record) bool) {
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		var rec event.Record
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				rec.Seq, _ = strconv.ParseInt(strings.TrimPrefix(line, "id: "), 10, 64)
			case strings.HasPrefix(line, "event: "):
				rec.Type = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				rec.Payload = []byte(strings.TrimPrefix(line, "data: "))
			case line == "" && rec.Type != "":
				var p struct {
					TurnID string `json:"turnId"`
				}
				_ = json.Unmarshal(rec.Payload, &p)
				rec.TurnID = p.TurnID
				if !yield(rec) {
					return
				}
				rec = event.Record{}
			}
		}
	}
}

// TestCrashKeepsLogAndStrategyTogether kills the server in the middle of
// a build, at different moments, and restarts it: the log's last
// graph_snapshot is always the stored strategy (a change and its snapshot
// commit together), so the page, the API and the export agree.
func TestCrashKeepsLogAndStrategyTogether(t *testing.T) {
	// Not parallel: real processes with deadlines (see TestRestartAfterCrash).
	for _, snapshots := range []int{1, 3} {
		t.Run(fmt.Sprintf("killed after %d snapshots", snapshots), func(t *testing.T) {
			dbURL := pgtest.NewURL(t)
			token := newToken(t, dbURL)
			first := startProc(t, dbURL, map[string]string{"STRATEGIST_MODEL": "scripted:slow_delegation.json"})
			a := first.as(token)
			conv := a.newConversation()
			a.startTurn(conv, "execute", "Build it")
			a.collect(conv, 0, 30*time.Second, func(recs []event.Record) bool {
				return len(find(recs, "graph_snapshot")) >= snapshots
			})
			first.Kill()

			second := startProc(t, dbURL, nil)
			b := second.as(token)
			recs := b.collect(conv, 0, 30*time.Second, untilTurnEnds(1))
			snaps := find(recs, "graph_snapshot")
			if len(snaps) == 0 {
				t.Fatal("no graph_snapshot in the log")
			}
			last := payload(t, snaps[len(snaps)-1])
			var stored struct {
				StrategyID string
				Version    float64
			}
			if st := b.call("GET", "/api/v1/conversations/"+conv+"/strategy", nil, &stored); st != http.StatusOK {
				t.Fatalf("GET strategy = %d", st)
			}
			if last["strategyId"] != stored.StrategyID || last["version"] != stored.Version {
				t.Errorf("the log's last snapshot is %v version %v, the stored strategy %s version %v",
					last["strategyId"], last["version"], stored.StrategyID, stored.Version)
			}
		})
	}
}
