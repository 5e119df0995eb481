package server_test

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
	"strategist/internal/catalog/offline"
	"strategist/internal/chat"
	"strategist/internal/config"
	"strategist/internal/eventlog"
	"strategist/internal/llm"
	"strategist/internal/offlinetest"
	"strategist/internal/pgtest"
	"strategist/internal/server"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

// env is one running test server with its database.
type env struct {
	t        testing.TB
	srv      *httptest.Server
	db       *store.DB
	accounts *account.Service
	clock    *clock
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// The foundation tests exercise accounts, conversations and the catalog;
// turns, streams and strategies are tested end to end in cmd/server with
// the real orchestrator. These stand-ins answer as an empty system would.
type unusedChat struct{ db *store.DB }

func (unusedChat) StartTurn(context.Context, chat.TurnRequest) (string, error) {
	return "", chat.ErrNotServing
}
func (unusedChat) Cancel(context.Context, string, string, string) error { return nil }

// Rename renames in the store, as the orchestrator does (without events).
func (c unusedChat) Rename(ctx context.Context, userID, id, title string) (store.Conversation, error) {
	return c.db.RenameConversation(ctx, userID, id, title)
}

// Delete deletes in the store, as the orchestrator does once no turn runs.
func (c unusedChat) Delete(ctx context.Context, userID, id string) error {
	return c.db.DeleteConversation(ctx, userID, id)
}
func (unusedChat) AcceptHandoff(context.Context, string, string, string) (string, error) {
	return "", store.ErrNotFound
}

type unusedStreamer struct{}

func (unusedStreamer) Batches(context.Context, string, string, int64, time.Duration) iter.Seq2[[]*eventlog.Published, error] {
	return func(func([]*eventlog.Published, error) bool) {}
}

type noStrategies struct{}

func (noStrategies) Conversation(context.Context, string, string) (strategy.Snapshot, error) {
	return strategy.Snapshot{}, store.ErrNotFound
}
func (noStrategies) Versions(context.Context, string, string) ([]strategies.Version, error) {
	return nil, store.ErrNotFound
}
func (noStrategies) Undo(context.Context, string, string) (strategies.Result, error) {
	return strategies.Result{}, store.ErrNotFound
}
func (noStrategies) Redo(context.Context, string, string) (strategies.Result, error) {
	return strategies.Result{}, store.ErrNotFound
}
func (noStrategies) Restore(context.Context, string, string, int) (strategies.Result, error) {
	return strategies.Result{}, store.ErrNotFound
}
func (noStrategies) StepResults(context.Context, string, string, strategy.StepID, catalog.Page) (*catalog.Answer, error) {
	return nil, store.ErrNotFound
}
func (noStrategies) WDK(context.Context, string, string) (*strategy.WDKStrategy, error) {
	return nil, store.ErrNotFound
}
func (noStrategies) Apply(context.Context, string, string, strategy.Mutation) (strategies.Result, error) {
	return strategies.Result{}, store.ErrNotFound
}

func (noStrategies) StepEnrichment(context.Context, string, string, strategy.StepID, float64) (*enrich.Result, error) {
	return nil, store.ErrNotFound
}

func (noStrategies) Overlaps(context.Context, strategy.Snapshot) map[strategy.StepID]strategy.Overlap {
	return nil
}

type fixedModels struct{}

func (fixedModels) Models() llm.ModelList {
	return llm.ModelList{Models: []llm.ModelInfo{{ID: "offline", Default: true}}, Default: "offline"}
}

// geneCatalog is the offline catalog over the gene data, opened once for
// every test that needs the data (it is only read); skipped without the
// data, except under CI=true.
var geneCatalog = offlinetest.Shared(offline.Open)

func newEnv(t testing.TB, auth config.AuthMode) *env {
	t.Helper()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return newEnvWith(t, auth, cat)
}

// testMetricsToken is the metrics token of test servers.
const testMetricsToken = "metrics-token-for-tests"

// newEnvWith runs the server's handler over a given catalog; opts change
// its config.
func newEnvWith(t testing.TB, auth config.AuthMode, cat catalog.Catalog, opts ...func(*server.Config)) *env {
	t.Helper()
	return newEnvServed(t, false, auth, cat, opts...)
}

// newEnvServed is newEnvWith; served runs server.Serve rather than the
// handler under httptest.
func newEnvServed(t testing.TB, served bool, auth config.AuthMode, cat catalog.Catalog, opts ...func(*server.Config)) *env {
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
	reg := prometheus.NewRegistry()
	// The listener comes first: the server's public URL is its address.
	srv := httptest.NewUnstartedServer(nil)
	t.Cleanup(srv.Close)
	cfg := server.Config{
		PublicURL:    "http://" + srv.Listener.Addr().String(),
		Logger:       slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError})),
		Store:        db,
		Accounts:     accounts,
		Catalog:      cat,
		Chat:         unusedChat{db: db},
		Streamer:     unusedStreamer{},
		Strategies:   noStrategies{},
		Models:       fixedModels{},
		Ready:        func(ctx context.Context) error { return db.Ping(ctx) },
		Registry:     reg,
		Gatherer:     reg,
		Auth:         auth,
		DefaultModel: "offline",
		BodyLimit:    "64K",
		MetricsToken: testMetricsToken,
		Protocols:    testProtocols(),
	}
	for _, o := range opts {
		o(&cfg)
	}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if served {
		// server.Serve itself, with its timeouts and connection cap.
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Serve(ctx, srv.Listener) }()
		srv.URL = "http://" + srv.Listener.Addr().String()
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	} else {
		srv.Config.Handler = s.Handler()
		srv.Start()
	}
	return &env{t: t, srv: srv, db: db, accounts: accounts, clock: clk}
}

