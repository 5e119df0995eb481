package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestListsPanelForms plays the results panel's list forms as a signed-in
// browser: upload a list file, start the strategy from it, choose it as the
// positive control, see the step's figures, and save the step's genes as a
// list.
func TestListsPanelForms(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Script: "plan_build.json"})
	ctx := context.Background()
	email := "grace@example.org"
	if _, err := a.app.accounts.CreateUser(ctx, email, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	var session *http.Cookie // set by the sign-in form
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path, contentType string, body io.Reader, ck *http.Cookie, header map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, a.URL+path, body)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if ck != nil {
			req.AddCookie(ck)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if ck == nil {
			for _, c := range resp.Cookies() {
				if c.Name == "strategist_session" {
					session = c
				}
			}
		}
		return resp.StatusCode, string(raw)
	}
	send("POST", "/signin", "application/x-www-form-urlencoded", strings.NewReader(url.Values{"email": {email}, "password": {"correct horse battery"}}.Encode()), nil, nil)
	ck := session
	if ck == nil {
		t.Fatal("no session cookie")
	}
	sess, err := a.app.accounts.SessionFor(ctx, ck.Value)
	if err != nil {
		t.Fatal(err)
	}
	csrf := map[string]string{"X-CSRF-Token": sess.CSRFToken}
	api := func(method, path string, body any, out any) int {
		t.Helper()
		b, _ := json.Marshal(body)
		st, raw := send(method, "/api/v1"+path, "application/json", bytes.NewReader(b), ck, csrf)
		if out != nil {
			_ = json.Unmarshal([]byte(raw), out)
		}
		return st
	}
	var conv struct{ ID string }
	if st := api("POST", "/conversations", map[string]string{"siteId": "plasmodb"}, &conv); st != http.StatusCreated {
		t.Fatalf("create conversation = %d", st)
	}

	// Upload a TSV file's text through the page's form (the page reads the
	// file into the box).
	up := url.Values{"csrf_token": {sess.CSRFToken}, "name": {"chr14 hits"}, "text": {"Gene ID\tProduct\nPF3D7_1400100\tx\nPF14_0002\ty\nPF3D7_9999999\tz\n"}}
	if st, raw := send("POST", "/conversations/"+conv.ID+"/gene-lists", "application/x-www-form-urlencoded", strings.NewReader(up.Encode()), ck, nil); st != http.StatusSeeOther {
		t.Fatalf("upload form = %d %s", st, raw)
	}
	var index struct{ GeneLists []struct{ ID, Name string } }
	if api("GET", "/gene-lists", nil, &index); len(index.GeneLists) != 1 || index.GeneLists[0].Name != "chr14 hits" {
		t.Fatalf("lists after the upload = %+v", index)
	}
	list := index.GeneLists[0].ID
	if st := api("POST", "/conversations/"+conv.ID+"/strategy/list-step", map[string]string{"listId": list}, nil); st != http.StatusCreated {
		t.Fatalf("list step = %d", st)
	}
	form := func(path string, v url.Values) int {
		t.Helper()
		v.Set("csrf_token", sess.CSRFToken)
		st, raw := send("POST", path, "application/x-www-form-urlencoded", strings.NewReader(v.Encode()), ck, nil)
		if st != http.StatusSeeOther {
			t.Errorf("POST %s = %d %s", path, st, raw)
		}
		return st
	}
	form("/conversations/"+conv.ID+"/controls", url.Values{"positives": {list}, "negatives": {""}})
	st, panel := send("GET", "/conversations/"+conv.ID+"/strategy/steps/s1/results", "", nil, ck, map[string]string{"HX-Request": "true"})
	if st != http.StatusOK || !strings.Contains(panel, `data-testid="step-controls"`) || !strings.Contains(panel, "positives 2 of 2 found (recall 100.0%)") {
		t.Errorf("results panel = %d, want the step's controls figures:\n%s", st, panel)
	}
	form("/conversations/"+conv.ID+"/strategy/steps/s1/gene-list", url.Values{"name": {"saved from s1"}})
	if api("GET", "/gene-lists", nil, &index); len(index.GeneLists) != 2 || index.GeneLists[0].Name != "saved from s1" {
		t.Errorf("lists after saving the step = %+v", index)
	}
}
