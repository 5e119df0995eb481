package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// TestEndTurnIsTheOwners: a process ends a turn only while it owns it. One
// that lost the turn to another (its session was taken for dead, and the
// turn resumed elsewhere) and ends it late writes nothing: the turn runs on
// in its new owner, who ends it. Recovery, which names no owner, ends a
// turn whoever had it.
func TestEndTurnIsTheOwners(t *testing.T) {
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
	start := func(owner string) string {
		t.Helper()
		id := uuid.NewString()
		if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: conv.ID, TurnID: id, Mode: "plan",
			Model: "offline", Origin: "test", Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "kinases"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE turns SET owner = $2 WHERE id = $1`, id, owner); err != nil {
			t.Fatal(err)
		}
		return id
	}
	end := func(turnID, owner string) error {
		_, err := db.EndTurnTx(ctx, store.EndTurn{TurnID: turnID, Owner: owner, Status: "completed", Usage: []byte(`{}`), Origin: "test",
			Events: []store.NewEvent{{ConversationID: conv.ID, TurnID: turnID, Type: "turn_end", Payload: []byte(`{"status":"completed"}`)}}})
		return err
	}
	events := func() int {
		es, err := db.EventsAfter(ctx, ada.ID, conv.ID, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}

	taken := start("2@2") // taken from 1@1, which still thinks it runs it
	if err := end(taken, "1@1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the former owner's end = %v, want ErrNotFound", err)
	}
	if tr, err := db.Turn(ctx, ada.ID, conv.ID, taken); err != nil || tr.Status != "running" || events() != 0 {
		t.Errorf("after the former owner's end: turn %+v, %v, %d events; want running, none", tr, err, events())
	}
	if err := end(taken, "2@2"); err != nil {
		t.Errorf("the owner's end = %v", err)
	}
	orphan := start("3@3")
	if err := end(orphan, ""); err != nil {
		t.Errorf("recovery's end = %v", err)
	}
}

// TestEndTurnStartsItsBuild: a plan turn's end can start, in the same
// transaction, the build of the plan it asked for (the server's own
// acceptance): the plan ends, the handoff is accepted and the build turn
// runs, its first events after the plan's turn_end, or, when the handoff
// is no longer pending, nothing is written and the end alone can be.
func TestEndTurnStartsItsBuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	db, err := store.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	ada := mustUser(t, db, "ada@example.org")
	draft := func(conv string) string {
		a, err := db.SaveArtifact(ctx, store.SaveArtifact{UserID: ada.ID, ConversationID: conv, Kind: "delegation_draft", Title: "plan", Body: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	plan := func() (conv, turn, handoff string) {
		t.Helper()
		c, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Kinases", "offline")
		if err != nil {
			t.Fatal(err)
		}
		turn = uuid.NewString()
		if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: c.ID, TurnID: turn, Mode: "plan",
			Model: "offline", Origin: "test", Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "kinases"}}); err != nil {
			t.Fatal(err)
		}
		h, err := db.CreateHandoff(ctx, ada.ID, c.ID, draft(c.ID), turn, "kinases", []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		return c.ID, turn, h.ID
	}
	end := func(conv, turn, handoff string) (string, []store.EventRow, error) {
		build := uuid.NewString()
		rows, err := db.EndTurnTx(ctx, store.EndTurn{TurnID: turn, Status: "completed", Usage: []byte(`{}`), Origin: "test",
			Events: []store.NewEvent{{ConversationID: conv, TurnID: turn, Type: "turn_end", Payload: []byte(`{"status":"completed"}`)}},
			Then: &store.StartTurn{UserID: ada.ID, ConversationID: conv, TurnID: build, Mode: "execute", Model: "offline", Origin: "test",
				AcceptHandoff: handoff, Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "build it"},
				Events: []store.NewEvent{{ConversationID: conv, TurnID: build, Type: "turn_start", Payload: []byte(`{}`)},
					{ConversationID: conv, TurnID: build, Type: "handoff_accepted", Payload: []byte(`{}`)}}}})
		return build, rows, err
	}

	conv, turn, handoff := plan()
	build, rows, err := end(conv, turn, handoff)
	if err != nil {
		t.Fatalf("EndTurnTx with its build: %v", err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%d %s", r.Seq, r.Type))
	}
	if want := []string{"1 turn_end", "2 turn_start", "3 handoff_accepted"}; !slices.Equal(got, want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
	if h, err := db.Handoff(ctx, ada.ID, conv, handoff); err != nil || h.Status != "accepted" || h.ExecuteTurnID == nil || *h.ExecuteTurnID != build {
		t.Errorf("handoff = %+v, %v; want accepted by the build", h, err)
	}
	if tr, err := db.Turn(ctx, ada.ID, conv, build); err != nil || tr.Status != "running" {
		t.Errorf("build turn = %+v, %v; want running", tr, err)
	}
	var jobs int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE args->>'turnId' = $1`, build).Scan(&jobs); err != nil || jobs != 1 {
		t.Errorf("build jobs = %d, %v; want 1", jobs, err)
	}

	conv, turn, handoff = plan()
	if _, err := db.CreateHandoff(ctx, ada.ID, conv, draft(conv), turn, "kinases again", []byte(`{}`)); err != nil { // supersedes it
		t.Fatal(err)
	}
	if _, _, err := end(conv, turn, handoff); !errors.Is(err, store.ErrStartRefused) || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("EndTurnTx starting a build of a superseded plan = %v, want ErrStartRefused only", err)
	}
	if tr, err := db.Turn(ctx, ada.ID, conv, turn); err != nil || tr.Status != "running" {
		t.Errorf("plan turn after the refused end = %+v, %v; want still running", tr, err)
	}
	if _, err := db.EndTurnTx(ctx, store.EndTurn{TurnID: turn, Status: "completed", Usage: []byte(`{}`)}); err != nil {
		t.Errorf("the end alone after = %v", err)
	}
}
