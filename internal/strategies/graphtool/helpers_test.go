package graphtool_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"strategist/internal/catalog/offline"
	"strategist/internal/offlinetest"
	"strategist/internal/pgtest"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

// loadCatalog opens the offline catalog over the gene data once per test
// binary: loading takes seconds under -race and the catalog is read-only.
var loadCatalog = offlinetest.Shared(offline.Open)

// dataCatalog is the offline catalog with its gene data; without the data
// the test is skipped, except under CI=true where it fails.
func dataCatalog(t testing.TB) *offline.Catalog {
	t.Helper()
	c := loadCatalog(t)
	if err := c.DataErr(); err != nil {
		offlinetest.Missing(t, err)
	}
	return c
}

// snapshots is the strategy service's change hook: it keeps every
// snapshot the service reported, the only source of graph_snapshot events.
type snapshots struct {
	mu    sync.Mutex
	snaps []strategy.Snapshot
}

func (r *snapshots) hook(_ context.Context, s strategy.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.snaps = append(r.snaps, s)
}

func (r *snapshots) versions() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := []int{}
	for _, s := range r.snaps {
		vs = append(vs, s.Version)
	}
	return vs
}

// fixture is a strategy service on a fresh database over the offline
// catalog, with a user and a conversation on PlasmoDB that has no strategy
// yet.
type fixture struct {
	svc          *strategies.Service
	db           *store.DB
	cat          *offline.Catalog
	hook         *snapshots
	user         string
	conversation string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	cat := dataCatalog(t)
	ctx := context.Background()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	user, err := db.CreateUser(ctx, "researcher@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	conv, err := db.CreateConversation(ctx, user.ID, offline.SiteID, "DNA replication and repair", "offline")
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{db: db, cat: cat, hook: &snapshots{}, user: user.ID, conversation: conv.ID}
	f.svc, err = strategies.NewService(strategies.Config{Store: db, Catalog: cat, OnChange: f.hook.hook,
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f fixture) binding() graphtool.Binding {
	return graphtool.Binding{Service: f.svc, UserID: f.user, ConversationID: f.conversation,
		Site: offline.SiteID, RecordType: offline.RecordTypeTranscript, StrategyName: "Replication and repair genes"}
}

// toolbox runs tools by name the way the agent loop does: arguments
// validated against the tool's schema and decoded strictly.
type toolbox struct {
	t  *testing.T
	ts *tool.Toolset
}

func (f fixture) executor(t *testing.T) toolbox {
	t.Helper()
	tools, err := graphtool.ExecutorTools(f.binding())
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tool.NewToolset(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return toolbox{t: t, ts: ts}
}

func (f fixture) subagent(t *testing.T, scope *graphtool.Scope) toolbox {
	t.Helper()
	tools, err := graphtool.SubagentTools(f.binding(), scope)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tool.NewToolset(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return toolbox{t: t, ts: ts}
}

func (b toolbox) call(name, args string) (any, error) {
	b.t.Helper()
	tool, ok := b.ts.Lookup(name)
	if !ok {
		b.t.Fatalf("no tool %s", name)
	}
	return tool.Call(context.Background(), json.RawMessage(args))
}

// must runs a tool that must succeed and returns its typed result.
func must[T any](b toolbox, name, args string) T {
	b.t.Helper()
	got, err := b.call(name, args)
	if err != nil {
		b.t.Fatalf("%s %s: %v", name, args, err)
	}
	v, ok := got.(T)
	if !ok {
		b.t.Fatalf("%s returned %T", name, got)
	}
	return v
}

// refused runs a tool that must fail with code and returns the tool error.
func (b toolbox) refused(name, args, code string) *tool.ToolError {
	b.t.Helper()
	_, err := b.call(name, args)
	te, ok := errors.AsType[*tool.ToolError](err)
	if !ok {
		b.t.Fatalf("%s %s: err = %v (%T), want a tool error %s", name, args, err, err, code)
	}
	if te.Code != code {
		b.t.Fatalf("%s %s: code %s (%s), want %s", name, args, te.Code, te.Message, code)
	}
	return te
}

// refuses runs a tool that must fail with code, when the test needs no more
// of the error.
func (b toolbox) refuses(name, args, code string) {
	b.t.Helper()
	_ = b.refused(name, args, code)
}

// Arguments used across tests.
const (
	org         = `"organism":["Plasmodium falciparum 3D7"]`
	replication = `{"search_name":"GenesByGoTerm","parameters":{` + org + `,"go_typeahead":"[\"GO:0006260\"]"},"display_name":"DNA replication"}`
	repair      = `{"search_name":"GenesByGoTerm","parameters":{` + org + `,"go_typeahead":["GO:0006281"]},"display_name":"DNA repair"}`
	chromosome  = `{"search_name":"GenesByLocation","parameters":{"chromosomeOptional":"Pf3D7_14_v3"},"display_name":"Chromosome 14"}`
)
