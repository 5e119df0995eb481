package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog/catalogtool"
	"strategist/internal/catalog/offline"
	"strategist/internal/pgtest"
	"strategist/internal/plan"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
)

// A follow-up edits the strategy that exists. These tests run delegations
// the way the server wires them (the strategy service on Postgres, the
// offline catalog with its gene data, the real graph tools) on a strategy
// built beforehand:
//
//	s1 DNA replication (GO:0006260)
//	s2 DNA repair (GO:0006281)
//	s3 = s1 UNION s2, the root

const (
	org           = `"organism":"[\"Plasmodium falciparum 3D7\"]"`
	chromosome14  = `"toolCalls":[{"name":"create_step","args":{"search_name":"GenesByLocation","parameters":{"chromosomeOptional":"Pf3D7_14_v3"}}}]`
	chromosome14T = `{"type":"task","task":"Genes on chromosome 14","context":{"searchName":"GenesByLocation","parameters":{"chromosomeOptional":"Pf3D7_14_v3"}}}`
)

// pgWorld is a conversation with a strategy on Postgres and what a
// delegation over it needs.
type pgWorld struct {
	db     *store.DB
	svc    *strategies.Service
	userID string
	convID string
	turnID string
	events *recorder
	sched  *Scheduler
	tools  ToolsFunc
}

func newPGWorld(t *testing.T) *pgWorld {
	t.Helper()
	cat, err := offline.Open(dataDir(t))
	if err != nil {
		t.Fatalf("offline.Open: %v", err)
	}
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	w := &pgWorld{db: db, events: &recorder{}}
	w.userID, w.convID = newConversation(t, db)
	if err := db.Pool().QueryRow(t.Context(), `INSERT INTO turns (conversation_id, mode) VALUES ($1, 'execute') RETURNING id`,
		w.convID).Scan(&w.turnID); err != nil {
		t.Fatal(err)
	}
	if w.svc, err = strategies.NewService(strategies.Config{Store: db, Catalog: cat}); err != nil {
		t.Fatal(err)
	}
	if w.sched, err = NewScheduler(Config{Store: db}); err != nil {
		t.Fatal(err)
	}
	catalogTools, err := catalogtool.New(catalogtool.Config{Catalog: cat, Site: offline.SiteID})
	if err != nil {
		t.Fatal(err)
	}
	binding := graphtool.Binding{Service: w.svc, UserID: w.userID, ConversationID: w.convID,
		Site: offline.SiteID, RecordType: offline.RecordTypeTranscript, StrategyName: "Follow-up"}
	w.tools = func(_ context.Context, r ToolRequest) (AttemptTools, error) {
		scope := graphtool.NewScope(r.Inputs...)
		graph, err := graphtool.SubagentTools(binding, scope)
		if err != nil {
			return AttemptTools{}, err
		}
		return AttemptTools{Tools: append(catalogTools.Tools(), graph...), Scope: scope.Value}, nil
	}
	return w
}

// seed builds the first request's strategy: s3 = s1 UNION s2.
func (w *pgWorld) seed(t *testing.T) strategy.Snapshot {
	t.Helper()
	ctx := t.Context()
	snap, err := w.svc.ForConversation(ctx, w.userID, w.convID, offline.RecordTypeTranscript, "DNA replication or repair")
	if err != nil {
		t.Fatal(err)
	}
	go1 := map[string]string{"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["GO:0006260"]`}
	go2 := map[string]string{"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["GO:0006281"]`}
	for _, m := range []strategy.Mutation{
		strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: go1, DisplayName: "DNA replication"},
		strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: go2, DisplayName: "DNA repair"},
		strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union, DisplayName: "Replication or repair"},
	} {
		res, err := w.svc.Apply(ctx, w.userID, snap.StrategyID, m)
		if err != nil {
			t.Fatalf("seed %T: %v", m, err)
		}
		snap = res.Snapshot
	}
	if snap.RootStepID != "s3" {
		t.Fatalf("seeded strategy has roots %v, want s3", snap.Roots)
	}
	return snap
}

