package security

import (
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// TestBadTextWhateverTheBodyType: NUL and invalid UTF-8 sent with a
// capitalised JSON type, as text/plain or with no type to the protocol
// routes, or in a multipart form, are 4xx, never a 500 from PostgreSQL.
func TestBadTextWhateverTheBodyType(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	token, _ := s.user(t, "ada@example.org")
	conv := s.conversation(t, token)
	agui := `{"threadId":"0b9e4f7c-3d1a-4c55-9a7e-2f6d8c1b0a93","runId":"r1","messages":[{"id":"m1","role":"user","content":"kinases\u0000"}]}`
	openai := `{"model":"strategist","messages":[{"role":"user","content":"kinases\u0000"}]}`
	for _, tt := range []struct{ method, path, contentType, body string }{
		{"PATCH", "/api/v1/conversations/" + conv, "Application/JSON", `{"title":"a\u0000b"}`},
		{"POST", "/api/v1/conversations", "APPLICATION/JSON", "{\"siteId\":\"plasmodb\",\"title\":\"\xff\"}"},
		{"POST", "/ag-ui", "text/plain", agui},
		{"POST", "/ag-ui", "", agui},
		{"POST", "/v1/chat/completions", "text/plain", openai},
		{"POST", "/v1/chat/completions", "", openai},
		{"POST", "/v1/chat/completions", "Application/JSON", strings.Replace(openai, `\u0000`, "\xc3\x28", 1)},
	} {
		if code, body := s.do(t, tt.method, tt.path, token, tt.contentType, tt.body); code != http.StatusBadRequest {
			t.Errorf("%s %s (%q) %q = %d %s, want 400", tt.method, tt.path, tt.contentType, tt.body, code, body)
		}
	}
	var b strings.Builder
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("title", "a\x00b")
	_ = mw.Close()
	if code, body := s.do(t, "PATCH", "/api/v1/conversations/"+conv, token, mw.FormDataContentType(), b.String()); code != http.StatusUnsupportedMediaType {
		t.Errorf("multipart PATCH = %d %s, want 415", code, body)
	}
	if logs := s.Logs.String(); strings.Contains(logs, "SQLSTATE") {
		t.Errorf("text reached PostgreSQL:\n%s", logs)
	}
}
