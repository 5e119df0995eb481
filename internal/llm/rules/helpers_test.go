package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"strategist/internal/agent"
	"strategist/internal/catalog"
	catoffline "strategist/internal/catalog/offline"
	"strategist/internal/event"
	"strategist/internal/executor"
	"strategist/internal/llm/rules"
	"strategist/internal/offlinetest"
	"strategist/internal/pgtest"
	"strategist/internal/planner"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/subagent"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

// dataDir is the gene data (offlinetest.DataDir). Without it the test is
// skipped, except under CI=true.
func dataDir(tb testing.TB) string {
	tb.Helper()
	return offlinetest.DataDir(tb)
}

// world is the application graph the roles need, on a fresh database:
// the real store, offline catalog, strategy service, scheduler, planner
// and executor, and one researcher's conversation.
type world struct {
	db         *store.DB
	strategies *strategy.Service
	planner    *planner.Planner
	executor   *executor.Executor
	engine     *rules.Engine
	userID     string
	convID     string

	mu     sync.Mutex
	events []event.Event // everything the tools and services emitted
}

func newWorld(t testing.TB) *world {
	t.Helper()
	dir := dataDir(t)
	cat, err := catoffline.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{db: db}
	w.strategies, err = strategy.NewService(strategy.Config{Store: db, Catalog: cat,
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
	if w.planner, err = planner.New(planner.Config{Store: db, Catalog: cat}); err != nil {
		t.Fatal(err)
	}
	if w.executor, err = executor.New(executor.Config{Catalog: cat, Strategies: w.strategies, Scheduler: sched}); err != nil {
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
	ctx := t.Context()
	turnID := uuid.NewString()
	if _, err := w.db.StartTurnTx(ctx, store.StartTurn{UserID: w.userID, ConversationID: w.convID, TurnID: turnID,
		Mode: mode, Model: "offline", Owner: "test", Message: store.NewMessage{Role: "user", Content: user}}); err != nil {
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
	for ev := range ag.Run(ctx, agent.Input{User: user}) {
		r.events = append(r.events, ev)
		if e, ok := ev.(agent.RunEnd); ok {
			r.end = e
		}
	}
	r.emitted = w.take()
	if _, err := w.db.EndTurnTx(ctx, store.EndTurn{TurnID: turnID, Status: "completed", Usage: json.RawMessage(`{}`)}); err != nil {
		t.Logf("end turn: %v", err)
	}
	return r
}

// buildMessage is the execute turn's user message for an approved plan,
// written the way the orchestrator writes it.
func buildMessage(t *testing.T, h *event.HandoffRequested) string {
	t.Helper()
	bc := map[string]any{"handoffId": h.HandoffID, "goal": h.Goal, "plan": h.Plan, "planningArtifacts": []any{}}
	pretty, err := json.MarshalIndent(bc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return "Build the approved plan:\n```json\n" + string(pretty) + "\n```"
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

// raw is the tests' own reading of the export files, kept plain and
// separate from the catalog's loader so expected counts are computed
// independently.
type raw struct {
	genes      []string
	geneType   map[string]string
	chromosome map[string]string
	product    map[string]string
	aliases    map[string][]string // gene -> symbol and previous ids
	goSets     map[string]map[string]bool
}

func readRaw(t *testing.T, dir string) *raw {
	t.Helper()
	lines := func(name string) [][]string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
		var out [][]string
		for i, l := range strings.Split(string(b), "\n") {
			if i > 0 && strings.TrimSpace(l) != "" {
				out = append(out, strings.Split(l, "\t"))
			}
		}
		return out
	}
	r := &raw{geneType: map[string]string{}, chromosome: map[string]string{}, product: map[string]string{},
		aliases: map[string][]string{}, goSets: map[string]map[string]bool{}}
	txToGene := map[string]string{}
	for _, c := range lines("pf3d7/GeneAnnotationPlasmoDB.txt") {
		r.genes = append(r.genes, c[0])
		txToGene[c[1]] = c[0]
		r.geneType[c[0]], r.product[c[0]] = c[3], c[2]
		if c[4] != "" && c[4] != "N/A" {
			r.aliases[c[0]] = append(r.aliases[c[0]], c[4])
		}
	}
	for _, c := range lines("pf3d7/geneID_mappings.txt") {
		g := c[0] // a gene id, or for some rows a transcript id
		if _, ok := r.geneType[g]; !ok {
			if g = txToGene[g]; g == "" {
				continue
			}
		}
		r.chromosome[g] = c[1]
		if len(c) > 5 {
			for _, p := range strings.Split(c[5], ",") {
				if p = strings.TrimSpace(p); p != "" && p != "null" {
					r.aliases[g] = append(r.aliases[g], p)
				}
			}
		}
	}
	// Genes without a mapping row lie where their id says: PF3D7_05... on
	// chromosome 5, PF3D7_API... on the apicoplast, the mal_mito, mal_rna
	// and malmito ids in the mitochondrion.
	for _, g := range r.genes {
		switch u := strings.ToUpper(g); {
		case r.chromosome[g] != "":
		case strings.HasPrefix(u, "PF3D7_API"):
			r.chromosome[g] = "PFC10_API_IRAB"
		case strings.HasPrefix(u, "PF3D7_MIT"), strings.HasPrefix(u, "MAL_MITO"), strings.HasPrefix(u, "MAL_RNA"), strings.HasPrefix(u, "MALMITO"):
			r.chromosome[g] = "M76611"
		case len(u) > 8 && strings.HasPrefix(u, "PF3D7_"):
			r.chromosome[g] = "Pf3D7_" + u[6:8] + "_v3"
		}
	}
	for _, c := range lines("pf3d7/go_gene_lists.txt") {
		set := map[string]bool{}
		for _, g := range strings.Split(strings.Trim(c[1], `"`), ",") {
			if g != "" {
				set[g] = true
			}
		}
		r.goSets[c[0]] = set
	}
	return r
}

// set is a gene set built from the raw data.
type set map[string]bool

func (r *raw) where(keep func(g string) bool) set {
	s := set{}
	for _, g := range r.genes {
		if keep(g) {
			s[g] = true
		}
	}
	return s
}

func (r *raw) ofType(typ string) set {
	return r.where(func(g string) bool { return r.geneType[g] == typ })
}

func (r *raw) on(seq string) set {
	return r.where(func(g string) bool { return r.chromosome[g] == seq })
}

func (r *raw) goTerm(id string) set { return set(r.goSets[id]) }

// words is a simple word match over product, symbol and previous ids: a
// word starting with prefix.
func (r *raw) words(prefix string) set {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(c rune) bool {
			return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.')
		})
	}
	return r.where(func(g string) bool {
		fields := append([]string{r.product[g], g}, r.aliases[g]...)
		for _, f := range fields {
			for _, w := range split(f) {
				if strings.HasPrefix(strings.Trim(w, "."), prefix) {
					return true
				}
			}
		}
		return false
	})
}

func union(a, b set) set {
	out := set{}
	for g := range a {
		out[g] = true
	}
	for g := range b {
		out[g] = true
	}
	return out
}

func intersect(a, b set) set {
	out := set{}
	for g := range a {
		if b[g] {
			out[g] = true
		}
	}
	return out
}

func minus(a, b set) set {
	out := set{}
	for g := range a {
		if !b[g] {
			out[g] = true
		}
	}
	return out
}

func (s set) String() string { return fmt.Sprintf("%d genes", len(s)) }

var _ catalog.Catalog = (*catoffline.Catalog)(nil)