// run delegates a plan with a scripted sub-agent engine.
func (w *pgWorld) run(t *testing.T, raw string, responses ...string) (*Result, error) {
	t.Helper()
	p, err := plan.Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	engine := script(t, responses...)
	res, err := w.sched.Run(t.Context(), Delegation{UserID: w.userID, ConversationID: w.convID, TurnID: w.turnID,
		Goal: "A follow-up", Plan: p, Graph: ServiceGraph{Service: w.svc, UserID: w.userID, ConversationID: w.convID},
		Agent: AgentConfig{Engine: resolving{engine}}, Tools: w.tools, Emitter: w.events})
	if unused := engine.Unused(); err == nil && len(unused) > 0 {
		t.Errorf("script not played: %v", unused)
	}
	return res, err
}

func (w *pgWorld) snapshot(t *testing.T) strategy.Snapshot {
	t.Helper()
	snap, err := w.svc.Conversation(t.Context(), w.userID, w.convID)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// changes lists the strategy's changes after version from, as "op step".
func (w *pgWorld) changes(t *testing.T, snap strategy.Snapshot, from int) []string {
	t.Helper()
	vs, err := w.svc.Versions(t.Context(), w.userID, snap.StrategyID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range vs {
		if v.Version > from {
			out = append(out, string(v.Change.Op)+" "+string(v.Change.Step))
		}
	}
	return out
}

// stepIDs lists a snapshot's steps in creation order.
func stepIDs(snap strategy.Snapshot) []string {
	out := make([]string, len(snap.Steps))
	for i, s := range snap.Steps {
		out[i] = string(s.ID)
	}
	return out
}

// TestReuseRootStep: "now exclude chromosome 14" reuses the root: its step
// node is done at once with its count and no model call, the new task and
// the combine build on it, and nothing is deleted.
func TestReuseRootStep(t *testing.T) {
	t.Parallel()
	w := newPGWorld(t)
	before := w.seed(t)
	s3, _ := before.Step("s3")
	res, err := w.run(t, `{"type":"combine","operator":"MINUS","displayName":"Replication or repair, not on chromosome 14",
		"left":{"type":"step","stepId":"s3"},"right":`+chromosome14T+`}`,
		reply("n2", 0, chromosome14), reply("n2", 0, finishCall(createdStep)))
	if err != nil || res.Status != DelegationCompleted {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	n1 := res.Nodes[0]
	if n1.Kind != plan.KindStep || n1.Status != StatusDone || n1.RootStepID != "s3" || n1.Usage.TotalTokens != 0 ||
		!strings.Contains(n1.Summary, fmt.Sprintf("reused step s3 %q: %d genes", "Replication or repair", *s3.Count)) {
		t.Errorf("step node = %+v", n1)
	}
	if n1.Label != "Replication or repair" {
		t.Errorf("step node label = %q", n1.Label)
	}
	snap := w.snapshot(t)
	root, _ := snap.Step(res.RootStepID)
	if snap.RootStepID != "s5" || root.Operator != strategy.Minus || !cmp.Equal(root.Inputs, []strategy.StepID{"s3", "s4"}) ||
		root.Count == nil || *root.Count != 89 {
		t.Errorf("root = %+v of roots %v, want s5 = s3 MINUS s4 with 89 genes", root, snap.Roots)
	}
	if len(res.Removed) != 0 || res.Warning != "" {
		t.Errorf("removed %v, warning %q: nothing was in the way", res.Removed, res.Warning)
	}
	if diff := cmp.Diff([]string{"add_search s4", "combine s5"}, w.changes(t, snap, before.Version)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	checkEvents(t, w.events.all())
	rows, err := w.db.LatestDelegation(t.Context(), w.userID, w.convID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range rows.Nodes {
		got = append(got, n.NodeID+" "+n.Kind+" "+string(n.Status)+" "+n.RootStepID)
	}
	if diff := cmp.Diff([]string{"n1 step done s3", "n2 task done s4", "n3 combine done s5"}, got); diff != "" {
		t.Errorf("stored nodes (-want +got):\n%s", diff)
	}
}

// TestReuseFreesConsumedStep: reusing s2, which s3 consumes, deletes s3
// (a version) just before the new combine takes s2; once the plan is done
// the rest of the old strategy (s1) is removed, leaving one root. Undo
// walks the removals back.
func TestReuseFreesConsumedStep(t *testing.T) {
	t.Parallel()
	w := newPGWorld(t)
	before := w.seed(t)
	res, err := w.run(t, `{"type":"combine","operator":"AND","displayName":"Repair genes on chromosome 14",
		"left":{"type":"step","stepId":"s2"},"right":`+chromosome14T+`}`,
		reply("n2", 0, chromosome14), reply("n2", 0, finishCall(createdStep)))
	if err != nil || res.Status != DelegationCompleted {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	snap := w.snapshot(t)
	if snap.RootStepID != "s5" || !cmp.Equal(snap.Roots, []strategy.StepID{"s5"}) {
		t.Fatalf("roots = %v, want s5 alone", snap.Roots)
	}
	if diff := cmp.Diff([]string{"s2", "s4", "s5"}, stepIDs(snap)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]strategy.StepID{"s3", "s1"}, res.Removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"add_search s4", "delete_step s3", "combine s5", "delete_step s1"},
		w.changes(t, snap, before.Version)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	checkEvents(t, w.events.all())
	// Each removal is a version: undoing the build's four changes brings
	// the first request's strategy back.
	for range 4 {
		if _, err := w.svc.Undo(t.Context(), w.userID, snap.StrategyID); err != nil {
			t.Fatal(err)
		}
	}
	back := w.snapshot(t)
	if back.RootStepID != "s3" || !cmp.Equal(stepIDs(back), []string{"s1", "s2", "s3"}) {
		t.Errorf("after undo: roots %v, steps %v; want the seeded s3", back.Roots, stepIDs(back))
	}
}

// TestReuseUnknownStep: a step the strategy does not have stops the
// delegation before anything is stored or a model is called, with the ids
// that do exist.
func TestReuseUnknownStep(t *testing.T) {
	t.Parallel()
	w := newPGWorld(t)
	before := w.seed(t)
	_, err := w.run(t, `{"type":"combine","operator":"MINUS","left":{"type":"step","stepId":"s9"},"right":`+chromosome14T+`}`)
	perr, ok := errors.AsType[*plan.PlanError](err)
	if !ok || len(perr.Problems) != 1 {
		t.Fatalf("Run error = %v, want a plan error", err)
	}
	if pr := perr.Problems[0]; pr.Path != "/left/stepId" || !strings.Contains(pr.Message, "there is no step s9") ||
		!strings.Contains(pr.Message, "s1, s2, s3") || !cmp.Equal(pr.Allowed, []string{"s1", "s2", "s3"}) {
		t.Errorf("problem = %+v", pr)
	}
	if _, err := w.db.LatestDelegation(t.Context(), w.userID, w.convID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LatestDelegation = %v, want none stored", err)
	}
	if snap := w.snapshot(t); snap.Version != before.Version || len(w.events.all()) != 0 {
		t.Errorf("the strategy moved to version %d (from %d), %d events", snap.Version, before.Version, len(w.events.all()))
	}
}

// TestBuildLeavesOneRoot: a new request replaces the strategy: once its
// plan is done every step of the old one is removed, newest first, each a
// version.
func TestBuildLeavesOneRoot(t *testing.T) {
	t.Parallel()
	w := newPGWorld(t)
	before := w.seed(t)
	res, err := w.run(t, chromosome14T, reply("n1", 0, chromosome14), reply("n1", 0, finishCall(createdStep)))
	if err != nil || res.Status != DelegationCompleted || res.RootStepID != "s4" {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	snap := w.snapshot(t)
	if snap.RootStepID != "s4" || !cmp.Equal(stepIDs(snap), []string{"s4"}) {
		t.Errorf("strategy = roots %v, steps %v; want s4 alone", snap.Roots, stepIDs(snap))
	}
	if diff := cmp.Diff([]strategy.StepID{"s3", "s2", "s1"}, res.Removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"add_search s4", "delete_step s3", "delete_step s2", "delete_step s1"},
		w.changes(t, snap, before.Version)); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

// seedMem builds s3 = s1 UNION s2 in an in-memory strategy.
func seedMem(t *testing.T, g *memGraph) {
	t.Helper()
	for _, m := range []strategy.Mutation{
		strategy.AddSearch{SearchName: "GenesByText"}, strategy.AddSearch{SearchName: "GenesByLocation"},
		strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union},
	} {
		if _, err := g.Apply(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReuseSiblingsShareAChain: two reused steps under the same combine
// are freed by two combines that may start together; one deletes the
// combine above both, the other finds its step free already.
func TestReuseSiblingsShareAChain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t,
			reply("n2", 10, createCall("GenesByText")), reply("n2", 100, finishCall("s4")),
			reply("n5", 20, createCall("GenesByLocation")), reply("n5", 90, finishCall("s5")),
		)
		h := newHarness(t, engine, Config{})
		seedMem(t, h.graph)
		res, err := h.sched.Run(t.Context(), h.delegation(t, `{"type":"combine","operator":"UNION",
			"left":{"type":"combine","operator":"AND","left":{"type":"step","stepId":"s1"},"right":`+task1+`},
			"right":{"type":"combine","operator":"AND","left":{"type":"step","stepId":"s2"},"right":`+task2+`}}`))
		if err != nil || res.Status != DelegationCompleted {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		snap, _ := h.graph.Snapshot(t.Context())
		if snap.RootStepID != res.RootStepID || len(snap.Roots) != 1 || len(snap.Steps) != 7 {
			t.Errorf("strategy = roots %v, %d steps; want one root over 7 steps", snap.Roots, len(snap.Steps))
		}
		if diff := cmp.Diff([]strategy.StepID{"s3"}, res.Removed); diff != "" {
			t.Errorf("removed (-want +got):\n%s", diff)
		}
		for _, id := range []strategy.StepID{"s1", "s2"} {
			if _, ok := snap.Subtree(res.RootStepID)[id]; !ok {
				t.Errorf("reused step %s is not under the root", id)
			}
		}
		if reqs := requestsFor(engine, "n1"); len(reqs) != 0 {
			t.Errorf("%d model calls for the step node", len(reqs))
		}
		checkEvents(t, h.events.all())
	})
}

// TestReuseKeepsStrategyWhenTaskFails: a reused step is freed only when
// the node consuming it starts, so a plan whose new task fails leaves the
// existing strategy as it was.
func TestReuseKeepsStrategyWhenTaskFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := script(t, reply("n2", 10, `"error":"invalid API key","errorKind":"auth"`))
		h := newHarness(t, engine, Config{})
		seedMem(t, h.graph)
		res, err := h.sched.Run(t.Context(), h.delegation(t,
			`{"type":"combine","operator":"MINUS","left":{"type":"step","stepId":"s1"},"right":`+task2+`}`))
		if err != nil || res.Status != DelegationFailed {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		want := []string{"plan n1,n2,n3", "start n1 #1", "end n1 done #1 s1", "start n2 #1",
			"usage n2", "end n2 failed #1: agent: subagent model call 1: scripted: invalid API key",
			"end n3 skipped #0: skipped: n2 did not finish"}
		if diff := cmp.Diff(want, transcript(h.events.all())); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		snap, _ := h.graph.Snapshot(t.Context())
		if snap.RootStepID != "s3" || len(snap.Steps) != 3 || len(res.Removed) != 0 {
			t.Errorf("strategy = roots %v, %d steps, removed %v; want s3 as it was", snap.Roots, len(snap.Steps), res.Removed)
		}
	})
}
