package subagent

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

const twoTasks = `{"type":"combine","operator":"UNION","left":` + task1 + `,"right":` + task2 + `}`

func TestRunTimeoutThenRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t,
			reply("n1", 600_000, createCall("GenesByText")), // ten minutes: past the deadline
			reply("n1", 10, createCall("GenesByText")), reply("n1", 10, finishCall("s2")),
			reply("n2", 10, createCall("GenesByLocation")), reply("n2", 10, finishCall("s1")),
		)
		h := newHarness(t, engine, Config{TaskTimeout: time.Minute})
		start := time.Now()
		res, err := h.sched.Run(t.Context(), h.delegation(t, twoTasks))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got, want := time.Since(start), time.Minute+20*time.Millisecond; got != want {
			t.Errorf("took %v, want %v (one timeout, then a quick attempt)", got, want)
		}
		want := []string{
			"plan n1,n2,n3",
			"start n1 #1", "start n2 #1",
			"call n2 create_step", "return n2 create_step ok",
			"call n2 finish_subtask", "return n2 finish_subtask ok", "usage n2", "end n2 done #1 s1",
			"usage n1", "end n1 timeout #1: attempt 1 timed out after 1m0s",
			"retry n1 #2", "start n1 #2",
			"call n1 create_step", "return n1 create_step ok",
			"call n1 finish_subtask", "return n1 finish_subtask ok", "usage n1", "end n1 done #2 s2",
			"start n3 #1", "end n3 done #1 s3",
		}
		events := h.events.all()
		if diff := cmp.Diff(want, transcript(events)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		checkEvents(t, events)
		reqs := requestsFor(engine, "n1")
		if retry := lastUser(reqs[1]); !strings.Contains(retry, "attempt 1 timed out after 1m0s") {
			t.Errorf("the retry's task does not say the first attempt timed out:\n%s", retry)
		}
		if res.Status != DelegationCompleted || res.Nodes[0].Attempts != 2 {
			t.Errorf("result = %s, n1 attempts %d", res.Status, res.Nodes[0].Attempts)
		}
	})
}

func TestRunTimeoutEveryAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t,
			reply("n1", 600_000, `"text":"late"`), reply("n1", 600_000, `"text":"late"`), reply("n1", 600_000, `"text":"late"`),
			reply("n2", 10, createCall("GenesByLocation")), reply("n2", 10, finishCall("s1")),
		)
		h := newHarness(t, engine, Config{TaskTimeout: time.Minute})
		start := time.Now()
		res, err := h.sched.Run(t.Context(), h.delegation(t, twoTasks))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got := time.Since(start); got != 3*time.Minute {
			t.Errorf("took %v, want 3 attempts of 1m0s", got)
		}
		tail := transcript(h.events.all())
		tail = tail[len(tail)-3:]
		want := []string{"usage n1", "end n1 timeout #3: attempt 3 timed out after 1m0s", "end n3 skipped #0: skipped: n1 did not finish"}
		if diff := cmp.Diff(want, tail); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		if res.Status != DelegationFailed || res.Nodes[0].Status != StatusTimeout {
			t.Errorf("result = %s, n1 %s", res.Status, res.Nodes[0].Status)
		}
	})
}

func TestRunMissingFinishIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t,
			reply("n1", 10, createCall("GenesByText")),
			reply("n1", 10, `"text":"All done."`),
			reply("n1", 10, createCall("GenesByText")), reply("n1", 10, finishCall("s2")),
		)
		h := newHarness(t, engine, Config{})
		res, err := h.sched.Run(t.Context(), h.delegation(t, task1))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		want := []string{
			"plan n1",
			"start n1 #1",
			"call n1 create_step", "return n1 create_step ok",
			"say n1 All done.",
			"usage n1", "end n1 failed #1: " + ErrNoFinish.Error(),
			"retry n1 #2", "start n1 #2",
			"call n1 create_step", "return n1 create_step ok",
			"call n1 finish_subtask", "return n1 finish_subtask ok", "usage n1", "end n1 done #2 s2",
		}
		if diff := cmp.Diff(want, transcript(h.events.all())); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		retry := lastUser(requestsFor(engine, "n1")[2])
		if !strings.Contains(retry, ErrNoFinish.Error()) || !strings.Contains(retry, "its steps were removed") {
			t.Errorf("the retry's task does not explain the missing finish:\n%s", retry)
		}
		// The first attempt's step was removed; the task's root is the
		// strategy's only step.
		snap, _ := h.graph.Snapshot(t.Context())
		if len(snap.Steps) != 1 || snap.RootStepID != "s2" || res.RootStepID != "s2" {
			t.Errorf("strategy has %d steps, root %q; result root %q", len(snap.Steps), snap.RootStepID, res.RootStepID)
		}
	})
}

func TestRunPermanentErrorIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t, reply("n1", 10, `"error":"invalid API key","errorKind":"auth"`))
		h := newHarness(t, engine, Config{})
		res, err := h.sched.Run(t.Context(), h.delegation(t, task1))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if n := res.Nodes[0]; n.Status != StatusFailed || n.Attempts != 1 || !strings.Contains(n.Error, "invalid API key") {
			t.Errorf("n1 = %s after %d attempts: %s", n.Status, n.Attempts, n.Error)
		}
	})
}

func TestRunCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// n1 finishes quickly; n2 and n4 are still thinking when the turn
		// is cancelled; n3 and n5 never start.
		plan := `{"type":"combine","operator":"AND",
			"left":{"type":"combine","operator":"OR","left":` + task1 + `,"right":` + task2 + `},"right":` + task4 + `}`
		engine := script(t,
			reply("n1", 10, createCall("GenesByText")), reply("n1", 10, finishCall("s1")),
			reply("n2", 15, createCall("GenesByLocation")), reply("n2", 600_000, finishCall("s2")),
			reply("n4", 600_000, createCall("GenesByText")),
		)
		h := newHarness(t, engine, Config{})
		ctx, cancel := context.WithCancel(t.Context())
		var callsAtCancel int
		time.AfterFunc(time.Second, func() {
			callsAtCancel = len(engine.Requests())
			cancel()
		})
		start := time.Now()
		res, err := h.sched.Run(ctx, h.delegation(t, plan))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got := time.Since(start); got != time.Second {
			t.Errorf("Run returned %v after start, want at the cancel (1s)", got)
		}
		want := []string{
			"plan n1,n2,n3,n4,n5",
			"start n1 #1", "start n2 #1", "start n4 #1",
			"call n1 create_step", "return n1 create_step ok",
			"call n2 create_step", "return n2 create_step ok",
			"call n1 finish_subtask", "return n1 finish_subtask ok", "usage n1", "end n1 done #1 s1",
			"usage n2", "end n2 cancelled #1: the delegation was cancelled",
			"usage n4", "end n4 cancelled #1: the delegation was cancelled",
			"end n3 cancelled #0: the delegation was cancelled",
			"end n5 cancelled #0: the delegation was cancelled",
		}
		events := h.events.all()
		got := transcript(events)
		// The two running tasks end in the order their workers report.
		if i := slices.Index(got, "usage n4"); i >= 0 && i+3 < len(got) && got[i+2] == "usage n2" {
			got[i], got[i+1], got[i+2], got[i+3] = got[i+2], got[i+3], got[i], got[i+1]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		checkEvents(t, events)
		if n := len(engine.Requests()); n != callsAtCancel {
			t.Errorf("%d model calls after the cancel", n-callsAtCancel)
		}
		if res.Status != DelegationCancelled || h.store.status != DelegationCancelled {
			t.Errorf("result %s, stored %s; want cancelled", res.Status, h.store.status)
		}
		if diff := cmp.Diff([]string{"n1:done#1 s1", "n2:cancelled#1 ", "n3:cancelled#0 "}, h.store.nodeRows("n1", "n2", "n3")); diff != "" {
			t.Errorf("stored nodes mismatch (-want +got):\n%s", diff)
		}
		// A cancelled attempt's steps stay: the researcher stopped the
		// build, nothing failed.
		snap, _ := h.graph.Snapshot(t.Context())
		if len(snap.Steps) != 2 {
			t.Errorf("%d steps after the cancel", len(snap.Steps))
		}
	})
}

func TestRunConcurrencyLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan, tasks := balancedPlan(6)
		var responses []string
		for i, n := range tasks {
			// Tasks start in pairs and take different times, so slots free
			// up one by one.
			responses = append(responses, reply(n, 10+i, createCall("GenesByText")), reply(n, 10, finishCall(createdStep)))
		}
		engine := script(t, responses...)
		h := newHarness(t, resolving{engine}, Config{Concurrency: 2})
		res, err := h.sched.Run(t.Context(), h.delegation(t, plan))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.Status != DelegationCompleted {
			t.Fatalf("result %s: %+v", res.Status, res.Nodes)
		}
		if got := h.engine.peak(); got != 2 {
			t.Errorf("peak concurrent model calls = %d, want 2", got)
		}
		events := h.events.all()
		checkEvents(t, events)
		running, peak := 0, 0
		for _, line := range transcript(events) {
			f := strings.Fields(line)
			if len(f) < 2 || !slices.Contains(tasks, f[1]) {
				continue
			}
			switch f[0] {
			case "start":
				running++
				peak = max(peak, running)
			case "end":
				running--
			}
		}
		if peak != 2 {
			t.Errorf("peak running tasks in the events = %d, want 2", peak)
		}
	})
}

// balancedPlan is a UNION tree over n distinct tasks; it returns the plan
// and the ids its tasks get.
func balancedPlan(n int) (string, []string) {
	var tasks []string
	next := 0
	var build func(lo, hi int) string
	build = func(lo, hi int) string {
		if hi-lo == 1 {
			next++
			tasks = append(tasks, "n"+strconv.Itoa(next))
			return `{"type":"task","task":"Task number ` + strconv.Itoa(lo) + `"}`
		}
		mid := (lo + hi) / 2
		l, r := build(lo, mid), build(mid, hi)
		next++
		return `{"type":"combine","operator":"UNION","left":` + l + `,"right":` + r + `}`
	}
	return build(0, n), tasks
}

func TestRunOutOfTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := `{"type":"task","task":"Orthologs of those genes","input":` + task1 + `}`
		late := reply("n1", 600_000, `"text":"late"`)
		engine := script(t, late, late, late)
		h := newHarness(t, engine, Config{TaskTimeout: 2 * time.Minute, MaxDuration: 5 * time.Minute})
		start := time.Now()
		res, err := h.sched.Run(t.Context(), h.delegation(t, plan))
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got := time.Since(start); got != 5*time.Minute {
			t.Errorf("took %v, want the delegation's 5m0s", got)
		}
		want := []string{
			"plan n1,n2",
			"start n1 #1", "usage n1", "end n1 timeout #1: attempt 1 timed out after 2m0s",
			"retry n1 #2", "start n1 #2", "usage n1", "end n1 timeout #2: attempt 2 timed out after 2m0s",
			"retry n1 #3", "start n1 #3", "usage n1", "end n1 cancelled #3: the delegation ran out of time (5m0s)",
			"end n2 cancelled #0: the delegation ran out of time (5m0s)",
		}
		events := h.events.all()
		if diff := cmp.Diff(want, transcript(events)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		checkEvents(t, events)
		if res.Status != DelegationFailed {
			t.Errorf("status %s, want failed", res.Status)
		}
	})
}
