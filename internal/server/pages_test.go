package server_test

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
	"strategist/internal/chat"
	"strategist/internal/config"
	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/pgtest"
	"strategist/internal/server"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
)

// fakeChat records what the pages asked of the orchestrator.
type fakeChat struct {
	db      *store.DB
	mu      sync.Mutex
	turns   []chat.TurnRequest
	cancels []string
	accepts []string
	err     error
}

func (f *fakeChat) StartTurn(_ context.Context, req chat.TurnRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return "", f.err
	}
	f.turns = append(f.turns, req)
	return "11111111-1111-1111-1111-111111111111", nil
}

func (f *fakeChat) Cancel(_ context.Context, _, _, turnID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels = append(f.cancels, turnID)
	return f.err
}

func (f *fakeChat) AcceptHandoff(_ context.Context, _, _, handoffID string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return "", f.err
	}
	f.accepts = append(f.accepts, handoffID)
	return "22222222-2222-2222-2222-222222222222", nil
}

// Rename renames in the store, as the orchestrator does (without events).
func (f *fakeChat) Rename(ctx context.Context, userID, id, title string) (store.Conversation, error) {
	return f.db.RenameConversation(ctx, userID, id, title)
}

// Delete deletes in the store, as the orchestrator does once no turn runs.
func (f *fakeChat) Delete(ctx context.Context, userID, id string) error {
	return f.db.DeleteConversation(ctx, userID, id)
}

// fakeStrategies serves one strategy (of any conversation it is asked
// about; ownership is checked by the server before).
type fakeStrategies struct {
	noStrategies
	mu    sync.Mutex
	undos int
}

var twoSteps = strategy.Snapshot{StrategyID: "st1", SiteID: "plasmodb", Version: 2, RootStepID: "s2", Roots: []strategy.StepID{"s2"}, Steps: []strategy.Step{
	{ID: "s1", Kind: strategy.KindSearch, SearchName: "GenesByGoTerm", DisplayName: "DNA replication"},
	{ID: "s2", Kind: strategy.KindTransform, SearchName: "GenesByWeightFilter", Inputs: []strategy.StepID{"s1"}},
}}

func (*fakeStrategies) Conversation(context.Context, string, string) (strategy.Snapshot, error) {
	return twoSteps, nil
}

func (f *fakeStrategies) Undo(context.Context, string, string) (strategies.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.undos++
	return strategies.Result{}, nil
}

func (*fakeStrategies) StepResults(_ context.Context, _, _ string, step strategy.StepID, page catalog.Page) (*catalog.Answer, error) {
	if step == "s2" {
		return nil, strategy.ErrNotEvaluable
	}
	ans := &catalog.Answer{Count: 3, Provenance: catalog.Provenance{Source: "PlasmoDB export", Year: 2017, Offline: true}}
	for i := page.Offset; i < min(page.Offset+page.Limit, 3); i++ {
		ans.Records = append(ans.Records, catalog.Record{GeneID: "PF3D7_010010" + string(rune('0'+i)), Product: "p", GeneType: "protein coding"})
	}
	return ans, nil
}

// logStreamer replays a conversation's log from the database and then
// waits, as the real streamer does when nothing new happens.
type logStreamer struct{ db *store.DB }

func (s logStreamer) Batches(ctx context.Context, userID, conversationID string, after int64, _ time.Duration) iter.Seq2[[]*eventlog.Published, error] {
	return func(yield func([]*eventlog.Published, error) bool) {
		rows, err := s.db.EventsAfter(ctx, userID, conversationID, after, 1000)
		if err != nil {
			yield(nil, err)
			return
		}
		var batch []*eventlog.Published
		for _, r := range rows {
			batch = append(batch, eventlog.NewPublished(eventlog.FromRow(r)))
		}
		if len(batch) > 0 && !yield(batch, nil) {
			return
		}
		<-ctx.Done()
	}
}

type pageEnv struct {
	*env
	chat       *fakeChat
	strategies *fakeStrategies
}

// newPageEnv is a server whose orchestrator and strategies are fakes and
// whose stream replays the database.
func newPageEnv(t testing.TB) *pageEnv {
	t.Helper()
	return newPageEnvOn(t, nil)
}

