package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// TestAppendEventBatchOnce: a batch retried after a failure that came after
// its commit (the connection lost before the answer) is found, not written
// again: the retry returns the rows of the first attempt, and the log holds
// each event once. A batch that did not commit is written by its retry.
func TestAppendEventBatchOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	var convs []string
	for range 2 {
		c, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "", "offline")
		if err != nil {
			t.Fatal(err)
		}
		convs = append(convs, c.ID)
	}
	var events []store.NewEvent
	for i := range 5 {
		events = append(events, store.NewEvent{ConversationID: convs[i%2], Type: "assistant_delta",
			Payload: json.RawMessage(fmt.Sprintf(`{"delta":"%d"}`, i))})
	}
	id := uuid.NewString()
	first, err := db.AppendEventBatch(ctx, store.EventBatch{ID: id, Origin: "p1", Events: events})
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.AppendEventBatch(ctx, store.EventBatch{ID: id, Origin: "p1", Events: events, Retry: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("the retry's rows differ from the commit's (-first +retry):\n%s", diff)
	}
	for _, c := range convs {
		rows, err := db.EventsAfter(ctx, ada.ID, c, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if want := 2 + len(events)%2*boolInt(c == convs[0]); len(rows) != want {
			t.Errorf("conversation has %d events, want %d", len(rows), want)
		}
	}
	fresh, err := db.AppendEventBatch(ctx, store.EventBatch{ID: uuid.NewString(), Origin: "p1", Events: events[:1], Retry: true})
	if err != nil || len(fresh) != 1 || fresh[0].Seq != 4 {
		t.Errorf("a retried batch that never committed = %v, %v; want written with seq 4", fresh, err)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestUnavailable: connection failures are the database being unavailable;
// a failed statement is not.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "53300"}, true},
		{fmt.Errorf("store: x: %w", io.ErrUnexpectedEOF), true},
		{context.DeadlineExceeded, true},
		{&pgconn.PgError{Code: "23505"}, false},
		{errors.New("boom"), false},
		{nil, false},
	} {
		if got := store.Unavailable(c.err); got != c.want {
			t.Errorf("Unavailable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	// A statement its caller cancelled (a researcher's Stop) is not the
	// database away, though pgx calls it a timeout that is safe to retry:
	// a turn cancelled while it loads its messages ends as cancelled, it
	// is not handed back to wait for the database.
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Pool().Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = conn.Exec(ctx, "select 1")
	if err == nil || store.Unavailable(err) {
		t.Errorf("a cancelled statement: err %v, Unavailable %v; want an error that is not unavailability", err, store.Unavailable(err))
	}
}
