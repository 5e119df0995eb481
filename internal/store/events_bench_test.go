package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// BenchmarkAppendEvents compares the multi-row INSERT ... SELECT unnest
// that AppendEvents uses with COPY (which cannot return the stored rows, so
// it reads them back), per batch size. One op is one batch.
func BenchmarkAppendEvents(b *testing.B) {
	ctx := context.Background()
	db, u := benchDB(b)
	payload := []byte(`{"turnId":"7f2b1c3e-0000-4000-8000-000000000001","messageId":"m1","delta":"a few words of streamed assistant text"}`)
	for _, size := range []int{1, 16, 256} {
		for _, variant := range []struct {
			name   string
			append func(context.Context, string, []store.NewEvent) ([]store.EventRow, error)
		}{{"insert", db.AppendEvents}, {"copy", db.AppendEventsCopy}} {
			b.Run(fmt.Sprintf("batch=%d/%s", size, variant.name), func(b *testing.B) {
				c, err := db.CreateConversation(ctx, u.ID, "plasmodb", "", "offline")
				if err != nil {
					b.Fatal(err)
				}
				batch := make([]store.NewEvent, size)
				for i := range batch {
					batch[i] = store.NewEvent{ConversationID: c.ID, TurnID: "7f2b1c3e-0000-4000-8000-000000000001", Type: "assistant_delta", Payload: payload}
				}
				for b.Loop() {
					if _, err := variant.append(ctx, "bench", batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

// BenchmarkStartTurnTx measures a turn's start in the store alone (its
// checks, the turn, the user message, the turn's job and the turn_start
// event, one round trip), each on a new conversation, against a bare
// one-row commit on the same pool sampled just before each start.
// "back-to-back" starts one turn after another; "after-pause" first waits
// 20 ms and warms the floor's path with one commit, as PostToTurnStart does
// between turns, so the pair shows how much of the HTTP benchmark's figure
// the transaction itself is, and what a pause costs a transaction that
// touches five tables where the floor touches one.
func BenchmarkStartTurnTx(b *testing.B) {
	for _, pause := range []time.Duration{0, 20 * time.Millisecond} {
		name := "back-to-back"
		if pause > 0 {
			name = "after-pause"
		}
		b.Run(name, func(b *testing.B) { benchmarkStartTurnTx(b, pause) })
	}
}

func benchmarkStartTurnTx(b *testing.B, pause time.Duration) {
	ctx := context.Background()
	db, u := benchDB(b)
	floor := pgtest.NewFloor(b, db.Pool())
	var lat []time.Duration
	for b.Loop() {
		b.StopTimer()
		c, err := db.CreateConversation(ctx, u.ID, "plasmodb", "", "offline")
		if err != nil {
			b.Fatal(err)
		}
		turn, msg := uuid.NewString(), uuid.NewString()
		payload := fmt.Appendf(nil, `{"turnId":%q,"mode":"plan","model":"offline","userMessageId":%q,"message":"tRNA genes"}`, turn, msg)
		if pause > 0 {
			time.Sleep(pause)
			floor.Warm(b)
		}
		floor.Sample(b, 3)
		b.StartTimer()
		start := time.Now()
		if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: u.ID, ConversationID: c.ID, TurnID: turn, Mode: "plan", Model: "offline",
			Message: store.NewMessage{ID: msg, Role: "user", Content: "tRNA genes"}, Origin: "bench",
			Events: []store.NewEvent{{ConversationID: c.ID, TurnID: turn, Type: "turn_start", Payload: payload}}}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	floor.Report(b, lat)
}

// benchDB is a fresh database with one user, for a store benchmark.
func benchDB(b *testing.B) (*store.DB, store.User) {
	b.Helper()
	db, err := store.New(pgtest.New(b))
	if err != nil {
		b.Fatal(err)
	}
	u, err := db.CreateUser(context.Background(), "bench@example.org", "$argon2id$test")
	if err != nil {
		b.Fatal(err)
	}
	return db, u
}
