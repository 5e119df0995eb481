package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// Conversation is one researcher's chat about one strategy.
type Conversation struct {
	ID     string `db:"id" json:"id"`
	UserID string `db:"user_id" json:"-"`
	SiteID string `db:"site_id" json:"siteId"`
	Title  string `db:"title" json:"title"`
	// TitleSet says the researcher named the conversation: its title no
	// longer follows the strategy's root step.
	TitleSet     bool      `db:"title_set" json:"titleSet"`
	Mode         Mode      `db:"mode" json:"mode"`
	StrategyID   *string   `db:"strategy_id" json:"strategyId"`
	Model        string    `db:"model" json:"model"`
	LastEventSeq int64     `db:"last_event_seq" json:"lastEventSeq"`
	CreatedAt    time.Time `db:"created_at" json:"createdAt"`
	UpdatedAt    time.Time `db:"updated_at" json:"updatedAt"`
}

const conversationColumns = `id, user_id, site_id, title, title_set, mode, strategy_id, model, last_event_seq, created_at, updated_at`

const createConversationSQL = `
INSERT INTO conversations (user_id, site_id, title, model, title_set) VALUES ($1, $2, $3, $4, $3 NOT IN ('', '` + DefaultTitle + `'))
RETURNING ` + conversationColumns

// CreateConversation starts a conversation in plan mode. A title other
// than DefaultTitle is the caller's choice (the researcher's, or a
// protocol client's first message) and is kept as if set by a rename;
// with DefaultTitle the title follows the strategy's root step.
func (db *DB) CreateConversation(ctx context.Context, userID, siteID, title, model string) (Conversation, error) {
	var c Conversation
	err := db.tx(ctx, "create conversation", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, createConversationSQL, userID, siteID, title, model)
		var err error
		c, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Conversation])
		return err
	})
	return c, err
}

const createConversationWithIDSQL = `
INSERT INTO conversations (id, user_id, site_id, title, model, title_set) VALUES ($1, $2, $3, $4, $5, $4 NOT IN ('', '` + DefaultTitle + `'))
RETURNING ` + conversationColumns

// CreateConversationWithID starts a conversation in plan mode under an id
// its client chose (an AG-UI thread id). An id that is already taken, by
// this user or another, is ErrConflict; a malformed one ErrNotFound. Its
// title is kept or follows the strategy as with CreateConversation.
func (db *DB) CreateConversationWithID(ctx context.Context, id, userID, siteID, title, model string) (Conversation, error) {
	var c Conversation
	err := db.tx(ctx, "create conversation with id", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, createConversationWithIDSQL, id, userID, siteID, title, model)
		var err error
		c, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Conversation])
		return err
	})
	return c, err
}

const listConversationsSQL = `
SELECT ` + conversationColumns + ` FROM conversations
WHERE user_id = $1 ORDER BY updated_at DESC, id LIMIT $2`

// Conversations lists a user's conversations, most recently active first.
func (db *DB) Conversations(ctx context.Context, userID string, limit int) ([]Conversation, error) {
	cs, err := collect(ctx, db, pgx.RowToStructByName[Conversation], listConversationsSQL, userID, limit)
	return cs, translate("list conversations", err)
}

const conversationSQL = `SELECT ` + conversationColumns + ` FROM conversations WHERE id = $1 AND user_id = $2`

// Conversation returns one of the user's conversations; another user's is
// ErrNotFound.
func (db *DB) Conversation(ctx context.Context, userID, id string) (Conversation, error) {
	c, err := collectOne(ctx, db, pgx.RowToStructByName[Conversation], conversationSQL, id, userID)
	return c, translate("conversation", err)
}

const renameConversationSQL = `
UPDATE conversations SET title = $3, title_set = true, updated_at = now()
WHERE id = $1 AND user_id = $2
RETURNING ` + conversationColumns

// RenameConversation sets a conversation's title as the researcher's: from
// then on it no longer follows the strategy's root step.
func (db *DB) RenameConversation(ctx context.Context, userID, id, title string) (Conversation, error) {
	var c Conversation
	err := db.tx(ctx, "rename conversation", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, renameConversationSQL, id, userID, title)
		var err error
		c, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Conversation])
		return err
	})
	return c, err
}

// DefaultTitle is a new conversation's title until the researcher or the
// planner gives it one.
const DefaultTitle = "New conversation"

const autoTitleSQL = `
UPDATE conversations SET title = $3, updated_at = now()
WHERE id = $1 AND user_id = $2 AND title = $4 AND NOT title_set
RETURNING ` + conversationColumns

// AutoTitleConversation gives a conversation the planner's title only while
// it has the default one: a title the researcher chose (or an automatic
// one already given) is kept. set says whether the title changed; the
// conversation is returned either way.
func (db *DB) AutoTitleConversation(ctx context.Context, userID, id, title string) (c Conversation, set bool, err error) {
	err = db.tx(ctx, "title conversation", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, autoTitleSQL, id, userID, title, DefaultTitle)
		c, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Conversation])
		if err == nil {
			set = true
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		rows, _ = tx.Query(ctx, conversationSQL, id, userID)
		c, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Conversation])
		return err
	})
	return c, set, err
}

const deleteConversationSQL = `
WITH gone AS (DELETE FROM conversations WHERE id = $1 AND user_id = $2 RETURNING id)
SELECT pg_notify($3, $4) FROM gone`

// DeleteConversation removes a conversation and everything in it, and on
// commit tells every server process on EndStreamsChannel to end its
// streams.
func (db *DB) DeleteConversation(ctx context.Context, userID, id string) error {
	return db.tx(ctx, "delete conversation", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, deleteConversationSQL, id, userID, EndStreamsChannel, ConversationStreams(id))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// Message is one stored chat message.
type Message struct {
	ID        string          `db:"id" json:"id"`
	TurnID    *string         `db:"turn_id" json:"turnId"`
	Role      MessageRole     `db:"role" json:"role"`
	Content   string          `db:"content" json:"content"`
	Data      json.RawMessage `db:"data" json:"data,omitempty"`
	CreatedAt time.Time       `db:"created_at" json:"createdAt"`
}

const messagesSQL = `
SELECT m.id, m.turn_id, m.role, m.content, m.data, m.created_at
FROM messages m JOIN conversations c ON c.id = m.conversation_id
WHERE m.conversation_id = $1 AND c.user_id = $2
ORDER BY m.ord`

// Messages returns a conversation's messages in order.
func (db *DB) Messages(ctx context.Context, userID, conversationID string) ([]Message, error) {
	ms, err := collect(ctx, db, pgx.RowToStructByName[Message], messagesSQL, conversationID, userID)
	return ms, translate("messages", err)
}

// lockConversationSQL locks a user's conversation row for the rest of the
// transaction; another user's conversation matches nothing.
const lockConversationSQL = `SELECT id FROM conversations WHERE id = $1 AND user_id = $2 FOR UPDATE`
