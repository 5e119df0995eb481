package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EventsChannel is the NOTIFY channel that announces appended events to
// every server process sharing the database.
const EventsChannel = "strategist_events"

// NewEvent is one event to append: its conversation, its turn ("" for none),
// its wire name and its JSON payload.
type NewEvent struct {
	ConversationID string
	TurnID         string
	Type           string
	Payload        json.RawMessage
}

// EventRow is one stored event. Payload is the text PostgreSQL's jsonb gives
// back, so an event read from the table and the same event returned by the
// append that wrote it are byte for byte equal.
type EventRow struct {
	ConversationID string          `db:"conversation_id"`
	Seq            int64           `db:"seq"`
	TurnID         string          `db:"turn_id"`
	Type           string          `db:"type"`
	Payload        json.RawMessage `db:"payload"`
	CreatedAt      time.Time       `db:"created_at"`
}

// ConversationGoneError says an append named a conversation that does not
// exist (deleted while a turn was still running, or a bad id). It matches
// ErrNotFound. A group commit uses ConversationID to fail only the appends
// of that conversation and write the others.
type ConversationGoneError struct {
	ConversationID string
}

func (e *ConversationGoneError) Error() string {
	return "conversation " + e.ConversationID + " not found"
}

// Is makes a ConversationGoneError match ErrNotFound.
func (e *ConversationGoneError) Is(target error) bool { return target == ErrNotFound }

const eventColumns = `conversation_id::text AS conversation_id, seq, coalesce(turn_id::text, '') AS turn_id, type, payload, created_at`

// scanEventRow scans a row of eventColumns, in their order. It does what
// pgx.RowToStructByName would without its reflection, and takes the payload
// as the bytes PostgreSQL sent rather than through json.RawMessage's
// UnmarshalJSON, which checked it again. An append scans every row it
// writes: this saved 8 of a tool call's 125 allocations (ToolCallCPU).
func scanEventRow(row pgx.CollectableRow) (EventRow, error) {
	var (
		r       EventRow
		payload []byte
	)
	err := row.Scan(&r.ConversationID, &r.Seq, &r.TurnID, &r.Type, &payload, &r.CreatedAt)
	r.Payload = payload
	return r, err
}

// lockEventConversationsSQL locks the conversations of a batch in id order,
// so that two batches sharing conversations (two processes' writers) cannot
// deadlock. A batch of one conversation needs no separate lock: its
// allocation takes the one lock there is.
const lockEventConversationsSQL = `
SELECT id FROM conversations WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`

// insertEventsSQL allocates each conversation's next sequence numbers,
// announces them and inserts the events with them, in one statement. The
// UPDATE's row lock serialises the appenders of one conversation across
// server processes until commit, so commit order is sequence order. An
// event's seq is its conversation's base plus its rank among that
// conversation's events in the batch (k, 1-based, computed by the caller).
// It leaves the conversation's updated_at alone (a turn's start and end set
// it): updated_at is indexed, so changing it would make every append write
// two index entries besides the counter's new row version, where changing
// only the counter is a heap-only update.
//
// A batch of the log's writer ($9, else NULL) is recorded in event_batches
// with each conversation's base, in the same transaction (AppendEventBatch).
//
// The notification, one per conversation, tells the other server processes
// which range to read: origin|conversation|first|last; PostgreSQL delivers
// it at commit, and never for a transaction that rolls back. An event of a
// conversation that does not exist finds no allocation and fails the
// statement on events.seq being null (see appendGone).
const insertEventsSQL = `
WITH alloc AS (
    UPDATE conversations v SET last_event_seq = v.last_event_seq + k.n
    FROM unnest($6::uuid[], $7::bigint[]) AS k(id, n)
    WHERE v.id = k.id
    RETURNING v.id, v.last_event_seq - k.n AS base,
        pg_notify('` + EventsChannel + `', $8 || '|' || v.id::text || '|' || (v.last_event_seq - k.n + 1)::text || '|' || v.last_event_seq::text) AS announced
),
ledger AS (
    INSERT INTO event_batches (id, groups)
    SELECT $9::uuid, jsonb_object_agg(id::text, base) FROM alloc
    HAVING $9::uuid IS NOT NULL
)
INSERT INTO events (conversation_id, seq, turn_id, type, payload)
SELECT u.c::uuid, a.base + u.k, NULLIF(u.t, '')::uuid, u.ty, u.p
FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::jsonb[]) AS u(c, k, t, ty, p)
LEFT JOIN alloc a ON a.id = u.c::uuid
RETURNING ` + eventColumns

