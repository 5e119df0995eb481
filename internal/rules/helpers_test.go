package rules_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"strategist/internal/agent"
	"strategist/internal/catalog"
	catoffline "strategist/internal/catalog/offline"
	"strategist/internal/eval"
	"strategist/internal/event"
	"strategist/internal/executor"
	"strategist/internal/genelist"
	"strategist/internal/llm"
	"strategist/internal/offlinetest"
	"strategist/internal/pgtest"
	"strategist/internal/plan"
	"strategist/internal/planner"
	"strategist/internal/rules"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
	"strategist/internal/subagent"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

// geneCatalog is the offline catalog over the gene data, loaded once for
// every test (it is only read: its result cache is safe to share).
// Without the data the test is skipped, except under CI=true.
var geneCatalog = offlinetest.Shared(catoffline.Open)

// loadData reads the raw export files with the evaluation set's reader,
// kept separate from the catalog's loader so expected counts are computed
// independently; once for every test.
var loadData = offlinetest.Shared(eval.Load)

// world is the application graph the roles need: the real store, offline
// catalog, strategy service, scheduler, planner and executor, and one
// researcher's conversation. Worlds share the test binary's database
// (pgtest.Shared) as researchers share a server: each has its own user and
// conversation, and everything the roles read is theirs.
type world struct {
	db         *store.DB
	strategies *strategies.Service
	lists      *genelist.Service
	planner    *planner.Planner
	executor   *executor.Executor
	engine     *rules.Engine
	userID     string
	convID     string

	// history is the conversation so far, as the orchestrator passes it
	// to the next turn: each message and the answer's text.
	history []llm.Message

	mu     sync.Mutex
	events []event.Event // everything the tools and services emitted
}

func newWorld(t testing.TB) *world {
	t.Helper()
	cat := geneCatalog(t)
	db, err := store.New(pgtest.Shared(t))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{db: db}
	w.strategies, err = strategies.NewService(strategies.Config{Store: db, Catalog: cat,
		OnChange: func(_ context.Context, s strategy.Snapshot) {
			raw, _ := json.Marshal(s)
			w.emit(&event.GraphSnapshot{StrategyID: s.StrategyID, Version: s.Version, Snapshot: raw})
		}})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := subagent.NewScheduler(subagent.Config{Store: db})
	if err != nil {
		t.Fatal(err)
	}
	if w.lists, err = genelist.New(genelist.Config{Store: db, Resolver: cat, DefaultSite: catoffline.SiteID}); err != nil {
		t.Fatal(err)
	}
	if w.planner, err = planner.New(planner.Config{Store: db, Catalog: cat, Strategies: w.strategies, Lists: w.lists}); err != nil {
		t.Fatal(err)
	}
	if w.executor, err = executor.New(executor.Config{Catalog: cat, Strategies: w.strategies, Scheduler: sched, Lists: w.lists, Scorer: w.strategies}); err != nil {
		t.Fatal(err)
	}
	if w.engine, err = rules.New(rules.Config{}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	u, err := db.CreateUser(ctx, "researcher-"+uuid.NewString()[:8]+"@example.org", "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.CreateConversation(ctx, u.ID, catoffline.SiteID, "offline engine test", "offline")
	if err != nil {
		t.Fatal(err)
	}
	w.userID, w.convID = u.ID, c.ID
	return w
}

func (w *world) emit(ev event.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, ev)
}

// take returns the events emitted since the last call.
func (w *world) take() []event.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.events
	w.events = nil
	return out
}

// run is one turn's outcome.
type run struct {
	events  []agent.Event // the agent's own events, in order
	emitted []event.Event // what tools and services emitted
	end     agent.RunEnd
}

// calls lists the tool names the run called, in call order.
func (r run) calls() []string {
	var out []string
	for _, ev := range r.events {
		if e, ok := ev.(agent.ToolCallStart); ok {
			out = append(out, e.Name)
		}
	}
	return out
}

// failedCalls lists the calls that failed, with their errors.
func (r run) failedCalls() []string {
	var out []string
	for _, ev := range r.events {
		if e, ok := ev.(agent.ToolCallEnd); ok && !e.OK {
			out = append(out, e.Name+": "+e.Error.Code+" "+e.Error.Message)
		}
	}
	return out
}

// turn runs one turn of the role for mode ("plan" or "execute") with the
// user message, as the orchestrator would: a turn row, the role's agent
// over the offline engine, the events its tools emit collected.
func (w *world) turn(t testing.TB, mode, user string) run {
	t.Helper()
	return w.turnAccepting(t, mode, user, "")
}

