package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// TestFinishSubtask: finish_subtask accepts only a root this attempt
// created whose subtree uses every input, and says what to do otherwise.
func TestFinishSubtask(t *testing.T) {
	ctx := t.Context()
	g := newMemGraph(t)
	add := func(m strategy.Mutation) strategy.StepID {
		t.Helper()
		res, err := g.Apply(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return res.Change.Step
	}
	input := add(strategy.AddSearch{SearchName: "GenesByLocation"})                                   // s1: a dependency's root
	sibling := add(strategy.AddSearch{SearchName: "GenesByText"})                                     // s2: another task's
	leaf := add(strategy.AddSearch{SearchName: "GenesByText"})                                        // s3
	transformed := add(strategy.AddTransform{Input: leaf, SearchName: "GenesByOrthologs"})            // s4 consumes s3
	root := add(strategy.Combine{Left: transformed, Right: input, Operator: strategy.Intersect})      // s5 uses the input
	stray := add(strategy.AddSearch{SearchName: "GenesByLocation", DisplayName: "ignores the input"}) // s6

	scope := strategy.NewScope(input, leaf, transformed, root, stray)
	fin := &finisher{graph: g, scope: func() strategy.Scope { return scope }, inputs: []strategy.StepID{input}}
	finish := fin.tool()
	tests := []struct {
		root, want string
	}{
		{"s9", CodeStepNotFound},
		{string(sibling), CodeOutOfScope},
		{string(input), CodeOutOfScope},
		{string(leaf), CodeNotRoot},
		{string(stray), CodeInputUnused},
		{" " + string(root) + " ", ""},
		{string(stray), CodeInputUnused},
	}
	for _, tt := range tests {
		raw := fmt.Sprintf(`{"root_step_id":%q,"summary":"kinases near the input"}`, tt.root)
		out, err := finish.Call(ctx, json.RawMessage(raw))
		code := ""
		if te, ok := errors.AsType[*tool.ToolError](err); ok {
			code = te.Code
			if roots := te.Details["yourRoots"]; !cmp.Equal(roots, []string{"s5", "s6"}) {
				t.Errorf("finish(%s) lists your roots %v, want [s5 s6]", tt.root, roots)
			}
		} else if err != nil {
			t.Fatalf("finish(%s): %v", tt.root, err)
		}
		if code != tt.want {
			t.Errorf("finish(%s) = %q (%v), want %q", tt.root, code, err, tt.want)
		}
		if err == nil && out.(finishResult).RootStepID != root {
			t.Errorf("finish(%s) accepted %v", tt.root, out)
		}
	}
	if id, summary, ok := fin.result(); !ok || id != root || summary != "kinases near the input" {
		t.Errorf("result() = %s, %q, %v", id, summary, ok)
	}
}

// TestTaskMessage: a sub-agent is given the goal, its task, hint and
// context, and its inputs' root steps with their search, parameters and
// count.
func TestTaskMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := `{"type":"task","task":"Orthologs in P. vivax","hint":"GenesByOrthologs","context":{"organism":"P. vivax"},
			"input":{"type":"task","task":"Find genes on chromosome 5"}}`
		engine := script(t,
			reply("n1", 10, `"toolCalls":[{"name":"create_step","args":{"search_name":"GenesByLocation","parameters":{"chromosome":"Pf3D7_05_v3"}}}]`),
			reply("n1", 10, finishCall("s1")),
			reply("n2", 10, transformCall("s1")), reply("n2", 10, finishCall("s2")),
		)
		h := newHarness(t, engine, Config{})
		res, err := h.sched.Run(t.Context(), h.delegation(t, plan))
		if err != nil || res.Status != DelegationCompleted || res.RootStepID != "s2" {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		msg := lastUser(requestsFor(engine, "n2")[0])
		for _, want := range []string{
			"# Task n2\n\nOrthologs in P. vivax\n",
			"## Hint\n\nGenesByOrthologs\n",
			"## Overall goal of the strategy\n\nTest goal\n",
			"\"organism\": \"P. vivax\"",
			`"nodeId": "n1"`, `"task": "Find genes on chromosome 5"`, `"stepId": "s1"`,
			`"searchName": "GenesByLocation"`, `"chromosome": "Pf3D7_05_v3"`, `"countStatus": "unknown"`,
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("task message lacks %q:\n%s", want, msg)
			}
		}
		if req := requestsFor(engine, "n2")[0]; req.System != DefaultSystemPrompt || req.Agent != "subagent" {
			t.Errorf("request system %.40q agent %q", req.System, req.Agent)
		}
		if first := lastUser(requestsFor(engine, "n1")[0]); !strings.Contains(first, "None: start from a search.") {
			t.Errorf("a task without inputs is not told so:\n%s", first)
		}
	})
}