// user creates an account and returns an API token for it.
func (e *env) user(email string) (store.User, string) {
	e.t.Helper()
	u, err := e.accounts.CreateUser(context.Background(), email, "correct horse battery")
	if err != nil {
		e.t.Fatal(err)
	}
	token, _, err := e.accounts.CreateAPIToken(context.Background(), u.ID, "test")
	if err != nil {
		e.t.Fatal(err)
	}
	return u, token
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not JSON (%d): %s", r.status, r.body)
	}
	return m
}

// errorCode returns error.code of a JSON error body.
func (r response) errorCode(t testing.TB) string {
	t.Helper()
	m := r.json(t)
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %s", r.body)
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Errorf("error without a message: %s", r.body)
	}
	code, _ := e["code"].(string)
	return code
}

// do sends a JSON API request; token "" sends none. headers are pairs.
func (e *env) do(method, path, token, body string, headers ...string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return e.send(req)
}

// form posts a browser form, with the session cookie when given.
func (e *env) form(path string, values url.Values, cookie *http.Cookie) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(values.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return e.send(req)
}

// page gets a browser page, with the session cookie when given.
func (e *env) page(path string, cookie *http.Cookie) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return e.send(req)
}

// send does a request without following redirects, or reading them: a
// redirect's Location is shown as sent, even one no client would follow.
// testTransport sends the tests' requests. It is not
// http.DefaultTransport: a test's httptest server closing ends the idle
// connections of that one, which can break another test's request that is
// just picking one up ("transport connection broken").
var testTransport = http.DefaultTransport.(*http.Transport).Clone()

func (e *env) send(req *http.Request) response {
	e.t.Helper()
	resp, err := testTransport.RoundTrip(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func TestHealthReadyMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	if r := e.do("GET", "/healthz", "", ""); r.status != 200 {
		t.Errorf("healthz = %d", r.status)
	}
	if r := e.do("GET", "/readyz", "", ""); r.status != 200 {
		t.Errorf("readyz = %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/metrics", "", ""); r.status != http.StatusUnauthorized {
		t.Errorf("metrics without the token = %d, want 401", r.status)
	}
	if r := e.do("GET", "/metrics", "not-the-metrics-token", ""); r.status != http.StatusUnauthorized {
		t.Errorf("metrics with a wrong token = %d, want 401", r.status)
	}
	r := e.do("GET", "/metrics", testMetricsToken, "")
	if r.status != 200 || !strings.Contains(string(r.body), "strategist_http_requests_total") {
		t.Errorf("metrics = %d, missing request counter", r.status)
	}
	// Without a token configured, /metrics is not on the main listener at
	// all (it is served on STRATEGIST_METRICS_ADDR).
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	bare := newEnvWith(t, config.AuthLocal, cat, func(c *server.Config) { c.MetricsToken = "" })
	if r := bare.do("GET", "/metrics", testMetricsToken, ""); r.status != http.StatusNotFound {
		t.Errorf("metrics with no token configured = %d, want 404", r.status)
	}
}
