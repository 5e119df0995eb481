package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
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
	// MaxRunning, when positive, caps the user's running turns: a start
	// that would make more is ErrTooManyTurns. The user's starts are
	// serialised on their row, so two at once cannot both take the last
	// place, on any replica.
	MaxRunning int
}

// ErrTooManyTurns: the user already has StartTurn.MaxRunning turns running.
var ErrTooManyTurns = errors.New("store: too many running turns")

// lockUserSQL serialises one user's turn starts (StartTurn.MaxRunning): the
// start's next statement, with a snapshot of its own, counts the turns the
// starts before it committed.
const lockUserSQL = `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`

const insertMessageSQL = `
INSERT INTO messages (id, conversation_id, turn_id, role, content, data)
VALUES (COALESCE(NULLIF($1, '')::uuid, gen_random_uuid()), $2, $3, $4, $5, $6)
RETURNING id`

// startTurnSQL does the checks of a turn's start and writes its rows in one
// statement: it records the turn's mode and model on the user's
// conversation (locking it for the rest of the transaction), moves the
// pending handoff the turn accepts ($6; empty for none) to accepted, and
// inserts the running turn only when both succeeded. It reports which did:
// no conversation (a NULL site) means another user's conversation (or
// none); no handoff row, a handoff already decided. A second running turn of the
// conversation fails the insert on the running-turn index.
const startTurnSQL = `
WITH c AS (
    UPDATE conversations SET mode = $3, model = $4, updated_at = now()
    WHERE id = $1 AND user_id = $2
    RETURNING id, site_id),
h AS (
    UPDATE handoffs SET status = 'accepted', execute_turn_id = $5, decided_at = now()
    WHERE id = NULLIF($6::text, '')::uuid AND status = 'pending'
      AND conversation_id IN (SELECT id FROM c)
    RETURNING id),
busy AS (
    SELECT $7::int > 0 AND (SELECT count(*) FROM turns rt JOIN conversations rc ON rc.id = rt.conversation_id
        WHERE rc.user_id = $2 AND rt.status = 'running') >= $7::int AS at_cap),
t AS (
    INSERT INTO turns (id, conversation_id, mode, model, owner)
    SELECT $5, c.id, $3, $4, '' FROM c
    WHERE ($6::text = '' OR EXISTS (SELECT 1 FROM h)) AND NOT (SELECT at_cap FROM busy)
    RETURNING id)
SELECT (SELECT site_id FROM c), EXISTS (SELECT 1 FROM h), EXISTS (SELECT 1 FROM t), (SELECT at_cap FROM busy)`

// StartedTurn is what a turn's start committed.
type StartedTurn struct {
	// SiteID is the conversation's VEuPathDB site.
	SiteID string
	// Events are the stored first events, for publishing.
	Events []EventRow
}

// StartTurnTx commits a turn's beginning: the user message, the turn row
// (running), the conversation's mode and model, and the first events. A
// running turn of the same conversation makes it ErrConflict; another user's
// conversation, or a handoff to accept that is no longer pending,
// ErrNotFound.
//
// It takes one round trip, as a bare commit does: its statements go to the
// database in one pipeline, which PostgreSQL runs as one implicit
// transaction, committed at the pipeline's end and rolled back whole when
// any statement fails. A failed check must therefore fail a statement, not
// only be seen here afterwards: when startTurnSQL inserts no turn, the user
// message that names the turn breaks its foreign key, so nothing of the
// start is kept.
func (db *DB) StartTurnTx(ctx context.Context, st StartTurn) (StartedTurn, error) {
	if st.TurnID == "" {
		return StartedTurn{}, fmt.Errorf("store: start turn: no turn id")
	}
	var q *queuedStart
	// A start that found no connection is tried again (retry); one that
	// reached the database is not, as it may have committed.
	err := db.retry(ctx, func() error {
		b := &pgx.Batch{}
		var err error
		if q, err = queueStartTurn(b, st); err != nil {
			return err
		}
		return ambiguous(db.pool.SendBatch(ctx, b).Close())
	})
	if err := q.outcome(st, err); err != nil {
		return StartedTurn{}, translate("start turn", err)
	}
	return q.result(), nil
}

