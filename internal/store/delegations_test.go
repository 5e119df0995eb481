package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"strategist/internal/store"
)

// insertTurn adds an ended turn to a conversation (a conversation has at
// most one running turn); the turns repository is not what these tests are
// about.
func insertTurn(t *testing.T, db *store.DB, conversationID string) string {
	t.Helper()
	var id string
	err := db.Pool().QueryRow(context.Background(),
		`INSERT INTO turns (conversation_id, mode, status) VALUES ($1, 'execute', 'interrupted') RETURNING id`, conversationID).Scan(&id)
	if err != nil {
		t.Fatalf("insert turn: %v", err)
	}
	return id
}

func newDelegation(conversationID, turnID string) store.NewDelegation {
	return store.NewDelegation{
		ConversationID: conversationID,
		TurnID:         turnID,
		Goal:           "Kinases on chromosome 5",
		Plan:           json.RawMessage(`{"root":"n3","nodes":[]}`),
		Nodes: []store.NewDelegationNode{
			{NodeID: "n1", Kind: "task", Label: "Find kinases"},
			{NodeID: "n2", Kind: "task", Label: "Genes on chromosome 5", DependsOn: []string{}},
			{NodeID: "n3", Kind: "combine", Label: "n1 INTERSECT n2", DependsOn: []string{"n1", "n2"}, Operator: "INTERSECT"},
		},
	}
}

// ignoreTimes leaves timestamps to explicit checks.
var ignoreTimes = cmpopts.IgnoreFields(store.DelegationNode{}, "StartedAt", "EndedAt")

func TestDelegationLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	turn := insertTurn(t, f.db, f.conversation)

	d, err := f.db.CreateDelegation(ctx, f.owner, newDelegation(f.conversation, turn))
	if err != nil {
		t.Fatalf("CreateDelegation: %v", err)
	}
	if d.Status != "running" || d.TurnID == nil || *d.TurnID != turn || d.EndedAt != nil {
		t.Errorf("created delegation = %+v", d)
	}
	queued := []store.DelegationNode{
		{NodeID: "n1", Position: 0, Kind: "task", Label: "Find kinases", DependsOn: []string{}, Status: "queued", Usage: json.RawMessage(`{}`)},
		{NodeID: "n2", Position: 1, Kind: "task", Label: "Genes on chromosome 5", DependsOn: []string{}, Status: "queued", Usage: json.RawMessage(`{}`)},
		{NodeID: "n3", Position: 2, Kind: "combine", Label: "n1 INTERSECT n2", DependsOn: []string{"n1", "n2"}, Operator: "INTERSECT",
			Status: "queued", Usage: json.RawMessage(`{}`)},
	}
	if diff := cmp.Diff(queued, d.Nodes, ignoreTimes); diff != "" {
		t.Errorf("created nodes mismatch (-want +got):\n%s", diff)
	}

	started := time.Now().UTC().Truncate(time.Millisecond)
	ended := started.Add(1500 * time.Millisecond)
	updates := []store.DelegationNodeUpdate{
		{NodeID: "n1", Status: "running", Attempt: 1, StartedAt: &started},
		{NodeID: "n1", Status: "done", Attempt: 2, RootStepID: "s2", Usage: json.RawMessage(`{"totalTokens": 42}`), StartedAt: &started, EndedAt: &ended},
		{NodeID: "n2", Status: "timeout", Attempt: 3, Error: "attempt 3 timed out after 2m0s", StartedAt: &started, EndedAt: &ended},
		{NodeID: "n3", Status: "skipped", Error: "n2 did not finish", EndedAt: &ended},
	}
	for _, u := range updates {
		if err := f.db.UpdateDelegationNode(ctx, f.owner, d.ID, u); err != nil {
			t.Fatalf("UpdateDelegationNode(%+v): %v", u, err)
		}
	}

	live, err := f.db.LatestDelegation(ctx, f.owner, f.conversation)
	if err != nil {
		t.Fatalf("LatestDelegation: %v", err)
	}
	want := []store.DelegationNode{
		{NodeID: "n1", Position: 0, Kind: "task", Label: "Find kinases", DependsOn: []string{}, Status: "done", Attempt: 2,
			RootStepID: "s2", Usage: json.RawMessage(`{"totalTokens": 42}`)},
		{NodeID: "n2", Position: 1, Kind: "task", Label: "Genes on chromosome 5", DependsOn: []string{}, Status: "timeout", Attempt: 3,
			Error: "attempt 3 timed out after 2m0s", Usage: json.RawMessage(`{}`)},
		{NodeID: "n3", Position: 2, Kind: "combine", Label: "n1 INTERSECT n2", DependsOn: []string{"n1", "n2"}, Operator: "INTERSECT",
			Status: "skipped", Error: "n2 did not finish", Usage: json.RawMessage(`{}`)},
	}
	if diff := cmp.Diff(want, live.Nodes, ignoreTimes); diff != "" {
		t.Errorf("live nodes mismatch (-want +got):\n%s", diff)
	}
	if n := live.Nodes[0]; n.StartedAt == nil || !n.StartedAt.Equal(started) || n.EndedAt == nil || !n.EndedAt.Equal(ended) {
		t.Errorf("n1 times = %v, %v; want %v, %v", n.StartedAt, n.EndedAt, started, ended)
	}
	if n := live.Nodes[2]; n.StartedAt != nil {
		t.Errorf("skipped n3 has a start time %v", n.StartedAt)
	}

	if err := f.db.FinishDelegation(ctx, f.owner, d.ID, "failed", json.RawMessage(`{"totalTokens": 42}`)); err != nil {
		t.Fatalf("FinishDelegation: %v", err)
	}
	got, err := f.db.Delegation(ctx, f.owner, d.ID)
	if err != nil {
		t.Fatalf("Delegation: %v", err)
	}
	if got.Status != "failed" || got.EndedAt == nil || string(got.Usage) != `{"totalTokens": 42}` || len(got.Nodes) != 3 {
		t.Errorf("finished delegation = %+v", got)
	}
}