// newPageEnvOn is newPageEnv over a catalog (nil: the offline catalog
// without gene data, which lists searches but answers none).
func newPageEnvOn(t testing.TB, cat *offline.Catalog) *pageEnv {
	t.Helper()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now()}
	accounts, err := account.New(account.Config{Store: db, SessionTTL: time.Hour, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	if cat == nil {
		if cat, err = offline.New(offline.Config{}); err != nil {
			t.Fatal(err)
		}
	}
	fc, fs := &fakeChat{db: db}, &fakeStrategies{}
	reg := prometheus.NewRegistry()
	srv := httptest.NewUnstartedServer(nil)
	t.Cleanup(srv.Close)
	s, err := server.New(server.Config{
		PublicURL: "http://" + srv.Listener.Addr().String(),
		Logger:    slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError})),
		Store:     db, Accounts: accounts, Catalog: cat, Chat: fc, Streamer: logStreamer{db: db}, Strategies: fs, Models: fixedModels{},
		Ready:    func(ctx context.Context) error { return db.Ping(ctx) },
		Registry: reg, Gatherer: reg, Auth: config.AuthLocal, DefaultModel: "offline",
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = s.Handler()
	srv.Start()
	return &pageEnv{env: &env{t: t, srv: srv, db: db, accounts: accounts, clock: clk}, chat: fc, strategies: fs}
}

// browser is a signed-in browser: its session cookie and form token.
type browser struct {
	cookie *http.Cookie
	csrf   string
	userID string
}

func (e *pageEnv) signIn(email string) browser {
	e.t.Helper()
	u, _ := e.user(email)
	token, sess, err := e.accounts.SignIn(context.Background(), email, "correct horse battery", "192.0.2.1")
	if err != nil {
		e.t.Fatal(err)
	}
	return browser{cookie: &http.Cookie{Name: "strategist_session", Value: token}, csrf: sess.CSRFToken, userID: u.ID}
}

// post sends a form as a browser would; htmx adds its headers and sends
// the token as X-CSRF-Token (and, from the form, as csrf_token too).
func (e *pageEnv) post(b browser, path string, values url.Values, htmx bool) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(values.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if htmx {
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", b.csrf)
	}
	req.AddCookie(b.cookie)
	return e.send(req)
}

func (e *pageEnv) conversation(b browser, title string) store.Conversation {
	e.t.Helper()
	conv, err := e.db.CreateConversation(context.Background(), b.userID, "plasmodb", title, "offline")
	if err != nil {
		e.t.Fatal(err)
	}
	return conv
}

func doc(t *testing.T, r response) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.body)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func testid(d *goquery.Document, id string) *goquery.Selection {
	return d.Find(`[data-testid="` + id + `"]`)
}

func TestConversationPageIsTheOwners(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := e.conversation(ada, "Ada's <kinases>")

	r := e.page("/conversations/"+conv.ID, ada.cookie)
	if r.status != http.StatusOK {
		t.Fatalf("owner's page = %d", r.status)
	}
	d := doc(t, r)
	for _, id := range []string{"chat", "composer", "artifacts", "subagents", "strategy", "connection-status"} {
		if testid(d, id).Length() != 1 {
			t.Errorf("page lacks %s", id)
		}
	}
	if got := testid(d, "conversation-title").Text(); got != "Ada's <kinases>" {
		t.Errorf("title = %q", got)
	}
	if got := r.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", got)
	}
	for _, id := range []string{conv.ID, "00000000-0000-0000-0000-000000000000"} {
		r := e.page("/conversations/"+id, eve.cookie)
		if r.status != http.StatusNotFound || testid(doc(t, r), "error-page").Length() != 1 {
			t.Errorf("eve's view of %s = %d, want the 404 page", id, r.status)
		}
		if strings.Contains(string(r.body), "kinases") {
			t.Errorf("404 page for %s shows the title", id)
		}
	}
	if r := e.page("/conversations/"+conv.ID, nil); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/signin?next=") {
		t.Errorf("anonymous = %d %s, want a redirect to sign in", r.status, r.header.Get("Location"))
	}
}

