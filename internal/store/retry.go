package store

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultRetryFor is how long a store method tries again, by default, while
// the database is unavailable (Unavailable): a restart of a few seconds, a
// connection the server terminated, the server's connections all taken.
// Past it the method fails with the error, which Unavailable recognises,
// and its caller decides (a turn is handed back, a request answered 503).
const DefaultRetryFor = 10 * time.Second

// The wait between two tries starts at retryMin and doubles to retryMax.
const (
	retryMin = 100 * time.Millisecond
	retryMax = 2 * time.Second
)

// ambiguousError is a failure that may have come after the database
// committed (a COMMIT whose answer was lost, a pipeline of writes cut
// short): writing again could write twice, so retry does not. It unwraps
// to the failure, which Unavailable still recognises.
type ambiguousError struct{ err error }

func (e *ambiguousError) Error() string { return e.err.Error() }
func (e *ambiguousError) Unwrap() error { return e.err }

// ambiguous marks err, a failure of a write that may have committed, as
// such, unless nothing was sent (beforeSend).
func ambiguous(err error) error {
	if err == nil || beforeSend(err) {
		return err
	}
	return &ambiguousError{err}
}

// beforeSend reports whether err came before anything reached the
// database: no connection could be had, or pgx says so.
func beforeSend(err error) bool {
	var connErr *pgconn.ConnectError
	return pgconn.SafeToRetry(err) || errors.As(err, &connErr)
}

// retry runs op, and again with backoff while it fails because the
// database is unavailable, for up to the store's RetryFor and while ctx
// lasts. A failure marked ambiguous is not tried again. op must be safe to
// run again: a read, an idempotent write, or a transaction (whose failure
// before COMMIT left nothing).
func (db *DB) retry(ctx context.Context, op func() error) error {
	start, wait := time.Now(), retryMin
	for {
		err := op()
		var amb *ambiguousError
		if err == nil || !Unavailable(err) || errors.As(err, &amb) || ctx.Err() != nil ||
			time.Since(start)+wait > db.retryFor {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
	}
}

// collect runs a query and collects its rows with fn, again while the
// database is unavailable (retry). The error is not translated.
func collect[T any](ctx context.Context, db *DB, fn pgx.RowToFunc[T], sql string, args ...any) ([]T, error) {
	var out []T
	err := db.retry(ctx, func() error {
		rows, _ := db.pool.Query(ctx, sql, args...)
		var err error
		out, err = pgx.CollectRows(rows, fn)
		return err
	})
	return out, err
}

// collectOne is collect for a query of exactly one row (else
// pgx.ErrNoRows or pgx.ErrTooManyRows).
func collectOne[T any](ctx context.Context, db *DB, fn pgx.RowToFunc[T], sql string, args ...any) (T, error) {
	var out T
	err := db.retry(ctx, func() error {
		rows, _ := db.pool.Query(ctx, sql, args...)
		var err error
		out, err = pgx.CollectExactlyOneRow(rows, fn)
		return err
	})
	return out, err
}
