package store

import (
	"context"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// AppendEventsInTx runs appendEventsTx inside a transaction and then fn,
// committing only when fn returns nil: the way another store method appends
// events in its own transaction.
func (db *DB) AppendEventsInTx(ctx context.Context, origin string, batch []NewEvent, fn func([]EventRow) error) ([]EventRow, error) {
	var rows []EventRow
	err := db.tx(ctx, "append events in tx", func(tx pgx.Tx) error {
		var err error
		if rows, err = appendEventsTx(ctx, tx, origin, batch); err != nil {
			return err
		}
		return fn(rows)
	})
	return rows, err
}

// AppendEventsCopy is the COPY variant of AppendEvents, kept for the
// benchmark that compares it with the multi-row INSERT AppendEvents uses.
// COPY cannot return rows, so it reads them back in the same transaction.
func (db *DB) AppendEventsCopy(ctx context.Context, origin string, batch []NewEvent) ([]EventRow, error) {
	var out []EventRow
	err := db.tx(ctx, "append events copy", func(tx pgx.Tx) error {
		if len(batch) == 0 {
			return nil
		}
		conv := batch[0].ConversationID
		for _, e := range batch {
			if e.ConversationID != conv {
				return errors.New("copy variant: one conversation per batch")
			}
		}
		var last int64
		if err := tx.QueryRow(ctx, `UPDATE conversations SET last_event_seq = last_event_seq + $2, updated_at = now() WHERE id = $1 RETURNING last_event_seq`, conv, len(batch)).Scan(&last); err != nil {
			return err
		}
		first := last - int64(len(batch)) + 1
		src := make([][]any, len(batch))
		for i, e := range batch {
			var turn any
			if e.TurnID != "" {
				turn = e.TurnID
			}
			src[i] = []any{conv, first + int64(i), turn, e.Type, string(e.Payload)}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"events"},
			[]string{"conversation_id", "seq", "turn_id", "type", "payload"}, pgx.CopyFromRows(src)); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, eventsRangeSQL, conv, first, last)
		var err error
		if out, err = pgx.CollectRows(rows, pgx.RowToStructByName[EventRow]); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `SELECT pg_notify('`+EventsChannel+`', $1)`, origin+"|"+conv+"|"+itoa(first)+"|"+itoa(last))
		return err
	})
	return out, err
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
