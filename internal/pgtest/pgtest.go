// Package pgtest gives Strategist's tests a real PostgreSQL: every test gets a
// fresh database cloned from a template that the migrations prepared once
// (New, NewURL), or, when its rows are its own, shares one with the other
// tests of its binary (Shared).
//
// The server is DATABASE_URL when set, else a Postgres on 127.0.0.1:5432,
// else a throwaway cluster started from the Postgres binaries on the machine
// (initdb/pg_ctl, as the postgres user when run as root). Packages that use
// pgtest wrap their TestMain with Main so that the shared database is
// dropped and a throwaway cluster stopped:
//
//	func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }
//
// Without a reachable server a test is skipped, except with CI=true where it
// fails: CI never passes by skipping the database.
//
// The package keeps one process-wide server handle: test binaries are one
// process and every test in it must share the same server and template.
package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"strategist/internal/store"
	"strategist/migrations"
)

// server is the process-wide database server shared by the tests of one
// test binary.
var server struct {
	once     sync.Once
	adminURL string // a URL to the server's maintenance database
	template string // migrated template database name
	cluster  *cluster
	err      error
}

var dbCounter atomic.Int64

// shared is the database the tests of one binary share (Shared), made on
// first use and dropped by Main's Run.
var shared struct {
	once sync.Once
	name string
	pool *pgxpool.Pool
	err  error
}

// TestingM is what goleak.VerifyTestMain and os.Exit-style TestMains run.
type TestingM interface{ Run() int }

type mainWrapper struct{ m *testing.M }

// Main wraps m so that, after the tests ran, the shared database (Shared)
// is dropped and a throwaway cluster started by this package is stopped.
func Main(m *testing.M) TestingM { return mainWrapper{m} }

func (w mainWrapper) Run() int {
	startSupply()
	code := w.m.Run()
	if err := stopSupply(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		code = max(code, 1)
	}
	if shared.pool != nil {
		shared.pool.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := dropDatabase(ctx, server.adminURL, shared.name); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		}
		cancel()
	}
	if server.cluster != nil {
		server.cluster.stop()
	}
	return code
}

// New returns a pool on a fresh, migrated database that is dropped when the
// test ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return Connect(t, NewURL(t))
}

