package store_test

import (
	"context"
	"testing"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// BenchmarkSearchConversations searches one of two researchers' 500
// conversations of 40 messages each (20,000 messages apiece, each with a
// strategy of three steps), for a rare word and for a common one. One op is
// one search.
func BenchmarkSearchConversations(b *testing.B) {
	ctx := context.Background()
	db, err := store.New(pgtest.New(b))
	if err != nil {
		b.Fatal(err)
	}
	var users []string
	for _, email := range []string{"ada@example.org", "bob@example.org"} {
		u, err := db.CreateUser(ctx, email, "$argon2id$test")
		if err != nil {
			b.Fatal(err)
		}
		users = append(users, u.ID)
	}
	const fill = `
WITH c AS (
	INSERT INTO conversations (user_id, site_id, title, model)
	SELECT $1, 'plasmodb', 'Conversation ' || i || CASE WHEN i % 50 = 0 THEN ' about gametocytes' ELSE '' END, 'offline'
	FROM generate_series(1, 500) i RETURNING id),
m AS (
	INSERT INTO messages (conversation_id, role, content)
	SELECT c.id, CASE WHEN j % 2 = 0 THEN 'user' ELSE 'assistant' END,
		'Find genes involved in DNA replication or repair on chromosome ' || j || ', excluding kinases and proteases number ' || j
	FROM c, generate_series(1, 40) j)
INSERT INTO strategies (conversation_id, site_id, record_type, graph)
SELECT c.id, 'plasmodb', 'transcript',
	'{"steps":[{"displayName":"DNA replication (GO:0006260)"},{"displayName":"DNA repair"},{"displayName":"chromosome 14"}]}'::jsonb
FROM c`
	for _, u := range users {
		if _, err := db.Pool().Exec(ctx, fill, u); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.Pool().Exec(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, query string }{{"rare", "gametocytes"}, {"common", "replication"}} {
		b.Run(q.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				hits, err := db.SearchConversations(ctx, users[0], q.query, 100)
				if err != nil {
					b.Fatal(err)
				}
				n = len(hits)
			}
			b.ReportMetric(float64(n), "hits")
		})
	}
}