// AppendEvents appends a batch of events, possibly of several
// conversations, in one transaction: each conversation's events get the
// next sequence numbers in batch order, and a notification on EventsChannel
// per conversation tells the other server processes which range to read.
// origin names the appending process so that it can ignore its own
// notifications; it must not contain '|'. The rows come back in batch order.
// A missing conversation fails the whole batch with a
// *ConversationGoneError.
//
// The batch is one pipeline of statements in PostgreSQL's implicit
// transaction, committed at its Sync: one round trip to the database, as
// for a bare one-row commit. Any failing statement rolls the whole batch
// back.
func (db *DB) AppendEvents(ctx context.Context, origin string, batch []NewEvent) ([]EventRow, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	a, err := queueAppendEvents(b, origin, batch)
	if err != nil {
		return nil, translate("append events", err)
	}
	if err := db.pool.SendBatch(ctx, b).Close(); err != nil {
		if gone := db.appendGone(ctx, err, a.groups); gone != nil {
			return nil, translate("append events", gone)
		}
		return nil, translate("append events", err)
	}
	return a.out, nil
}

// appendGone turns the failure of a batch whose conversation was deleted
// into a *ConversationGoneError naming it, so that a group commit can fail
// the appends of that conversation only; nil for any other failure.
func (db *DB) appendGone(ctx context.Context, err error, groups []eventGroup) error {
	if !seqNotAllocated(err) {
		return nil
	}
	ids := make([]string, len(groups))
	for i, g := range groups {
		ids[i] = g.id
	}
	rows, _ := db.pool.Query(ctx, `SELECT id::text FROM conversations WHERE id = ANY($1::uuid[])`, ids)
	found, qerr := pgx.CollectRows(rows, pgx.RowTo[string])
	if qerr != nil {
		return nil
	}
	for _, id := range ids {
		if !slices.Contains(found, id) {
			return &ConversationGoneError{ConversationID: id}
		}
	}
	return nil
}

// seqNotAllocated reports the failure of an insert into events whose
// conversation row was gone, so no sequence number was allocated for it.
func seqNotAllocated(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23502" && pgErr.TableName == "events"
}

// eventGroup is one conversation's share of an append batch.
type eventGroup struct {
	id    string // canonical (lower-case) uuid text
	count int64
}

// queuedAppend is an append queued on a pgx.Batch: out holds the rows, in
// batch order, once the batch has run without error.
type queuedAppend struct {
	groups []eventGroup
	convs  []string // each event's conversation, canonical
	out    []EventRow
}

// queueAppendEvents queues the statements that append batch (the locks
// when it has several conversations, then the insert) on b, so that a store method can send them in the
// same round trip as its own statements.
func queueAppendEvents(b *pgx.Batch, origin string, batch []NewEvent) (*queuedAppend, error) {
	return queueAppendBatch(b, origin, "", batch)
}

// queueAppendBatch is queueAppendEvents for a batch that records itself in
// event_batches under batchID ("" records nothing).
func queueAppendBatch(b *pgx.Batch, origin, batchID string, batch []NewEvent) (*queuedAppend, error) {
	if strings.Contains(origin, "|") {
		return nil, fmt.Errorf("append events: origin %q contains '|'", origin)
	}
	var (
		convs    = make([]string, len(batch))
		ranks    = make([]int64, len(batch))
		turns    = make([]string, len(batch))
		types    = make([]string, len(batch))
		payloads = make([]json.RawMessage, len(batch))
		a        = &queuedAppend{convs: convs, out: make([]EventRow, len(batch))}
	)
	for i, e := range batch {
		convs[i] = strings.ToLower(e.ConversationID)
		turns[i], types[i], payloads[i] = e.TurnID, e.Type, e.Payload
		if j := slices.IndexFunc(a.groups, func(g eventGroup) bool { return g.id == convs[i] }); j >= 0 {
			a.groups[j].count++
			ranks[i] = a.groups[j].count
		} else {
			a.groups = append(a.groups, eventGroup{id: convs[i], count: 1})
			ranks[i] = 1
		}
	}
	slices.SortFunc(a.groups, func(x, y eventGroup) int { return strings.Compare(x.id, y.id) })
	ids := make([]string, len(a.groups))
	counts := make([]int64, len(a.groups))
	for i, g := range a.groups {
		ids[i], counts[i] = g.id, g.count
	}
	if len(a.groups) > 1 {
		b.Queue(lockEventConversationsSQL, ids)
	}
	b.Queue(insertEventsSQL, convs, ranks, turns, types, payloads, ids, counts, origin, nullable(batchID)).Query(func(rows pgx.Rows) error {
		inserted, err := pgx.CollectRows(rows, scanEventRow)
		if err != nil {
			return err
		}
		if len(inserted) != len(batch) {
			return fmt.Errorf("append events: inserted %d of %d rows", len(inserted), len(batch))
		}
		return a.place(inserted)
	})
	return a, nil
}

