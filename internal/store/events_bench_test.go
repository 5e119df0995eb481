package store_test

import (
	"context"
	"fmt"
	"testing"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// BenchmarkAppendEvents compares the multi-row INSERT ... SELECT unnest
// that AppendEvents uses with COPY (which cannot return the stored rows, so
// it reads them back), per batch size. One op is one batch.
func BenchmarkAppendEvents(b *testing.B) {
	ctx := context.Background()
	db, err := store.New(pgtest.New(b))
	if err != nil {
		b.Fatal(err)
	}
	u, err := db.CreateUser(ctx, "bench@example.org", "$argon2id$test")
	if err != nil {
		b.Fatal(err)
	}
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
