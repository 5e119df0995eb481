package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// waitLocked waits until n sessions of the test database wait on a lock.
func waitLocked(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting int
		if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions wait on a lock after 10 s, want %d", waiting, n)
		}
	}
}

// TestEndTurnBesideAnAccept: the plan turn's end and an accept of its
// handoff at the same moment (the researcher's click, or a client that
// builds as soon as it reads turn_end, beside the server's auto-approval)
// do not deadlock. The accept locks the conversation and then meets the
// plan turn's row in the running-turn index; the end must not hold that
// row while it waits for the conversation. Here the accept is held between
// the two by a lock on its handoff, and the end arrives in that moment.
func TestEndTurnBesideAnAccept(t *testing.T) {
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
	planTurn := uuid.NewString()
	if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: conv.ID, TurnID: planTurn, Mode: "plan",
		Model: "offline", Origin: "test", Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "kinases"}}); err != nil {
		t.Fatal(err)
	}
	draft, err := db.SaveArtifact(ctx, store.SaveArtifact{UserID: ada.ID, ConversationID: conv.ID, Kind: "delegation_draft", Title: "plan", Body: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := db.CreateHandoff(ctx, ada.ID, conv.ID, draft.ID, planTurn, "kinases", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}

	hold, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx) //nolint:errcheck // released below
	if _, err := hold.Exec(ctx, `SELECT 1 FROM handoffs WHERE id = $1 FOR UPDATE`, h.ID); err != nil {
		t.Fatal(err)
	}
	accepted := make(chan error, 1)
	go func() {
		build := uuid.NewString()
		_, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: conv.ID, TurnID: build, Mode: "execute",
			Model: "offline", Origin: "test", AcceptHandoff: h.ID, MaxRunning: 5,
			Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "build it"},
			Events:  []store.NewEvent{{ConversationID: conv.ID, TurnID: build, Type: "turn_start", Payload: []byte(`{}`)}}})
		accepted <- err
	}()
	waitLocked(t, pool, 1)
	ended := make(chan error, 1)
	go func() {
		_, err := db.EndTurnTx(ctx, store.EndTurn{TurnID: planTurn, Status: "completed", Usage: []byte(`{}`), Origin: "test",
			Events: []store.NewEvent{{ConversationID: conv.ID, TurnID: planTurn, Type: "turn_end", Payload: []byte(`{"status":"completed"}`)}}})
		ended <- err
	}()
	waitLocked(t, pool, 2)
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	if err := <-ended; err != nil {
		t.Errorf("EndTurnTx beside an accept = %v, want nil", err)
	}
	// The accept came while the plan turn ran: it is refused as any start
	// beside a running turn is, and the researcher may accept again.
	if err := <-accepted; err != nil && !errors.Is(err, store.ErrConflict) {
		t.Errorf("StartTurnTx accepting the handoff beside the end = %v, want nil or ErrConflict", err)
	}
	if tr, err := db.Turn(ctx, ada.ID, conv.ID, planTurn); err != nil || tr.Status != "completed" {
		t.Errorf("plan turn = %+v, %v; want completed", tr, err)
	}
}
