package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// openStream opens a conversation's event stream with a request decorated
// by auth, and returns a channel closed when the server ends it.
func openStream(t *testing.T, a *testApp, conv string, auth func(*http.Request)) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", a.streamURL(conv), nil)
	if err != nil {
		t.Fatal(err)
	}
	auth(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream = %d", resp.StatusCode)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return ended
}

func waitEnded(t *testing.T, what string, ended <-chan struct{}, since time.Time) {
	t.Helper()
	select {
	case <-ended:
		t.Logf("%s: the stream ended %s after the revocation", what, time.Since(since).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the stream was still open 10 s after the revocation", what)
	}
}

// TestRevocationEndsOpenStreams: revoking a token or signing out ends the
// streams it opened (they must not keep delivering a conversation to a
// credential that no longer signs anyone in), and leaves other streams.
func TestRevocationEndsOpenStreams(t *testing.T) {
	a := startApp(t, appOptions{})
	conv := a.newConversation()
	ctx := context.Background()

	token, tok, err := a.app.accounts.CreateAPIToken(ctx, a.UserID, "to revoke")
	if err != nil {
		t.Fatal(err)
	}
	bearer := func(tk string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tk) }
	}
	revoked := openStream(t, a, conv, bearer(token))
	kept := openStream(t, a, conv, bearer(a.Token))
	time.Sleep(100 * time.Millisecond) // both streams are registered
	start := time.Now()
	if err := a.app.accounts.RevokeAPIToken(ctx, a.UserID, tok.ID); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, "revoked token", revoked, start)
	select {
	case <-kept:
		t.Fatal("revoking one token ended another token's stream")
	case <-time.After(200 * time.Millisecond):
	}
	req, _ := http.NewRequest("GET", a.streamURL(conv), nil)
	bearer(token)(req)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("reconnecting with the revoked token = %v %v, want 401", resp, err)
	} else {
		resp.Body.Close()
	}

	// A browser session: sign in, stream, sign out.
	email := "grace@example.org"
	if _, err := a.app.accounts.CreateUser(ctx, email, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := func(path string, v url.Values, ck *http.Cookie) *http.Response {
		req, _ := http.NewRequest("POST", a.URL+path, strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if ck != nil {
			req.AddCookie(ck)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	var ck *http.Cookie
	for _, c := range form("/signin", url.Values{"email": {email}, "password": {"correct horse battery"}}, nil).Cookies() {
		if c.Name == "strategist_session" {
			ck = c
		}
	}
	if ck == nil {
		t.Fatal("no session cookie")
	}
	var gconv struct{ ID string }
	{
		sess, err := a.app.accounts.SessionFor(ctx, ck.Value)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("POST", a.URL+"/api/v1/conversations", strings.NewReader(`{"siteId":"plasmodb"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", sess.CSRFToken)
		req.AddCookie(ck)
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("create conversation with the session = %v %v", resp, err)
		}
		err = json.NewDecoder(resp.Body).Decode(&gconv)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		ended := openStream(t, a, gconv.ID, func(r *http.Request) { r.AddCookie(ck) })
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		if resp := form("/signout", url.Values{"csrf_token": {sess.CSRFToken}}, ck); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-out = %d", resp.StatusCode)
		}
		waitEnded(t, "signed-out session", ended, start)
	}
	select {
	case <-kept:
		t.Fatal("signing out ended another credential's stream")
	default:
	}
}
