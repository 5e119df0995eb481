package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"strategist/internal/pgtest"
	"strategist/internal/store"
	"strategist/migrations"
)

func TestMigrateFreshTwiceAndConcurrently(t *testing.T) {
	ctx := context.Background()
	url := pgtest.EmptyURL(t)
	open := func() *pgxpool.Pool {
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		return pool
	}

	// Several servers starting at once against one fresh database all come
	// up: tern's advisory lock makes the others wait.
	const migrators = 4
	var wg sync.WaitGroup
	errs := make([]error, migrators)
	for i := range migrators {
		pool := open()
		wg.Go(func() { errs[i] = store.Migrate(ctx, pool, migrations.FS) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("migrator %d: %v", i, err)
		}
	}

	pool := open()
	applied, known, err := store.MigrationStatus(ctx, pool, migrations.FS)
	if err != nil || applied != known || known == 0 {
		t.Fatalf("MigrationStatus = %d of %d, %v", applied, known, err)
	}
	var tables int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}

	// Applying again is a no-op.
	if err := store.Migrate(ctx, pool, migrations.FS); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	var again int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&again); err != nil {
		t.Fatal(err)
	}
	if again != tables {
		t.Errorf("tables after second migrate = %d, want %d", again, tables)
	}
	for _, table := range []string{"users", "api_tokens", "web_sessions", "conversations", "messages", "turns",
		"events", "artifacts", "handoffs", "strategies", "strategy_versions", "delegations", "delegation_nodes"} {
		var ok bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass('public.' || $1) IS NOT NULL`, table).Scan(&ok); err != nil || !ok {
			t.Errorf("table %s missing after migration (%v)", table, err)
		}
	}
}

func TestSchemaConstraints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var userID, convID, delegationID string
	if err := pool.QueryRow(ctx, `INSERT INTO users (email, password_hash) VALUES ('x@example.org', 'h') RETURNING id`).Scan(&userID); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `INSERT INTO conversations (user_id, site_id) VALUES ($1, 'plasmodb') RETURNING id`, userID).Scan(&convID); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `INSERT INTO delegations (conversation_id, goal, plan) VALUES ($1, 'g', '{}') RETURNING id`, convID).Scan(&delegationID); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name, sql string
		args      []any
	}{
		{"upper-case email", `INSERT INTO users (email, password_hash) VALUES ('X@Example.org', 'h')`, nil},
		{"unknown mode", `UPDATE conversations SET mode = 'chat' WHERE id = $1`, []any{convID}},
		{"long title", `UPDATE conversations SET title = repeat('x', 201) WHERE id = $1`, []any{convID}},
		{"unknown turn status", `INSERT INTO turns (conversation_id, mode, status) VALUES ($1, 'plan', 'paused')`, []any{convID}},
		{"two running turns", `INSERT INTO turns (conversation_id, mode) VALUES ($1, 'plan'), ($1, 'plan')`, []any{convID}},
		{"unknown artifact kind", `INSERT INTO artifacts (conversation_id, kind, title, body) VALUES ($1, 'memo', 't', '{}')`, []any{convID}},
		{"unknown node status", `INSERT INTO delegation_nodes (delegation_id, node_id, position, kind, label, status)
			VALUES ($1, 'n1', 0, 'task', 'x', 'waiting')`, []any{delegationID}},
		{"unknown node kind", `INSERT INTO delegation_nodes (delegation_id, node_id, position, kind, label)
			VALUES ($1, 'n1', 0, 'subtask', 'x')`, []any{delegationID}},
		{"message role", `INSERT INTO messages (conversation_id, role) VALUES ($1, 'system')`, []any{convID}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pool.Exec(ctx, tt.sql, tt.args...)
			if err == nil {
				t.Errorf("%s was accepted", tt.name)
			}
		})
	}
	// A reused step is a node of its own kind (0002).
	if _, err := pool.Exec(ctx, `INSERT INTO delegation_nodes (delegation_id, node_id, position, kind, label)
		VALUES ($1, 'n1', 0, 'step', 'step s3')`, delegationID); err != nil {
		t.Errorf("a step node was refused: %v", err)
	}
	// Deleting the user removes everything they own.
	if _, err := pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, userID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM conversations`).Scan(&n); err != nil || n != 0 {
		t.Errorf("conversations after deleting their owner = %d, %v", n, err)
	}
}
