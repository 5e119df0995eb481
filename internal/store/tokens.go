package store

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// APIToken is a program's credential. Only its hash is stored.
type APIToken struct {
	ID         string     `db:"id"`
	UserID     string     `db:"user_id"`
	Name       string     `db:"name"`
	CreatedAt  time.Time  `db:"created_at"`
	LastUsedAt *time.Time `db:"last_used_at"`
	RevokedAt  *time.Time `db:"revoked_at"`
}

const createTokenSQL = `
INSERT INTO api_tokens (user_id, name, token_hash) VALUES ($1, $2, $3)
RETURNING id, user_id, name, created_at, last_used_at, revoked_at`

// CreateAPIToken stores the hash of a new token for a user.
func (db *DB) CreateAPIToken(ctx context.Context, userID, name string, hash []byte) (APIToken, error) {
	var t APIToken
	err := db.tx(ctx, "create api token", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, createTokenSQL, userID, name, hash)
		var err error
		t, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[APIToken])
		return err
	})
	return t, err
}

// userByTokenSQL reads a live token and records its use at most once a
// minute: most requests change no row, so they commit nothing to the WAL
// and cost one round trip without a disk flush.
const userByTokenSQL = `
WITH t AS (SELECT id, user_id, last_used_at FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL),
used AS (
	UPDATE api_tokens a SET last_used_at = now() FROM t
	WHERE a.id = t.id AND (t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute'))
SELECT user_id FROM t`

// UserIDByTokenHash returns the owner of a live (unrevoked) token and
// records its use (to the minute).
func (db *DB) UserIDByTokenHash(ctx context.Context, hash []byte) (string, error) {
	var id string
	err := db.retry(ctx, func() error { return db.pool.QueryRow(ctx, userByTokenSQL, hash).Scan(&id) })
	return id, translate("user by token", err)
}

const listTokensSQL = `
SELECT id, user_id, name, created_at, last_used_at, revoked_at
FROM api_tokens WHERE user_id = $1 ORDER BY created_at`

// APITokens lists a user's tokens, revoked ones included.
func (db *DB) APITokens(ctx context.Context, userID string) ([]APIToken, error) {
	ts, err := collect(ctx, db, pgx.RowToStructByName[APIToken], listTokensSQL, userID)
	return ts, translate("list api tokens", err)
}

const revokeTokenSQL = `
WITH gone AS (
	UPDATE api_tokens SET revoked_at = now()
	WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL
	RETURNING token_hash)
SELECT pg_notify($3, encode(token_hash, 'hex')) FROM gone`

// EndStreamsChannel tells every server process to end some open streams:
// the payload is the hex SHA-256 of a session cookie or API token that was
// signed out or revoked, or "conversation:<id>" for a deleted conversation.
const EndStreamsChannel = "strategist_end_streams"

// ConversationStreams is the EndStreamsChannel payload for a conversation's
// streams; ids are uuids, whatever case a URL used.
func ConversationStreams(id string) string { return "conversation:" + strings.ToLower(id) }

// RevokeAPIToken revokes one of the user's tokens; an unknown, foreign or
// already revoked token is ErrNotFound.
func (db *DB) RevokeAPIToken(ctx context.Context, userID, tokenID string) error {
	return db.tx(ctx, "revoke api token", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, revokeTokenSQL, tokenID, userID, EndStreamsChannel)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return nil
	})
}
