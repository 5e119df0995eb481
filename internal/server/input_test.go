package server_test

import (
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"strategist/internal/config"
)

// TestBadTextIsRefusedBeforeItIsStored: NUL bytes and invalid UTF-8 in a
// title, a message, a form or an id in the address are 400s with a code,
// never 500s, and nothing is stored.
func TestBadTextIsRefusedBeforeItIsStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, token := e.user("ada@example.org")
	id := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb","title":"kinases"}`).json(t)["id"].(string)
	conv := "/api/v1/conversations/" + id

	api := []struct {
		name, method, path, body, code string
	}{
		{"raw NUL in a title", "PATCH", conv, "{\"title\":\"a\x00b\"}", "INVALID_TEXT"},
		{"escaped NUL in a title", "PATCH", conv, `{"title":"a\u0000b"}`, "INVALID_TEXT"},
		{"invalid UTF-8 in a title", "PATCH", conv, "{\"title\":\"a\xffb\"}", "INVALID_TEXT"},
		{"NUL in a new conversation", "POST", "/api/v1/conversations", `{"siteId":"plasmodb","title":"\u0000"}`, "INVALID_TEXT"},
		{"NUL in a message", "POST", conv + "/turns", `{"message":"kinases\u0000","mode":"plan"}`, "INVALID_TEXT"},
		{"invalid UTF-8 in a message", "POST", conv + "/turns", "{\"message\":\"\xc3\x28\",\"mode\":\"plan\"}", "INVALID_TEXT"},
		{"invalid UTF-8 id", "GET", "/api/v1/conversations/%ff", "", "INVALID_TEXT"},
		{"NUL id", "DELETE", "/api/v1/conversations/%00", "", "INVALID_TEXT"},
		{"id that is not a UUID", "GET", "/api/v1/conversations/not-a-uuid", "", "INVALID_ID"},
		{"turn id that is not a UUID", "POST", conv + "/turns/x/cancel", "", "INVALID_ID"},
		{"NUL in a query", "GET", "/api/v1/catalog/plasmodb/searches?q=go%00", "", "INVALID_TEXT"},
		{"invalid UTF-8 in a query", "GET", "/api/v1/conversations?x=%ff", "", "INVALID_TEXT"},
	}
	for _, tt := range api {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(tt.method, tt.path, token, tt.body)
			if r.status != http.StatusBadRequest || r.errorCode(t) != tt.code {
				t.Errorf("%s %s = %d %s, want 400 %s", tt.method, tt.path, r.status, r.body, tt.code)
			}
		})
	}
	// An escaped backslash before u0000 is ordinary text.
	if r := e.do("PATCH", conv, token, `{"title":"a\\u0000b"}`); r.status != http.StatusOK {
		t.Errorf("title with a literal backslash-u0000 = %d %s", r.status, r.body)
	}
	if got := e.do("GET", conv, token, "").json(t)["title"]; got != `a\u0000b` {
		t.Errorf("title after the refused requests = %q", got)
	}

}

func TestBadTextInPagesIsRefused(t *testing.T) {
	t.Parallel()
	e := newPageEnv(t)
	ada := e.signIn("ada@example.org")
	id := e.conversation(ada, "kinases").ID
	pages := []struct {
		name   string
		path   string
		values url.Values
	}{
		{"NUL in a page message", "/conversations/" + id + "/turns", url.Values{"message": {"a\x00"}, "mode": {"plan"}}},
		{"invalid UTF-8 in a rename", "/conversations/" + id + "/rename", url.Values{"title": {"\xff"}}},
		{"invalid UTF-8 in the conversation id of a form", "/conversations/%ff/rename", url.Values{"title": {"ok"}}},
	}
	for _, tt := range pages {
		t.Run(tt.name, func(t *testing.T) {
			tt.values.Set("csrf_token", ada.csrf)
			if r := e.post(ada, tt.path, tt.values, false); r.status != http.StatusBadRequest {
				t.Errorf("POST %s = %d, want 400", tt.path, r.status)
			}
		})
	}
	for _, path := range []string{"/conversations/%ff", "/conversations/%00", "/conversations/not-a-uuid"} {
		if r := e.page(path, ada.cookie); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "error-page") {
			t.Errorf("GET %s = %d, want the 400 page", path, r.status)
		}
	}
}