// TestRunColocation: a delegated COLOCATE keeps its distances and strand
// all the way to the combined step.
func TestRunColocation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		raw := `{"type":"combine","operator":"COLOCATE","colocation":{"upstream":1000,"downstream":500,"strand":"same"},
			"left":` + task1 + `,"right":` + task2 + `}`
		engine := script(t,
			reply("n1", 10, createCall("GenesByText")), reply("n1", 10, finishCall("s1")),
			reply("n2", 15, createCall("GenesByLocation")), reply("n2", 10, finishCall("s2")),
		)
		h := newHarness(t, engine, Config{})
		res, err := h.sched.Run(t.Context(), h.delegation(t, raw))
		if err != nil || res.Status != DelegationCompleted {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		snap, _ := h.graph.Snapshot(t.Context())
		s3, _ := snap.Step(res.RootStepID)
		want := &strategy.Colocation{Upstream: 1000, Downstream: 500, Strand: strategy.StrandSame}
		if diff := cmp.Diff(want, s3.Colocation); diff != "" || s3.Operator != strategy.Colocate {
			t.Errorf("root %s %s colocation mismatch (-want +got):\n%s", s3.ID, s3.Operator, diff)
		}
	})
}

// failingCombines refuses every combine.
type failingCombines struct{ *memGraph }

func (g failingCombines) Apply(ctx context.Context, m strategy.Mutation) (strategies.Result, error) {
	if _, ok := strategy.Unwrap(m).(strategy.Combine); ok {
		return strategies.Result{}, errors.New("strategy store unavailable")
	}
	return g.memGraph.Apply(ctx, m)
}

func TestRunCombineFailureSkipsDependents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := `{"type":"combine","operator":"AND","left":` + twoTasks + `,"right":` + task4 + `}`
		engine := script(t,
			reply("n1", 10, createCall("GenesByText")), reply("n1", 10, finishCall("s1")),
			reply("n2", 15, createCall("GenesByLocation")), reply("n2", 10, finishCall("s2")),
			reply("n4", 17, createCall("GenesByText")), reply("n4", 10, finishCall("s3")),
		)
		h := newHarness(t, engine, Config{})
		d := h.delegation(t, plan)
		d.Graph = failingCombines{h.graph}
		res, err := h.sched.Run(t.Context(), d)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		var got []string
		for _, n := range res.Nodes {
			got = append(got, n.ID+":"+string(n.Status))
		}
		if diff := cmp.Diff([]string{"n1:done", "n2:done", "n3:failed", "n4:done", "n5:skipped"}, got); diff != "" {
			t.Errorf("statuses mismatch (-want +got):\n%s", diff)
		}
		if !strings.Contains(res.Nodes[2].Error, "combine s1 UNION s2: strategy store unavailable") {
			t.Errorf("n3 error = %q", res.Nodes[2].Error)
		}
		checkEvents(t, h.events.all())
	})
}

// TestRunWriteFailureStops: when the rows cannot be written the delegation
// stops (its running tasks are cancelled) and Run says why.
func TestRunWriteFailureStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t,
			reply("n1", 10, createCall("GenesByText")), reply("n1", 10, finishCall("s1")),
			reply("n2", 600_000, createCall("GenesByLocation")),
		)
		h := newHarness(t, engine, Config{})
		h.store.failAfter = 2 // the two starts; n1's end fails while n2 runs
		res, err := h.sched.Run(t.Context(), h.delegation(t, twoTasks))
		if err == nil || !strings.Contains(err.Error(), "database unavailable") {
			t.Fatalf("Run error = %v, want the write failure", err)
		}
		if res == nil || res.Status != DelegationFailed || res.Nodes[1].Status != StatusCancelled {
			t.Errorf("result = %+v", res)
		}
		if h.store.status != DelegationFailed {
			t.Errorf("stored status %q", h.store.status)
		}
	})
}

// TestRunEmitFailureStops: when the events cannot be written the
// delegation stops (its running tasks are cancelled) and Run says why.
func TestRunEmitFailureStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t, reply("n1", 600_000, createCall("GenesByText")), reply("n2", 600_000, createCall("GenesByText")))
		h := newHarness(t, engine, Config{})
		h.events.failAt = 1
		start := time.Now()
		res, err := h.sched.Run(t.Context(), h.delegation(t, twoTasks))
		if err == nil || !strings.Contains(err.Error(), "event log unavailable") {
			t.Fatalf("Run error = %v", err)
		}
		if time.Since(start) != 0 {
			t.Errorf("Run went on for %v without an event log", time.Since(start))
		}
		if res.Status != DelegationFailed || res.Nodes[0].Status != StatusCancelled || res.Nodes[1].Status != StatusCancelled {
			t.Errorf("result %s: %+v", res.Status, res.Nodes)
		}
	})
}