// TestPageFormsNeedTheToken: every state-changing page form is refused
// without the session's token, and another user's conversation is a 404.
func TestPageFormsNeedTheToken(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := e.conversation(ada, "Ada's")
	base := "/conversations/" + conv.ID
	forms := []struct {
		path   string
		values url.Values
	}{
		{"/conversations", url.Values{"siteId": {"plasmodb"}}},
		{base + "/rename", url.Values{"title": {"x"}}},
		{base + "/delete", nil},
		{base + "/turns", url.Values{"message": {"hi"}, "mode": {"plan"}}},
		{base + "/turns/11111111-1111-1111-1111-111111111111/cancel", nil},
		{base + "/handoffs/33333333-3333-3333-3333-333333333333/accept", nil},
		{base + "/strategy/undo", nil},
		{base + "/strategy/redo", nil},
		{base + "/strategy/combine", url.Values{"left": {"s1"}, "right": {"s2"}, "operator": {"UNION"}}},
		{base + "/strategy/steps/s1/delete", nil},
		{base + "/strategy/steps/s1/rename", url.Values{"name": {"x"}}},
		{base + "/strategy/steps/s1/parameters", url.Values{"p.go_term": {"x"}}},
		{base + "/strategy/steps/s1/operator", url.Values{"operator": {"UNION"}}},
	}
	for _, f := range forms {
		t.Run(f.path, func(t *testing.T) {
			for name, token := range map[string]string{"no token": "", "wrong token": "not the token"} {
				v := url.Values{"csrf_token": {token}}
				for k, vs := range f.values {
					v[k] = vs
				}
				if r := e.post(browser{cookie: ada.cookie, csrf: token}, f.path, v, false); r.status != http.StatusForbidden {
					t.Errorf("%s = %d, want 403", name, r.status)
				}
			}
			if f.path == "/conversations" {
				return
			}
			v := url.Values{"csrf_token": {eve.csrf}}
			for k, vs := range f.values {
				v[k] = vs
			}
			if r := e.post(eve, f.path, v, false); r.status != http.StatusNotFound {
				t.Errorf("another user = %d, want 404", r.status)
			}
		})
	}
	if len(e.chat.turns)+len(e.chat.accepts)+e.strategies.undos != 0 {
		t.Errorf("refused forms reached the services: %d turns, %d accepts, %d undos", len(e.chat.turns), len(e.chat.accepts), e.strategies.undos)
	}
	if r := e.page("/conversations/"+conv.ID, ada.cookie); r.status != http.StatusOK || testid(doc(t, r), "conversation-title").Text() != "Ada's" {
		t.Errorf("conversation after the refused forms = %d", r.status)
	}
}

