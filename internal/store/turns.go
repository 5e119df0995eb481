package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Turn is one run of an agent in a conversation.
type Turn struct {
	ID             string          `db:"id" json:"id"`
	ConversationID string          `db:"conversation_id" json:"conversationId"`
	Mode           Mode            `db:"mode" json:"mode"`
	Model          string          `db:"model" json:"model"`
	Status         TurnStatus      `db:"status" json:"status"`
	Error          string          `db:"error" json:"error,omitempty"`
	Usage          json.RawMessage `db:"usage" json:"usage"`
	Owner          string          `db:"owner" json:"-"`
	StartedAt      time.Time       `db:"started_at" json:"startedAt"`
	EndedAt        *time.Time      `db:"ended_at" json:"endedAt,omitempty"`
}

// NewMessage is a message to insert.
type NewMessage struct {
	ID      string // "" lets the database choose
	Role    MessageRole
	Content string
	Data    json.RawMessage
}

// StartTurn is what StartTurn writes in one transaction.
type StartTurn struct {
	UserID         string
	ConversationID string
	TurnID         string
	Mode           Mode
	Model          string
	// Message is the user message starting the turn (its ID set by the
	// caller, so events can name it before it is stored).
	Message NewMessage
	// Events are appended after the rows, in the same transaction:
	// turn_start first.
	Events []NewEvent
	// Origin is the appending process, for the cross-process fan-out.
	Origin string
	// AcceptHandoff, when set, moves this pending handoff to accepted in the
	// same transaction (the execute turn it starts is this turn).
	AcceptHandoff string
}

const insertTurnSQL = `
INSERT INTO turns (id, conversation_id, mode, model) VALUES ($1, $2, $3, $4)`

const insertMessageSQL = `
INSERT INTO messages (id, conversation_id, turn_id, role, content, data)
VALUES (COALESCE(NULLIF($1, '')::uuid, gen_random_uuid()), $2, $3, $4, $5, $6)
RETURNING id`

// startConversationTurnSQL checks a user's conversation, locks it for the
// rest of the transaction and records the turn's mode and model, in one
// statement: no row means another user's conversation (or none).
const startConversationTurnSQL = `
UPDATE conversations SET mode = $3, model = $4, updated_at = now()
WHERE id = $1 AND user_id = $2
RETURNING id`

const acceptHandoffSQL = `
UPDATE handoffs SET status = 'accepted', execute_turn_id = $3, decided_at = now()
WHERE id = $1 AND conversation_id = $2 AND status = 'pending'`

// StartTurnTx commits a turn's beginning: the user message, the turn row
// (running), the conversation's mode and model, and the first events. A
// running turn of the same conversation makes it ErrConflict; another user's
// conversation ErrNotFound. The stored events are returned for publishing.
//
// Its statements go to the database in one pipeline and the commit follows
// (pipelineTx): two round trips whatever the number of statements.
func (db *DB) StartTurnTx(ctx context.Context, st StartTurn) ([]EventRow, error) {
	var (
		locked, owned, accepted bool
		events                  *queuedAppend
	)
	queue := func(b *pgx.Batch) error {
		b.Queue(startConversationTurnSQL, st.ConversationID, st.UserID, st.Mode, st.Model).Query(func(rows pgx.Rows) error {
			owned = rows.Next()
			rows.Close()
			locked = rows.Err() == nil
			return rows.Err()
		})
		b.Queue(insertTurnSQL, st.TurnID, st.ConversationID, st.Mode, st.Model)
		if st.AcceptHandoff != "" {
			b.Queue(acceptHandoffSQL, st.AcceptHandoff, st.ConversationID, st.TurnID).Exec(func(tag pgconn.CommandTag) error {
				accepted = tag.RowsAffected() > 0
				return nil
			})
		}
		// The job's notification: the fetchers of every process hear of
		// it when the transaction commits (see newInserter).
		b.Queue(notifyTurnJobsSQL)
		m := st.Message
		b.Queue(insertMessageSQL, m.ID, st.ConversationID, nullable(st.TurnID), m.Role, m.Content, nullableJSON(m.Data))
		if len(st.Events) == 0 {
			return nil
		}
		var err error
		events, err = queueAppendEvents(b, st.Origin, st.Events)
		return err
	}
	check := func(err error) error {
		switch {
		case locked && !owned:
			// Not this user's conversation: whatever the later
			// statements did, they are rolled back.
			return ErrNotFound
		case err != nil:
			return err
		case st.AcceptHandoff != "" && !accepted:
			return ErrNotFound
		}
		return nil
	}
	// The turn's job goes in the same transaction: it is what starts the
	// turn, in whichever process takes it.
	then := func(tx pgx.Tx) error { return db.insertTurnJob(ctx, tx, st) }
	if err := db.pipelineTxThen(ctx, "start turn", queue, check, then); err != nil {
		return nil, err
	}
	if events == nil {
		return nil, nil
	}
	return events.out, nil
}

