package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"strategist/internal/account"
	"strategist/internal/catalog/offline"
	"strategist/internal/catalog/wdk"
	"strategist/internal/config"
	"strategist/internal/pgtest"
	"strategist/internal/server"
	"strategist/internal/sites"
	"strategist/internal/store"
)

const goodKey = "eyJ-registered-key-of-ada"

// fakeWDK answers GET /users/current the way WDK does: a registered user
// for goodKey, a guest for "guest-key", 401 for anything else. status,
// when set, is answered to every request instead (a site in trouble).
type fakeWDK struct {
	mu     sync.Mutex
	status int
	header http.Header
}

func (f *fakeWDK) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	status, header := f.status, f.header
	f.mu.Unlock()
	if status != 0 {
		for k, v := range header {
			w.Header()[k] = v
		}
		http.Error(w, http.StatusText(status), status)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/service/users/current") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.Header.Get("Authorization") {
	case "Bearer " + goodKey:
		_, _ = w.Write([]byte(`{"id":4242,"isGuest":false,"email":"ada@example.org","properties":{"firstName":"Ada"}}`))
	case "Bearer guest-key":
		_, _ = w.Write([]byte(`{"id":17,"isGuest":true,"properties":{}}`))
	default:
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("Invalid token"))
	}
}

func (f *fakeWDK) set(status int, header http.Header) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status, f.header = status, header
}

var testSecret = []byte("0123456789abcdef0123456789abcdef")

type liveEnv struct {
	*pageEnv
	fake *fakeWDK
	logs *syncLog
}

