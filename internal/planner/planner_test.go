package planner_test

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
	"strategist/internal/pgtest"
	"strategist/internal/planner"
	"strategist/internal/store"
	"strategist/internal/strategies"
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

// fixture is a planner's tools for one turn of a fresh conversation, with
// the strategy service the tools read.
type fixture struct {
	tools      *tool.Toolset
	db         *store.DB
	rec        *recorder
	uid, conv  string
	strategies *strategies.Service
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return newFixtureOn(t, cat)
}

// newFixtureOn is a fixture whose tools read catalog cat.
func newFixtureOn(t *testing.T, cat *offline.Catalog) fixture {
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
	conv, err := db.CreateConversation(ctx, u.ID, "plasmodb", store.DefaultTitle, "offline")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := strategies.NewService(strategies.Config{Store: db, Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	p, err := planner.New(planner.Config{Store: db, Catalog: cat, Strategies: svc})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	tools, err := p.Tools(agent.Env{UserID: u.ID, ConversationID: conv.ID, SiteID: "plasmodb", Emit: rec.emit})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{tools: tools, db: db, rec: rec, uid: u.ID, conv: conv.ID, strategies: svc}
}

func setup(t *testing.T) (*tool.Toolset, *store.DB, *recorder, string, string) {
	t.Helper()
	f := newFixture(t)
	return f.tools, f.db, f.rec, f.uid, f.conv
}

func call(t *testing.T, tools *tool.Toolset, name, args string) (any, error) {
	t.Helper()
	tool, ok := tools.Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tool.Call(context.Background(), json.RawMessage(args))
}

func TestDelegationDraftIsValidatedOnSave(t *testing.T) {
	t.Parallel()
	tools, db, rec, uid, conv := setup(t)

	_, err := call(t, tools, "save_delegation_draft", `{"goal":"g","plan":{"type":"combine","operator":"XOR","left":{"type":"task","task":""}}}`)
	te, ok := errors.AsType[*tool.ToolError](err)
	if !ok || te.Code != "DELEGATION_PLAN_INVALID" {
		t.Fatalf("invalid plan: %v", err)
	}
	raw, _ := json.Marshal(te.Details)
	for _, want := range []string{`/plan/operator`, `/plan/left/task`, `/plan/right`} {
		if !json.Valid(raw) || !contains(string(raw), want) {
			t.Errorf("problems %s do not name %s", raw, want)
		}
	}
	if arts, _ := db.Artifacts(context.Background(), uid, conv); len(arts) != 0 {
		t.Errorf("an invalid draft was saved: %v", arts)
	}

	if _, err := call(t, tools, "request_executor_build", `{}`); err == nil {
		t.Error("a build was requested without a draft")
	}

	plan := `{"type":"combine","operator":"OR",
		"left":{"type":"task","task":"replication","context":{"searchName":"GenesByGoTerm","parameters":{"go_typeahead":"[\"GO:0006260\"]","organism":"[\"Plasmodium falciparum 3D7\"]"}}},
		"right":{"type":"task","task":"magic","context":{"searchName":"GenesByMagic","parameters":{}}}}`
	out, err := call(t, tools, "save_delegation_draft", `{"goal":"replication genes","plan":`+plan+`}`)
	if err != nil {
		t.Fatal(err)
	}
	saved := out.(*planner.SavedArtifact)
	if saved.Tasks != 2 || len(saved.Warnings) != 1 || !contains(saved.Warnings[0], "GenesByMagic") {
		t.Errorf("saved = %+v, want 2 tasks and a warning about the unknown search", saved)
	}
	// A second save revises the same draft.
	again, err := call(t, tools, "save_delegation_draft", `{"goal":"replication genes","plan":`+plan+`}`)
	if err != nil {
		t.Fatal(err)
	}
	if a := again.(*planner.SavedArtifact); a.ArtifactID != saved.ArtifactID || a.Version != 2 {
		t.Errorf("revision = %+v, want version 2 of %s", a, saved.ArtifactID)
	}

	built, err := call(t, tools, "request_executor_build", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	h, err := db.Handoff(context.Background(), uid, conv, built.(*planner.BuildRequested).HandoffID)
	if err != nil || h.Status != "pending" || h.Goal != "replication genes" {
		t.Fatalf("handoff = %+v, %v", h, err)
	}
	var kinds []string
	for _, ev := range rec.evs {
		kinds = append(kinds, event.Name(ev))
	}
	if want := []string{"artifact_saved", "artifact_saved", "handoff_requested"}; !equal(kinds, want) {
		t.Errorf("events = %v, want %v", kinds, want)
	}
	// The plan handed over is canonical: the OR alias resolved.
	if !contains(string(h.Plan), `"UNION"`) {
		t.Errorf("handoff plan %s keeps the alias", h.Plan)
	}
}

func TestTitleAndArtifacts(t *testing.T) {
	t.Parallel()
	tools, db, _, uid, conv := setup(t)
	if _, err := call(t, tools, "set_conversation_title", `{"title":"  "}`); err == nil {
		t.Error("an empty title was accepted")
	}
	if _, err := call(t, tools, "set_conversation_title", `{"title":"DNA repair genes"}`); err != nil {
		t.Fatal(err)
	}
	if c, _ := db.Conversation(context.Background(), uid, conv); c.Title != "DNA repair genes" {
		t.Errorf("title = %q", c.Title)
	}
	// The automatic title is given once; the researcher's is never replaced.
	out, err := call(t, tools, "set_conversation_title", `{"title":"Something else"}`)
	if err != nil {
		t.Fatal(err)
	}
	if ts := out.(*planner.TitleSet); !ts.Kept || ts.Title != "DNA repair genes" {
		t.Errorf("second title: %+v, want the first kept", ts)
	}
	if _, err := db.RenameConversation(context.Background(), uid, conv, "My kinases"); err != nil {
		t.Fatal(err)
	}
	if out, err := call(t, tools, "set_conversation_title", `{"title":"Planner's idea"}`); err != nil || !out.(*planner.TitleSet).Kept {
		t.Errorf("a title over the researcher's: %+v, %v; want kept", out, err)
	}
	if c, _ := db.Conversation(context.Background(), uid, conv); c.Title != "My kinases" {
		t.Errorf("title = %q, want the researcher's", c.Title)
	}
	out, err = call(t, tools, "save_planning_artifact", `{"title":"Plan","summary_markdown":"**two** searches","assumptions":["2017 data"],"parameters":{"go":"GO:0006281"}}`)
	if err != nil {
		t.Fatal(err)
	}
	id := out.(*planner.SavedArtifact).ArtifactID
	got, err := call(t, tools, "get_artifact", `{"artifact_id":"`+id+`"}`)
	if err != nil {
		t.Fatal(err)
	}
	if a := got.(*event.Artifact); a.SummaryMarkdown != "**two** searches" || a.Assumptions[0] != "2017 data" {
		t.Errorf("artifact = %+v", a)
	}
	if _, err := call(t, tools, "get_artifact", `{"artifact_id":"00000000-0000-0000-0000-000000000000"}`); err == nil {
		t.Error("an unknown artifact was found")
	}
	list, _ := call(t, tools, "list_artifacts", `{}`)
	if n := len(list.(*planner.ArtifactList).Artifacts); n != 1 {
		t.Errorf("list = %d artifacts", n)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func equal(a, b []string) bool { return slices.Equal(a, b) }
