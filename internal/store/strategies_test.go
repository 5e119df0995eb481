package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// strategyFixture is a database with two users and a conversation of the
// first.
type strategyFixture struct {
	db           *store.DB
	owner, other string
	conversation string
}

func newStrategyFixture(t *testing.T) strategyFixture {
	t.Helper()
	ctx := context.Background()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	owner, err := db.CreateUser(ctx, "owner@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.CreateUser(ctx, "other@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.CreateConversation(ctx, owner.ID, "plasmodb", "Kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	return strategyFixture{db: db, owner: owner.ID, other: other.ID, conversation: c.ID}
}

// doc is the test's stand-in for a graph document.
type doc struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeDoc(t *testing.T, b []byte) doc {
	t.Helper()
	var d doc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return d
}

func (f strategyFixture) create(t *testing.T) store.Strategy {
	t.Helper()
	s, created, _, err := f.db.CreateConversationStrategy(context.Background(), f.owner, f.conversation, "transcript",
		func(site string) ([]byte, []byte, error) {
			return encode(t, doc{Name: "on " + site}), []byte(`{"op":"create"}`), nil
		}, nil)
	if err != nil || !created {
		t.Fatalf("CreateConversationStrategy = created %v, %v", created, err)
	}
	return s
}

func TestCreateConversationStrategy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	if _, err := f.db.ConversationStrategy(ctx, f.owner, f.conversation); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ConversationStrategy before creation: %v, want ErrNotFound", err)
	}

	// A failing build leaves nothing behind.
	boom := errors.New("boom")
	_, _, _, err := f.db.CreateConversationStrategy(ctx, f.owner, f.conversation, "transcript",
		func(string) ([]byte, []byte, error) { return nil, nil, boom }, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("failing build: %v, want boom", err)
	}
	if c, _ := f.db.Conversation(ctx, f.owner, f.conversation); c.StrategyID != nil {
		t.Fatalf("failing build linked strategy %s", *c.StrategyID)
	}

	s := f.create(t)
	if s.Version != 0 || s.SiteID != "plasmodb" || s.RecordType != "transcript" || s.Name != "on plasmodb" || s.ConversationID != f.conversation {
		t.Errorf("created strategy = %+v", s)
	}
	c, err := f.db.Conversation(ctx, f.owner, f.conversation)
	if err != nil || c.StrategyID == nil || *c.StrategyID != s.ID {
		t.Errorf("conversation strategy_id = %v, %v; want %s", c.StrategyID, err, s.ID)
	}
	got, err := f.db.ConversationStrategy(ctx, f.owner, f.conversation)
	if err != nil || got.ID != s.ID {
		t.Errorf("ConversationStrategy = %s, %v; want %s", got.ID, err, s.ID)
	}

	// The second call finds it and does not build.
	again, created, _, err := f.db.CreateConversationStrategy(ctx, f.owner, f.conversation, "transcript",
		func(string) ([]byte, []byte, error) {
			t.Error("build called for an existing strategy")
			return nil, nil, nil
		}, nil)
	if err != nil || created || again.ID != s.ID {
		t.Errorf("second create = %s created %v, %v; want %s not created", again.ID, created, err, s.ID)
	}

	// Another user sees none of it.
	if _, _, _, err := f.db.CreateConversationStrategy(ctx, f.other, f.conversation, "transcript",
		func(string) ([]byte, []byte, error) { return []byte(`{}`), []byte(`{}`), nil }, nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("other user's create: %v, want ErrNotFound", err)
	}
	if _, err := f.db.ConversationStrategy(ctx, f.other, f.conversation); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("other user's ConversationStrategy: %v, want ErrNotFound", err)
	}
	if _, err := f.db.Strategy(ctx, f.other, s.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("other user's Strategy: %v, want ErrNotFound", err)
	}
	if _, err := f.db.Strategy(ctx, f.owner, "not-a-uuid"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("malformed id: %v, want ErrNotFound", err)
	}
}

func TestUpdateStrategyVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	s := f.create(t)
	for i := 1; i <= 3; i++ {
		got, _, err := f.db.UpdateStrategy(ctx, f.owner, s.ID, func(cur []byte, version int) ([]byte, []byte, error) {
			d := decodeDoc(t, cur)
			if version != i-1 || d.N != i-1 {
				t.Errorf("update %d saw version %d, n %d", i, version, d.N)
			}
			d.N, d.Name = i, fmt.Sprintf("v%d", i)
			return encode(t, d), encode(t, map[string]int{"step": i}), nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != i || got.Name != fmt.Sprintf("v%d", i) || decodeDoc(t, got.Graph).N != i {
			t.Errorf("update %d returned %+v", i, got)
		}
	}

	// A refused change rolls back and comes back to the caller.
	refused := errors.New("refused")
	if _, _, err := f.db.UpdateStrategy(ctx, f.owner, s.ID, func([]byte, int) ([]byte, []byte, error) { return nil, nil, refused }, nil); !errors.Is(err, refused) {
		t.Errorf("refused update: %v, want refused", err)
	}
	if _, _, err := f.db.UpdateStrategy(ctx, f.other, s.ID, func([]byte, int) ([]byte, []byte, error) {
		t.Error("fn called for another user's strategy")
		return nil, nil, nil
	}, nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("other user's update: %v, want ErrNotFound", err)
	}

	vs, err := f.db.StrategyVersions(ctx, f.owner, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var nums []int
	for _, v := range vs {
		nums = append(nums, v.Version)
		if v.Graph != nil {
			t.Errorf("listing carries the graph of version %d", v.Version)
		}
	}
	if diff := cmp.Diff([]int{0, 1, 2, 3}, nums); diff != "" {
		t.Errorf("versions mismatch (-want +got):\n%s", diff)
	}
	v2, err := f.db.StrategyVersion(ctx, f.owner, s.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := decodeDoc(t, v2.Graph); d != (doc{Name: "v2", N: 2}) {
		t.Errorf("version 2 graph = %+v", d)
	}
	if string(v2.Change) != `{"step": 2}` {
		t.Errorf("version 2 change = %s", v2.Change)
	}
	if _, err := f.db.StrategyVersion(ctx, f.owner, s.ID, 4); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing version: %v, want ErrNotFound", err)
	}
	if _, err := f.db.StrategyVersions(ctx, f.other, s.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("other user's versions: %v, want ErrNotFound", err)
	}
	if _, err := f.db.StrategyVersion(ctx, f.other, s.ID, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("other user's version: %v, want ErrNotFound", err)
	}

	// The versions before 3, newest first, at most 2, with their graphs.
	recent, err := f.db.RecentStrategyVersions(ctx, f.owner, s.ID, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	nums = nil
	for _, v := range recent {
		nums = append(nums, v.Version)
		if v.Graph == nil || v.Change == nil {
			t.Errorf("recent version %d lacks its graph or change", v.Version)
		}
	}
	if diff := cmp.Diff([]int{2, 1}, nums); diff != "" {
		t.Errorf("recent versions mismatch (-want +got):\n%s", diff)
	}
	if d := decodeDoc(t, recent[0].Graph); d != (doc{Name: "v2", N: 2}) {
		t.Errorf("recent version 2 graph = %+v", d)
	}
	if other, err := f.db.RecentStrategyVersions(ctx, f.other, s.ID, 3, 2); err != nil || len(other) != 0 {
		t.Errorf("other user's recent versions = %d, %v; want none", len(other), err)
	}
}

// TestUpdateStrategySerialises runs read-modify-writes from 8 goroutines:
// the row lock must make every one of them see the previous one's result.
func TestUpdateStrategySerialises(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	s := f.create(t)
	const writers = 8
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			_, _, err := f.db.UpdateStrategy(ctx, f.owner, s.ID, func(cur []byte, version int) ([]byte, []byte, error) {
				d := decodeDoc(t, cur)
				d.N++
				return encode(t, d), []byte(`{}`), nil
			}, nil)
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := f.db.Strategy(ctx, f.owner, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != writers || decodeDoc(t, got.Graph).N != writers {
		t.Errorf("after %d writers: version %d, n %d", writers, got.Version, decodeDoc(t, got.Graph).N)
	}
	vs, err := f.db.StrategyVersions(ctx, f.owner, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if v.Version != i {
			t.Fatalf("versions are not contiguous: %d at position %d", v.Version, i)
		}
	}
}

// TestStrategyWriteAndItsEventCommitTogether: a strategy version and the
// event recording it are one transaction: a failing event rolls the
// version back, and every stored version has its event, so the log and
// the strategy cannot disagree after a crash.
func TestStrategyWriteAndItsEventCommitTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	snapshot := &store.StrategyEvents{Origin: "test", Make: func(s store.Strategy, _ string) ([]store.NewEvent, error) {
		return []store.NewEvent{{ConversationID: s.ConversationID, Type: "graph_snapshot",
			Payload: encode(t, map[string]any{"strategyId": s.ID, "version": s.Version})}}, nil
	}}
	s, created, rows, err := f.db.CreateConversationStrategy(ctx, f.owner, f.conversation, "transcript",
		func(string) ([]byte, []byte, error) { return encode(t, doc{Name: "v0"}), []byte(`{}`), nil }, snapshot)
	if err != nil || !created || len(rows) != 1 || rows[0].Seq != 1 {
		t.Fatalf("create = %v %v, rows %+v", created, err, rows)
	}
	bump := func(cur []byte, _ int) ([]byte, []byte, error) {
		d := decodeDoc(t, cur)
		d.N++
		return encode(t, d), []byte(`{}`), nil
	}
	if _, rows, err = f.db.UpdateStrategy(ctx, f.owner, s.ID, bump, snapshot); err != nil || len(rows) != 1 || rows[0].Seq != 2 {
		t.Fatalf("update = %v, rows %+v", err, rows)
	}
	boom := errors.New("boom")
	failing := &store.StrategyEvents{Origin: "test", Make: func(store.Strategy, string) ([]store.NewEvent, error) { return nil, boom }}
	if _, _, err := f.db.UpdateStrategy(ctx, f.owner, s.ID, bump, failing); !errors.Is(err, boom) {
		t.Fatalf("update with a failing event = %v, want boom", err)
	}
	got, err := f.db.Strategy(ctx, f.owner, s.ID)
	if err != nil || got.Version != 1 {
		t.Fatalf("after the failed update the strategy is at version %d (%v), want 1", got.Version, err)
	}
	evs, err := f.db.EventsAfter(ctx, f.owner, f.conversation, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || !strings.Contains(string(evs[1].Payload), `"version": 1`) && !strings.Contains(string(evs[1].Payload), `"version":1`) {
		t.Errorf("events = %+v, want one per stored version, the last of version 1", evs)
	}
}

// TestConversationTitleFollowsStrategyUntilNamed: a strategy write gives
// the conversation the title its strategy suggests, in the write's own
// transaction and with an event recording it, until the researcher names
// the conversation; from then on their title is kept.
func TestConversationTitleFollowsStrategyUntilNamed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newStrategyFixture(t)
	// A title given at creation is the caller's and is kept; the default
	// one follows the strategy.
	if named, err := f.db.Conversation(ctx, f.owner, f.conversation); err != nil || !named.TitleSet {
		t.Fatalf("a conversation created as %q has TitleSet %v (%v), want set", named.Title, named.TitleSet, err)
	}
	conv, err := f.db.CreateConversation(ctx, f.owner, "plasmodb", store.DefaultTitle, "offline")
	if err != nil || conv.TitleSet {
		t.Fatalf("a new conversation = %+v, %v; want its title not set", conv, err)
	}
	f.conversation = conv.ID
	// Make records the new title it is told, as the event log does.
	follow := &store.StrategyEvents{Origin: "test",
		Make: func(s store.Strategy, retitled string) ([]store.NewEvent, error) {
			if retitled == "" {
				return nil, nil
			}
			return []store.NewEvent{{ConversationID: s.ConversationID, Type: "conversation_renamed",
				Payload: encode(t, map[string]any{"title": retitled})}}, nil
		},
		Title: func(s store.Strategy) (string, error) { return fmt.Sprintf("root %d", decodeDoc(t, s.Graph).N), nil },
	}
	s, _, rows, err := f.db.CreateConversationStrategy(ctx, f.owner, f.conversation, "transcript",
		func(string) ([]byte, []byte, error) { return encode(t, doc{Name: "v0"}), []byte(`{}`), nil }, follow)
	if err != nil || len(rows) != 1 || rows[0].Type != "conversation_renamed" {
		t.Fatalf("create = %v, rows %+v, want one conversation_renamed", err, rows)
	}
	title := func() store.Conversation {
		t.Helper()
		c, err := f.db.Conversation(ctx, f.owner, f.conversation)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := title(); c.Title != "root 0" || c.TitleSet {
		t.Fatalf("after creation the title is %q (set %v), want root 0", c.Title, c.TitleSet)
	}
	bump := func(cur []byte, _ int) ([]byte, []byte, error) {
		d := decodeDoc(t, cur)
		d.N++
		return encode(t, d), []byte(`{}`), nil
	}
	if _, rows, err = f.db.UpdateStrategy(ctx, f.owner, s.ID, bump, follow); err != nil || len(rows) != 1 {
		t.Fatalf("update = %v, rows %+v", err, rows)
	}
	if c := title(); c.Title != "root 1" {
		t.Fatalf("after an update the title is %q, want root 1", c.Title)
	}
	// The same title again is no change and no event.
	same := *follow
	same.Title = func(store.Strategy) (string, error) { return "root 1", nil }
	if _, rows, err = f.db.UpdateStrategy(ctx, f.owner, s.ID, bump, &same); err != nil || len(rows) != 0 {
		t.Fatalf("update with the same title = %v, rows %+v, want none", err, rows)
	}
	// A long name is clipped to what a title holds.
	long := *follow
	long.Title = func(store.Strategy) (string, error) { return strings.Repeat("kinase ", 60), nil }
	if _, _, err = f.db.UpdateStrategy(ctx, f.owner, s.ID, bump, &long); err != nil {
		t.Fatalf("update with a long title = %v", err)
	}
	if c := title(); utf8.RuneCountInString(c.Title) != 200 || !strings.HasSuffix(c.Title, "…") {
		t.Fatalf("a long root name gives the title %q (%d characters), want 200 ending in …", c.Title, utf8.RuneCountInString(c.Title))
	}
	if _, err := f.db.RenameConversation(ctx, f.owner, f.conversation, "My kinases"); err != nil {
		t.Fatal(err)
	}
	if _, rows, err = f.db.UpdateStrategy(ctx, f.owner, s.ID, bump, follow); err != nil || len(rows) != 0 {
		t.Fatalf("update after a rename = %v, rows %+v, want no event", err, rows)
	}
	if c := title(); c.Title != "My kinases" || !c.TitleSet {
		t.Fatalf("after the researcher named it the title is %q (set %v), want My kinases kept", c.Title, c.TitleSet)
	}
	// The planner's automatic title does not override the researcher's.
	if _, set, err := f.db.AutoTitleConversation(ctx, f.owner, f.conversation, "Planner's"); err != nil || set {
		t.Fatalf("auto title after a rename = %v %v, want kept", set, err)
	}
}