// turnAccepting is turn, its start accepting a pending handoff (none when
// handoff is empty), as the orchestrator's start of a build does.
func (w *world) turnAccepting(t testing.TB, mode, user, handoff string) run {
	t.Helper()
	ctx := t.Context()
	turnID := uuid.NewString()
	if _, err := w.db.StartTurnTx(ctx, store.StartTurn{UserID: w.userID, ConversationID: w.convID, TurnID: turnID,
		Mode: store.Mode(mode), Model: "offline", Message: store.NewMessage{Role: "user", Content: user}, AcceptHandoff: handoff}); err != nil {
		t.Fatal(err)
	}
	env := agent.Env{UserID: w.userID, ConversationID: w.convID, TurnID: turnID, SiteID: catoffline.SiteID,
		Engine: w.engine, Emit: func(_ context.Context, evs ...event.Event) error {
			for _, ev := range evs {
				w.emit(ev)
			}
			return nil
		}}
	var ag *agent.Agent
	var err error
	if mode == "plan" {
		ag, err = w.planner.Agent(env)
	} else {
		ag, err = w.executor.Agent(env)
	}
	if err != nil {
		t.Fatal(err)
	}
	var r run
	for ev := range ag.Run(ctx, agent.Input{History: w.history, User: user}) {
		r.events = append(r.events, ev)
		if e, ok := ev.(agent.RunEnd); ok {
			r.end = e
		}
	}
	// The history keeps the run's messages, its tool calls among them, as
	// the conversation's stored messages give them to the next turn.
	w.history = append(w.history, llm.Message{Role: llm.RoleUser, Text: user})
	if len(r.end.Messages) > 0 {
		w.history = append(w.history, r.end.Messages...)
	} else {
		w.history = append(w.history, llm.Message{Role: llm.RoleAssistant, Text: r.end.Text})
	}
	r.emitted = w.take()
	if _, err := w.db.EndTurnTx(ctx, store.EndTurn{TurnID: turnID, Status: "completed", Usage: json.RawMessage(`{}`)}); err != nil {
		t.Logf("end turn: %v", err)
	}
	return r
}

// built plans a request and builds the plan it drafted, as a researcher
// who clicks Build does; it fails the test when no plan was drafted.
func (w *world) built(t *testing.T, request string) run {
	t.Helper()
	plan := w.turn(t, "plan", request)
	handoffs := find[*event.HandoffRequested](plan.emitted)
	if len(handoffs) != 1 {
		t.Fatalf("no plan for %q:\n%s", request, plan.end.Text)
	}
	return w.turn(t, "execute", buildMessage(t, handoffs[0]))
}

// buildMessage is the execute turn's user message for an approved plan,
// written the way the orchestrator writes it.
func buildMessage(t *testing.T, h *event.HandoffRequested) string {
	t.Helper()
	content, _, err := plan.WriteBuildMessage(plan.BuildContext{HandoffID: h.HandoffID, Goal: h.Goal, Plan: h.Plan})
	if err != nil {
		t.Fatal(err)
	}
	return content
}

// planTree renders a delegation plan as searches and their key values:
// MINUS(UNION(GenesByGoTerm GO:0006260, ...), GenesByLocation Pf3D7_14_v3).
func planTree(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var n struct {
		Type     string          `json:"type"`
		Operator string          `json:"operator"`
		Left     json.RawMessage `json:"left"`
		Right    json.RawMessage `json:"right"`
		Context  struct {
			SearchName string            `json:"searchName"`
			Parameters map[string]string `json:"parameters"`
		} `json:"context"`
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatalf("plan node %s: %v", raw, err)
	}
	if n.Type == "combine" {
		return n.Operator + "(" + planTree(t, n.Left) + ", " + planTree(t, n.Right) + ")"
	}
	key := ""
	for _, k := range []string{"go_typeahead", "geneType", "chromosomeOptional", "ds_gene_ids", "text_expression", "organism"} {
		if v, ok := n.Context.Parameters[k]; ok {
			var terms []string
			if json.Unmarshal([]byte(v), &terms) == nil {
				v = strings.Join(terms, ",")
			}
			key = v
			break
		}
	}
	return n.Context.SearchName + " " + key
}

// find returns the emitted events of type T.
func find[T event.Event](evs []event.Event) []T {
	var out []T
	for _, ev := range evs {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// rootCount reads the count of the strategy's root from the last snapshot
// emitted.
func rootCount(t *testing.T, evs []event.Event) (strategy.Snapshot, *strategy.Step) {
	t.Helper()
	snaps := find[*event.GraphSnapshot](evs)
	if len(snaps) == 0 {
		t.Fatal("no graph snapshot")
	}
	var s strategy.Snapshot
	if err := json.Unmarshal(snaps[len(snaps)-1].Snapshot, &s); err != nil {
		t.Fatal(err)
	}
	for i := range s.Steps {
		if s.Steps[i].ID == s.RootStepID {
			return s, &s.Steps[i]
		}
	}
	t.Fatalf("snapshot has no root step: %+v", s)
	return s, nil
}

var _ catalog.Catalog = (*catoffline.Catalog)(nil)
