package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestOpenACopy: a signed-in visitor of a share link opens a copy of its
// strategy in a conversation of their own, from the shared page's button
// or the API; the copy is imported (counted again on the site) and the
// owner's conversation is untouched. Without a session or through a
// revoked link nothing is made.
func TestOpenACopy(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{})
	var l struct{ ID string }
	if st := a.call("POST", "/api/v1/gene-lists", map[string]string{"name": "copy me", "text": "PF3D7_1133400\nPF3D7_0100100\n"}, &l); st != http.StatusCreated {
		t.Fatalf("POST /gene-lists = %d", st)
	}
	conv := a.newConversation()
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/strategy/list-step", map[string]string{"listId": l.ID}, nil); st != http.StatusCreated {
		t.Fatalf("list step = %d", st)
	}
	var sh struct{ ID, URL string }
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/share", map[string]bool{"public": false}, &sh); st != http.StatusCreated {
		t.Fatalf("share = %d", st)
	}
	u, _ := url.Parse(sh.URL)
	token := strings.TrimPrefix(u.Path, "/shared/")

	eve := &testApp{t: t, URL: a.URL}
	user, err := a.app.accounts.CreateUser(context.Background(), "eve-copy@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if eve.Token, _, err = a.app.accounts.CreateAPIToken(context.Background(), user.ID, "eve"); err != nil {
		t.Fatal(err)
	}
	cookie, csrf := signIn(t, a, "eve-copy@example.org", "correct horse battery")
	if st, page := pageRequest(t, a, "GET", u.Path, nil, cookie); st != http.StatusOK || !strings.Contains(page, `data-testid="open-copy"`) {
		t.Errorf("the shared page for a signed-in visitor = %d, with no copy button", st)
	}
	st, _ := pageRequest(t, a, "POST", u.Path+"/copy", url.Values{"csrf_token": {csrf}}, cookie)
	if st != http.StatusSeeOther {
		t.Errorf("the copy form = %d, want 303 to the copy", st)
	}

	var copied struct{ ID, Title, SiteID string }
	if st := eve.call("POST", "/api/v1/shared/"+token+"/copy", nil, &copied); st != http.StatusCreated || copied.SiteID != "plasmodb" ||
		!strings.HasSuffix(copied.Title, "(copy)") {
		t.Fatalf("copy = %d %+v", st, copied)
	}
	type conversation struct {
		Strategy *struct {
			RootStepID string
			Steps      []struct {
				StepID string `json:"id"`
				Count  *int
			}
		}
	}
	count := func(c conversation) int {
		for _, s := range c.Strategy.Steps {
			if s.StepID == c.Strategy.RootStepID && s.Count != nil {
				return *s.Count
			}
		}
		return -1
	}
	var mine, theirs conversation
	if st := eve.call("GET", "/api/v1/conversations/"+copied.ID, nil, &mine); st != http.StatusOK || mine.Strategy == nil {
		t.Fatalf("the copy = %d", st)
	}
	if st := a.call("GET", "/api/v1/conversations/"+conv, nil, &theirs); st != http.StatusOK || theirs.Strategy == nil {
		t.Fatalf("the original = %d", st)
	}
	if got, want := count(mine), count(theirs); got != 2 || got != want {
		t.Errorf("the copy's root counts %d genes, the original's %d; want 2 each", got, want)
	}
	if st := a.call("GET", "/api/v1/conversations/"+copied.ID, nil, nil); st != http.StatusNotFound {
		t.Errorf("the owner reads the visitor's copy: %d, want 404", st)
	}

	anonymous := &testApp{t: t, URL: a.URL}
	if st := anonymous.call("POST", "/api/v1/shared/"+token+"/copy", nil, nil); st != http.StatusUnauthorized {
		t.Errorf("copy without a session = %d, want 401", st)
	}
	if st := a.call("DELETE", "/api/v1/conversations/"+conv+"/share/"+sh.ID, nil, nil); st != http.StatusNoContent {
		t.Fatalf("revoke = %d", st)
	}
	if st := eve.call("POST", "/api/v1/shared/"+token+"/copy", nil, nil); st != http.StatusGone {
		t.Errorf("copy through a revoked link = %d, want 410", st)
	}
}
