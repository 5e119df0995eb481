package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"strategist/internal/config"
)

func sessionCookie(t *testing.T, r response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "strategist_session" {
			return c
		}
	}
	t.Fatalf("no session cookie in %v", r.header)
	return nil
}

func TestBrowserSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	e.user("ada@example.org")

	if r := e.page("/", nil); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/signin") {
		t.Fatalf("anonymous home = %d %s, want a redirect to /signin", r.status, r.header.Get("Location"))
	}
	if r := e.page("/signin", nil); r.status != 200 || !strings.Contains(string(r.body), `data-testid="signin-form"`) {
		t.Fatalf("sign-in page = %d", r.status)
	}

	wrong := e.form("/signin", url.Values{"email": {"ada@example.org"}, "password": {"not it at all"}}, nil)
	if wrong.status != http.StatusUnauthorized || !strings.Contains(string(wrong.body), "Wrong email or password") {
		t.Errorf("wrong password = %d", wrong.status)
	}
	if len((&http.Response{Header: wrong.header}).Cookies()) != 0 {
		t.Error("a failed sign-in set a cookie")
	}

	ok := e.form("/signin", url.Values{"email": {"ada@example.org"}, "password": {"correct horse battery"}, "next": {"/"}}, nil)
	if ok.status != http.StatusSeeOther || ok.header.Get("Location") != "/" {
		t.Fatalf("sign-in = %d to %q", ok.status, ok.header.Get("Location"))
	}
	ck := sessionCookie(t, ok)
	if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode {
		t.Errorf("session cookie flags: HttpOnly=%v SameSite=%v", ck.HttpOnly, ck.SameSite)
	}
	home := e.page("/", ck)
	if home.status != 200 || !strings.Contains(string(home.body), "ada@example.org") {
		t.Fatalf("signed-in home = %d", home.status)
	}
	// The session works for the JSON API too.
	if r := e.page("/api/v1/conversations", ck); r.status != 200 {
		t.Errorf("API with session cookie = %d", r.status)
	}

	// Sign-out needs the session's form token.
	if r := e.form("/signout", url.Values{}, ck); r.status != http.StatusForbidden {
		t.Errorf("sign-out without the form token = %d, want 403", r.status)
	}
	sess, err := e.accounts.SessionFor(context.Background(), ck.Value)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.form("/signout", url.Values{"csrf_token": {sess.CSRFToken}}, ck); r.status != http.StatusSeeOther {
		t.Errorf("sign-out = %d", r.status)
	}
	if r := e.page("/", ck); r.status != http.StatusSeeOther {
		t.Errorf("home after sign-out = %d, want a redirect", r.status)
	}
}

// TestOpenRedirectRefused: after sign-in only a path of this site is
// followed. Anything a browser could read as another origin (a scheme, a
// host, "//" or "/\\" however spelled, whitespace or control characters a
// browser strips before parsing) goes home instead; same-site paths are kept.
func TestOpenRedirectRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	e.user("ada@example.org")
	refused := []string{
		"https://evil.example", "http:evil.example", "//evil.example", "/\\evil.example", "\\\\evil.example",
		"/\t/evil.example", "/\n/evil.example", "/\r/evil.example", "\t//evil.example", " //evil.example",
		"/ /evil.example", "/\x00/evil.example", "/\x0b/evil.example", "/\x7f/evil.example",
		"/evil.example\\@x", "/a\\b", "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,x",
		"/\u00a0/evil.example", "/\u2028/evil.example", "/\u200b/evil.example", "/\u202e/evil.example", "/\ufeff/x",
		"/\xff\xfe", "evil.example", "", "?next=x", "#x", "./x", "../x",
	}
	kept := []string{"/", "/conversations/123", "/conversations?page=2#end", "/%2Fevil.example", "/search?q=a%20b", "/caf\u00e9"}
	_, _ = e.user("bob@example.org")
	signedIn := sessionCookie(t, e.form("/signin", url.Values{"email": {"bob@example.org"}, "password": {"correct horse battery"}}, nil))
	// ok: a redirect to want, or (for text the input check refuses: NUL,
	// invalid UTF-8) a 400 that sends nobody anywhere.
	ok := func(r response, want string) bool {
		loc := r.header.Get("Location")
		if r.status == http.StatusBadRequest && want == "/" {
			return loc == ""
		}
		return r.status == http.StatusSeeOther && loc == want
	}
	check := func(next, want string) {
		t.Helper()
		r := e.form("/signin", url.Values{"email": {"ada@example.org"}, "password": {"correct horse battery"}, "next": {next}}, nil)
		if !ok(r, want) {
			t.Errorf("sign-in with next=%q = %d to %q, want %q", next, r.status, r.header.Get("Location"), want)
		}
		// A signed-in visitor of /signin is sent on at once.
		r = e.page("/signin?next="+url.QueryEscape(next), signedIn)
		if !ok(r, want) {
			t.Errorf("signed-in /signin?next=%q = %d to %q, want %q", next, r.status, r.header.Get("Location"), want)
		}
	}
	for _, next := range refused {
		check(next, "/")
	}
	for _, next := range kept {
		check(next, next)
	}
}

func TestExpiredSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	e.user("ada@example.org")
	ck := sessionCookie(t, e.form("/signin", url.Values{"email": {"ada@example.org"}, "password": {"correct horse battery"}}, nil))
	e.clock.t = e.clock.t.Add(2 * time.Hour)
	if r := e.page("/", ck); r.status != http.StatusSeeOther {
		t.Errorf("expired session on a page = %d, want a redirect to sign in", r.status)
	}
	if r := e.page("/api/v1/conversations", ck); r.status != http.StatusUnauthorized || r.errorCode(t) != "UNAUTHENTICATED" {
		t.Errorf("expired session on the API = %d", r.status)
	}
}

