package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"strategist/internal/agent"
	"strategist/internal/catalog/offline"
	"strategist/internal/event"
	"strategist/internal/executor"
	"strategist/internal/llm"
	"strategist/internal/llm/scripted"
	"strategist/internal/pgtest"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/subagent"
	"strategist/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

// recorder collects emitted events.
type recorder struct {
	mu  sync.Mutex
	evs []event.Event
}

func (r *recorder) emit(_ context.Context, evs ...event.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, evs...)
	return nil
}

func (r *recorder) events() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// fixture is an executor over a fresh conversation on real PostgreSQL and
// the embedded offline catalog, with a scripted engine and the turn's env.
type fixture struct {
	x          *executor.Executor
	db         *store.DB
	strategies *strategies.Service
	engine     *scripted.Engine
	rec        *recorder
	env        agent.Env
}

func newFixture(t *testing.T, script string) fixture {
	t.Helper()
	ctx := context.Background()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.CreateUser(ctx, "ada@example.org", "x")
	if err != nil {
		t.Fatal(err)
	}
	conv, err := db.CreateConversation(ctx, u.ID, offline.SiteID, "t", "offline")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := strategies.NewService(strategies.Config{Store: db, Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := subagent.NewScheduler(subagent.Config{Store: db})
	if err != nil {
		t.Fatal(err)
	}
	x, err := executor.New(executor.Config{Catalog: cat, Strategies: svc, Scheduler: sched})
	if err != nil {
		t.Fatal(err)
	}
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	engine, err := scripted.New(s)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	env := agent.Env{UserID: u.ID, ConversationID: conv.ID, SiteID: offline.SiteID, Engine: engine, Model: "scripted", Emit: rec.emit}
	return fixture{x: x, db: db, strategies: svc, engine: engine, rec: rec, env: env}
}

func call(t *testing.T, tools *tool.Toolset, name, args string) (any, error) {
	t.Helper()
	tool, ok := tools.Lookup(name)
	if !ok {
		t.Fatalf("no tool %s in %v", name, tools.Names())
	}
	return tool.Call(t.Context(), json.RawMessage(args))
}

// TestNewNeedsItsParts: the executor refuses to start without a catalog,
// strategy service or scheduler.
func TestNewNeedsItsParts(t *testing.T) {
	if _, err := executor.New(executor.Config{}); err == nil {
		t.Error("New with nothing configured succeeded")
	}
}

// TestTools: the executor's tool set is explicit: the catalog tools,
// get_strategy, the graph tools and delegation, each once.
func TestTools(t *testing.T) {
	t.Parallel()
	f := newFixture(t, `{"roles":{}}`)
	tools, err := f.x.Tools(f.env)
	if err != nil {
		t.Fatal(err)
	}
	names := tools.Names()
	for _, want := range []string{
		"search_for_searches", "get_search_parameters", // catalog
		"get_strategy",
		"create_step", "transform_step", "combine_steps", "update_step", "delete_step", "list_steps",
		"undo_last_change", "rename_strategy", "validate_strategy", "get_result_count", "enrich_step", // graph
		"delegate_strategy_subtasks",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	for _, own := range []string{"save_delegation_draft", "request_executor_build", "finish_subtask"} {
		if slices.Contains(names, own) {
			t.Errorf("the executor has %s, a tool of another role", own)
		}
	}
	sorted := slices.Sorted(slices.Values(names))
	if len(slices.Compact(sorted)) != len(names) {
		t.Errorf("tool names repeat: %v", names)
	}
}

// TestAgentPrompt: the turn's agent sends the executor's prompt for the
// conversation's site, as the executor role, with every tool declared.
func TestAgentPrompt(t *testing.T) {
	t.Parallel()
	f := newFixture(t, `{"roles":{"executor":[{"text":"Nothing to build yet."}]}}`)
	a, err := f.x.Agent(f.env)
	if err != nil {
		t.Fatal(err)
	}
	var end *agent.RunEnd
	for ev := range a.Run(t.Context(), agent.Input{User: "Build it"}) {
		if e, ok := ev.(agent.RunEnd); ok {
			end = &e
		}
	}
	if end == nil || end.Reason != agent.StopCompleted {
		t.Fatalf("run end = %+v, want completed", end)
	}
	reqs := f.engine.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d, want 1", len(reqs))
	}
	req := reqs[0]
	if req.Agent != "executor" || req.System != executor.SystemPrompt(offline.SiteID) {
		t.Errorf("request agent %q, system prompt %.60q..., want the executor's for %s", req.Agent, req.System, offline.SiteID)
	}
	if !strings.Contains(req.System, `"`+offline.SiteID+`"`) || !strings.Contains(req.System, "delegate_strategy_subtasks") {
		t.Errorf("system prompt does not name the site and delegation:\n%s", req.System)
	}
	tools, err := f.x.Tools(f.env)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range req.Tools {
		declared = append(declared, d.Name)
	}
	if !slices.Equal(declared, tools.Names()) {
		t.Errorf("declared tools %v, want %v", declared, tools.Names())
	}
	if last := req.Messages[len(req.Messages)-1]; last.Role != llm.RoleUser || last.Text != "Build it" {
		t.Errorf("last message = %+v, want the user's", last)
	}
}

// TestDelegateBuildsAPlan: delegate_strategy_subtasks runs the plan's task as
// a sub-agent with the scoped graph tools, reports the delegation's result
// and emits its progress; the strategy ends with the task's step as root.
func TestDelegateBuildsAPlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t, `{"roles":{"subagent":[
		{"toolCalls":[{"name":"create_step","args":{"search_name":"GenesByGeneType","parameters":{"organism":"[\"Plasmodium falciparum 3D7\"]","geneType":"tRNA encoding"}}}]},
		{"toolCalls":[{"name":"finish_subtask","args":{"root_step_id":"$result.step.stepId","summary":"tRNA genes"}}]}
	]}}`)
	tools, err := f.x.Tools(f.env)
	if err != nil {
		t.Fatal(err)
	}
	out, err := call(t, tools, "delegate_strategy_subtasks", `{"goal":"tRNA genes","plan":{"type":"task","task":"Genes of type tRNA"}}`)
	if err != nil {
		t.Fatalf("delegate: %v", err)
	}
	dr := out.(*executor.DelegateResult)
	res := dr.Result
	if res.Status != store.DelegationCompleted || res.RootStepID == "" || len(res.Nodes) != 1 || res.Nodes[0].Status != subagent.StatusDone {
		t.Fatalf("result = %+v, want completed with one done node", res)
	}
	snap, err := f.strategies.Conversation(t.Context(), f.env.UserID, f.env.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.RootStepID != res.RootStepID || len(snap.Steps) != 1 || snap.Steps[0].SearchName != "GenesByGeneType" {
		t.Errorf("strategy = %+v, want the one GenesByGeneType step %s as root", snap, res.RootStepID)
	}
	// The completed plan is checked: its one task (no search stated) is
	// the step its node built; this catalog has no gene data, so the
	// check says the step cannot be evaluated, and counts nothing.
	if rc := dr.Requirements; rc == nil || len(rc.Requirements) != 1 || rc.Requirements[0].Status != event.RequirementNotEvaluable ||
		rc.Requirements[0].StepID != string(res.RootStepID) || rc.Requirements[0].Count != nil || !strings.Contains(rc.Requirements[0].Note, "gene data") {
		t.Errorf("requirements = %+v (%s), want the task implemented by the root and not evaluable without the gene data", dr.Requirements, dr.RequirementsError)
	}
	var plans, ends, checks int
	for _, ev := range f.rec.events() {
		switch e := ev.(type) {
		case *event.RequirementsChecked:
			checks++
		case *event.SubagentPlan:
			plans++
		case *event.SubagentTaskEnd:
			ends++
			if e.Status != event.NodeDone {
				t.Errorf("node %s ended %s", e.NodeID, e.Status)
			}
		}
	}
	if plans != 1 || ends != 1 || checks != 1 {
		t.Errorf("events: %d subagent_plan, %d subagent_task_end, %d requirements_checked, want 1 of each", plans, ends, checks)
	}
	d, err := f.db.LatestDelegation(t.Context(), f.env.UserID, f.env.ConversationID)
	if err != nil || d.Status != store.DelegationCompleted {
		t.Errorf("stored delegation = %+v, %v, want completed", d, err)
	}
}

// TestDelegateRefusesBadPlans: a plan that does not parse, or a step node
// naming a step the strategy lacks, is a tool error the model can fix, and
// no sub-agent runs.
func TestDelegateRefusesBadPlans(t *testing.T) {
	t.Parallel()
	f := newFixture(t, `{"roles":{}}`)
	tools, err := f.x.Tools(f.env)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"goal":"g","plan":{"type":"combine","operator":"XOR"}}`,
		`{"goal":"g","plan":{"type":"step","stepId":"s9"}}`,
	} {
		_, err := call(t, tools, "delegate_strategy_subtasks", args)
		if _, ok := errors.AsType[*tool.ToolError](err); !ok {
			t.Errorf("delegate %s: error %v (%T), want an *tool.ToolError", args, err, err)
		}
	}
	if n := len(f.engine.Requests()); n != 0 {
		t.Errorf("the model was called %d times for refused plans", n)
	}
}