// TestBadTextIsRefusedWhateverTheBodyType: the text check reads every
// body, whatever its declared type and its case: a capitalised JSON type,
// text/plain or no type at all on the protocol routes (which read JSON
// whatever the type), and multipart forms, which no route takes.
func TestBadTextIsRefusedWhateverTheBodyType(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, token := e.user("ada@example.org")
	id := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb","title":"kinases"}`).json(t)["id"].(string)
	conv := "/api/v1/conversations/" + id
	agui := `{"threadId":"0b9e4f7c-3d1a-4c55-9a7e-2f6d8c1b0a93","runId":"r1","messages":[{"id":"m1","role":"user","content":"kinases\u0000"}]}`
	openai := `{"model":"strategist","messages":[{"role":"user","content":"kinases\u0000"}]}`
	for _, tt := range []struct {
		name, method, path, contentType, body string
	}{
		{"capitalised JSON type", "PATCH", conv, "Application/JSON", `{"title":"a\u0000b"}`},
		{"upper-case JSON type", "PATCH", conv, "APPLICATION/JSON; charset=UTF-8", `{"title":"a\u0000b"}`},
		{"JSON type with raw NUL", "PATCH", conv, "Application/Json", "{\"title\":\"a\x00b\"}"},
		{"AG-UI as text/plain", "POST", "/ag-ui", "text/plain", agui},
		{"AG-UI without a type", "POST", "/ag-ui", "", agui},
		{"AG-UI with invalid UTF-8", "POST", "/ag-ui", "application/octet-stream", strings.Replace(agui, `\u0000`, "\xff", 1)},
		{"OpenAI as text/plain", "POST", "/v1/chat/completions", "text/plain", openai},
		{"OpenAI without a type", "POST", "/v1/chat/completions", "", openai},
		{"OpenAI as capitalised JSON", "POST", "/v1/chat/completions", "Application/JSON", openai},
		{"OpenAI with a raw NUL and an odd type", "POST", "/v1/chat/completions", "application/x-anything", strings.Replace(openai, `\u0000`, "\x00", 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, e.srv.URL+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			r := e.send(req)
			if r.status != http.StatusBadRequest || !strings.Contains(strings.ToUpper(string(r.body)), CodeInvalidText) {
				t.Errorf("%s %s (%q) = %d %s, want 400 %s", tt.method, tt.path, tt.contentType, r.status, r.body, CodeInvalidText)
			}
		})
	}
	if got := e.do("GET", conv, token, "").json(t)["title"]; got != "kinases" {
		t.Errorf("title after the refused requests = %q", got)
	}

	// Multipart: no route takes it, and its parts are never read.
	pe := newPageEnv(t)
	ada := pe.signIn("ada@example.org")
	pid := pe.conversation(ada, "kinases").ID
	for _, path := range []string{"/conversations/" + pid + "/rename", "/signin", conv} {
		var b strings.Builder
		mw := multipart.NewWriter(&b)
		_ = mw.WriteField("csrf_token", ada.csrf)
		_ = mw.WriteField("title", "a\x00b")
		_ = mw.WriteField("email", "ada@example.org")
		_ = mw.WriteField("password", "correct horse battery")
		_ = mw.Close()
		method := "POST"
		if path == conv {
			method = "PATCH"
		}
		req, err := http.NewRequest(method, pe.srv.URL+path, strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("X-CSRF-Token", ada.csrf)
		req.AddCookie(ada.cookie)
		if r := pe.send(req); r.status != http.StatusUnsupportedMediaType {
			t.Errorf("multipart %s %s = %d, want 415", method, path, r.status)
		}
	}
	if c, err := pe.db.Conversation(context.Background(), ada.userID, pid); err != nil || c.Title != "kinases" {
		t.Errorf("conversation after a multipart rename = %+v, %v", c, err)
	}
}

const CodeInvalidText = "INVALID_TEXT"
