package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Share is a read-only link to a conversation as it was when it was
// shared: up to event EventSeq of its log. Only the hash of its token is
// stored.
type Share struct {
	ID             string `db:"id"`
	ConversationID string `db:"conversation_id"`
	// Public links open without an account; others need a signed-in one.
	Public bool `db:"public"`
	// EventSeq is the conversation's last event when the link was made; the
	// shared page shows the log up to it.
	EventSeq int64 `db:"event_seq"`
	// Title is the conversation's title when the link was made.
	Title     string     `db:"title"`
	CreatedAt time.Time  `db:"created_at"`
	RevokedAt *time.Time `db:"revoked_at"`
}

const shareColumns = `s.id, s.conversation_id, s.public, s.event_seq, s.title, s.created_at, s.revoked_at`

// createShareSQL records a link to the user's conversation at its current
// last event; another user's conversation inserts nothing.
const createShareSQL = `
INSERT INTO conversation_shares AS s (conversation_id, token_hash, public, event_seq, title)
SELECT c.id, $3, $4, c.last_event_seq, c.title FROM conversations c WHERE c.id = $1 AND c.user_id = $2
RETURNING ` + shareColumns

// CreateShare records a share link of the user's conversation, as of its
// latest event and current title, by the hash of the link's token. Another user's
// conversation is ErrNotFound.
func (db *DB) CreateShare(ctx context.Context, userID, conversationID string, tokenHash []byte, public bool) (Share, error) {
	var sh Share
	err := db.tx(ctx, "create share", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, createShareSQL, conversationID, userID, tokenHash, public)
		var err error
		sh, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Share])
		return err
	})
	return sh, err
}

const sharesSQL = `
SELECT ` + shareColumns + ` FROM conversation_shares s JOIN conversations c ON c.id = s.conversation_id
WHERE s.conversation_id = $1 AND c.user_id = $2
ORDER BY s.created_at, s.id`

// Shares lists the share links of the user's conversation, revoked ones
// included, oldest first; another user's conversation has none.
func (db *DB) Shares(ctx context.Context, userID, conversationID string) ([]Share, error) {
	shs, err := collect(ctx, db, pgx.RowToStructByName[Share], sharesSQL, conversationID, userID)
	return shs, translate("shares", err)
}

const revokeShareSQL = `
UPDATE conversation_shares s SET revoked_at = now()
FROM conversations c
WHERE s.id = $3 AND s.conversation_id = $1 AND c.id = s.conversation_id AND c.user_id = $2
	AND s.revoked_at IS NULL`

// RevokeShare ends a share link of the user's conversation: the link opens
// nothing from then on. An unknown, foreign or already revoked link is
// ErrNotFound.
func (db *DB) RevokeShare(ctx context.Context, userID, conversationID, shareID string) error {
	return db.tx(ctx, "revoke share", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, revokeShareSQL, conversationID, userID, shareID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return nil
	})
}

const shareByTokenSQL = `
SELECT ` + shareColumns + `, c.user_id AS owner_id
FROM conversation_shares s JOIN conversations c ON c.id = s.conversation_id
WHERE s.token_hash = $1`

// SharedConversation is a share link as its token opens it: the link and
// the conversation's owner, whose log the shared page reads.
type SharedConversation struct {
	Share
	OwnerID string `db:"owner_id"`
}

// ShareByTokenHash finds the share link whose token has this hash, revoked
// or not (the caller tells a revoked link from an unknown one); an unknown
// hash is ErrNotFound.
func (db *DB) ShareByTokenHash(ctx context.Context, tokenHash []byte) (SharedConversation, error) {
	sh, err := collectOne(ctx, db, pgx.RowToStructByName[SharedConversation], shareByTokenSQL, tokenHash)
	return sh, translate("share by token", err)
}
