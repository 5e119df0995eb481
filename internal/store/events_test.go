package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5/pgxpool"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// eventSummary is the part of an EventRow the tests compare exactly.
type eventSummary struct {
	Conv    string
	Seq     int64
	Turn    string
	Type    string
	Payload string
}

func summarize(rows []store.EventRow, names map[string]string) []eventSummary {
	out := make([]eventSummary, len(rows))
	for i, r := range rows {
		out[i] = eventSummary{names[r.ConversationID], r.Seq, r.TurnID, r.Type, string(r.Payload)}
	}
	return out
}

func newEvent(conv, turn, typ, payload string) store.NewEvent {
	return store.NewEvent{ConversationID: conv, TurnID: turn, Type: typ, Payload: json.RawMessage(payload)}
}

func mustConversation(t *testing.T, db *store.DB, userID string) store.Conversation {
	t.Helper()
	c, err := db.CreateConversation(context.Background(), userID, "plasmodb", "", "offline")
	if err != nil {
		t.Fatalf("CreateConversation: %v", err)
	}
	return c
}

func TestAppendEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	a, b := mustConversation(t, db, ada.ID), mustConversation(t, db, ada.ID)
	names := map[string]string{a.ID: "a", b.ID: "b"}
	const turn = "7f2b1c3e-0000-4000-8000-000000000001"

	rows, err := db.AppendEvents(ctx, "p1", []store.NewEvent{
		newEvent(a.ID, turn, "turn_start", `{"turnId": "x",   "mode":"plan"}`),
		newEvent(b.ID, "", "error", `{"b":1,"a":2}`),
		newEvent(strings.ToUpper(a.ID), turn, "assistant_delta", `{"delta":"hi"}`),
		newEvent(a.ID, turn, "turn_end", `{}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Rows come back in batch order, with jsonb's text of the payload.
	want := []eventSummary{
		{"a", 1, turn, "turn_start", `{"mode": "plan", "turnId": "x"}`},
		{"b", 1, "", "error", `{"a": 2, "b": 1}`},
		{"a", 2, turn, "assistant_delta", `{"delta": "hi"}`},
		{"a", 3, turn, "turn_end", `{}`},
	}
	if diff := cmp.Diff(want, summarize(rows, names)); diff != "" {
		t.Errorf("AppendEvents() mismatch (-want +got):\n%s", diff)
	}
	for _, r := range rows {
		if r.CreatedAt.IsZero() {
			t.Errorf("row %d has no created_at", r.Seq)
		}
	}

	// A second batch continues the sequences.
	more, err := db.AppendEvents(ctx, "p1", []store.NewEvent{newEvent(b.ID, "", "usage", `{}`), newEvent(a.ID, "", "usage", `{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := []int64{more[0].Seq, more[1].Seq}; !cmp.Equal(got, []int64{2, 4}) {
		t.Errorf("second batch seqs = %v, want [2 4]", got)
	}

	// What the table gives back equals what the append returned, byte for byte.
	stored, err := db.EventsAfter(ctx, ada.ID, a.ID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	wantStored := []store.EventRow{rows[0], rows[2], rows[3], more[1]}
	if diff := cmp.Diff(wantStored, stored, cmpopts.EquateComparable(time.Time{})); diff != "" {
		t.Errorf("EventsAfter() mismatch with appended rows (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		conv string
		want int64
	}{{a.ID, 4}, {b.ID, 2}} {
		seq, err := db.LastEventSeq(ctx, ada.ID, c.conv)
		if err != nil || seq != c.want {
			t.Errorf("LastEventSeq(%s) = %d, %v; want %d", names[c.conv], seq, err, c.want)
		}
	}
}

func TestAppendEventsMissingConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	a := mustConversation(t, db, ada.ID)
	const gone = "00000000-0000-4000-8000-00000000dead"

	_, err := db.AppendEvents(ctx, "p1", []store.NewEvent{newEvent(a.ID, "", "usage", `{}`), newEvent(gone, "", "usage", `{}`)})
	var goneErr *store.ConversationGoneError
	if !errors.As(err, &goneErr) || goneErr.ConversationID != gone || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("AppendEvents(missing conversation) error = %v, want a ConversationGoneError for %s matching ErrNotFound", err, gone)
	}
	// Nothing of the batch was written, not even the other conversation's event.
	if seq, _ := db.LastEventSeq(ctx, ada.ID, a.ID); seq != 0 {
		t.Errorf("LastEventSeq after a failed batch = %d, want 0", seq)
	}
	if rows, _ := db.EventsAfter(ctx, ada.ID, a.ID, 0, 10); len(rows) != 0 {
		t.Errorf("events after a failed batch = %v, want none", rows)
	}
	if _, err := db.AppendEvents(ctx, "p|1", []store.NewEvent{newEvent(a.ID, "", "usage", `{}`)}); err == nil {
		t.Error("AppendEvents with '|' in the origin succeeded, want an error")
	}
	if rows, err := db.AppendEvents(ctx, "p1", nil); err != nil || len(rows) != 0 {
		t.Errorf("AppendEvents(empty) = %v, %v; want nothing", rows, err)
	}
}

func TestAppendEventsInCallersTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	a := mustConversation(t, db, ada.ID)
	errRollback := errors.New("rollback")

	_, err := db.AppendEventsInTx(ctx, "p1", []store.NewEvent{newEvent(a.ID, "", "turn_start", `{}`)},
		func([]store.EventRow) error { return errRollback })
	if !errors.Is(err, errRollback) {
		t.Fatalf("AppendEventsInTx error = %v, want the caller's", err)
	}
	if seq, _ := db.LastEventSeq(ctx, ada.ID, a.ID); seq != 0 {
		t.Errorf("a rolled back append left last_event_seq = %d, want 0", seq)
	}
	rows, err := db.AppendEventsInTx(ctx, "p1", []store.NewEvent{newEvent(a.ID, "", "turn_start", `{}`)},
		func([]store.EventRow) error { return nil })
	if err != nil || len(rows) != 1 || rows[0].Seq != 1 {
		t.Fatalf("AppendEventsInTx = %v, %v; want one row with seq 1", rows, err)
	}
}

func TestEventsAfterOwnerAndPaging(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada, bob := mustUser(t, db, "ada@example.org"), mustUser(t, db, "bob@example.org")
	a := mustConversation(t, db, ada.ID)
	var batch []store.NewEvent
	for i := range 7 {
		batch = append(batch, newEvent(a.ID, "", "assistant_delta", fmt.Sprintf(`{"delta":"%d"}`, i)))
	}
	if _, err := db.AppendEvents(ctx, "p1", batch); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		user, conv   string
		after        int64
		limit        int
		wantSeqs     []int64
		wantNotFound bool
	}{
		{name: "first page", user: ada.ID, conv: a.ID, after: 0, limit: 3, wantSeqs: []int64{1, 2, 3}},
		{name: "middle page", user: ada.ID, conv: a.ID, after: 3, limit: 3, wantSeqs: []int64{4, 5, 6}},
		{name: "last page", user: ada.ID, conv: a.ID, after: 6, limit: 3, wantSeqs: []int64{7}},
		{name: "nothing new", user: ada.ID, conv: a.ID, after: 7, limit: 3, wantSeqs: []int64{}},
		{name: "another user's", user: bob.ID, conv: a.ID, after: 0, limit: 3, wantNotFound: true},
		{name: "unknown", user: ada.ID, conv: "00000000-0000-4000-8000-00000000beef", limit: 3, wantNotFound: true},
		{name: "malformed id", user: ada.ID, conv: "not-a-uuid", limit: 3, wantNotFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := db.EventsAfter(ctx, tt.user, tt.conv, tt.after, tt.limit)
			if tt.wantNotFound {
				if !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("EventsAfter() = %v, %v; want ErrNotFound", rows, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{}
			for _, r := range rows {
				got = append(got, r.Seq)
			}
			if diff := cmp.Diff(tt.wantSeqs, got); diff != "" {
				t.Errorf("EventsAfter() seqs mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := db.LastEventSeq(ctx, bob.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LastEventSeq(another user's) error = %v, want ErrNotFound", err)
	}
}

func TestEventsRangeAndLatest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	a, b, empty := mustConversation(t, db, ada.ID), mustConversation(t, db, ada.ID), mustConversation(t, db, ada.ID)
	names := map[string]string{a.ID: "a", b.ID: "b"}
	var batch []store.NewEvent
	for i := range 5 {
		batch = append(batch, newEvent(a.ID, "", "usage", fmt.Sprintf(`{"n":%d}`, i)))
	}
	batch = append(batch, newEvent(b.ID, "", "usage", `{"n":9}`))
	if _, err := db.AppendEvents(ctx, "p1", batch); err != nil {
		t.Fatal(err)
	}
	rows, err := db.EventsRange(ctx, a.ID, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []eventSummary{{"a", 2, "", "usage", `{"n": 1}`}, {"a", 3, "", "usage", `{"n": 2}`}, {"a", 4, "", "usage", `{"n": 3}`}}
	if diff := cmp.Diff(want, summarize(rows, names)); diff != "" {
		t.Errorf("EventsRange() mismatch (-want +got):\n%s", diff)
	}
	latest, err := db.LatestEvents(ctx, []string{a.ID, b.ID, empty.ID})
	if err != nil {
		t.Fatal(err)
	}
	wantLatest := []eventSummary{{"a", 5, "", "usage", `{"n": 4}`}, {"b", 1, "", "usage", `{"n": 9}`}}
	sortByConv := cmpopts.SortSlices(func(x, y eventSummary) bool { return x.Conv < y.Conv })
	if diff := cmp.Diff(wantLatest, summarize(latest, names), sortByConv); diff != "" {
		t.Errorf("LatestEvents() mismatch (-want +got):\n%s", diff)
	}
}

// TestAppendEventsConcurrentPools appends to one conversation from two pools
// (two server processes) at once: the row lock makes the sequence
// contiguous, and each appender's events keep their order.
func TestAppendEventsConcurrentPools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.NewURL(t)
	dbs := make([]*store.DB, 2)
	for i := range dbs {
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		db, err := store.New(pool)
		if err != nil {
			t.Fatal(err)
		}
		dbs[i] = db
	}
	ada := mustUser(t, dbs[0], "ada@example.org")
	a := mustConversation(t, dbs[0], ada.ID)
	const writers, batches, perBatch = 6, 10, 3
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range batches {
				var batch []store.NewEvent
				for j := range perBatch {
					batch = append(batch, newEvent(a.ID, "", "usage", fmt.Sprintf(`{"w":%d,"i":%d}`, w, i*perBatch+j)))
				}
				if _, err := dbs[w%2].AppendEvents(ctx, fmt.Sprint("p", w%2), batch); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	rows, err := dbs[1].EventsAfter(ctx, ada.ID, a.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != writers*batches*perBatch {
		t.Fatalf("stored %d events, want %d", len(rows), writers*batches*perBatch)
	}
	next := map[int]int{}
	for i, r := range rows {
		if r.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: sequence not contiguous", i, r.Seq)
		}
		var p struct{ W, I int }
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if p.I != next[p.W] {
			t.Fatalf("writer %d: event %d stored before %d", p.W, p.I, next[p.W])
		}
		next[p.W]++
	}
}
