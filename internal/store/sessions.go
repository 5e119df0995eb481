package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Session is a signed-in browser. Only the hash of its cookie is stored.
type Session struct {
	UserID    string    `db:"user_id"`
	CSRFToken string    `db:"csrf_token"`
	ExpiresAt time.Time `db:"expires_at"`
}

const createSessionSQL = `
INSERT INTO web_sessions (token_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)`

// CreateSession stores a new browser session.
func (db *DB) CreateSession(ctx context.Context, hash []byte, userID, csrf string, expires time.Time) error {
	return db.tx(ctx, "create session", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, createSessionSQL, hash, userID, csrf, expires)
		return err
	})
}

// sessionSQL reads a live session and records that it was seen at most
// once a minute, so most requests write nothing (see userByTokenSQL).
const sessionSQL = `
WITH s AS (
	SELECT token_hash, user_id, csrf_token, expires_at, last_seen_at FROM web_sessions
	WHERE token_hash = $1 AND expires_at > $2),
seen AS (
	UPDATE web_sessions w SET last_seen_at = now() FROM s
	WHERE w.token_hash = s.token_hash AND s.last_seen_at < now() - interval '1 minute')
SELECT user_id, csrf_token, expires_at FROM s`

// SessionByHash returns a live session; an expired or unknown one is
// ErrNotFound.
func (db *DB) SessionByHash(ctx context.Context, hash []byte, now time.Time) (Session, error) {
	s, err := collectOne(ctx, db, pgx.RowToStructByName[Session], sessionSQL, hash, now)
	return s, translate("session", err)
}

const deleteSessionSQL = `
WITH gone AS (DELETE FROM web_sessions WHERE token_hash = $1 RETURNING token_hash)
SELECT pg_notify($2, encode(token_hash, 'hex')) FROM gone`

// DeleteSession ends a browser session (sign-out) and, when it commits,
// tells every server process on EndStreamsChannel so the session's open
// streams end. Deleting an unknown session is not an error.
func (db *DB) DeleteSession(ctx context.Context, hash []byte) error {
	return db.tx(ctx, "delete session", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, deleteSessionSQL, hash, EndStreamsChannel)
		return err
	})
}

const deleteExpiredSessionsSQL = `DELETE FROM web_sessions WHERE expires_at <= $1`

// DeleteExpiredSessions removes sessions past their expiry and returns how
// many went.
func (db *DB) DeleteExpiredSessions(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := db.tx(ctx, "delete expired sessions", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, deleteExpiredSessionsSQL, now)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}
