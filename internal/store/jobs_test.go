package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"sync"
	"testing"

	"github.com/google/uuid"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// TestTurnJobsAndClaims: a turn's start commits its job with it (and a
// refused start leaves none); one process at a time holds a running turn:
// a live holder makes others ErrBusy, a dead one or a hand-back lets the
// next claim it (and says the turn resumes); a cancel while nobody holds it
// is read by the next claim; an ended turn is ErrNotFound.
func TestTurnJobsAndClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	db, err := store.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	ada := mustUser(t, db, "ada@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	start := func() (string, error) {
		id := uuid.NewString()
		_, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: conv.ID, TurnID: id, Mode: "plan", Model: "offline",
			Origin: "test", Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "kinases"}})
		return id, err
	}
	jobs := func(turnID string) int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'turn' AND args->>'turnId' = $1`, turnID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	turnID, err := start()
	if err != nil {
		t.Fatal(err)
	}
	if n := jobs(turnID); n != 1 {
		t.Fatalf("jobs of a started turn = %d, want 1", n)
	}
	refused, err := start()
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second start = %v, want ErrConflict", err)
	}
	if n := jobs(refused); n != 0 {
		t.Errorf("a refused start left %d jobs", n)
	}

	// A live process: its owner session.
	sessCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	owners := make(chan string, 1)
	wg.Go(func() {
		if err := db.HoldOwnerSession(sessCtx, store.OwnerSession{Held: func(o string) { offer(owners, o) }}); err != nil {
			t.Errorf("owner session: %v", err)
		}
	})
	defer wg.Wait()
	defer stop()
	live := <-owners

	c, err := db.ClaimTurn(ctx, turnID, live)
	if err != nil || c.Resumed() || c.ConversationID != conv.ID || c.UserID != ada.ID || c.Mode != "plan" {
		t.Fatalf("first claim = %+v, %v", c, err)
	}
	if _, err := db.ClaimTurn(ctx, turnID, "2@2"); !errors.Is(err, store.ErrBusy) {
		t.Errorf("claim while a live process holds the turn = %v, want ErrBusy", err)
	}
	// The researcher cancels while it runs: the holder is told, the owner
	// stays.
	if err := db.RequestCancel(ctx, "strategist_cancel", turnID); err != nil {
		t.Fatal(err)
	}
	if tr, _ := db.Turn(ctx, ada.ID, conv.ID, turnID); tr.Owner != live {
		t.Errorf("owner after a cancel of a held turn = %q, want %q", tr.Owner, live)
	}
	if err := db.ReleaseTurn(ctx, turnID, live); err != nil {
		t.Fatal(err)
	}
	c, err = db.ClaimTurn(ctx, turnID, live)
	if err != nil || !c.Resumed() || c.PreviousOwner != store.OwnerReleased || c.CancelRequested() {
		t.Fatalf("claim after a hand-back = %+v, %v", c, err)
	}
	if err := db.ReleaseTurn(ctx, turnID, live); err != nil {
		t.Fatal(err)
	}
	// "3@3" is a process whose session ended a moment ago: it claims
	// nothing, and its lease keeps others off what it ran.
	if _, err := db.ClaimTurn(ctx, turnID, "3@3"); !errors.Is(err, store.ErrOwnerLost) {
		t.Errorf("claim by a process without its session = %v, want ErrOwnerLost", err)
	}
	if _, err := pool.Exec(ctx, `UPDATE turns SET owner = '3@3' WHERE id = $1`, turnID); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO owner_leases (owner, expires_at) VALUES ('3@3', now() + interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ClaimTurn(ctx, turnID, live); !errors.Is(err, store.ErrBusy) {
		t.Errorf("claim of a turn whose owner's lease holds = %v, want ErrBusy", err)
	}
	// Its lease expires: its process is dead, and the next claims it.
	if _, err := pool.Exec(ctx, `UPDATE owner_leases SET expires_at = now() - interval '1 second' WHERE owner = '3@3'`); err != nil {
		t.Fatal(err)
	}
	c, err = db.ClaimTurn(ctx, turnID, live)
	if err != nil || c.PreviousOwner != "3@3" {
		t.Fatalf("claim of a dead process's turn = %+v, %v", c, err)
	}
	if err := db.ReleaseTurn(ctx, turnID, live); err != nil {
		t.Fatal(err)
	}
	if err := db.RequestCancel(ctx, "strategist_cancel", turnID); err != nil {
		t.Fatal(err)
	}
	if c, err = db.ClaimTurn(ctx, turnID, live); err != nil || !c.CancelRequested() {
		t.Fatalf("claim after a cancel while nobody held the turn = %+v, %v", c, err)
	}
	if _, err := db.EndTurnTx(ctx, store.EndTurn{TurnID: turnID, Status: "cancelled", Usage: []byte(`{}`), Origin: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ClaimTurn(ctx, turnID, live); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("claim of an ended turn = %v, want ErrNotFound", err)
	}
}

// TestRescueTurns: a turn job running under a process whose session is gone
// becomes available again; one under a live process stays running.
func TestRescueTurns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	db, err := store.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	ada := mustUser(t, db, "ada@example.org")
	sessCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	owners := make(chan string, 1)
	wg.Go(func() {
		if err := db.HoldOwnerSession(sessCtx, store.OwnerSession{Held: func(o string) { offer(owners, o) }}); err != nil {
			t.Errorf("owner session: %v", err)
		}
	})
	defer wg.Wait()
	defer stop()
	live := <-owners

	running := map[string]string{} // turn -> the process its job runs under
	for _, by := range []string{live, "1@1"} {
		conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "", "offline")
		if err != nil {
			t.Fatal(err)
		}
		id := uuid.NewString()
		if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: conv.ID, TurnID: id, Mode: "plan", Model: "offline",
			Origin: "test", Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "kinases"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(), attempted_by = ARRAY[$2]
			WHERE args->>'turnId' = $1`, id, by); err != nil {
			t.Fatal(err)
		}
		running[id] = by
	}
	n, err := db.RescueTurns(ctx)
	if err != nil || n != 1 {
		t.Fatalf("RescueTurns = %d, %v; want 1", n, err)
	}
	for id, by := range running {
		var state string
		if err := pool.QueryRow(ctx, `SELECT state FROM river_job WHERE args->>'turnId' = $1`, id).Scan(&state); err != nil {
			t.Fatal(err)
		}
		want := "running"
		if by != live {
			want = "available"
		}
		if state != want {
			t.Errorf("job run by %s is %s, want %s", by, state, want)
		}
	}
}