// TestPageForms: a plain form post is redirected to the page to show; an
// htmx request gets the fragment that changed, or nothing when the live
// stream brings the change.
func TestPageForms(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada := e.signIn("ada@example.org")
	conv := e.conversation(ada, "Ada's")
	base := "/conversations/" + conv.ID
	form := func(kv ...string) url.Values {
		v := url.Values{"csrf_token": {ada.csrf}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}

	t.Run("send message", func(t *testing.T) {
		r := e.post(ada, base+"/turns", form("message", "DNA repair genes", "mode", "execute", "model", "offline"), false)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != base {
			t.Errorf("plain = %d %s, want 303 to the page", r.status, r.header.Get("Location"))
		}
		r = e.post(ada, base+"/turns", form("message", "again", "mode", "plan"), true)
		if r.status != http.StatusAccepted || len(r.body) != 0 || r.header.Get("X-Turn-Id") == "" {
			t.Errorf("htmx = %d %q turn %q, want 202, no body, the turn id", r.status, r.body, r.header.Get("X-Turn-Id"))
		}
		want := []chat.TurnRequest{
			{UserID: ada.userID, ConversationID: conv.ID, Message: "DNA repair genes", Mode: "execute", Model: "offline"},
			{UserID: ada.userID, ConversationID: conv.ID, Message: "again", Mode: "plan"},
		}
		if diff := cmp.Diff(want, e.chat.turns); diff != "" {
			t.Errorf("turns started (-want +got):\n%s", diff)
		}
	})
	t.Run("edit and regenerate", func(t *testing.T) {
		before := len(e.chat.turns)
		const latest = "22222222-2222-2222-2222-222222222222"
		if r := e.post(ada, base+"/turns", form("message", "DNA repair genes, edited", "mode", "plan", "model", "offline", "replaces", latest), true); r.status != http.StatusAccepted {
			t.Errorf("Edit = %d %s", r.status, r.body)
		}
		if r := e.post(ada, base+"/turns", form("model", "offline", "replaces", latest), true); r.status != http.StatusAccepted {
			t.Errorf("Regenerate = %d %s", r.status, r.body)
		}
		want := []chat.TurnRequest{
			{UserID: ada.userID, ConversationID: conv.ID, Message: "DNA repair genes, edited", Mode: "plan", Model: "offline", Replaces: latest},
			{UserID: ada.userID, ConversationID: conv.ID, Model: "offline", Replaces: latest},
		}
		if diff := cmp.Diff(want, e.chat.turns[before:]); diff != "" {
			t.Errorf("turns started (-want +got):\n%s", diff)
		}
		e.chat.err = &chat.ReplaceError{Message: "only the latest turn can be edited or regenerated"}
		defer func() { e.chat.err = nil }()
		r := e.post(ada, base+"/turns", form("replaces", latest), true)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(testid(doc(t, r), "error-message").Text(), "only the latest turn") {
			t.Errorf("= %d %s, want 422 with the reason where the page's script finds it", r.status, r.body)
		}
	})
	t.Run("turn running", func(t *testing.T) {
		e.chat.err = chat.ErrTurnRunning
		defer func() { e.chat.err = nil }()
		r := e.post(ada, base+"/turns", form("message", "more", "mode", "plan"), true)
		if r.status != http.StatusConflict || !strings.Contains(testid(doc(t, r), "error-message").Text(), "still running") {
			t.Errorf("= %d %s, want 409 with the reason where the page's script finds it", r.status, r.body)
		}
	})
	t.Run("stop, build, undo", func(t *testing.T) {
		for _, p := range []string{"/turns/11111111-1111-1111-1111-111111111111/cancel", "/handoffs/33333333-3333-3333-3333-333333333333/accept", "/strategy/undo"} {
			if r := e.post(ada, base+p, form(), false); r.status != http.StatusSeeOther || r.header.Get("Location") != base {
				t.Errorf("plain %s = %d %s", p, r.status, r.header.Get("Location"))
			}
			if r := e.post(ada, base+p, form(), true); r.status >= 300 || len(r.body) != 0 {
				t.Errorf("htmx %s = %d %q, want success without a body", p, r.status, r.body)
			}
		}
		if len(e.chat.cancels) != 2 || len(e.chat.accepts) != 2 || e.strategies.undos != 2 {
			t.Errorf("cancels %v, accepts %v, undos %d; want two of each", e.chat.cancels, e.chat.accepts, e.strategies.undos)
		}
	})
	t.Run("rename and delete", func(t *testing.T) {
		r := e.post(ada, base+"/rename", form("title", "  Kinases  "), true)
		list := doc(t, r)
		if r.status != http.StatusOK || list.Find("#conversations").Length() != 1 || !strings.Contains(testid(list, "conversation-item").Text(), "Kinases") {
			t.Errorf("htmx rename = %d, want the list with the new title: %s", r.status, r.body)
		}
		if r := e.post(ada, base+"/rename", form("title", "   "), false); r.status != http.StatusUnprocessableEntity {
			t.Errorf("empty title = %d, want 422", r.status)
		}
		if r := e.post(ada, base+"/rename", form("title", "Kinases 2"), false); r.status != http.StatusSeeOther || r.header.Get("Location") != "/" {
			t.Errorf("plain rename = %d %s", r.status, r.header.Get("Location"))
		}
		other := e.conversation(ada, "Other")
		r = e.post(ada, "/conversations/"+other.ID+"/delete", form(), true)
		if r.status != http.StatusOK || strings.Contains(string(r.body), other.ID) || !strings.Contains(string(r.body), conv.ID) {
			t.Errorf("htmx delete = %d, want the list without it", r.status)
		}
		if r := e.post(ada, base+"/delete", form(), false); r.status != http.StatusSeeOther {
			t.Errorf("plain delete = %d", r.status)
		}
		if r := e.page(base, ada.cookie); r.status != http.StatusNotFound {
			t.Errorf("deleted conversation's page = %d", r.status)
		}
		if r := e.page("/", ada.cookie); testid(doc(t, r), "empty-list").Length() != 1 {
			t.Errorf("list after deleting both is not empty")
		}
	})
	t.Run("new conversation", func(t *testing.T) {
		r := e.post(ada, "/conversations", form("siteId", "plasmodb"), false)
		if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/conversations/") {
			t.Fatalf("plain = %d %s", r.status, r.header.Get("Location"))
		}
		if r := e.page(r.header.Get("Location"), ada.cookie); r.status != http.StatusOK {
			t.Errorf("new conversation's page = %d", r.status)
		}
		if r := e.post(ada, "/conversations", form("siteId", "plasmodb"), true); r.status != http.StatusCreated || !strings.HasPrefix(r.header.Get("HX-Redirect"), "/conversations/") {
			t.Errorf("htmx = %d HX-Redirect %q", r.status, r.header.Get("HX-Redirect"))
		}
		if r := e.post(ada, "/conversations", form("siteId", "nosuchdb"), false); r.status != http.StatusUnprocessableEntity {
			t.Errorf("unknown site = %d", r.status)
		}
	})
}

