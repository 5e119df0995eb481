package subagent

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog/catalogtool"
	"strategist/internal/catalog/offline"
	"strategist/internal/event"
	"strategist/internal/offlinetest"
	"strategist/internal/pgtest"
	"strategist/internal/plan"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
)

// TestDelegationEndToEnd runs a delegation the way the server wires it:
// the offline PlasmoDB catalog with its gene data, the strategy service on
// Postgres, the real catalog tools and scoped graph tools for each
// attempt, and the delegation rows in the store. (DNA replication OR DNA
// repair) MINUS chromosome 14 is 89 genes.
func TestDelegationEndToEnd(t *testing.T) {
	t.Parallel()
	dir := dataDir(t)
	cat, err := offline.Open(dir)
	if err != nil {
		t.Fatalf("offline.Open: %v", err)
	}
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	userID, conversationID := newConversation(t, db)
	var turnID string
	if err := db.Pool().QueryRow(ctx, `INSERT INTO turns (conversation_id, mode) VALUES ($1, 'execute') RETURNING id`,
		conversationID).Scan(&turnID); err != nil {
		t.Fatal(err)
	}

	events := &recorder{}
	svc, err := strategies.NewService(strategies.Config{Store: db, Catalog: cat, OnChange: func(ctx context.Context, s strategy.Snapshot) {
		// The server appends graph_snapshot here, from the one place that
		// mutates.
		_ = events.Emit(ctx, &event.GraphSnapshot{Base: event.Base{TurnID: event.TurnFrom(ctx)}, StrategyID: s.StrategyID, Version: s.Version})
	}})
	if err != nil {
		t.Fatal(err)
	}
	catalogTools, err := catalogtool.New(catalogtool.Config{Catalog: cat, Site: offline.SiteID})
	if err != nil {
		t.Fatal(err)
	}
	binding := graphtool.Binding{Service: svc, UserID: userID, ConversationID: conversationID,
		Site: offline.SiteID, RecordType: offline.RecordTypeTranscript, StrategyName: "Replication or repair, not chr 14"}
	tools := func(_ context.Context, r ToolRequest) (AttemptTools, error) {
		scope := graphtool.NewScope(r.Inputs...)
		graph, err := graphtool.SubagentTools(binding, scope)
		if err != nil {
			return AttemptTools{}, err
		}
		return AttemptTools{Tools: append(catalogTools.Tools(), graph...), Scope: scope.Value}, nil
	}

	const (
		org         = `"organism":"[\"Plasmodium falciparum 3D7\"]"`
		replication = `"toolCalls":[{"name":"create_step","args":{"search_name":"GenesByGoTerm","parameters":{` + org + `,"go_typeahead":"[\"GO:0006260\"]"}}}]`
		repair      = `"toolCalls":[{"name":"create_step","args":{"search_name":"GenesByGoTerm","parameters":{` + org + `,"go_typeahead":"[\"GO:0006281\"]"}}}]`
		chromosome  = `"toolCalls":[{"name":"create_step","args":{"search_name":"GenesByLocation","parameters":{"chromosomeOptional":"Pf3D7_14_v3"}}}]`
		lookup      = `"toolCalls":[{"name":"search_for_searches","args":{"query":"GO term"}}]`
	)
	engine := script(t,
		reply("n1", 0, lookup), reply("n1", 0, replication), reply("n1", 0, finishCall(createdStep)),
		reply("n2", 0, repair), reply("n2", 0, finishCall(createdStep)),
		reply("n4", 0, chromosome), reply("n4", 0, `"text":"Chromosome 14 it is.",`+finishCall(createdStep)),
	)
	sched, err := NewScheduler(Config{Store: db})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse([]byte(`{"type":"combine","operator":"NOT","displayName":"Replication or repair, not on chromosome 14",
		"left":{"type":"combine","operator":"OR",
			"left":{"type":"task","task":"Genes annotated with DNA replication (GO:0006260)"},
			"right":{"type":"task","task":"Genes annotated with DNA repair (GO:0006281)"}},
		"right":{"type":"task","task":"Genes on chromosome 14"}}`))
	if err != nil {
		t.Fatal(err)
	}
	// The orchestrator's turn context names the turn for the snapshots.
	res, err := sched.Run(event.WithTurn(ctx, turnID), Delegation{UserID: userID, ConversationID: conversationID, TurnID: turnID,
		Goal: "DNA replication or repair genes that are not on chromosome 14", Plan: p,
		Graph: ServiceGraph{Service: svc, UserID: userID, ConversationID: conversationID},
		Agent: AgentConfig{Engine: resolving{engine}}, Tools: tools, Emitter: events})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Status != DelegationCompleted {
		t.Fatalf("Run = %s: %+v", res.Status, res.Nodes)
	}
	snap, err := svc.Conversation(ctx, userID, conversationID)
	if err != nil {
		t.Fatal(err)
	}
	root, ok := snap.Step(res.RootStepID)
	if !ok || snap.RootStepID != res.RootStepID || root.Operator != strategy.Minus || root.Count == nil || *root.Count != 89 {
		t.Fatalf("root %s of %v = %+v, want MINUS with 89 genes", res.RootStepID, snap.Roots, root)
	}
	if root.DisplayName != "Replication or repair, not on chromosome 14" || len(snap.Steps) != 5 {
		t.Errorf("root named %q, %d steps", root.DisplayName, len(snap.Steps))
	}
	checkEvents(t, events.all())
	if unused := engine.Unused(); len(unused) > 0 {
		t.Errorf("script not played: %v", unused)
	}
	rows, err := db.LatestDelegation(ctx, userID, conversationID)
	if err != nil {
		t.Fatal(err)
	}
	// Parallel tasks take step ids in the order they write: the statuses
	// and the root are fixed, the other ids are not.
	var got []string
	for _, n := range rows.Nodes {
		got = append(got, n.NodeID+":"+string(n.Status))
	}
	want := []string{"n1:done", "n2:done", "n3:done", "n4:done", "n5:done"}
	if diff := cmp.Diff(want, got); diff != "" || rows.Status != DelegationCompleted || rows.Nodes[4].RootStepID != string(res.RootStepID) {
		t.Errorf("rows %s, root %s (-want +got):\n%s", rows.Status, rows.Nodes[4].RootStepID, diff)
	}
}

// dataDir is the offline gene data (offlinetest.DataDir); without it the
// test is skipped, except under CI=true where it fails.
func dataDir(t *testing.T) string {
	t.Helper()
	return offlinetest.DataDir(t)
}
