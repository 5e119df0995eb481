package store_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// offer sends v unless the channel is full: Held is called again on every
// new session, and a test reads only what it waits for.
func offer[T any](ch chan T, v T) {
	select {
	case ch <- v:
	default:
	}
}

// runningJob starts a turn whose job runs under owner, as River marks the
// job it gave a worker, and returns the turn's id.
func runningJob(t *testing.T, db *store.DB, pool *pgxpool.Pool, userID, owner string) string {
	t.Helper()
	ctx := t.Context()
	conv, err := db.CreateConversation(ctx, userID, "plasmodb", "", "offline")
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: userID, ConversationID: conv.ID, TurnID: id, Mode: "plan", Model: "offline",
		Origin: "test", Message: store.NewMessage{ID: uuid.NewString(), Role: "user", Content: "kinases"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(), attempted_by = ARRAY[$2]
		WHERE args->>'turnId' = $1`, id, owner); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ClaimTurn(ctx, id, owner); err != nil {
		t.Fatal(err)
	}
	return id
}

// terminateOwner ends the owner session of owner from outside, as a
// PostgreSQL restart, an idle-session timeout or an operator would.
func terminateOwner(t *testing.T, pool *pgxpool.Pool, owner string) {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 OR right(application_name, length($1) + 1) = ' ' || $1 OR $1 = pid::text || '@' || (extract(epoch FROM backend_start) * 1000000)::bigint::text`, owner).Scan(&n); err != nil || n != 1 {
		t.Fatalf("terminating the owner session of %s: %d sessions, %v", owner, n, err)
	}
}

// TestOwnerSurvivesItsSession: a live process whose owner session is
// terminated keeps its name and its turns. The rescue, right after the
// termination, leaves its running turn alone (the lease holds); the process
// opens another session under the same name, which claims and holds its
// turns as before.
func TestOwnerSurvivesItsSession(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	db, err := store.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	ada := mustUser(t, db, "ada@example.org")
	held := make(chan string, 1)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := db.HoldOwnerSession(ctx, store.OwnerSession{Watch: 300 * time.Millisecond,
			Held: func(o string) { offer(held, o) }, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}); err != nil {
			t.Errorf("owner session: %v", err)
		}
	})
	defer wg.Wait()
	defer stop()
	owner := <-held
	turn := runningJob(t, db, pool, ada.ID, owner)

	terminateOwner(t, pool, owner)
	if n, err := db.RescueTurns(t.Context()); err != nil || n != 0 {
		t.Fatalf("RescueTurns after the session ended = %d, %v; want 0: the process is alive", n, err)
	}
	select {
	case again := <-held:
		if again != owner {
			t.Fatalf("the new session holds %q, want the process's name %q", again, owner)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no new owner session")
	}
	// Past the first session's lease: the new session alone keeps the
	// process alive.
	if _, err := pool.Exec(t.Context(), `UPDATE owner_leases SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if n, err := db.RescueTurns(t.Context()); err != nil || n != 0 {
		t.Fatalf("RescueTurns with the new session = %d, %v; want 0", n, err)
	}
	if _, err := db.ClaimTurn(t.Context(), turn, "2@2"); !errors.Is(err, store.ErrBusy) {
		t.Errorf("another process's claim = %v, want ErrBusy", err)
	}
	if _, err := db.ClaimTurn(t.Context(), turn, owner); err != nil {
		t.Errorf("the owner's own claim = %v", err)
	}
}

// TestOwnerLost: a process that cannot open its owner session again is told
// (Lost) before its lease expires, claims nothing meanwhile, and its turns
// are rescued only once the lease has expired; when the database lets it
// in again it holds its name again.
func TestOwnerLost(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	db, err := store.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	ada := mustUser(t, db, "ada@example.org")
	held, lost := make(chan string, 1), make(chan time.Time, 1)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	const watch = 300 * time.Millisecond
	wg.Go(func() {
		if err := db.HoldOwnerSession(ctx, store.OwnerSession{Watch: watch,
			Held: func(o string) { offer(held, o) }, Lost: func(error) { offer(lost, time.Now()) },
			Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}); err != nil {
			t.Errorf("owner session: %v", err)
		}
	})
	defer wg.Wait()
	defer stop()
	owner := <-held
	turn := runningJob(t, db, pool, ada.ID, owner)
	other := runningJob(t, db, pool, ada.ID, owner)
	if _, err := pool.Exec(t.Context(), `UPDATE turns SET owner = 'released' WHERE id = $1`, other); err != nil {
		t.Fatal(err)
	}

	// The pool keeps the connections it has; no new one is let in. (A
	// database's connections are switched off from another database.)
	dbName := pool.Config().ConnConfig.Database
	admin := pool.Config().ConnConfig.Copy()
	admin.Database = "postgres"
	adminConn, err := pgx.ConnectConfig(t.Context(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer adminConn.Close(context.Background())
	if _, err := adminConn.Exec(t.Context(), `ALTER DATABASE "`+dbName+`" ALLOW_CONNECTIONS false`); err != nil {
		t.Fatal(err)
	}
	allow := sync.OnceFunc(func() {
		if _, err := adminConn.Exec(context.Background(), `ALTER DATABASE "`+dbName+`" ALLOW_CONNECTIONS true`); err != nil {
			t.Error(err)
		}
	})
	defer allow()
	terminateOwner(t, pool, owner)
	select {
	case <-lost:
	case <-time.After(20 * time.Second):
		t.Fatal("Lost was not called")
	}
	var live bool
	if err := pool.QueryRow(t.Context(), `SELECT expires_at > now() FROM owner_leases WHERE owner = $1`, owner).Scan(&live); err != nil || !live {
		t.Fatalf("the lease at Lost: live %v, %v; want still live", live, err)
	}
	if _, err := db.ClaimTurn(t.Context(), other, owner); !errors.Is(err, store.ErrOwnerLost) {
		t.Errorf("a claim without the owner session = %v, want ErrOwnerLost", err)
	}
	for live {
		time.Sleep(watch / 4)
		if err := pool.QueryRow(t.Context(), `SELECT expires_at > now() FROM owner_leases WHERE owner = $1`, owner).Scan(&live); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.RescueTurns(t.Context()); err != nil || n != 2 {
		t.Fatalf("RescueTurns after the lease expired = %d, %v; want 2", n, err)
	}
	allow()
	select {
	case again := <-held:
		if again != owner {
			t.Fatalf("the session that opened again holds %q, want %q", again, owner)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no owner session once the database let it in")
	}
	if _, err := db.ClaimTurn(t.Context(), turn, owner); err != nil {
		t.Errorf("the owner's claim once back = %v", err)
	}
}
