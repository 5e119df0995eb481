// Package store is Strategist's PostgreSQL persistence: hand-written SQL over
// pgx v5, one short transaction per public method, pgx errors translated once
// here. It is the only package that imports pgx.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
)

// ErrNotFound means no row matched, including rows that exist but belong to
// another user: callers cannot tell the two apart.
var ErrNotFound = errors.New("store: not found")

// ErrConflict means a unique or exclusion constraint refused the write.
var ErrConflict = errors.New("store: conflict")

// ErrInvalidText means PostgreSQL refused text it cannot store: invalid
// UTF-8 or a NUL character. The server's input check refuses such text
// before it gets here; this keeps any text it misses the caller's error
// rather than the server's.
var ErrInvalidText = errors.New("store: text must be UTF-8 without NUL characters")

// DB is the store over a connection pool. Its methods are safe for
// concurrent use.
type DB struct {
	pool *pgxpool.Pool
	// retryFor bounds how long a method tries again while the database is
	// unavailable (retry.go).
	retryFor time.Duration
}

// New returns a store over pool; of opts, only those about the store
// itself (WithRetryFor) apply, the pool being made.
func New(pool *pgxpool.Pool, opts ...Option) (*DB, error) {
	if pool == nil {
		return nil, errors.New("store: nil pool")
	}
	o := options{pool: pool.Config(), retryFor: DefaultRetryFor}
	for _, opt := range opts {
		opt(&o)
	}
	return &DB{pool: pool, retryFor: o.retryFor}, nil
}

// Pool returns the underlying pool, for health checks and LISTEN.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// tx runs fn in one transaction, committing when it returns nil, and
// translates the error. A transaction that fails because the database is
// unavailable is run again (retry), fn with it, unless its COMMIT was sent:
// that one may have committed.
func (db *DB) tx(ctx context.Context, op string, fn func(pgx.Tx) error) error {
	return translate(op, db.retry(ctx, func() error { return db.txOnce(ctx, fn) }))
}

// txOnce is one try of tx.
func (db *DB) txOnce(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after the commit; a failed one closes the connection
	if err := fn(tx); err != nil {
		return err
	}
	return ambiguous(tx.Commit(ctx))
}

// pipelineTx runs a transaction in two round trips: BEGIN and every
// statement queue puts on the batch go to the database in one pipeline,
// then, once their results are in, COMMIT when check returns nil or
// ROLLBACK otherwise. It is for writes whose statements do not depend on
// each other's results, only on whether they all succeeded (a turn's
// start: ownership, the turn row, the message, the events). check gets the
// batch's error (nil when every statement succeeded) and decides, from the
// results the batch's callbacks recorded, the error to return: a failed
// ownership check explains a later statement's failure. The error is
// translated.
func (db *DB) pipelineTx(ctx context.Context, op string, queue func(b *pgx.Batch) error, check func(error) error) error {
	return translate(op, db.retry(ctx, func() error { return db.pipelineTxOnce(ctx, queue, check) }))
}

// pipelineTxOnce is one try of pipelineTx: a failure before its COMMIT
// left nothing, and the transaction may run again.
func (db *DB) pipelineTxOnce(ctx context.Context, queue func(b *pgx.Batch) error, check func(error) error) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection released inside a transaction (a failure below) is
	// closed by the pool, never reused.
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	if err := queue(b); err != nil {
		return err
	}
	err = check(conn.SendBatch(ctx, b).Close())
	if err != nil {
		// A failed ROLLBACK leaves the connection outside the idle
		// state, and the pool closes it on release.
		_, _ = conn.Exec(ctx, "ROLLBACK")
		return err
	}
	_, err = conn.Exec(ctx, "COMMIT")
	return ambiguous(err)
}

// translate maps pgx errors onto the store's sentinels, once, at the store
// boundary.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) {
		return fmt.Errorf("store: %s: %w", op, err)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("store: %s: %w", op, ErrNotFound)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505", "23P01": // unique_violation, exclusion_violation
			return fmt.Errorf("store: %s: %w (%s)", op, ErrConflict, pgErr.ConstraintName)
		case "22P02": // invalid_text_representation: a malformed uuid is simply not found
			return fmt.Errorf("store: %s: %w", op, ErrNotFound)
		case "22021", "22P05": // character_not_in_repertoire (invalid UTF-8, NUL), untranslatable_character
			return fmt.Errorf("store: %s: %w", op, ErrInvalidText)
		}
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// Option adjusts how Open connects and how the store behaves.
type Option func(*options)

// options are what Options set.
type options struct {
	pool     *pgxpool.Config
	retryFor time.Duration
}

// WithRetryFor bounds how long a store method tries again while the
// database is unavailable (default DefaultRetryFor; 0: never).
func WithRetryFor(d time.Duration) Option {
	return func(o *options) { o.retryFor = d }
}

// WithTracing records a span for each query, batch, connection and pool
// wait made inside a recording span (a traced turn or request), through
// tp; outside one it records nothing. Statements are recorded without
// their arguments. Without this option the pool has no tracer at all.
func WithTracing(tp trace.TracerProvider) Option {
	return func(o *options) {
		o.pool.ConnConfig.Tracer = otelpgx.NewTracer(otelpgx.WithTracerProvider(tp),
			otelpgx.WithMeterProvider(noop.NewMeterProvider()))
	}
}

// WithMaxConns bounds the pool at n connections (over DATABASE_URL's
// pool_max_conns). A query waits for a connection while all are taken.
func WithMaxConns(n int) Option {
	return func(o *options) { o.pool.MaxConns = int32(min(n, 1<<20)) }
}

// Open connects to the database at url, checks that it answers, and applies
// pending migrations from fsys (under tern's advisory lock, so replicas
// starting together wait for each other).
func Open(ctx context.Context, url string, fsys fs.FS, opts ...Option) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	o := options{pool: cfg, retryFor: DefaultRetryFor}
	for _, opt := range opts {
		opt(&o)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: cannot reach PostgreSQL: %w", err)
	}
	if err := Migrate(ctx, pool, fsys); err != nil {
		pool.Close()
		return nil, err
	}
	return &DB{pool: pool, retryFor: o.retryFor}, nil
}

// Close closes the pool.
func (db *DB) Close() { db.pool.Close() }

// Ready reports whether the database answers and every migration in fsys is
// applied; the error says which is not the case.
func (db *DB) Ready(ctx context.Context, fsys fs.FS) error {
	if err := db.pool.Ping(ctx); err != nil {
		return errors.New("database unreachable")
	}
	applied, known, err := MigrationStatus(ctx, db.pool, fsys)
	if err != nil {
		return errors.New("migration status unknown")
	}
	if applied != known {
		return fmt.Errorf("database at migration %d of %d", applied, known)
	}
	return nil
}