func TestLatestDelegation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	if _, err := f.db.LatestDelegation(ctx, f.owner, f.conversation); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LatestDelegation with none = %v, want ErrNotFound", err)
	}
	first, err := f.db.CreateDelegation(ctx, f.owner, newDelegation(f.conversation, ""))
	if err != nil {
		t.Fatalf("CreateDelegation: %v", err)
	}
	if first.TurnID != nil {
		t.Errorf("TurnID = %v, want nil", *first.TurnID)
	}
	second, err := f.db.CreateDelegation(ctx, f.owner, newDelegation(f.conversation, insertTurn(t, f.db, f.conversation)))
	if err != nil {
		t.Fatalf("CreateDelegation: %v", err)
	}
	got, err := f.db.LatestDelegation(ctx, f.owner, f.conversation)
	if err != nil || got.ID != second.ID {
		t.Errorf("LatestDelegation = %s, %v; want %s", got.ID, err, second.ID)
	}
}

func TestDelegationOwnerFilter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	if _, err := f.db.CreateDelegation(ctx, f.other, newDelegation(f.conversation, "")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateDelegation in another user's conversation = %v, want ErrNotFound", err)
	}
	d, err := f.db.CreateDelegation(ctx, f.owner, newDelegation(f.conversation, ""))
	if err != nil {
		t.Fatalf("CreateDelegation: %v", err)
	}
	checks := map[string]error{
		"LatestDelegation": func() error { _, err := f.db.LatestDelegation(ctx, f.other, f.conversation); return err }(),
		"Delegation":       func() error { _, err := f.db.Delegation(ctx, f.other, d.ID); return err }(),
		"UpdateDelegationNode": f.db.UpdateDelegationNode(ctx, f.other, d.ID,
			store.DelegationNodeUpdate{NodeID: "n1", Status: "running", Attempt: 1}),
		"FinishDelegation": f.db.FinishDelegation(ctx, f.other, d.ID, "completed", nil),
		"unknown node": f.db.UpdateDelegationNode(ctx, f.owner, d.ID,
			store.DelegationNodeUpdate{NodeID: "n9", Status: "running", Attempt: 1}),
		"malformed id": func() error { _, err := f.db.Delegation(ctx, f.owner, "not-a-uuid"); return err }(),
	}
	for name, err := range checks {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s = %v, want ErrNotFound", name, err)
		}
	}
	got, err := f.db.Delegation(ctx, f.owner, d.ID)
	if err != nil || got.Status != "running" || got.Nodes[0].Status != "queued" {
		t.Errorf("after refused writes: %+v, %v", got, err)
	}
}

func TestCreateDelegationIsAtomic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	nd := newDelegation(f.conversation, "")
	nd.Nodes = append(nd.Nodes, store.NewDelegationNode{NodeID: "n4", Kind: "loop", Label: "not a kind"})
	if _, err := f.db.CreateDelegation(ctx, f.owner, nd); err == nil {
		t.Fatal("CreateDelegation with a bad node kind succeeded")
	}
	if _, err := f.db.LatestDelegation(ctx, f.owner, f.conversation); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused node left its delegation behind: %v", err)
	}
}

