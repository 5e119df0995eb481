package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

func newDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func mustUser(t *testing.T, db *store.DB, email string) store.User {
	t.Helper()
	u, err := db.CreateUser(context.Background(), email, "$argon2id$test")
	if err != nil {
		t.Fatalf("CreateUser(%s): %v", email, err)
	}
	return u
}

func TestConversationLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	bob := mustUser(t, db, "bob@example.org")

	first, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	if first.Mode != "plan" || first.SiteID != "plasmodb" || first.Title != "Kinases" || first.LastEventSeq != 0 {
		t.Errorf("new conversation = %+v", first)
	}
	time.Sleep(2 * time.Millisecond) // distinct updated_at for ordering
	second, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Proteases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(ctx, bob.ID, "plasmodb", "Bob's", "offline"); err != nil {
		t.Fatal(err)
	}

	list, err := db.Conversations(ctx, ada.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, c := range list {
		titles = append(titles, c.Title)
	}
	if diff := cmp.Diff([]string{"Proteases", "Kinases"}, titles); diff != "" {
		t.Errorf("Conversations() newest first mismatch (-want +got):\n%s", diff)
	}

	renamed, err := db.RenameConversation(ctx, ada.ID, first.ID, "Protein kinases")
	if err != nil {
		t.Fatal(err)
	}
	if renamed.Title != "Protein kinases" || !renamed.UpdatedAt.After(first.UpdatedAt) {
		t.Errorf("renamed = %+v", renamed)
	}
	list, _ = db.Conversations(ctx, ada.ID, 100)
	if list[0].ID != first.ID {
		t.Errorf("after rename, newest = %s, want the renamed %s", list[0].Title, first.Title)
	}

	if err := db.DeleteConversation(ctx, ada.ID, second.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Conversation(ctx, ada.ID, second.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted conversation: err = %v, want ErrNotFound", err)
	}
}

func TestConversationOwnership(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	eve := mustUser(t, db, "eve@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Private", "offline")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		op   func() error
	}{
		{"get", func() error { _, err := db.Conversation(ctx, eve.ID, conv.ID); return err }},
		{"rename", func() error { _, err := db.RenameConversation(ctx, eve.ID, conv.ID, "mine"); return err }},
		{"delete", func() error { return db.DeleteConversation(ctx, eve.ID, conv.ID) }},
		{"messages", func() error {
			ms, err := db.Messages(ctx, eve.ID, conv.ID)
			if err == nil && len(ms) == 0 {
				return store.ErrNotFound // empty, as for an unknown id
			}
			return err
		}},
		{"malformed id", func() error { _, err := db.Conversation(ctx, ada.ID, "not-a-uuid"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.op(); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("err = %v, want ErrNotFound", err)
			}
		})
	}
	list, err := db.Conversations(ctx, eve.ID, 10)
	if err != nil || len(list) != 0 {
		t.Errorf("eve's list = %v, %v; want empty", list, err)
	}
	still, err := db.Conversation(ctx, ada.ID, conv.ID)
	if err != nil || still.Title != "Private" {
		t.Errorf("ada's conversation after eve's attempts = %+v, %v", still, err)
	}
}

func TestUsersTokensSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	if _, err := db.CreateUser(ctx, "ada@example.org", "x"); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate email: err = %v, want ErrConflict", err)
	}
	if n, err := db.CountUsers(ctx); err != nil || n != 1 {
		t.Errorf("CountUsers = %d, %v; want 1", n, err)
	}
	dev, err := db.EnsureUserWithoutPassword(ctx, "dev@localhost")
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.EnsureUserWithoutPassword(ctx, "dev@localhost")
	if err != nil || again.ID != dev.ID {
		t.Errorf("EnsureUserWithoutPassword twice = %v, %v; want the same user %s", again.ID, err, dev.ID)
	}
	if n, _ := db.CountUsers(ctx); n != 1 {
		t.Errorf("CountUsers counts the password-less dev user: %d", n)
	}

	tok, err := db.CreateAPIToken(ctx, ada.ID, "cli", []byte("hash-1"))
	if err != nil {
		t.Fatal(err)
	}
	if id, err := db.UserIDByTokenHash(ctx, []byte("hash-1")); err != nil || id != ada.ID {
		t.Errorf("UserIDByTokenHash = %q, %v", id, err)
	}
	// Use is recorded, to the minute: a second lookup at once writes nothing.
	lastUsed := func() *time.Time {
		ts, err := db.APITokens(ctx, ada.ID)
		if err != nil || len(ts) != 1 {
			t.Fatalf("APITokens = %v, %v", ts, err)
		}
		return ts[0].LastUsedAt
	}
	first := lastUsed()
	if first == nil {
		t.Fatal("a used token has no last use")
	}
	if _, err := db.UserIDByTokenHash(ctx, []byte("hash-1")); err != nil {
		t.Fatal(err)
	}
	if again := lastUsed(); again == nil || !again.Equal(*first) {
		t.Errorf("last use moved from %v to %v within a minute", first, again)
	}
	if err := db.RevokeAPIToken(ctx, dev.ID, tok.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoking another user's token: err = %v, want ErrNotFound", err)
	}
	if err := db.RevokeAPIToken(ctx, ada.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UserIDByTokenHash(ctx, []byte("hash-1")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoked token: err = %v, want ErrNotFound", err)
	}

	now := time.Now()
	if err := db.CreateSession(ctx, []byte("s1"), ada.ID, "csrf", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateSession(ctx, []byte("s2"), ada.ID, "csrf2", now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if s, err := db.SessionByHash(ctx, []byte("s1"), now); err != nil || s.UserID != ada.ID || s.CSRFToken != "csrf" {
		t.Errorf("SessionByHash(s1) = %+v, %v", s, err)
	}
	if _, err := db.SessionByHash(ctx, []byte("s2"), now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("expired session: err = %v, want ErrNotFound", err)
	}
	if n, err := db.DeleteExpiredSessions(ctx, now); err != nil || n != 1 {
		t.Errorf("DeleteExpiredSessions = %d, %v; want 1", n, err)
	}
	if err := db.DeleteSession(ctx, []byte("s1")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SessionByHash(ctx, []byte("s1"), now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted session: err = %v, want ErrNotFound", err)
	}
}

// TestEndTurnOfDeletedConversation: a turn whose conversation was deleted
// while it ran ends as not found at once (its last events have nowhere to
// go), not with the database's error, so the orchestrator does not retry.
func TestEndTurnOfDeletedConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	turnID := "6f1d7a52-2d59-4a55-9c3e-1f0b8a7e4c21"
	if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: conv.ID, TurnID: turnID,
		Mode: "plan", Model: "offline", Message: store.NewMessage{ID: "0c5e9f7a-8b1d-4f2e-a3c6-9d7b2e4f6a18", Role: "user", Content: "kinases"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteConversation(ctx, ada.ID, conv.ID); err != nil {
		t.Fatal(err)
	}
	_, err = db.EndTurnTx(ctx, store.EndTurn{TurnID: turnID, Status: "cancelled", Origin: "test",
		Events: []store.NewEvent{{ConversationID: conv.ID, TurnID: turnID, Type: "turn_end", Payload: []byte(`{"status":"cancelled"}`)}}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("EndTurnTx after the conversation was deleted = %v, want ErrNotFound", err)
	}
}

// TestStartTurnChecks: a turn's start is one implicit transaction, so each
// failed check must leave nothing behind: no turn, no message, no event, the
// conversation's mode unchanged, a handoff still pending.
func TestStartTurnChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	bob := mustUser(t, db, "bob@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	start := func(userID, turnID, handoff string) error {
		_, err := db.StartTurnTx(ctx, store.StartTurn{UserID: userID, ConversationID: conv.ID, TurnID: turnID,
			Mode: "execute", Model: "offline", Origin: "test", AcceptHandoff: handoff,
			Message: store.NewMessage{Role: "user", Content: "kinases"},
			Events:  []store.NewEvent{{ConversationID: conv.ID, TurnID: turnID, Type: "turn_start", Payload: []byte(`{}`)}}})
		return err
	}
	written := func() (turns, messages, events int) {
		t.Helper()
		ts, err := db.Turns(ctx, ada.ID, conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := db.Messages(ctx, ada.ID, conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		es, err := db.EventsAfter(ctx, ada.ID, conv.ID, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(ts), len(ms), len(es)
	}

	if err := start(bob.ID, "11111111-1111-4111-8111-111111111111", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("start in another user's conversation = %v, want ErrNotFound", err)
	}
	if tu, m, e := written(); tu+m+e != 0 {
		t.Errorf("another user's start left %d turns, %d messages, %d events", tu, m, e)
	}
	if c, err := db.Conversation(ctx, ada.ID, conv.ID); err != nil || c.Mode != "plan" {
		t.Errorf("another user's start changed the mode: %+v, %v", c, err)
	}

	first := "22222222-2222-4222-8222-222222222222"
	draft, err := db.SaveArtifact(ctx, store.SaveArtifact{UserID: ada.ID, ConversationID: conv.ID, Kind: "delegation_draft", Title: "plan", Body: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := db.CreateHandoff(ctx, ada.ID, conv.ID, draft.ID, "", "kinases", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := start(ada.ID, first, h.ID); err != nil {
		t.Fatalf("start accepting a pending handoff: %v", err)
	}
	if got, err := db.Handoff(ctx, ada.ID, conv.ID, h.ID); err != nil || got.Status != "accepted" {
		t.Errorf("handoff after the start = %+v, %v; want accepted", got, err)
	}
	if err := start(ada.ID, "33333333-3333-4333-8333-333333333333", ""); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second running turn = %v, want ErrConflict", err)
	}
	if _, err := db.EndTurnTx(ctx, store.EndTurn{TurnID: first, Status: "completed", Usage: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := start(ada.ID, "44444444-4444-4444-8444-444444444444", h.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("accepting a decided handoff = %v, want ErrNotFound", err)
	}
	if tu, m, e := written(); tu != 1 || m != 1 || e != 1 {
		t.Errorf("after one start and three refused: %d turns, %d messages, %d events; want 1 each", tu, m, e)
	}
}

// TestUserTurn: a turn is found by its id alone for its conversation's
// owner, and not for anyone else (nor for a malformed id).
func TestUserTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	eve := mustUser(t, db, "eve@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	turnID := "2b7e4c1a-9d3f-4e8b-a6c2-5f1d0e9b8a74"
	if _, err := db.StartTurnTx(ctx, store.StartTurn{UserID: ada.ID, ConversationID: conv.ID, TurnID: turnID,
		Mode: "plan", Model: "offline", Message: store.NewMessage{ID: "7c3a1e5d-2f4b-4a9c-8e6d-1b0f9a2c3d45", Role: "user", Content: "kinases"}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.UserTurn(ctx, ada.ID, turnID)
	if err != nil || got.ConversationID != conv.ID || got.Status != store.TurnRunning || got.Mode != "plan" {
		t.Fatalf("UserTurn = %+v, %v", got, err)
	}
	for _, tc := range []struct{ user, turn string }{{eve.ID, turnID}, {ada.ID, "not-a-uuid"}, {ada.ID, conv.ID}} {
		if _, err := db.UserTurn(ctx, tc.user, tc.turn); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("UserTurn(%s, %s) = %v, want ErrNotFound", tc.user, tc.turn, err)
		}
	}
}

// The planner's title is given only while the conversation has the default
// one, and never to another user's conversation.
func TestAutoTitleConversation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	eve := mustUser(t, db, "eve@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", store.DefaultTitle, "offline")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.AutoTitleConversation(ctx, eve.ID, conv.ID, "Eve's"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another user's conversation: err = %v, want ErrNotFound", err)
	}
	c, set, err := db.AutoTitleConversation(ctx, ada.ID, conv.ID, "Kinases")
	if err != nil || !set || c.Title != "Kinases" {
		t.Fatalf("first auto title: %q, set %v, err %v; want Kinases set", c.Title, set, err)
	}
	c, set, err = db.AutoTitleConversation(ctx, ada.ID, conv.ID, "Phosphatases")
	if err != nil || set || c.Title != "Kinases" {
		t.Errorf("second auto title: %q, set %v, err %v; want Kinases kept", c.Title, set, err)
	}
	if _, err := db.RenameConversation(ctx, ada.ID, conv.ID, "Mine"); err != nil {
		t.Fatal(err)
	}
	if c, set, _ := db.AutoTitleConversation(ctx, ada.ID, conv.ID, "Other"); set || c.Title != "Mine" {
		t.Errorf("over the researcher's title: %q, set %v; want Mine kept", c.Title, set)
	}
}