func TestStepResultsPage(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada, eve := e.signIn("ada@example.org"), e.signIn("eve@example.org")
	conv := e.conversation(ada, "Ada's")
	base := "/conversations/" + conv.ID + "/strategy/steps/"
	get := func(b browser, path string, htmx bool) response {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.AddCookie(b.cookie)
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		return e.send(req)
	}
	r := get(ada, base+"s1/results?limit=2", true)
	d := doc(t, r)
	if r.status != 200 || testid(d, "result-row").Length() != 2 || d.Find("html body header").Length() != 0 {
		t.Errorf("htmx results = %d with %d rows; want a fragment of 2 rows", r.status, testid(d, "result-row").Length())
	}
	// The step can be renamed from here, with the session's token.
	rename := testid(d, "rename-step")
	if rename.AttrOr("hx-post", "") != "/conversations/"+conv.ID+"/strategy/steps/s1/rename" ||
		rename.Find(`input[name="csrf_token"]`).AttrOr("value", "") != ada.csrf {
		t.Errorf("rename form posts to %q with token %q", rename.AttrOr("hx-post", ""), rename.Find(`input[name="csrf_token"]`).AttrOr("value", ""))
	}
	// Gene ids open the gene on the conversation's site, in a new tab.
	link := testid(d, "gene-link").First()
	if href := link.AttrOr("href", ""); !strings.HasPrefix(href, "https://plasmodb.org/plasmo/app/record/gene/") ||
		link.AttrOr("target", "") != "_blank" || link.AttrOr("rel", "") != "noopener" || !strings.Contains(link.AttrOr("title", ""), "PlasmoDB") {
		t.Errorf("gene link = %q target %q rel %q title %q", href, link.AttrOr("target", ""), link.AttrOr("rel", ""), link.AttrOr("title", ""))
	}
	if got := testid(d, "download-tsv").AttrOr("href", ""); got != "/api/v1/conversations/"+conv.ID+"/strategy/steps/s1/results?format=tsv" {
		t.Errorf("TSV download link = %q", got)
	}
	if got := testid(d, "results-next").AttrOr("hx-get", ""); got != "/conversations/"+conv.ID+"/strategy/steps/s1/results?limit=2&offset=2" {
		t.Errorf("next = %q", got)
	}
	// Sorted from the end and filtered, over all of the step's genes (the
	// catalog pages them in its own order).
	rowIDs := func(d *goquery.Document) []string {
		return testid(d, "result-row").Map(func(_ int, r *goquery.Selection) string { return r.Find("code").Text() })
	}
	d = doc(t, get(ada, base+"s1/results?sort=id&dir=desc&limit=2", true))
	if diff := cmp.Diff([]string{"PF3D7_0100102", "PF3D7_0100101"}, rowIDs(d)); diff != "" {
		t.Errorf("sorted by id, last first (-want +got):\n%s", diff)
	}
	d = doc(t, get(ada, base+"s1/results?q=pf3d7_0100100+coding", true))
	if diff := cmp.Diff([]string{"PF3D7_0100100"}, rowIDs(d)); diff != "" || !strings.Contains(testid(d, "results-count").Text(), "1 gene matching") {
		t.Errorf("filtered (-want +got):\n%s count line %q", diff, testid(d, "results-count").Text())
	}
	if r := get(ada, base+"s1/results?sort=weight", true); r.status != http.StatusBadRequest {
		t.Errorf("sorted by an unknown column = %d", r.status)
	}
	r = get(ada, base+"s1/results?offset=2&limit=2", false)
	if d := doc(t, r); r.status != 200 || testid(d, "result-row").Length() != 1 || d.Find("header.top").Length() != 1 {
		t.Errorf("plain results = %d; want a whole page with the last row", r.status)
	}
	if r := get(ada, base+"s2/results", true); r.status != 200 || !strings.Contains(testid(doc(t, r), "results-not-evaluable").Text(), "not evaluable offline") {
		t.Errorf("unevaluable step = %d %s", r.status, r.body)
	}
	if r := get(ada, base+"s9/results", true); r.status != http.StatusNotFound {
		t.Errorf("unknown step = %d", r.status)
	}
	if r := get(eve, base+"s1/results", true); r.status != http.StatusNotFound {
		t.Errorf("another user = %d", r.status)
	}
}

// appendEvents writes events to a conversation's log as the orchestrator
// would.
func appendEvents(t *testing.T, db *store.DB, conversationID string, evs ...event.Event) {
	t.Helper()
	var batch []store.NewEvent
	for _, e := range evs {
		name, payload, err := event.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, store.NewEvent{ConversationID: conversationID, TurnID: e.Turn(), Type: name, Payload: json.RawMessage(payload)})
	}
	if _, err := db.AppendEvents(context.Background(), "test", batch); err != nil {
		t.Fatal(err)
	}
}
