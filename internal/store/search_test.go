package store_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/store"
)

// searchTitles runs a search as userID and returns the hits' titles in
// order.
func searchTitles(t *testing.T, db *store.DB, userID, q string) []string {
	t.Helper()
	hits, err := db.SearchConversations(context.Background(), userID, q, 50)
	if err != nil {
		t.Fatalf("SearchConversations(%q): %v", q, err)
	}
	titles := []string{}
	for _, h := range hits {
		titles = append(titles, h.Title)
	}
	return titles
}

func TestSearchConversations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	bob := mustUser(t, db, "bob@example.org")

	kinases, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Kinases of the merozoite", "offline")
	if err != nil {
		t.Fatal(err)
	}
	invasion, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Invasion genes", "offline")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateConversation(ctx, bob.ID, "plasmodb", "Bob's kinases", "offline"); err != nil {
		t.Fatal(err)
	}

	// A title word finds its conversation (any inflection); an absent word
	// finds nothing; another user's conversations are never searched.
	if got, want := searchTitles(t, db, ada.ID, "kinase"), []string{"Kinases of the merozoite"}; !cmp.Equal(got, want) {
		t.Errorf("search kinase = %q, want %q", got, want)
	}
	if got := searchTitles(t, db, ada.ID, "apicoplast"); len(got) != 0 {
		t.Errorf("search of an absent word = %q, want nothing", got)
	}
	if got := searchTitles(t, db, ada.ID, "the"); len(got) != 0 {
		t.Errorf("search of a stop word = %q, want nothing", got)
	}

	// A message appended later is searchable at once: user and assistant
	// text, not tool digests.
	if err := db.AddMessages(ctx, invasion.ID, "", []store.NewMessage{
		{Role: store.RoleUser, Content: "Which genes take part in erythrocyte invasion?"},
		{Role: store.RoleAssistant, Content: "I found rhoptry proteins among them."},
		{Role: store.RoleTool, Content: "gametocyte digest"},
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := searchTitles(t, db, ada.ID, "erythrocyte"), []string{"Invasion genes"}; !cmp.Equal(got, want) {
		t.Errorf("search of a user message word = %q, want %q", got, want)
	}
	if got, want := searchTitles(t, db, ada.ID, "rhoptry"), []string{"Invasion genes"}; !cmp.Equal(got, want) {
		t.Errorf("search of an assistant message word = %q, want %q", got, want)
	}
	if got := searchTitles(t, db, ada.ID, "gametocyte"); len(got) != 0 {
		t.Errorf("search of a tool digest's word = %q, want nothing", got)
	}

	// A step's name is searchable as soon as the strategy is written.
	graph := []byte(`{"name":"Kinases","siteId":"plasmodb","recordType":"transcript","nextStep":2,
		"steps":[{"id":"s1","kind":"search","searchName":"GenesByText","displayName":"Sporozoite surface proteins","parameters":{},"inputs":[]}]}`)
	if _, _, _, err := db.CreateConversationStrategy(ctx, ada.ID, kinases.ID, "transcript",
		func(string) ([]byte, []byte, error) { return graph, []byte(`{}`), nil }, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := searchTitles(t, db, ada.ID, "sporozoite"), []string{"Kinases of the merozoite"}; !cmp.Equal(got, want) {
		t.Errorf("search of a step name = %q, want %q", got, want)
	}

	// A title match ranks above a message match; "or" finds both.
	if err := db.AddMessages(ctx, invasion.ID, "", []store.NewMessage{{Role: store.RoleUser, Content: "and kinases too"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := searchTitles(t, db, ada.ID, "kinases"), []string{"Kinases of the merozoite", "Invasion genes"}; !cmp.Equal(got, want) {
		t.Errorf("ranking = %q, want %q", got, want)
	}
	if got := searchTitles(t, db, ada.ID, "rhoptry or sporozoite"); len(got) != 2 {
		t.Errorf("search with or = %q, want both", got)
	}
	// An exclusion applies to each text: the title, a message, the step
	// names.
	if got, want := searchTitles(t, db, ada.ID, "kinases -merozoite"), []string{"Invasion genes"}; !cmp.Equal(got, want) {
		t.Errorf("search with an exclusion = %q, want %q", got, want)
	}

	// The headline marks the matched words.
	hits, err := db.SearchConversations(ctx, ada.ID, "rhoptry", 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search rhoptry = %v, %v", hits, err)
	}
	parts := store.HeadlineParts(hits[0].Headline)
	if !slices.Contains(parts, store.HeadlinePart{Text: "rhoptry", Match: true}) {
		t.Errorf("headline parts = %+v, want rhoptry marked", parts)
	}
}

func TestHeadlineParts(t *testing.T) {
	t.Parallel()
	h := "a " + store.HeadlineStart + "kinase" + store.HeadlineStop + " b " + store.HeadlineStart + "c" + store.HeadlineStop
	want := []store.HeadlinePart{{Text: "a "}, {Text: "kinase", Match: true}, {Text: " b "}, {Text: "c", Match: true}}
	if got := store.HeadlineParts(h); !cmp.Equal(got, want) {
		t.Errorf("HeadlineParts = %+v, want %+v", got, want)
	}
	if got := store.HeadlineParts("plain"); !cmp.Equal(got, []store.HeadlinePart{{Text: "plain"}}) {
		t.Errorf("HeadlineParts(plain) = %+v", got)
	}
}

func TestShares(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	bob := mustUser(t, db, "bob@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "Kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendEvents(ctx, "p1", []store.NewEvent{newEvent(conv.ID, "", "usage", `{}`), newEvent(conv.ID, "", "usage", `{}`)}); err != nil {
		t.Fatal(err)
	}

	// Another user cannot share, list or revoke Ada's conversation's links.
	if _, err := db.CreateShare(ctx, bob.ID, conv.ID, []byte("bob-hash"), true); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Bob shares Ada's conversation: %v, want ErrNotFound", err)
	}
	sh, err := db.CreateShare(ctx, ada.ID, conv.ID, []byte("hash-1"), true)
	if err != nil {
		t.Fatal(err)
	}
	if sh.EventSeq != 2 || !sh.Public || sh.ConversationID != conv.ID || sh.RevokedAt != nil || sh.Title != "Kinases" {
		t.Errorf("share = %+v, want public at event 2", sh)
	}
	// The link stays at event 2 whatever is appended later.
	if _, err := db.AppendEvents(ctx, "p1", []store.NewEvent{newEvent(conv.ID, "", "usage", `{}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RenameConversation(ctx, ada.ID, conv.ID, "Renamed later"); err != nil {
		t.Fatal(err)
	}
	got, err := db.ShareByTokenHash(ctx, []byte("hash-1"))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != sh.ID || got.OwnerID != ada.ID || got.EventSeq != 2 || got.Title != "Kinases" {
		t.Errorf("ShareByTokenHash = %+v", got)
	}
	if _, err := db.ShareByTokenHash(ctx, []byte("nope")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown hash: %v, want ErrNotFound", err)
	}
	// The same token hash cannot name two links.
	if _, err := db.CreateShare(ctx, ada.ID, conv.ID, []byte("hash-1"), false); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate hash: %v, want ErrConflict", err)
	}
	second, err := db.CreateShare(ctx, ada.ID, conv.ID, []byte("hash-2"), false)
	if err != nil {
		t.Fatal(err)
	}
	if second.EventSeq != 3 || second.Public {
		t.Errorf("second share = %+v", second)
	}

	list, err := db.Shares(ctx, ada.ID, conv.ID)
	if err != nil || len(list) != 2 || list[0].ID != sh.ID || list[1].ID != second.ID {
		t.Errorf("Shares = %+v, %v", list, err)
	}
	if list, err := db.Shares(ctx, bob.ID, conv.ID); err != nil || len(list) != 0 {
		t.Errorf("Bob lists Ada's shares: %+v, %v", list, err)
	}

	if err := db.RevokeShare(ctx, bob.ID, conv.ID, sh.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Bob revokes Ada's link: %v, want ErrNotFound", err)
	}
	if err := db.RevokeShare(ctx, ada.ID, conv.ID, sh.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeShare(ctx, ada.ID, conv.ID, sh.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second revoke: %v, want ErrNotFound", err)
	}
	if got, err := db.ShareByTokenHash(ctx, []byte("hash-1")); err != nil || got.RevokedAt == nil {
		t.Errorf("revoked link = %+v, %v; want revokedAt set", got, err)
	}

	// Deleting the conversation deletes its links.
	if err := db.DeleteConversation(ctx, ada.ID, conv.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ShareByTokenHash(ctx, []byte("hash-2")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("link of a deleted conversation: %v, want ErrNotFound", err)
	}
}

// TestSearchPathologicalQueries: no query is an error. PostgreSQL's
// websearch_to_tsquery fails ("tsquery stack too small") on 33 or more
// minus signs, spaced or not, or minus signs behind other punctuation;
// these and random runs of every operator it knows are searched like
// any other text, and ordinary syntax keeps its meaning.
func TestSearchPathologicalQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	for _, title := range []string{"Kinases of the merozoite", "Invasion genes", "Well-known e.coli kinases"} {
		if _, err := db.CreateConversation(ctx, ada.ID, "plasmodb", title, "offline"); err != nil {
			t.Fatal(err)
		}
	}
	minus := strings.Repeat("-", 40)
	queries := []string{
		minus, minus + "kinase", "kinase " + minus, strings.Repeat("- ", 60) + "kinase", strings.Repeat("-!", 60) + "kinase",
		strings.Repeat("-\"", 60) + "kinase", "\"" + strings.Repeat("- ", 60) + "kinase\"", strings.Repeat("or ", 100) + "kinase",
		strings.Repeat("\"", 101), strings.Repeat("(", 100) + "kinase", strings.Repeat("!", 100), strings.Repeat("kinase -", 100),
		strings.Repeat("-a ", 100), strings.Repeat("<-> ", 50) + "kinase", strings.Repeat("kinase | ", 200), strings.Repeat("x", 5000),
		strings.Repeat("-kinase ", 300), "kinase" + strings.Repeat("-", 100) + "merozoite", "\\" + minus, "'" + minus + "'",
	}
	rnd := rand.New(rand.NewPCG(26, 8))
	ops := []string{"-", "-", "-", "\"", " ", "!", "(", ")", "&", "|", ":", "*", "<->", "or", "\\", "'", ".", "_", "kinase", "a"}
	for range 300 {
		var b strings.Builder
		for range rnd.IntN(300) {
			b.WriteString(ops[rnd.IntN(len(ops))])
		}
		queries = append(queries, b.String())
	}
	for _, q := range queries {
		if _, err := db.SearchConversations(ctx, ada.ID, q, 50); err != nil {
			t.Errorf("SearchConversations(%q): %v", q, err)
		}
	}
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"kinases -merozoite", []string{"Well-known e.coli kinases"}},
		{minus + "merozoite kinases", []string{"Well-known e.coli kinases"}},
		{`"invasion genes"`, []string{"Invasion genes"}},
		{`kinases -"of the merozoite"`, []string{"Well-known e.coli kinases"}},
		{"well-known", []string{"Well-known e.coli kinases"}},
		{"e.coli", []string{"Well-known e.coli kinases"}},
		{"merozoite or invasion", []string{"Invasion genes", "Kinases of the merozoite"}},
	} {
		got := searchTitles(t, db, ada.ID, tt.q)
		slices.Sort(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("search %q mismatch (-want +got):\n%s", tt.q, diff)
		}
	}
}

// TestInvalidTextIsTheCallersError: text PostgreSQL cannot store (a NUL,
// invalid UTF-8) that reaches the store is ErrInvalidText, not an
// unexplained failure, and nothing is written.
func TestInvalidTextIsTheCallersError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := newDB(t)
	ada := mustUser(t, db, "ada@example.org")
	conv, err := db.CreateConversation(ctx, ada.ID, "plasmodb", "kinases", "offline")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"a\x00b", "a\xffb", "\xc3\x28"} {
		if _, err := db.CreateConversation(ctx, ada.ID, "plasmodb", bad, "offline"); !errors.Is(err, store.ErrInvalidText) {
			t.Errorf("CreateConversation(%q) = %v, want ErrInvalidText", bad, err)
		}
		if _, err := db.RenameConversation(ctx, ada.ID, conv.ID, bad); !errors.Is(err, store.ErrInvalidText) {
			t.Errorf("RenameConversation(%q) = %v, want ErrInvalidText", bad, err)
		}
	}
	// A search's invalid bytes are read as U+FFFD; a NUL is refused.
	if _, err := db.SearchConversations(ctx, ada.ID, "a\x00b", 10); !errors.Is(err, store.ErrInvalidText) {
		t.Errorf("SearchConversations with a NUL = %v, want ErrInvalidText", err)
	}
	if got, err := db.Conversation(ctx, ada.ID, conv.ID); err != nil || got.Title != "kinases" {
		t.Errorf("conversation after refused renames = %q, %v", got.Title, err)
	}
}
