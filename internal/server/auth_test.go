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

func TestOpenRedirectRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	e.user("ada@example.org")
	for _, next := range []string{"https://evil.example", "//evil.example", "/\\evil.example"} {
		r := e.form("/signin", url.Values{"email": {"ada@example.org"}, "password": {"correct horse battery"}, "next": {next}}, nil)
		if loc := r.header.Get("Location"); loc != "/" {
			t.Errorf("next=%q redirected to %q", next, loc)
		}
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
