package subagent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/llm"
	"strategist/internal/pgtest"
	"strategist/internal/plan"
	"strategist/internal/store"
)

// TestRunKeepsRowsCurrent runs a delegation against the real store: after
// it, a reload (LatestDelegation) shows every node as it ended, with its
// attempts, root step and usage.
func TestRunKeepsRowsCurrent(t *testing.T) {
	t.Parallel()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	userID, conversationID := newConversation(t, db)
	c := makespanCases()[1] // a chain of transforms beside two parallel tasks
	h := newHarness(t, makespanScript(t, c, 0), Config{})
	h.sched.cfg.Store = db
	d := h.delegation(t, c.plan)
	d.UserID, d.ConversationID, d.TurnID = userID, conversationID, ""
	res, err := h.sched.Run(t.Context(), d)
	if err != nil || res.Status != DelegationCompleted {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	got, err := db.LatestDelegation(context.Background(), userID, conversationID)
	if err != nil {
		t.Fatalf("LatestDelegation: %v", err)
	}
	if got.ID != res.DelegationID || got.Status != DelegationCompleted || got.Goal != "Test goal" || got.EndedAt == nil {
		t.Errorf("delegation row = %+v", got)
	}
	var rows, want []string
	for i, n := range got.Nodes {
		rows = append(rows, n.NodeID+" "+n.Kind+" "+string(n.Status)+" "+n.RootStepID)
		r := res.Nodes[i]
		want = append(want, r.ID+" "+r.Kind.String()+" "+string(r.Status)+" "+string(r.RootStepID))
		if n.StartedAt == nil || n.EndedAt == nil || n.Attempt != r.Attempts {
			t.Errorf("node %s: attempt %d (want %d), times %v %v", n.NodeID, n.Attempt, r.Attempts, n.StartedAt, n.EndedAt)
		}
		var u llm.Usage
		if err := json.Unmarshal(n.Usage, &u); err != nil || u != r.Usage {
			t.Errorf("node %s usage %s, want %+v", n.NodeID, n.Usage, r.Usage)
		}
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows mismatch (-want +got):\n%s", diff)
	}
	var total llm.Usage
	if err := json.Unmarshal(got.Usage, &total); err != nil || total != res.Usage || total.TotalTokens == 0 {
		t.Errorf("delegation usage %s, want %+v", got.Usage, res.Usage)
	}
	var stored plan.Plan
	if err := json.Unmarshal(got.Plan, &stored); err != nil || len(stored.Nodes) != len(res.Nodes) {
		t.Errorf("stored plan %s: %v", got.Plan, err)
	}
}