// nullable is s as a query argument, NULL when empty.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullableJSON is a JSON document as a query argument, NULL when empty.
func nullableJSON(d json.RawMessage) any {
	if len(d) == 0 {
		return nil
	}
	return d
}

func insertMessage(ctx context.Context, tx pgx.Tx, conversationID, turnID string, m NewMessage) (string, error) {
	var id string
	err := tx.QueryRow(ctx, insertMessageSQL, m.ID, conversationID, nullable(turnID), m.Role, m.Content, nullableJSON(m.Data)).Scan(&id)
	return id, err
}

// AddMessages stores a turn's assistant, tool and summary messages in order.
func (db *DB) AddMessages(ctx context.Context, conversationID, turnID string, msgs []NewMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	return db.tx(ctx, "add messages", func(tx pgx.Tx) error {
		for _, m := range msgs {
			if _, err := insertMessage(ctx, tx, conversationID, turnID, m); err != nil {
				return err
			}
		}
		return nil
	})
}

// EndTurn is what EndTurnTx writes.
type EndTurn struct {
	TurnID string
	Status TurnStatus
	Error  string
	Usage  json.RawMessage
	// Events are appended in the same transaction: turn_end last.
	Events []NewEvent
	Origin string
}

const endTurnSQL = `
UPDATE turns SET status = $2, error = $3, usage = $4, ended_at = now()
WHERE id = $1 AND status = 'running'`

// EndTurnTx records a turn's end and appends its last events in one
// transaction, so the row and the stream agree. A turn that is no longer
// running (recovered as interrupted meanwhile) is ErrNotFound. Like
// StartTurnTx it takes two round trips (pipelineTx).
func (db *DB) EndTurnTx(ctx context.Context, et EndTurn) ([]EventRow, error) {
	var (
		ended  bool
		events *queuedAppend
	)
	queue := func(b *pgx.Batch) error {
		b.Queue(endTurnSQL, et.TurnID, et.Status, et.Error, et.Usage).Exec(func(tag pgconn.CommandTag) error {
			ended = tag.RowsAffected() > 0
			return nil
		})
		if len(et.Events) == 0 {
			return nil
		}
		var err error
		events, err = queueAppendEvents(b, et.Origin, et.Events)
		return err
	}
	check := func(err error) error {
		// A turn no longer running, or whose conversation was deleted with
		// it (its last events then have nowhere to go), is not found.
		if !ended && (err == nil || seqNotAllocated(err)) {
			return ErrNotFound
		}
		return err
	}
	if err := db.pipelineTx(ctx, "end turn", queue, check); err != nil {
		return nil, err
	}
	if events == nil {
		return nil, nil
	}
	return events.out, nil
}

const turnSQL = `
SELECT t.id, t.conversation_id, t.mode, t.model, t.status, t.error, t.usage, t.owner, t.started_at, t.ended_at
FROM turns t JOIN conversations c ON c.id = t.conversation_id
WHERE t.id = $1 AND t.conversation_id = $2 AND c.user_id = $3`