func TestInterruptDelegations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	crashed := insertTurn(t, f.db, f.conversation)
	interrupted, err := f.db.CreateDelegation(ctx, f.owner, newDelegation(f.conversation, crashed))
	if err != nil {
		t.Fatalf("CreateDelegation: %v", err)
	}
	ended := time.Now().UTC().Truncate(time.Millisecond)
	for _, u := range []store.DelegationNodeUpdate{
		{NodeID: "n1", Status: "done", Attempt: 1, RootStepID: "s1", StartedAt: &ended, EndedAt: &ended},
		{NodeID: "n2", Status: "running", Attempt: 2, StartedAt: &ended},
	} {
		if err := f.db.UpdateDelegationNode(ctx, f.owner, interrupted.ID, u); err != nil {
			t.Fatal(err)
		}
	}
	// A finished delegation of the same turn and a running one of another
	// turn are left alone.
	finished, err := f.db.CreateDelegation(ctx, f.owner, newDelegation(f.conversation, crashed))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.db.FinishDelegation(ctx, f.owner, finished.ID, "completed", nil); err != nil {
		t.Fatal(err)
	}
	other := insertTurn(t, f.db, f.conversation)
	running, err := f.db.CreateDelegation(ctx, f.owner, newDelegation(f.conversation, other))
	if err != nil {
		t.Fatal(err)
	}

	n, err := f.db.InterruptDelegations(ctx, []string{crashed})
	if err != nil || n != 1 {
		t.Fatalf("InterruptDelegations = %d, %v; want 1", n, err)
	}
	got, err := f.db.Delegation(ctx, f.owner, interrupted.ID)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, nd := range got.Nodes {
		statuses = append(statuses, nd.NodeID+":"+string(nd.Status))
		if nd.EndedAt == nil {
			t.Errorf("%s has no end time", nd.NodeID)
		}
	}
	if got.Status != "interrupted" || got.EndedAt == nil {
		t.Errorf("interrupted delegation = %s, ended %v", got.Status, got.EndedAt)
	}
	if diff := cmp.Diff([]string{"n1:done", "n2:cancelled", "n3:cancelled"}, statuses); diff != "" {
		t.Errorf("node statuses mismatch (-want +got):\n%s", diff)
	}
	for id, want := range map[string]store.DelegationStatus{finished.ID: store.DelegationCompleted, running.ID: store.DelegationRunning} {
		d, err := f.db.Delegation(ctx, f.owner, id)
		if err != nil || d.Status != want {
			t.Errorf("delegation %s = %s, %v; want %s", id, d.Status, err, want)
		}
	}
	if n, err := f.db.InterruptDelegations(ctx, nil); n != 0 || err != nil {
		t.Errorf("InterruptDelegations(nil) = %d, %v", n, err)
	}
}

func TestUpdateDelegationNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	d, err := f.db.CreateDelegation(ctx, f.owner, newDelegation(f.conversation, ""))
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now().UTC().Truncate(time.Millisecond)
	both := []store.DelegationNodeUpdate{
		{NodeID: "n1", Status: "running", Attempt: 1, StartedAt: &started},
		{NodeID: "n2", Status: "running", Attempt: 1, StartedAt: &started},
	}
	if err := f.db.UpdateDelegationNodes(ctx, f.owner, d.ID, both); err != nil {
		t.Fatalf("UpdateDelegationNodes: %v", err)
	}
	// One unknown node refuses the whole batch.
	bad := []store.DelegationNodeUpdate{{NodeID: "n1", Status: "done", Attempt: 1}, {NodeID: "n9", Status: "done"}}
	if err := f.db.UpdateDelegationNodes(ctx, f.owner, d.ID, bad); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateDelegationNodes with an unknown node = %v, want ErrNotFound", err)
	}
	if err := f.db.UpdateDelegationNodes(ctx, f.other, d.ID, both); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateDelegationNodes as another user = %v, want ErrNotFound", err)
	}
	got, err := f.db.Delegation(ctx, f.owner, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, n := range got.Nodes {
		statuses = append(statuses, n.NodeID+":"+string(n.Status))
	}
	if diff := cmp.Diff([]string{"n1:running", "n2:running", "n3:queued"}, statuses); diff != "" {
		t.Errorf("statuses mismatch (-want +got):\n%s", diff)
	}
}