func TestRunRefusesIncompleteDelegations(t *testing.T) {
	h := newHarness(t, script(t, reply("n1", 0, `"text":"x"`)), Config{})
	good := h.delegation(t, task1)
	for name, edit := range map[string]func(d *Delegation){
		"no plan":    func(d *Delegation) { d.Plan = nil },
		"no goal":    func(d *Delegation) { d.Goal = " " },
		"no user":    func(d *Delegation) { d.UserID = "" },
		"no graph":   func(d *Delegation) { d.Graph = nil },
		"no tools":   func(d *Delegation) { d.Tools = nil },
		"no emitter": func(d *Delegation) { d.Emitter = nil },
		"no engine":  func(d *Delegation) { d.Agent.Engine = nil },
	} {
		d := good
		edit(&d)
		if _, err := h.sched.Run(t.Context(), d); err == nil {
			t.Errorf("%s: Run succeeded", name)
		}
	}
	if len(h.store.created) != 0 {
		t.Errorf("a refused delegation was stored")
	}
	if _, err := NewScheduler(Config{}); err == nil {
		t.Errorf("NewScheduler without a store succeeded")
	}
}

// fakeService is the part of strategies.Service ServiceGraph uses.
type fakeService struct {
	snap    strategy.Snapshot
	applied []string
}

func (s *fakeService) Conversation(_ context.Context, userID, conversationID string) (strategy.Snapshot, error) {
	if userID != "user-1" || conversationID != "conv-1" {
		return strategy.Snapshot{}, store.ErrNotFound
	}
	return s.snap, nil
}

func (s *fakeService) Apply(_ context.Context, userID, strategyID string, m strategy.Mutation) (strategies.Result, error) {
	s.applied = append(s.applied, fmt.Sprintf("%s %s %T", userID, strategyID, m))
	return strategies.Result{}, nil
}

func TestServiceGraph(t *testing.T) {
	svc := &fakeService{snap: strategy.Snapshot{StrategyID: "strat-9"}}
	g := ServiceGraph{Service: svc, UserID: "user-1", ConversationID: "conv-1"}
	if _, err := g.Apply(t.Context(), strategy.DeleteStep{Step: "s1"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"user-1 strat-9 strategy.DeleteStep"}, svc.applied); diff != "" {
		t.Errorf("applied mismatch (-want +got):\n%s", diff)
	}
	other := ServiceGraph{Service: svc, UserID: "user-2", ConversationID: "conv-1"}
	if _, err := other.Snapshot(t.Context()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another user's Snapshot = %v, want ErrNotFound", err)
	}
}

// TestRunStoppedByTheDatabase: a delegation whose rows the database could
// not take (away past the store's bound) did not fail as a plan: it is
// recorded interrupted, so that its turn's next run carries its finished
// nodes (store.PreviousNodes) instead of running the plan again on top of
// them; and one its turn stopped first (handed back, or cancelled) is
// cancelled, whatever failed to be written after.
func TestRunStoppedByTheDatabase(t *testing.T) {
	unavailable := fmt.Errorf("store: update delegation nodes: %w", io.ErrUnexpectedEOF)
	for _, tc := range []struct {
		name   string
		cancel bool
		want   store.DelegationStatus
	}{
		{"the database went away", false, store.DelegationInterrupted},
		{"the turn stopped, then the database went away", true, DelegationCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				engine := script(t,
					reply("n1", 10, createCall("GenesByText")), reply("n1", 10, finishCall("s1")),
					reply("n2", 600_000, createCall("GenesByLocation")),
				)
				h := newHarness(t, engine, Config{})
				h.store.failAfter, h.store.failure = 2, unavailable // n1's end is not written
				ctx := t.Context()
				if tc.cancel {
					h.store.failAfter = 3 // n1's end is, n2's cancellation is not
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, time.Second)
					defer cancel()
				}
				res, err := h.sched.Run(ctx, h.delegation(t, twoTasks))
				if err == nil {
					t.Error("Run did not say the rows were not written")
				}
				if res == nil || res.Status != tc.want || h.store.status != tc.want {
					t.Errorf("result %+v, stored %q; want %q", res, h.store.status, tc.want)
				}
			})
		})
	}
}