// Turn returns one of the user's turns.
func (db *DB) Turn(ctx context.Context, userID, conversationID, turnID string) (Turn, error) {
	rows, _ := db.pool.Query(ctx, turnSQL, turnID, conversationID, userID)
	t, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Turn])
	return t, translate("turn", err)
}

const turnsSQL = `
SELECT t.id, t.conversation_id, t.mode, t.model, t.status, t.error, t.usage, t.owner, t.started_at, t.ended_at
FROM turns t JOIN conversations c ON c.id = t.conversation_id
WHERE t.conversation_id = $1 AND c.user_id = $2
ORDER BY t.started_at, t.id`

// Turns lists a conversation's turns, oldest first.
func (db *DB) Turns(ctx context.Context, userID, conversationID string) ([]Turn, error) {
	rows, _ := db.pool.Query(ctx, turnsSQL, conversationID, userID)
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[Turn])
	return ts, translate("turns", err)
}

// OrphanTurn is a running turn whose owner process is gone.
type OrphanTurn struct {
	ID             string    `db:"id"`
	ConversationID string    `db:"conversation_id"`
	StartedAt      time.Time `db:"started_at"`
}

// orphanTurnsSQL finds running turns that nothing will run again: no live
// process runs them (see sessionAliveSQL) and they have no job left to run
// (turns from before turns were jobs, or whose job gave up).
var orphanTurnsSQL = `
SELECT t.id, t.conversation_id, t.started_at FROM turns t
WHERE t.status = 'running' AND NOT ` + fmt.Sprintf(sessionAliveSQL, "t.owner") + `
  AND NOT EXISTS (
    SELECT 1 FROM river_job j
    WHERE j.kind = '` + turnJobKind + `' AND j.args @> jsonb_build_object('turnId', t.id::text)
      AND j.state IN ('available', 'pending', 'retryable', 'running', 'scheduled'))
ORDER BY t.started_at`

// OrphanTurns lists running turns that no process runs and no job will
// start again.
func (db *DB) OrphanTurns(ctx context.Context) ([]OrphanTurn, error) {
	rows, _ := db.pool.Query(ctx, orphanTurnsSQL)
	ts, err := pgx.CollectRows(rows, pgx.RowToStructByName[OrphanTurn])
	return ts, translate("orphan turns", err)
}

const sessionIdentitySQL = `
SELECT pg_backend_pid()::text || '@' || (extract(epoch FROM backend_start) * 1000000)::bigint::text
FROM pg_stat_activity WHERE pid = pg_backend_pid()`

// HoldOwnerSession keeps one connection for the life of ctx and returns, on
// ready, the owner name of this process: the identity of that session. Turns
// this process runs carry it; when the process dies, its session ends and its
// turns become orphans that any process can recover. HoldOwnerSession blocks
// until ctx ends.
func (db *DB) HoldOwnerSession(ctx context.Context, ready func(owner string)) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return translate("owner session", err)
	}
	// The connection leaves the pool: it must not serve other queries or be
	// recycled while this process runs turns.
	pc := conn.Hijack()
	defer pc.Close(context.Background())
	var owner string
	if err := pc.QueryRow(ctx, sessionIdentitySQL).Scan(&owner); err != nil {
		return translate("owner session", err)
	}
	ready(owner)
	<-ctx.Done()
	return nil
}

const turnEventsSQL = `
SELECT conversation_id, seq, turn_id, type, payload, created_at
FROM events WHERE turn_id = $1 ORDER BY seq`

// TurnEvents returns every event of a turn in order (for recovering a turn
// whose process died; not owner-filtered: only the orchestrator calls it).
func (db *DB) TurnEvents(ctx context.Context, turnID string) ([]EventRow, error) {
	rows, _ := db.pool.Query(ctx, turnEventsSQL, turnID)
	es, err := pgx.CollectRows(rows, pgx.RowToStructByName[EventRow])
	return es, translate("turn events", err)
}