// place puts the inserted rows in batch order: within a conversation the
// sequence numbers follow the batch, so the k-th row of a conversation by
// seq is that conversation's k-th event of the batch.
func (a *queuedAppend) place(inserted []EventRow) error {
	slices.SortFunc(inserted, func(x, y EventRow) int {
		if c := strings.Compare(x.ConversationID, y.ConversationID); c != 0 {
			return c
		}
		return cmp.Compare(x.Seq, y.Seq)
	})
	next := make(map[string][]EventRow, len(a.groups))
	for len(inserted) > 0 {
		id := inserted[0].ConversationID
		n := 1
		for n < len(inserted) && inserted[n].ConversationID == id {
			n++
		}
		next[id], inserted = inserted[:n], inserted[n:]
	}
	for i, id := range a.convs {
		rows := next[id]
		if len(rows) == 0 {
			return fmt.Errorf("append events: no row for event %d of conversation %s", i, id)
		}
		a.out[i], next[id] = rows[0], rows[1:]
	}
	return nil
}

// appendEventsTx appends batch inside tx, for store methods that must write
// events in the same transaction as other rows (a strategy change and its
// graph_snapshot). The caller publishes the returned rows to the local
// broker after its commit; the notification to other processes is sent at
// commit by PostgreSQL.
func appendEventsTx(ctx context.Context, tx pgx.Tx, origin string, batch []NewEvent) ([]EventRow, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	a, err := queueAppendEvents(b, origin, batch)
	if err != nil {
		return nil, err
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	return a.out, nil
}

const conversationOwnedSQL = `SELECT EXISTS (SELECT 1 FROM conversations WHERE id = $1 AND user_id = $2)`

const eventsAfterSQL = `
SELECT ` + eventColumns + `
FROM events e
WHERE e.conversation_id = $1 AND e.seq > $3
  AND EXISTS (SELECT 1 FROM conversations c WHERE c.id = $1 AND c.user_id = $2)
ORDER BY e.seq
LIMIT $4`

// EventsAfter returns up to limit events of a user's conversation with seq
// above after, in order. Another user's conversation is ErrNotFound.
func (db *DB) EventsAfter(ctx context.Context, userID, conversationID string, after int64, limit int) ([]EventRow, error) {
	var (
		owned bool
		rows  []EventRow
	)
	b := &pgx.Batch{}
	b.Queue(conversationOwnedSQL, conversationID, userID).QueryRow(func(row pgx.Row) error { return row.Scan(&owned) })
	b.Queue(eventsAfterSQL, conversationID, userID, after, limit).Query(func(r pgx.Rows) error {
		var err error
		rows, err = pgx.CollectRows(r, scanEventRow)
		return err
	})
	if err := db.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, translate("events after", err)
	}
	if !owned {
		return nil, translate("events after", ErrNotFound)
	}
	return rows, nil
}

const eventsRangeSQL = `
SELECT ` + eventColumns + `
FROM events WHERE conversation_id = $1 AND seq BETWEEN $2 AND $3
ORDER BY seq`

// EventsRange returns a conversation's events with from <= seq <= to, in
// order. It does not check an owner: it serves the fan-out of events
// between server processes, never a user's request.
func (db *DB) EventsRange(ctx context.Context, conversationID string, from, to int64) ([]EventRow, error) {
	rs, err := collect(ctx, db, scanEventRow, eventsRangeSQL, conversationID, from, to)
	return rs, translate("events range", err)
}

const latestEventsSQL = `
SELECT e.conversation_id::text AS conversation_id, e.seq, coalesce(e.turn_id::text, '') AS turn_id, e.type, e.payload, e.created_at
FROM conversations c JOIN events e ON e.conversation_id = c.id AND e.seq = c.last_event_seq
WHERE c.id = ANY($1::text[]::uuid[])`

// LatestEvents returns the last event of each of the conversations that has
// one. Like EventsRange it serves the fan-out between server processes (to
// wake subscribers after the notification connection was lost) and checks
// no owner.
func (db *DB) LatestEvents(ctx context.Context, conversationIDs []string) ([]EventRow, error) {
	if len(conversationIDs) == 0 {
		return nil, nil
	}
	rs, err := collect(ctx, db, scanEventRow, latestEventsSQL, conversationIDs)
	return rs, translate("latest events", err)
}

const lastEventSeqSQL = `SELECT last_event_seq FROM conversations WHERE id = $1 AND user_id = $2`

// LastEventSeq returns the sequence number of a user's conversation's last
// event (0 before the first). Another user's conversation is ErrNotFound.
func (db *DB) LastEventSeq(ctx context.Context, userID, conversationID string) (int64, error) {
	var seq int64
	err := db.retry(ctx, func() error { return db.pool.QueryRow(ctx, lastEventSeqSQL, conversationID, userID).Scan(&seq) })
	return seq, translate("last event seq", err)
}
