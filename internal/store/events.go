package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
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

// allocateEventSeqSQL reserves n sequence numbers of a conversation. The row
// lock it takes serialises the appenders of one conversation across server
// processes until commit, so commit order is sequence order.
const allocateEventSeqSQL = `
UPDATE conversations SET last_event_seq = last_event_seq + $2, updated_at = now()
WHERE id = $1
RETURNING last_event_seq`

const insertEventsSQL = `
INSERT INTO events (conversation_id, seq, turn_id, type, payload)
SELECT c::uuid, s, NULLIF(t, '')::uuid, ty, p
FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::jsonb[]) AS u(c, s, t, ty, p)
RETURNING ` + eventColumns

const notifyEventsSQL = `SELECT pg_notify('` + EventsChannel + `', m) FROM unnest($1::text[]) AS m`

// AppendEvents appends a batch of events, possibly of several
// conversations, in one transaction: each conversation's events get the
// next sequence numbers in batch order, and a notification on EventsChannel
// per conversation tells the other server processes which range to read.
// origin names the appending process so that it can ignore its own
// notifications; it must not contain '|'. The rows come back in batch order.
// A missing conversation fails the whole batch with a
// *ConversationGoneError.
func (db *DB) AppendEvents(ctx context.Context, origin string, batch []NewEvent) ([]EventRow, error) {
	var rows []EventRow
	err := db.tx(ctx, "append events", func(tx pgx.Tx) error {
		var err error
		rows, err = appendEventsTx(ctx, tx, origin, batch)
		return err
	})
	return rows, err
}

// eventGroup is one conversation's share of an append batch.
type eventGroup struct {
	id    string // canonical (lower-case) uuid text
	count int64
	last  int64 // last_event_seq after allocation
}

// appendEventsTx appends batch inside tx, for store methods that must write
// events in the same transaction as other rows (a turn's user message, turn
// row and turn_start). The caller publishes the returned rows to the local
// broker after its commit; the notification to other processes is sent at
// commit by PostgreSQL.
//
// Conversations are locked in id order so that two batches that share
// conversations cannot deadlock.
func appendEventsTx(ctx context.Context, tx pgx.Tx, origin string, batch []NewEvent) ([]EventRow, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	if strings.Contains(origin, "|") {
		return nil, fmt.Errorf("append events: origin %q contains '|'", origin)
	}
	ids := make([]string, len(batch))
	counts := map[string]int64{}
	for i, e := range batch {
		ids[i] = strings.ToLower(e.ConversationID)
		counts[ids[i]]++
	}
	groups := make([]*eventGroup, 0, len(counts))
	for id, n := range counts {
		groups = append(groups, &eventGroup{id: id, count: n})
	}
	slices.SortFunc(groups, func(a, b *eventGroup) int { return strings.Compare(a.id, b.id) })

	alloc := &pgx.Batch{}
	for _, g := range groups {
		alloc.Queue(allocateEventSeqSQL, g.id, g.count).QueryRow(func(row pgx.Row) error {
			if err := row.Scan(&g.last); err != nil {
				if errors.Is(err, pgx.ErrNoRows) {
					return &ConversationGoneError{ConversationID: g.id}
				}
				return err
			}
			return nil
		})
	}
	if err := tx.SendBatch(ctx, alloc).Close(); err != nil {
		return nil, err
	}

	var (
		convs    = make([]string, len(batch))
		seqs     = make([]int64, len(batch))
		turns    = make([]string, len(batch))
		types    = make([]string, len(batch))
		payloads = make([]json.RawMessage, len(batch))
		next     = make(map[string]int64, len(groups))
		position = make(map[seqKey]int, len(batch))
	)
	for _, g := range groups {
		next[g.id] = g.last - g.count + 1
	}
	for i, e := range batch {
		convs[i], turns[i], types[i], payloads[i] = ids[i], e.TurnID, e.Type, e.Payload
		seqs[i] = next[ids[i]]
		next[ids[i]]++
		position[seqKey{ids[i], seqs[i]}] = i
	}
	notes := make([]string, len(groups))
	for i, g := range groups {
		notes[i] = origin + "|" + g.id + "|" + strconv.FormatInt(g.last-g.count+1, 10) + "|" + strconv.FormatInt(g.last, 10)
	}

	out := make([]EventRow, len(batch))
	write := &pgx.Batch{}
	write.Queue(insertEventsSQL, convs, seqs, turns, types, payloads).Query(func(rows pgx.Rows) error {
		inserted, err := pgx.CollectRows(rows, pgx.RowToStructByName[EventRow])
		if err != nil {
			return err
		}
		if len(inserted) != len(batch) {
			return fmt.Errorf("append events: inserted %d of %d rows", len(inserted), len(batch))
		}
		for _, r := range inserted {
			i, ok := position[seqKey{r.ConversationID, r.Seq}]
			if !ok {
				return fmt.Errorf("append events: unexpected row %s/%d", r.ConversationID, r.Seq)
			}
			out[i] = r
		}
		return nil
	})
	write.Queue(notifyEventsSQL, notes)
	if err := tx.SendBatch(ctx, write).Close(); err != nil {
		return nil, err
	}
	return out, nil
}

type seqKey struct {
	conversation string
	seq          int64
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
		rows, err = pgx.CollectRows(r, pgx.RowToStructByName[EventRow])
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
	rows, _ := db.pool.Query(ctx, eventsRangeSQL, conversationID, from, to)
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[EventRow])
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
	rows, _ := db.pool.Query(ctx, latestEventsSQL, conversationIDs)
	rs, err := pgx.CollectRows(rows, pgx.RowToStructByName[EventRow])
	return rs, translate("latest events", err)
}

const lastEventSeqSQL = `SELECT last_event_seq FROM conversations WHERE id = $1 AND user_id = $2`

// LastEventSeq returns the sequence number of a user's conversation's last
// event (0 before the first). Another user's conversation is ErrNotFound.
func (db *DB) LastEventSeq(ctx context.Context, userID, conversationID string) (int64, error) {
	var seq int64
	err := db.pool.QueryRow(ctx, lastEventSeqSQL, conversationID, userID).Scan(&seq)
	return seq, translate("last event seq", err)
}
