package security

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestShareTokenNotLoggedAndURLsNotPoisoned: a share link's token is not
// in the server's log after the link is opened (right and mistyped), and
// neither the agent card nor a share link's address follows a poisoned
// Host, X-Forwarded-Host or X-Forwarded-Proto: both are on
// STRATEGIST_PUBLIC_URL.
func TestShareTokenNotLoggedAndURLsNotPoisoned(t *testing.T) {
	t.Parallel()
	const public = "https://strategist.example.org"
	s := start(t, map[string]string{"STRATEGIST_PUBLIC_URL": public})
	token, _ := s.user(t, "ada@example.org")
	conv := s.conversation(t, token)
	get := func(path string, headers ...string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", s.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			if headers[i] == "Host" {
				req.Host = headers[i+1]
			} else {
				req.Header.Set(headers[i], headers[i+1])
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	for _, h := range [][]string{nil, {"Host", "evil.example"}, {"X-Forwarded-Host", "evil.example", "X-Forwarded-Proto", "http"}} {
		code, body := get("/.well-known/agent-card.json", h...)
		if code != http.StatusOK || strings.Contains(body, "evil.example") || !strings.Contains(body, `"url":"`+public+`/a2a"`) {
			t.Errorf("agent card with %q = %d %s", h, code, body)
		}
	}
	req, err := http.NewRequest("POST", s.URL+"/api/v1/conversations/"+conv+"/share", strings.NewReader(`{"public":true}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "evil.example"
	req.Header.Set("X-Forwarded-Host", "evil.example")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var share struct{ URL, Token string }
	err = json.NewDecoder(resp.Body).Decode(&share)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated || share.URL != public+"/shared/"+share.Token {
		t.Fatalf("share with a poisoned Host = %d %+v %v", resp.StatusCode, share, err)
	}
	for _, path := range []string{"/shared/" + share.Token, "/shared/" + share.Token + "/", "/shared/" + share.Token + "/x"} {
		get(path)
	}
	if code, _ := get("/shared/" + share.Token); code != http.StatusOK {
		t.Errorf("the share link = %d", code)
	}
	if logs := s.Logs.String(); strings.Contains(logs, share.Token[4:]) {
		t.Errorf("the share token is in the server's log:\n%s", logs)
	} else if !strings.Contains(logs, "path=/shared/:token") {
		t.Errorf("the share link's requests are not logged by route:\n%s", logs)
	}
}