// queuedStart is a turn's start queued on a pgx.Batch: what its checks
// found once the batch has run.
type queuedStart struct {
	site                    *string
	accepted, started, full bool
	events                  *queuedAppend
}

// queueStartTurn queues the statements of a turn's start on b (StartTurnTx).
func queueStartTurn(b *pgx.Batch, st StartTurn) (*queuedStart, error) {
	q := &queuedStart{}
	if st.MaxRunning > 0 {
		b.Queue(lockUserSQL, st.UserID)
	}
	b.Queue(startTurnSQL, st.ConversationID, st.UserID, st.Mode, st.Model, st.TurnID, st.AcceptHandoff, st.MaxRunning).QueryRow(func(row pgx.Row) error {
		return row.Scan(&q.site, &q.accepted, &q.started, &q.full)
	})
	m := st.Message
	b.Queue(insertMessageSQL, m.ID, st.ConversationID, st.TurnID, m.Role, m.Content, nullableJSON(m.Data))
	// The turn's job, and the notification that wakes the job queue's
	// fetchers in every process when the start commits: the job, not this
	// process, starts the turn.
	if err := queueTurnJob(b, st); err != nil {
		return nil, err
	}
	if len(st.Events) > 0 {
		var err error
		if q.events, err = queueAppendEvents(b, st.Origin, st.Events); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// outcome says why a start whose batch ended with err (nil: every
// statement ran) did not start its turn, nil when it did.
func (q *queuedStart) outcome(st StartTurn, err error) error {
	refused := err == nil || isForeignKeyViolation(err)
	switch {
	case q == nil:
		return err
	case err == nil && q.started && q.site != nil:
		return nil
	case q.site == nil && refused:
		// Not this user's conversation: the message's foreign key
		// failed, and nothing was written.
		return ErrNotFound
	case q.full && refused:
		// The user's running turns are at the cap: nothing was written.
		return ErrTooManyTurns
	case st.AcceptHandoff != "" && !q.accepted && refused:
		return ErrNotFound
	case err == nil:
		return errors.New("no turn was inserted")
	}
	return err
}

// result is what a start that succeeded committed.
func (q *queuedStart) result() StartedTurn {
	out := StartedTurn{SiteID: *q.site}
	if q.events != nil {
		out.Events = q.events.out
	}
	return out
}

// isForeignKeyViolation reports whether err is PostgreSQL's
// foreign_key_violation.
func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
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

// AddMessages stores a turn's assistant, tool and summary messages in order.
// Each message gets its id before the first try (its own, or a new one), so
// that a try after one whose commit went unanswered writes nothing twice:
// the messages are inserted only where their ids are not.
func (db *DB) AddMessages(ctx context.Context, conversationID, turnID string, msgs []NewMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = cmp.Or(m.ID, uuid.NewString())
	}
	return translate("add messages", db.retry(ctx, func() error {
		err := db.txOnce(ctx, func(tx pgx.Tx) error {
			for i, m := range msgs {
				if _, err := tx.Exec(ctx, insertMessageOnceSQL, ids[i], conversationID, nullable(turnID), m.Role, m.Content, nullableJSON(m.Data)); err != nil {
					return err
				}
			}
			return nil
		})
		var amb *ambiguousError
		if errors.As(err, &amb) {
			return amb.err // idempotent: tried again
		}
		return err
	}))
}

// insertMessageOnceSQL inserts a message unless one with its id exists.
const insertMessageOnceSQL = `
INSERT INTO messages (id, conversation_id, turn_id, role, content, data)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (id) DO NOTHING`

// EndTurn is what EndTurnTx writes.
type EndTurn struct {
	TurnID string
	// Owner, when set, is the process ending the turn: the end is written
	// only while the turn is still its own, so a process that lost the
	// turn to another (taken for dead while it ran) cannot end the run
	// that took it over. Recovery, ending the turns of dead processes,
	// names none.
	Owner  string
	Status TurnStatus
	Error  string
	Usage  json.RawMessage
	// Events are appended in the same transaction: turn_end last.
	Events []NewEvent
	Origin string
	// Then, when set, is a turn to start in the same transaction, after
	// the end (its Events after turn_end): the build of the plan whose
	// handoff the server accepts itself. A start refused (the handoff no
	// longer pending, say) fails the end with ErrStartRefused, and
	// nothing is written.
	Then *StartTurn
}

// ErrStartRefused: the turn EndTurn.Then names could not start; the end
// was not written either, and may be written alone.
var ErrStartRefused = errors.New("store: the turn to start after the end was refused")

// endTurnSQL ends a running turn and marks its conversation as updated
// (the conversation list's order): no row is updated when the turn was no
// longer running, or no longer owned by the process ending it ($5, when
// set).
const endTurnSQL = `
WITH t AS (
    UPDATE turns SET status = $2, error = $3, usage = $4, ended_at = now()
    WHERE id = $1 AND status = 'running' AND ($5 = '' OR owner = $5)
    RETURNING conversation_id)
UPDATE conversations SET updated_at = now() WHERE id IN (SELECT conversation_id FROM t)`

// lockTurnConversationSQL locks the conversation of turn $1 as a turn's
// start does, before the end touches the turn's row. A start (an accept of
// the turn's handoff) locks the conversation first and then meets the
// turn's row in the running-turn index, where it waits for the end's
// transaction: an end that held the row while it waited for the
// conversation would deadlock with it.
const lockTurnConversationSQL = `
SELECT 1 FROM conversations WHERE id = (SELECT conversation_id FROM turns WHERE id = $1) FOR NO KEY UPDATE`

// EndTurnTx records a turn's end and appends its last events in one
// transaction, so the row and the stream agree. A turn that is no longer
// running (recovered as interrupted meanwhile), or no longer et.Owner's, is
// ErrNotFound. It takes
// two round trips (pipelineTx): whether the turn was still running is
// known only from the update's result, and then its events must not stay.
// It locks the turn's conversation before the turn, in the order a start
// does (lockTurnConversationSQL).
func (db *DB) EndTurnTx(ctx context.Context, et EndTurn) ([]EventRow, error) {
	var (
		ended  bool
		events *queuedAppend
		then   *queuedStart
	)
	queue := func(b *pgx.Batch) error {
		ended, events, then = false, nil, nil
		b.Queue(lockTurnConversationSQL, et.TurnID)
		b.Queue(endTurnSQL, et.TurnID, et.Status, et.Error, et.Usage, et.Owner).Exec(func(tag pgconn.CommandTag) error {
			ended = tag.RowsAffected() > 0
			return nil
		})
		if len(et.Events) > 0 {
			var err error
			if events, err = queueAppendEvents(b, et.Origin, et.Events); err != nil {
				return err
			}
		}
		if et.Then != nil {
			if et.Then.MaxRunning > 0 {
				// Its lock on the user would come after the
				// conversation's, against a start's order.
				return errors.New("a turn started with an end spends no budget")
			}
			var err error
			if then, err = queueStartTurn(b, *et.Then); err != nil {
				return err
			}
		}
		return nil
	}
	check := func(err error) error {
		// A turn no longer running, or whose conversation was deleted with
		// it (its last events then have nowhere to go), is not found.
		if !ended && (err == nil || seqNotAllocated(err) || then != nil && isForeignKeyViolation(err)) {
			return ErrNotFound
		}
		if then != nil {
			if refused := then.outcome(*et.Then, err); refused != nil && refused != err {
				return fmt.Errorf("%w (%v)", ErrStartRefused, refused)
			}
		}
		return err
	}
	if err := db.pipelineTx(ctx, "end turn", queue, check); err != nil {
		return nil, err
	}
	var out []EventRow
	if events != nil {
		out = events.out
	}
	if then != nil {
		out = append(out, then.result().Events...)
	}
	return out, nil
}

const turnSQL = `
SELECT t.id, t.conversation_id, t.mode, t.model, t.status, t.error, t.usage, t.owner, t.started_at, t.ended_at
FROM turns t JOIN conversations c ON c.id = t.conversation_id
WHERE t.id = $1 AND t.conversation_id = $2 AND c.user_id = $3`

// Turn returns one of the user's turns.
func (db *DB) Turn(ctx context.Context, userID, conversationID, turnID string) (Turn, error) {
	t, err := collectOne(ctx, db, pgx.RowToStructByName[Turn], turnSQL, turnID, conversationID, userID)
	return t, translate("turn", err)
}

const userTurnSQL = `
SELECT t.id, t.conversation_id, t.mode, t.model, t.status, t.error, t.usage, t.owner, t.started_at, t.ended_at
FROM turns t JOIN conversations c ON c.id = t.conversation_id
WHERE t.id = $1 AND c.user_id = $2`

// UserTurn returns one of the user's turns by its id alone (an agent
// protocol names a task by its turn id); another user's turn is
// ErrNotFound.
func (db *DB) UserTurn(ctx context.Context, userID, turnID string) (Turn, error) {
	t, err := collectOne(ctx, db, pgx.RowToStructByName[Turn], userTurnSQL, turnID, userID)
	return t, translate("turn", err)
}

const turnsSQL = `
SELECT t.id, t.conversation_id, t.mode, t.model, t.status, t.error, t.usage, t.owner, t.started_at, t.ended_at
FROM turns t JOIN conversations c ON c.id = t.conversation_id
WHERE t.conversation_id = $1 AND c.user_id = $2
ORDER BY t.started_at, t.id`

// Turns lists a conversation's turns, oldest first.
func (db *DB) Turns(ctx context.Context, userID, conversationID string) ([]Turn, error) {
	ts, err := collect(ctx, db, pgx.RowToStructByName[Turn], turnsSQL, conversationID, userID)
	return ts, translate("turns", err)
}

// OrphanTurn is a running turn whose owner process is gone.
type OrphanTurn struct {
	ID             string    `db:"id"`
	ConversationID string    `db:"conversation_id"`
	StartedAt      time.Time `db:"started_at"`
}

// orphanTurnsSQL finds running turns that nothing will run again: no live
// process runs them (see ownerLiveSQL) and they have no job left to run
// (turns from before turns were jobs, or whose job gave up).
var orphanTurnsSQL = `
SELECT t.id, t.conversation_id, t.started_at FROM turns t
WHERE t.status = 'running' AND NOT ` + ownerLive("t.owner") + `
  AND NOT EXISTS (
    SELECT 1 FROM river_job j
    WHERE j.kind = '` + turnJobKind + `' AND j.args @> jsonb_build_object('turnId', t.id::text)
      AND j.state IN ('available', 'pending', 'retryable', 'running', 'scheduled'))
ORDER BY t.started_at`

// OrphanTurns lists running turns that no process runs and no job will
// start again.
func (db *DB) OrphanTurns(ctx context.Context) ([]OrphanTurn, error) {
	ts, err := collect(ctx, db, pgx.RowToStructByName[OrphanTurn], orphanTurnsSQL)
	return ts, translate("orphan turns", err)
}

const turnEventsSQL = `
SELECT conversation_id, seq, turn_id, type, payload, created_at
FROM events WHERE turn_id = $1 ORDER BY seq`

// TurnEvents returns every event of a turn in order (for recovering a turn
// whose process died; not owner-filtered: only the orchestrator calls it).
func (db *DB) TurnEvents(ctx context.Context, turnID string) ([]EventRow, error) {
	es, err := collect(ctx, db, scanEventRow, turnEventsSQL, turnID)
	return es, translate("turn events", err)
}