func TestSignInThrottled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	e.user("ada@example.org")
	var last response
	for range 6 {
		last = e.form("/signin", url.Values{"email": {"ada@example.org"}, "password": {"guess guess"}}, nil)
	}
	if last.status != http.StatusTooManyRequests || last.header.Get("Retry-After") == "" {
		t.Errorf("sixth failed sign-in = %d (Retry-After %q), want 429", last.status, last.header.Get("Retry-After"))
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	u, token := e.user("ada@example.org")
	if r := e.do("GET", "/api/v1/conversations", token, ""); r.status != 200 {
		t.Fatalf("with token = %d", r.status)
	}
	if r := e.do("GET", "/api/v1/conversations", "", ""); r.status != 401 || r.errorCode(t) != "UNAUTHENTICATED" {
		t.Errorf("without token = %d", r.status)
	}
	if r := e.do("GET", "/api/v1/conversations", "stg_forged", ""); r.status != 401 {
		t.Errorf("forged token = %d", r.status)
	}
	if r := e.do("GET", "/api/v1/conversations", "", "", "Authorization", "Basic YTpi"); r.status != 401 {
		t.Errorf("basic auth = %d", r.status)
	}
	toks, err := e.db.APITokens(context.Background(), u.ID)
	if err != nil || len(toks) != 1 {
		t.Fatalf("tokens = %v, %v", toks, err)
	}
	if err := e.accounts.RevokeAPIToken(context.Background(), u.ID, toks[0].ID); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", "/api/v1/conversations", token, ""); r.status != 401 {
		t.Errorf("revoked token = %d, want 401", r.status)
	}
}

func TestDevMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthDev)
	r := e.do("POST", "/api/v1/conversations", "", `{"siteId":"plasmodb"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("dev-mode create = %d %s", r.status, r.body)
	}
	if home := e.page("/", nil); home.status != 200 || !strings.Contains(string(home.body), "dev@localhost") {
		t.Errorf("dev-mode home = %d", home.status)
	}
}

func TestCrossOriginRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, token := e.user("ada@example.org")
	r := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb"}`, "Sec-Fetch-Site", "cross-site")
	if r.status != http.StatusForbidden || r.errorCode(t) != "FORBIDDEN" {
		t.Errorf("cross-site POST = %d %s", r.status, r.body)
	}
	r = e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb"}`, "Origin", "https://evil.example")
	if r.status != http.StatusForbidden {
		t.Errorf("foreign Origin POST = %d", r.status)
	}
	// Reads are not state-changing and stay allowed.
	if r := e.do("GET", "/api/v1/conversations", token, "", "Sec-Fetch-Site", "cross-site"); r.status != 200 {
		t.Errorf("cross-site GET = %d", r.status)
	}
}

// TestAPIWritesNeedJSONAndTheSessionToken: a page on another site can post
// a form or text/plain with the visitor's cookie; the JSON API refuses both,
// and a cookie session must send its token as X-CSRF-Token.
func TestAPIWritesNeedJSONAndTheSessionToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, token := e.user("ada@example.org")
	ck := sessionCookie(t, e.form("/signin", url.Values{"email": {"ada@example.org"}, "password": {"correct horse battery"}}, nil))
	sess, err := e.accounts.SessionFor(context.Background(), ck.Value)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"siteId":"plasmodb","title":"forged"}`
	send := func(method, path, contentType, body string, headers ...string) response {
		t.Helper()
		req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		req.AddCookie(ck)
		return e.send(req)
	}
	tests := []struct {
		name, method, contentType string
		headers                   []string
		status                    int
		code                      string
	}{
		{"text/plain with the cookie", "POST", "text/plain", nil, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"a form with the cookie", "POST", "application/x-www-form-urlencoded", nil, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"no content type with the cookie", "POST", "", nil, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"JSON with the cookie and no token", "POST", "application/json", nil, 403, "FORBIDDEN"},
		{"JSON with the cookie and a wrong token", "POST", "application/json", []string{"X-CSRF-Token", "guess"}, 403, "FORBIDDEN"},
		{"text/plain with a bearer token", "POST", "text/plain", []string{"Authorization", "Bearer " + token}, 415, "UNSUPPORTED_MEDIA_TYPE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r := send(tt.method, "/api/v1/conversations", tt.contentType, body, tt.headers...); r.status != tt.status || r.errorCode(t) != tt.code {
				t.Errorf("= %d %s, want %d %s", r.status, r.body, tt.status, tt.code)
			}
		})
	}
	if r := e.do("GET", "/api/v1/conversations", token, ""); len(r.json(t)["conversations"].([]any)) != 0 {
		t.Fatalf("a refused write created a conversation: %s", r.body)
	}
	r := send("POST", "/api/v1/conversations", "application/json; charset=utf-8", body, "X-CSRF-Token", sess.CSRFToken)
	if r.status != http.StatusCreated {
		t.Fatalf("JSON with the session's token = %d %s", r.status, r.body)
	}
	id := r.json(t)["id"].(string)
	if r := send("DELETE", "/api/v1/conversations/"+id, "", ""); r.status != http.StatusForbidden {
		t.Errorf("a bodiless DELETE with the cookie and no token = %d, want 403", r.status)
	}
	if r := e.do("DELETE", "/api/v1/conversations/"+id, token, ""); r.status != http.StatusNoContent {
		t.Errorf("DELETE with a bearer token = %d %s", r.status, r.body)
	}
}
