package strategies

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"strategist/internal/eventlog"
	"strategist/internal/pgtest"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// TestConversationTitleFollowsRoot: every change gives a conversation the
// researcher has not named the display name of its strategy's root, with a
// conversation_renamed event in its log for open pages; a strategy that is
// not one tree leaves the title; once the researcher names the
// conversation, changes keep their title.
func TestConversationTitleFollowsRoot(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	log, err := eventlog.NewLog(eventlog.LogConfig{Store: db, Broker: eventlog.NewBroker(0), Origin: "test"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- log.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("event log: %v", err)
		}
	})
	owner, err := db.CreateUser(ctx, "owner@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	conv, err := db.CreateConversation(ctx, owner.ID, testSite, store.DefaultTitle, "offline")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(Config{Store: db, Catalog: newFakeCatalog(), Events: log, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := svc.ForConversation(ctx, owner.ID, conv.ID, testRT, "")
	if err != nil {
		t.Fatal(err)
	}
	apply := func(m strategy.Mutation) strategy.Snapshot {
		t.Helper()
		res, err := svc.Apply(ctx, owner.ID, snap.StrategyID, m)
		if err != nil {
			t.Fatalf("Apply(%T): %v", m, err)
		}
		return res.Snapshot
	}
	title := func(want string) {
		t.Helper()
		c, err := db.Conversation(ctx, owner.ID, conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Title != want {
			t.Errorf("title = %q, want %q", c.Title, want)
		}
	}
	renames := func() []string {
		t.Helper()
		rows, err := db.EventsAfter(ctx, owner.ID, conv.ID, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			if r.Type != "conversation_renamed" {
				continue
			}
			var p struct {
				Title string `json:"title"`
			}
			if err := json.Unmarshal(r.Payload, &p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p.Title)
		}
		return out
	}

	title(store.DefaultTitle) // an empty strategy has no root to follow
	s := apply(translation)
	title("Translation")
	apply(trna) // two roots: not one tree yet, the title stays
	title("Translation")
	s = apply(strategy.Combine{Left: s.Steps[0].ID, Right: "s2", Operator: strategy.Union})
	root, _ := s.Step(s.RootStepID)
	if root.DisplayName == "" || root.DisplayName == "Translation" {
		t.Fatalf("the combine's display name is %q", root.DisplayName)
	}
	title(root.DisplayName)
	if got := renames(); len(got) != 2 || got[0] != "Translation" || got[1] != root.DisplayName {
		t.Errorf("conversation_renamed events = %q, want Translation then %q", got, root.DisplayName)
	}
	// Undo is a change like any other: the title follows it back (to the
	// last version that is one tree).
	for range 2 {
		if _, err := svc.Undo(ctx, owner.ID, snap.StrategyID); err != nil {
			t.Fatal(err)
		}
	}
	title("Translation")
	if _, err := svc.Redo(ctx, owner.ID, snap.StrategyID); err != nil {
		t.Fatal(err)
	}

	if _, err := db.RenameConversation(ctx, owner.ID, conv.ID, "My translation genes"); err != nil {
		t.Fatal(err)
	}
	n := len(renames())
	apply(strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Intersect})
	title("My translation genes")
	if got := renames(); len(got) != n {
		t.Errorf("a change after the researcher named the conversation retitled it: %q", got[n:])
	}
}