// Connect returns a pool on the database at url (from NewURL), closed when
// the test ends, after the cleanups registered later (which stop what uses
// it). Tests that run several "processes" on one database open one pool
// each, without importing pgx themselves.
func Connect(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// AdminExec runs one statement on the test server's maintenance database,
// for tests that change the server itself: refusing connections to a
// database, ending other sessions.
func AdminExec(t testing.TB, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, AdminURL(t))
	if err != nil {
		t.Fatalf("pgtest: connect admin: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

// NewURL returns the connection URL of a fresh, migrated database, dropped
// once the test has ended (under Main, behind it: see supply). Use it when the code under
// test opens its own pool (a server started as in production).
func NewURL(t testing.TB) string {
	t.Helper()
	needServer(t)
	name, err := takeClone()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := release(name); err != nil {
			t.Error(err)
		}
	})
	return withDatabase(server.adminURL, name)
}

// Shared returns a pool on the one migrated database that every test of
// the binary shares, made when a test first asks and dropped by Main after
// the tests ran. It is for tests that write only rows of their own (their
// own user, their own conversation) and read back only those: they share
// the database as researchers share the server, and skip the cost of a
// fresh one (copying the template is half a second or more on a busy
// machine, more than many such tests take). A test that changes the schema
// or the server, counts rows across users, or needs empty tables takes
// New. The pool is Main's to close.
func Shared(t testing.TB) *pgxpool.Pool {
	t.Helper()
	needServer(t)
	shared.once.Do(func() {
		if shared.name, shared.err = cloneTemplate(); shared.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if shared.pool, shared.err = pgxpool.New(ctx, withDatabase(server.adminURL, shared.name)); shared.err != nil {
			shared.err = fmt.Errorf("pgtest: connect shared database: %w", shared.err)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.pool
}

// needServer sets the server up once and ends the test without one:
// skipped, or failed when CI=true.
func needServer(t testing.TB) {
	t.Helper()
	server.once.Do(setup)
	if server.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pgtest: no database (CI=true makes this a failure): %v", server.err)
		}
		t.Skipf("pgtest: no database: %v", server.err)
	}
}

// cloneTemplate creates a database from the migrated template and returns
// its name.
func cloneTemplate() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	name := fmt.Sprintf("strategist_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, dbCounter.Add(1))
	admin, err := pgx.Connect(ctx, server.adminURL)
	if err != nil {
		return "", fmt.Errorf("pgtest: connect admin: %w", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+server.template); err != nil {
		return "", fmt.Errorf("pgtest: create database: %w", err)
	}
	return name, nil
}

// dropDatabase drops the database name, ending its sessions.
func dropDatabase(ctx context.Context, adminURL, name string) error {
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("pgtest: drop: connect: %w", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("pgtest: drop %s: %w", name, err)
	}
	return nil
}

// AdminURL returns the URL of the test server's maintenance database, for
// tests that manage databases themselves (migration tests).
func AdminURL(t testing.TB) string {
	t.Helper()
	needServer(t)
	return server.adminURL
}

// EmptyURL creates a fresh database without migrations and returns its URL;
// it is dropped when the test ends.
func EmptyURL(t testing.TB) string {
	t.Helper()
	adminURL := AdminURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := fmt.Sprintf("strategist_empty_%d_%d", os.Getpid(), dbCounter.Add(1))
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatalf("pgtest: connect admin: %v", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if admin, err := pgx.Connect(ctx, adminURL); err == nil {
			defer admin.Close(ctx)
			_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		}
	})
	return withDatabase(adminURL, name)
}

func setup() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	adminURL, err := findServer(ctx)
	if err != nil {
		server.err = err
		return
	}
	server.adminURL = adminURL
	server.template, server.err = ensureTemplate(ctx, adminURL)
}

// findServer returns a URL to a reachable server: DATABASE_URL, the local
// default, or a throwaway cluster.
func findServer(ctx context.Context) (string, error) {
	var tried []string
	candidates := []string{}
	if u := os.Getenv("DATABASE_URL"); u != "" {
		candidates = append(candidates, u)
	}
	candidates = append(candidates, "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	for _, u := range candidates {
		if err := ping(ctx, u); err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", redact(u), err))
			continue
		}
		return u, nil
	}
	c, err := startCluster(ctx, false)
	if err != nil {
		tried = append(tried, "throwaway cluster: "+err.Error())
		return "", errors.New(strings.Join(tried, "; "))
	}
	server.cluster = c
	return c.url, nil
}

func ping(ctx context.Context, u string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.Ping(ctx)
}

// ensureTemplate creates (once per migration content, across concurrent test
// processes) a database with every migration applied, used as the template
// of each test database.
func ensureTemplate(ctx context.Context, adminURL string) (string, error) {
	sum, err := migrationsHash()
	if err != nil {
		return "", err
	}
	name := "strategist_tmpl_" + sum[:12]
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", fmt.Errorf("pgtest: connect admin: %w", err)
	}
	defer admin.Close(ctx)
	// Serialise template creation across the test processes of one `go test
	// ./...` run.
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(724311)"); err != nil {
		return "", fmt.Errorf("pgtest: lock: %w", err)
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock(724311)") //nolint:errcheck // the connection closes anyway
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", fmt.Errorf("pgtest: find template: %w", err)
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", fmt.Errorf("pgtest: drop stale template: %w", err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return "", fmt.Errorf("pgtest: create template: %w", err)
	}
	pool, err := pgxpool.New(ctx, withDatabase(adminURL, building))
	if err != nil {
		return "", fmt.Errorf("pgtest: connect template: %w", err)
	}
	err = store.Migrate(ctx, pool, migrations.FS)
	pool.Close()
	if err != nil {
		return "", fmt.Errorf("pgtest: migrate template: %w", err)
	}
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return "", fmt.Errorf("pgtest: finish template: %w", err)
	}
	return name, nil
}

func migrationsHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, path)
		if err != nil {
			return err
		}
		h.Write([]byte(path))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("pgtest: hash migrations: %w", err)
	}
	// River's tables are migrated by River's migrator, at the version of
	// the River the tests are built with.
	fmt.Fprintf(h, "river %d", store.JobSchemaVersion())
	return hex.EncodeToString(h.Sum(nil)), nil
}

// withDatabase returns u with its database name replaced.
func withDatabase(u, db string) string {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme == "" {
		// keyword/value connection string
		return u + " dbname=" + db
	}
	parsed.Path = "/" + db
	return parsed.String()
}

func redact(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(unparsable DATABASE_URL)"
	}
	return parsed.Redacted()
}