type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// newLiveEnv is a server over the sites registry (offline snapshot plus
// live sites at a fake WDK) with the real store; secret false leaves
// STRATEGIST_SECRET_KEY unset.
func newLiveEnv(t *testing.T, secret bool, timeout time.Duration, opts ...func(*server.Config)) *liveEnv {
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
	off, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeWDK{}
	wsrv := httptest.NewServer(fake)
	t.Cleanup(wsrv.Close)
	var creds *wdk.Credentials
	if secret {
		if creds, err = wdk.NewCredentials(testSecret); err != nil {
			t.Fatal(err)
		}
	}
	logs := &syncLog{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	keys := sites.NewKeyring(db, creds, timeout, log)
	reg, err := sites.NewLive(sites.LiveConfig{Offline: off, Keys: keys, BaseURL: wsrv.URL + "/plasmo/service", Timeout: timeout, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	prom := prometheus.NewRegistry()
	srv := httptest.NewUnstartedServer(nil)
	t.Cleanup(srv.Close)
	cfg := server.Config{
		PublicURL: "http://" + srv.Listener.Addr().String(),
		Logger:    log, Store: db, Accounts: accounts, Catalog: reg, Sites: reg, Keys: keys, Saver: reg,
		Chat: unusedChat{db: db}, Streamer: unusedStreamer{}, Strategies: noStrategies{}, Models: fixedModels{},
		Ready:    func(ctx context.Context) error { return db.Ping(ctx) },
		Registry: prom, Gatherer: prom, Auth: config.AuthLocal, DefaultModel: "offline",
	}
	for _, o := range opts {
		o(&cfg)
	}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = s.Handler()
	srv.Start()
	return &liveEnv{pageEnv: &pageEnv{env: &env{t: t, srv: srv, db: db, accounts: accounts, clock: clk}}, fake: fake, logs: logs}
}

func TestVEuPathDBKeyAPI(t *testing.T) {
	e := newLiveEnv(t, true, 5*time.Second)
	u, token := e.user("ada@example.org")

	got := e.do("GET", "/api/v1/account/veupathdb", token, "").json(t)
	if got["enabled"] != true || len(got["sites"].([]any)) != 13 {
		t.Fatalf("account = %v", got)
	}

	// A key the site refuses is not stored.
	for _, bad := range []string{"not-a-key", "guest-key"} {
		r := e.do("PUT", "/api/v1/account/veupathdb", token, `{"siteId":"plasmodb-live","apiKey":"`+bad+`"}`)
		if r.status != 422 || r.errorCode(t) != "VALIDATION_ERROR" || !strings.Contains(string(r.body), "refused") {
			t.Errorf("PUT %s = %d %s", bad, r.status, r.body)
		}
	}
	if keys, _ := e.db.WDKCredentials(context.Background(), u.ID); len(keys) != 0 {
		t.Fatalf("refused keys stored: %v", keys)
	}
	for _, body := range []string{`{"siteId":"plasmodb","apiKey":"x"}`, `{"siteId":"","apiKey":"x"}`, `{"siteId":"plasmodb-live","apiKey":"  "}`} {
		if r := e.do("PUT", "/api/v1/account/veupathdb", token, body); r.status != 422 {
			t.Errorf("PUT %s = %d %s", body, r.status, r.body)
		}
	}

	r := e.do("PUT", "/api/v1/account/veupathdb", token, `{"siteId":"plasmodb-live","apiKey":"`+goodKey+`"}`)
	if r.status != 200 || strings.Contains(string(r.body), goodKey) || !strings.Contains(string(r.body), `"storedAt"`) {
		t.Fatalf("PUT good key = %d %s", r.status, r.body)
	}
	stored, err := e.db.WDKCredential(context.Background(), u.ID, "plasmodb-live")
	if err != nil || bytes.Contains(stored.Ciphertext, []byte(goodKey)) || stored.WDKUserID == nil || *stored.WDKUserID != 4242 {
		t.Fatalf("stored credential = %+v, %v", stored, err)
	}
	r = e.do("GET", "/api/v1/account/veupathdb", token, "")
	if strings.Contains(string(r.body), goodKey) || !strings.Contains(string(r.body), `{"siteId":"plasmodb-live","siteName":"PlasmoDB","stored":true,"storedAt":`) {
		t.Errorf("account after PUT = %s", r.body)
	}
	sitesBody := string(e.do("GET", "/api/v1/sites", token, "").body)
	if !strings.Contains(sitesBody, `"id":"plasmodb-live","name":"PlasmoDB","displayName":"PlasmoDB","projectId":"PlasmoDB","kind":"live","offline":false,"live":true,"available":true`) {
		t.Errorf("sites after PUT = %s", sitesBody)
	}
	// The key is used for live calls and opens only for its owner.
	if r := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb-live"}`); r.status != 201 {
		t.Errorf("conversation on plasmodb-live = %d %s", r.status, r.body)
	}
	_, other := e.user("bob@example.org")
	if r := e.do("POST", "/api/v1/conversations", other, `{"siteId":"plasmodb-live"}`); r.status != 422 {
		t.Errorf("another user's conversation on plasmodb-live = %d %s", r.status, r.body)
	}

	if r := e.do("DELETE", "/api/v1/account/veupathdb?siteId=plasmodb-live", token, ""); r.status != 204 {
		t.Errorf("DELETE = %d %s", r.status, r.body)
	}
	if r := e.do("DELETE", "/api/v1/account/veupathdb?siteId=plasmodb-live", token, ""); r.status != 404 {
		t.Errorf("second DELETE = %d %s", r.status, r.body)
	}
	// One key for every live site: checked once, stored for all 13.
	r = e.do("PUT", "/api/v1/account/veupathdb", token, `{"siteId":"toxodb-live","apiKey":"`+goodKey+`","allSites":true}`)
	if r.status != 200 || strings.Contains(string(r.body), goodKey) {
		t.Fatalf("PUT for every site = %d %s", r.status, r.body)
	}
	if keys, _ := e.db.WDKCredentials(context.Background(), u.ID); len(keys) != 13 {
		t.Errorf("stored for %d sites, want 13", len(keys))
	}
	for _, s := range e.do("GET", "/api/v1/sites", token, "").json(t)["sites"].([]any) {
		if m := s.(map[string]any); m["available"] != true {
			t.Errorf("after storing for every site, %v is unavailable", m["id"])
		}
	}
	if r := e.do("PUT", "/api/v1/account/veupathdb", token, `{"siteId":"toxodb-live","apiKey":"wrong","allSites":true}`); r.status != 422 {
		t.Errorf("PUT a refused key for every site = %d", r.status)
	}
	if strings.Contains(e.logs.String(), goodKey) || strings.Contains(e.logs.String(), "not-a-key") {
		t.Errorf("a key reached the logs:\n%s", e.logs.String())
	}
}

func TestVEuPathDBKeysWithoutServerKey(t *testing.T) {
	e := newLiveEnv(t, false, 5*time.Second)
	_, token := e.user("ada@example.org")
	got := e.do("GET", "/api/v1/account/veupathdb", token, "").json(t)
	if got["enabled"] != false || !strings.Contains(got["message"].(string), "STRATEGIST_SECRET_KEY") {
		t.Errorf("account = %v", got)
	}
	if r := e.do("PUT", "/api/v1/account/veupathdb", token, `{"siteId":"plasmodb-live","apiKey":"`+goodKey+`"}`); r.status != 503 || !strings.Contains(string(r.body), "STRATEGIST_SECRET_KEY") {
		t.Errorf("PUT = %d %s", r.status, r.body)
	}
	b := e.signIn("cy@example.org")
	page := e.page("/settings", b.cookie)
	if page.status != 200 || !strings.Contains(string(page.body), "STRATEGIST_SECRET_KEY") || strings.Contains(string(page.body), `name="apiKey"`) {
		t.Errorf("settings page without a server key = %d", page.status)
	}
}

func TestSettingsPage(t *testing.T) {
	e := newLiveEnv(t, true, 5*time.Second)
	b := e.signIn("ada@example.org")
	home := e.page("/", b.cookie)
	if !strings.Contains(string(home.body), `href="/settings"`) {
		t.Error("the header does not link to the settings page")
	}
	page := e.page("/settings", b.cookie)
	if page.status != 200 || !strings.Contains(string(page.body), `data-testid="store-key-form"`) {
		t.Fatalf("settings page = %d %s", page.status, page.body)
	}
	vals := url.Values{"siteId": {"toxodb-live"}, "apiKey": {goodKey}}
	if r := e.form("/settings/veupathdb", vals, b.cookie); r.status != http.StatusForbidden {
		t.Errorf("form without the CSRF token = %d", r.status)
	}
	vals.Set("csrf_token", b.csrf)
	r := e.form("/settings/veupathdb", vals, b.cookie)
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/settings") {
		t.Fatalf("store key form = %d %s", r.status, r.body)
	}
	page = e.page(r.header.Get("Location"), b.cookie)
	body := string(page.body)
	if strings.Contains(body, goodKey) || !strings.Contains(body, "API key stored for toxodb-live") || !strings.Contains(body, `data-testid="delete-key-toxodb-live"`) {
		t.Errorf("settings page after storing = %s", body)
	}
	home = e.page("/", b.cookie)
	if optionDisabled(string(home.body), "toxodb-live") || !optionDisabled(string(home.body), "plasmodb-live") {
		t.Errorf("site picker does not follow the stored keys")
	}
	bad := url.Values{"siteId": {"toxodb-live"}, "apiKey": {"wrong"}, "csrf_token": {b.csrf}}
	if r := e.form("/settings/veupathdb", bad, b.cookie); r.status != 422 || !strings.Contains(string(r.body), "refused") {
		t.Errorf("refused key form = %d", r.status)
	}
	del := url.Values{"siteId": {"toxodb-live"}, "csrf_token": {b.csrf}}
	if r := e.form("/settings/veupathdb/delete", del, b.cookie); r.status != http.StatusSeeOther {
		t.Errorf("delete form = %d %s", r.status, r.body)
	}
	if keys, _ := e.db.WDKCredentials(context.Background(), b.userID); len(keys) != 0 {
		t.Errorf("key not deleted: %v", keys)
	}
}

// optionDisabled reports whether the site picker's option for a site is
// disabled.
func optionDisabled(page, site string) bool {
	i := strings.Index(page, `data-testid="site-`+site+`"`)
	if i < 0 {
		return false
	}
	start := strings.LastIndex(page[:i], "<")
	end := i + strings.Index(page[i:], ">")
	return strings.Contains(page[start:end], " disabled")
}

func TestLiveSiteFaults(t *testing.T) {
	e := newLiveEnv(t, true, 5*time.Second)
	_, token := e.user("ada@example.org")
	count := func() response {
		return e.do("POST", "/api/v1/catalog/plasmodb-live/searches/GenesByGoTerm/count", token, `{"parameters":{}}`)
	}
	// No key stored: 403 saying what to do.
	r := count()
	if r.status != 403 || r.errorCode(t) != "SITE_ACCOUNT" || !strings.Contains(string(r.body), "/settings") {
		t.Errorf("count without a key = %d %s", r.status, r.body)
	}
	if r := e.do("PUT", "/api/v1/account/veupathdb", token, `{"siteId":"plasmodb-live","apiKey":"`+goodKey+`"}`); r.status != 200 {
		t.Fatalf("PUT key = %d %s", r.status, r.body)
	}
	tests := []struct {
		name       string
		status     int
		retryAfter string
		want       int
		code       string
		wantRetry  string
		says       string
	}{
		{"revoked key", 401, "", 403, "SITE_ACCOUNT", "", "revoked or expired"},
		{"forbidden", 403, "", 403, "SITE_ACCOUNT", "", "Settings page"},
		{"site fault", 500, "", 502, "SITE_ERROR", "", "answered with an error (HTTP 500"},
		{"maintenance", 503, "120", 503, "SITE_UNAVAILABLE", "120", "unavailable (HTTP 503)"},
		{"rate limited", 429, "90", 503, "SITE_UNAVAILABLE", "90", "HTTP 429"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.retryAfter != "" {
				h.Set("Retry-After", tt.retryAfter)
			}
			e.fake.set(tt.status, h)
			start := time.Now()
			r := count()
			if r.status != tt.want || r.errorCode(t) != tt.code || r.header.Get("Retry-After") != tt.wantRetry || !strings.Contains(string(r.body), tt.says) {
				t.Errorf("count = %d Retry-After %q %s, want %d %s Retry-After %q saying %q",
					r.status, r.header.Get("Retry-After"), r.body, tt.want, tt.code, tt.wantRetry, tt.says)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
	// A key the site refuses while it is in maintenance is not stored and
	// the researcher hears why.
	e.fake.set(503, http.Header{"Retry-After": {"60"}})
	if r := e.do("PUT", "/api/v1/account/veupathdb", token, `{"siteId":"toxodb-live","apiKey":"`+goodKey+`"}`); r.status != 503 || r.header.Get("Retry-After") != "60" {
		t.Errorf("PUT during maintenance = %d %s", r.status, r.body)
	}
}

// TestVEuPathDBKeyWithControlCharacters: a key with a line break, a tab or
// another control character inside cannot be sent to a site as a header;
// it is the researcher's input to fix (422), not the site's fault (503).
func TestVEuPathDBKeyWithControlCharacters(t *testing.T) {
	e := newLiveEnv(t, true, 5*time.Second)
	_, token := e.user("ada@example.org")
	for _, bad := range []string{`eyJ\r\nX-Evil: 1`, `eyJ\nabc`, `eyJ\rabc`, `eyJ\tabc`, `eyJ\u0001abc`, `eyJ abc`, `eyJ\u007fabc`, `eyJ\u00e9abc`, `eyJ\u2028abc`} {
		for _, all := range []string{"false", "true"} {
			r := e.do("PUT", "/api/v1/account/veupathdb", token, `{"siteId":"plasmodb-live","apiKey":"`+bad+`","allSites":`+all+`}`)
			if r.status != http.StatusUnprocessableEntity || r.errorCode(t) != "VALIDATION_ERROR" {
				t.Errorf("PUT key %s (all sites %s) = %d %s, want 422", bad, all, r.status, r.body)
			}
		}
	}
}
