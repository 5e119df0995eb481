package server_test

import (
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