// TestPreviousNodes: a turn's latest unfinished delegation of a plan gives
// its nodes as they stood; another plan, another user or a running
// delegation gives none.
func TestPreviousNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	bob := mustUser(t, db, "bob@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "", "offline")
	if err != nil {
		t.Fatal(err)
	}
	turnID := uuid.NewString()
	if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: conv.ID, TurnID: turnID, Mode: "execute", Model: "offline",
		Origin: "test", Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "build"}}); err != nil {
		t.Fatal(err)
	}
	plan := []byte(`{"nodes":["n1","n2"]}`)
	d, err := db.CreateDelegation(ctx, ada.ID, store.NewDelegation{ConversationID: conv.ID, TurnID: turnID, Goal: "g", Plan: plan,
		Nodes: []store.NewDelegationNode{{NodeID: "n1", Kind: "task", Label: "a"}, {NodeID: "n2", Kind: "task", Label: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateDelegationNodes(ctx, ada.ID, d.ID, []store.DelegationNodeUpdate{
		{NodeID: "n1", Status: "done", Attempt: 1, RootStepID: "s1"}, {NodeID: "n2", Status: "running", Attempt: 1}}); err != nil {
		t.Fatal(err)
	}
	if got, err := db.PreviousNodes(ctx, ada.ID, turnID, plan); err != nil || len(got) != 0 {
		t.Errorf("DoneNodes of a running delegation = %v, %v; want none", got, err)
	}
	if _, err := db.InterruptDelegations(ctx, []string{turnID}); err != nil {
		t.Fatal(err)
	}
	want := map[string]store.PreviousNode{"n1": {Status: "done", Attempt: 1, RootStepID: "s1"}, "n2": {Status: "cancelled", Attempt: 1}}
	if got, err := db.PreviousNodes(ctx, ada.ID, turnID, plan); err != nil || !maps.Equal(got, want) {
		t.Errorf("PreviousNodes = %v, %v; want %v", got, err, want)
	}
	if got, _ := db.PreviousNodes(ctx, ada.ID, turnID, []byte(`{"nodes":["n1"]}`)); len(got) != 0 {
		t.Errorf("PreviousNodes of another plan = %v", got)
	}
	if got, _ := db.PreviousNodes(ctx, bob.ID, turnID, plan); len(got) != 0 {
		t.Errorf("PreviousNodes as another user = %v", got)
	}

	// The rows lag behind the log: the process died after appending n2's
	// end and n3's start, before writing their rows. The log wins.
	d2, err := db.CreateDelegation(ctx, ada.ID, store.NewDelegation{ConversationID: conv.ID, TurnID: turnID, Goal: "g", Plan: plan,
		Nodes: []store.NewDelegationNode{{NodeID: "n1", Kind: "task", Label: "a"}, {NodeID: "n2", Kind: "task", Label: "b"}, {NodeID: "n3", Kind: "task", Label: "c"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateDelegationNodes(ctx, ada.ID, d2.ID, []store.DelegationNodeUpdate{
		{NodeID: "n1", Status: "done", Attempt: 1, RootStepID: "s1"}, {NodeID: "n2", Status: "running", Attempt: 2}}); err != nil {
		t.Fatal(err)
	}
	ev := func(typ, body string) store.NewEvent {
		return store.NewEvent{ConversationID: conv.ID, TurnID: turnID, Type: typ,
			Payload: json.RawMessage(`{"turnId":"` + turnID + `","delegationId":"` + d2.ID + `",` + body + `}`)}
	}
	if _, err := db.AppendEvents(ctx, "test", []store.NewEvent{
		ev("subagent_task_end", `"nodeId":"n2","status":"failed","attempt":1`),
		ev("subagent_task_end", `"nodeId":"n2","status":"done","attempt":2,"rootStepId":"s4"`),
		ev("subagent_task_start", `"nodeId":"n3","attempt":1`),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.InterruptDelegations(ctx, []string{turnID}); err != nil {
		t.Fatal(err)
	}
	want = map[string]store.PreviousNode{"n1": {Status: "done", Attempt: 1, RootStepID: "s1"},
		"n2": {Status: "done", Attempt: 2, RootStepID: "s4"}, "n3": {Status: "cancelled", Attempt: 1}}
	if got, err := db.PreviousNodes(ctx, ada.ID, turnID, plan); err != nil || !maps.Equal(got, want) {
		t.Errorf("PreviousNodes behind the log = %v, %v; want %v", got, err, want)
	}

	// The run completed the delegation and stopped before the executor's
	// last round was stored: the resumed run carries all of it.
	d3, err := db.CreateDelegation(ctx, ada.ID, store.NewDelegation{ConversationID: conv.ID, TurnID: turnID, Goal: "g", Plan: plan,
		Nodes: []store.NewDelegationNode{{NodeID: "n1", Kind: "task", Label: "a"}, {NodeID: "n2", Kind: "task", Label: "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateDelegationNodes(ctx, ada.ID, d3.ID, []store.DelegationNodeUpdate{
		{NodeID: "n1", Status: "done", Attempt: 1, RootStepID: "s7"}, {NodeID: "n2", Status: "done", Attempt: 1, RootStepID: "s8"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishDelegation(ctx, ada.ID, d3.ID, "completed", nil); err != nil {
		t.Fatal(err)
	}
	want = map[string]store.PreviousNode{"n1": {Status: "done", Attempt: 1, RootStepID: "s7"}, "n2": {Status: "done", Attempt: 1, RootStepID: "s8"}}
	if got, err := db.PreviousNodes(ctx, ada.ID, turnID, plan); err != nil || !maps.Equal(got, want) {
		t.Errorf("PreviousNodes of a completed delegation = %v, %v; want %v", got, err, want)
	}
}
