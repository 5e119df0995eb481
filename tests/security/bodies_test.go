package security

import (
	"mime/multipart"
	"net/http"
	"net/url"
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

// TestSearchOfMinusSigns: 33 or more minus signs (once "tsquery stack too
// small", a 500) search like any text, on the API and the home page.
func TestSearchOfMinusSigns(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	token, _ := s.user(t, "ada@example.org")
	s.conversation(t, token)
	for _, q := range []string{strings.Repeat("-", 33), strings.Repeat("-", 150) + "kinase", strings.Repeat("- ", 90), strings.Repeat("-!", 90)} {
		if code, body := s.do(t, "GET", "/api/v1/conversations?q="+url.QueryEscape(q), token, "", ""); code != http.StatusOK {
			t.Errorf("API search %q = %d %s", q, code, body)
		}
	}
	c := from("127.0.0.1")
	signedIn := s.signIn(t, c, "ada@example.org", password)
	req, err := http.NewRequest("GET", s.URL+"/?q="+url.QueryEscape(strings.Repeat("-", 40)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ck := range signedIn.Cookies() {
		req.AddCookie(ck)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("home page search of 40 minus signs = %d", resp.StatusCode)
	}
}
