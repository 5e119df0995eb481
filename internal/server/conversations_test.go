package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"strategist/internal/config"
)

func TestConversationCRUD(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, token := e.user("ada@example.org")

	created := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb","title":"Kinases"}`)
	if created.status != http.StatusCreated {
		t.Fatalf("create = %d %s", created.status, created.body)
	}
	conv := created.json(t)
	id := conv["id"].(string)
	if conv["siteId"] != "plasmodb" || conv["title"] != "Kinases" || conv["mode"] != "plan" || conv["lastEventSeq"] != float64(0) {
		t.Errorf("created = %v", conv)
	}
	if r := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb"}`); r.status != http.StatusCreated || r.json(t)["title"] != "New conversation" {
		t.Errorf("create without title = %d %s", r.status, r.body)
	}

	list := e.do("GET", "/api/v1/conversations", token, "").json(t)["conversations"].([]any)
	if len(list) != 2 || list[1].(map[string]any)["id"] != id {
		t.Errorf("list = %v", list)
	}

	got := e.do("GET", "/api/v1/conversations/"+id, token, "")
	if got.status != 200 {
		t.Fatalf("get = %d", got.status)
	}
	detail := got.json(t)
	if _, ok := detail["messages"].([]any); !ok || detail["lastEventSeq"] == nil {
		t.Errorf("detail lacks messages or lastEventSeq: %v", detail)
	}

	renamed := e.do("PATCH", "/api/v1/conversations/"+id, token, `{"title":"  Protein kinases  "}`)
	if renamed.status != 200 || renamed.json(t)["title"] != "Protein kinases" {
		t.Errorf("rename = %d %s", renamed.status, renamed.body)
	}
	if r := e.do("DELETE", "/api/v1/conversations/"+id, token, ""); r.status != http.StatusNoContent {
		t.Errorf("delete = %d", r.status)
	}
	if r := e.do("GET", "/api/v1/conversations/"+id, token, ""); r.status != http.StatusNotFound {
		t.Errorf("get after delete = %d", r.status)
	}
}

func TestConversationBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, token := e.user("ada@example.org")
	id := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb"}`).json(t)["id"].(string)
	tests := []struct {
		name, method, path, body string
		status                   int
		code, message            string
	}{
		{"malformed JSON", "POST", "/api/v1/conversations", `{"siteId":`, 400, "BAD_REQUEST", "malformed JSON"},
		{"not an object", "POST", "/api/v1/conversations", `["plasmodb"]`, 400, "BAD_REQUEST", "JSON object"},
		{"trailing data", "POST", "/api/v1/conversations", `{"siteId":"plasmodb"} {}`, 400, "BAD_REQUEST", "after the object"},
		{"empty body", "POST", "/api/v1/conversations", ``, 400, "BAD_REQUEST", "empty"},
		{"unknown field", "POST", "/api/v1/conversations", `{"siteId":"plasmodb","colour":"red"}`, 400, "BAD_REQUEST", `unknown field "colour"`},
		{"wrong type", "POST", "/api/v1/conversations", `{"siteId":7}`, 400, "BAD_REQUEST", `"siteId" must be a string`},
		{"missing site", "POST", "/api/v1/conversations", `{"title":"x"}`, 422, "VALIDATION_ERROR", "siteId"},
		{"unknown site", "POST", "/api/v1/conversations", `{"siteId":"marsdb"}`, 422, "VALIDATION_ERROR", "unknown site"},
		{"title too long", "POST", "/api/v1/conversations", fmt.Sprintf(`{"siteId":"plasmodb","title":%q}`, strings.Repeat("é", 201)), 422, "VALIDATION_ERROR", "200 characters"},
		{"title 200 is fine", "POST", "/api/v1/conversations", fmt.Sprintf(`{"siteId":"plasmodb","title":%q}`, strings.Repeat("é", 200)), 201, "", ""},
		{"empty title", "PATCH", "/api/v1/conversations/" + id, `{"title":"   "}`, 422, "VALIDATION_ERROR", "empty"},
		{"rename without title", "PATCH", "/api/v1/conversations/" + id, `{}`, 422, "VALIDATION_ERROR", "title"},
		{"body over the limit", "POST", "/api/v1/conversations", `{"siteId":"plasmodb","title":"` + strings.Repeat("x", 70_000) + `"}`, 413, "PAYLOAD_TOO_LARGE", "too large"},
		{"unknown route", "GET", "/api/v1/nothing", ``, 404, "NOT_FOUND", ""},
		{"wrong method", "PUT", "/api/v1/conversations", `{}`, 405, "METHOD_NOT_ALLOWED", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(tt.method, tt.path, token, tt.body)
			if r.status != tt.status {
				t.Fatalf("status = %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.code == "" {
				return
			}
			if code := r.errorCode(t); code != tt.code {
				t.Errorf("code = %s, want %s", code, tt.code)
			}
			msg := r.json(t)["error"].(map[string]any)["message"].(string)
			if !strings.Contains(msg, tt.message) {
				t.Errorf("message %q does not mention %q", msg, tt.message)
			}
		})
	}
}

