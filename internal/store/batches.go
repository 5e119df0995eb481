package store

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EventBatch is one transaction of the event log's writer.
type EventBatch struct {
	// ID names the batch in event_batches, the same on every attempt.
	ID string
	// Origin is the appending process (AppendEvents).
	Origin string
	Events []NewEvent
	// Retry says an earlier attempt failed in a way that may have come
	// after its commit: the batch is looked for first.
	Retry bool
}

const batchGroupsSQL = `SELECT groups FROM event_batches WHERE id = $1`

const batchRowsSQL = `
SELECT ` + eventColumns + ` FROM events WHERE conversation_id = $1 AND seq > $2 AND seq <= $2 + $3 ORDER BY seq`

const pruneBatchesSQL = `DELETE FROM event_batches WHERE committed_at < now() - interval '1 hour'`

// AppendEventBatch appends a batch as AppendEvents does and records it, so
// that a retry after an ambiguous failure (a connection lost, a timeout:
// the commit may have happened) writes nothing twice: with Retry set it
// first looks for the batch, and one that committed gives back its rows.
func (db *DB) AppendEventBatch(ctx context.Context, eb EventBatch) ([]EventRow, error) {
	if len(eb.Events) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	a, err := queueAppendBatch(b, eb.Origin, eb.ID, eb.Events)
	if err != nil {
		return nil, translate("append events", err)
	}
	if eb.Retry {
		rows, found, err := db.committedBatch(ctx, eb.ID, a)
		if err != nil {
			return nil, translate("append events: look for the batch", err)
		}
		if found {
			return rows, nil
		}
	}
	if rand.IntN(256) == 0 {
		b.Queue(pruneBatchesSQL)
	}
	if err := db.pool.SendBatch(ctx, b).Close(); err != nil {
		if gone := db.appendGone(ctx, err, a.groups); gone != nil {
			return nil, translate("append events", gone)
		}
		return nil, translate("append events", err)
	}
	return a.out, nil
}

// committedBatch reads back the rows of a batch an earlier attempt
// committed; found is false when none did.
func (db *DB) committedBatch(ctx context.Context, id string, a *queuedAppend) ([]EventRow, bool, error) {
	var groups map[string]int64
	err := db.pool.QueryRow(ctx, batchGroupsSQL, id).Scan(&groups)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var inserted []EventRow
	for _, g := range a.groups {
		base, ok := groups[g.id]
		if !ok {
			return nil, false, errors.New("the recorded batch lacks a conversation of its events")
		}
		rows, _ := db.pool.Query(ctx, batchRowsSQL, g.id, base, g.count)
		rs, err := pgx.CollectRows(rows, scanEventRow)
		if err != nil {
			return nil, false, err
		}
		inserted = append(inserted, rs...)
	}
	if len(inserted) != len(a.convs) {
		return nil, false, errors.New("the recorded batch's events are not all there")
	}
	if err := a.place(inserted); err != nil {
		return nil, false, err
	}
	return a.out, true, nil
}

// Unavailable reports whether err is the database being out of reach rather
// than a failed statement: a connection that could not be made or was lost
// (nothing sent, SQLSTATE class 08), the server shutting down or
// terminating the session (57P01–57P03), too many connections (53300), or
// a deadline passed while waiting on it. Such a failure passes; a caller
// retries within its bound, then says the database is unavailable. A
// failure after the statement was sent may have committed: only an
// operation that can tell (AppendEventBatch) or that is idempotent retries
// it.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		// A statement its caller cancelled did not find the database
		// away, though pgx calls it a timeout safe to retry.
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case len(pgErr.Code) == 5 && pgErr.Code[:2] == "08",
			pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03", pgErr.Code == "53300":
			return true
		}
		return false
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return true
	}
	// A connection lost mid-statement (an end of file, a reset, a closed
	// socket) is not a PgError.
	var opErr *net.OpError
	return errors.As(err, &opErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}
