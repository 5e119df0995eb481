package pgtest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMain checks, after the tests ran, that Main dropped every database
// this process made: the tests', those made ahead for tests that never
// came, and the shared one.
func TestMain(m *testing.M) {
	code := Main(m).Run()
	if code == 0 && server.err == nil {
		if err := checkDropped(fmt.Sprintf("strategist_test_%d_%%", os.Getpid())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

func checkDropped(pattern string) error {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, server.adminURL)
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	var left []string
	if err := admin.QueryRow(ctx, "SELECT coalesce(array_agg(datname), '{}') FROM pg_database WHERE datname LIKE $1", pattern).Scan(&left); err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("pgtest: databases still there after Main: %v", left)
	}
	return nil
}

// TestNewURLFresh: every test's database is a clone nobody else has
// touched, whether it was made ahead (from the second on) or when asked.
func TestNewURLFresh(t *testing.T) {
	seen := map[string]bool{}
	for i := range 4 {
		pool := Connect(t, NewURL(t))
		var name string
		var users int
		if err := pool.QueryRow(t.Context(), "SELECT current_database(), (SELECT count(*) FROM users)").Scan(&name, &users); err != nil {
			t.Fatal(err)
		}
		if seen[name] || users != 0 {
			t.Fatalf("database %d: %s (seen before: %v) has %d users, want a fresh one", i, name, seen[name], users)
		}
		seen[name] = true
		if _, err := pool.Exec(t.Context(), "INSERT INTO users (email, password_hash) VALUES ($1, '')", fmt.Sprintf("u%d@example.org", i)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestShared: every test of the binary gets the same pool, on a migrated
// database other than a fresh one's.
func TestShared(t *testing.T) {
	a, b := Shared(t), Shared(t)
	if a != b {
		t.Fatal("Shared returned two pools")
	}
	var tables int
	if err := a.QueryRow(t.Context(), "SELECT count(*) FROM information_schema.tables WHERE table_name IN ('users', 'conversations', 'river_job')").Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 3 {
		t.Errorf("shared database has %d of the tables users, conversations and river_job, want 3 (migrated)", tables)
	}
	var sharedDB, freshDB string
	if err := a.QueryRow(t.Context(), "SELECT current_database()").Scan(&sharedDB); err != nil {
		t.Fatal(err)
	}
	if err := New(t).QueryRow(t.Context(), "SELECT current_database()").Scan(&freshDB); err != nil {
		t.Fatal(err)
	}
	if sharedDB == freshDB {
		t.Errorf("New gave the shared database %s", sharedDB)
	}
}