// conversationRoutes lists every route that takes a conversation id; a
// second user must get 404 from each (never 403: no existence leak).
var conversationRoutes = []struct{ method, path, body string }{
	{"GET", "/api/v1/conversations/{id}", ""},
	{"PATCH", "/api/v1/conversations/{id}", `{"title":"stolen"}`},
	{"DELETE", "/api/v1/conversations/{id}", ""},
}

func TestConversationRoutesAnswer404ToOtherUsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, ada := e.user("ada@example.org")
	_, eve := e.user("eve@example.org")
	id := e.do("POST", "/api/v1/conversations", ada, `{"siteId":"plasmodb","title":"Ada's"}`).json(t)["id"].(string)
	for _, rt := range conversationRoutes {
		for _, target := range []string{id, "00000000-0000-0000-0000-000000000000"} {
			path := strings.ReplaceAll(rt.path, "{id}", target)
			t.Run(rt.method+" "+path, func(t *testing.T) {
				r := e.do(rt.method, path, eve, rt.body)
				if r.status != http.StatusNotFound || r.errorCode(t) != "NOT_FOUND" {
					t.Errorf("%s %s as another user = %d %s, want 404 NOT_FOUND", rt.method, path, r.status, r.body)
				}
			})
		}
	}
	if r := e.do("GET", "/api/v1/conversations/"+id, ada, ""); r.status != 200 || r.json(t)["title"] != "Ada's" {
		t.Errorf("owner's conversation after the attempts = %d %s", r.status, r.body)
	}
}

// TestSearchOfOperatorsIsNot500: searches of runs of minus signs and other
// operators (once a 500: "tsquery stack too small") answer like any
// search, on the API and on the home page.
func TestSearchOfOperatorsIsNot500(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, token := e.user("ada@example.org")
	e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb","title":"Kinases"}`)
	ck := sessionCookie(t, e.form("/signin", url.Values{"email": {"ada@example.org"}, "password": {"correct horse battery"}}, nil))
	for _, q := range []string{
		strings.Repeat("-", 33), strings.Repeat("-", 199) + "k", strings.Repeat("- ", 99) + "k", strings.Repeat("-!", 99),
		strings.Repeat(`"`, 200), strings.Repeat("or ", 66), strings.Repeat("<->", 66), "kinases -" + strings.Repeat("-", 40),
	} {
		if r := e.do("GET", "/api/v1/conversations?q="+url.QueryEscape(q), token, ""); r.status != http.StatusOK {
			t.Errorf("API search %q = %d %s", q, r.status, r.body)
		}
		if r := e.page("/?q="+url.QueryEscape(q), ck); r.status != http.StatusOK {
			t.Errorf("home page search %q = %d", q, r.status)
		}
	}
}
