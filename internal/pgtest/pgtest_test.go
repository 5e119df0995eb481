package pgtest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMain checks, after the tests ran, that Main dropped the shared
// database.
func TestMain(m *testing.M) {
	code := Main(m).Run()
	if code == 0 && shared.name != "" {
		if err := checkDropped(shared.name); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

func checkDropped(name string) error {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, server.adminURL)
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	var left bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&left); err != nil {
		return err
	}
	if left {
		return fmt.Errorf("pgtest: the shared database %s is still there after Main", name)
	}
	return nil
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
