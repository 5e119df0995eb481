package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"strategist/internal/acp"
)

// TestACPBackendAnswers checks how strategist acp reads the server's
// answers: a refused token is "authentication required", another refusal
// carries the server's message, a plan accepted elsewhere is followed
// through its build turn, and the summary line names the root count and
// its source.
func TestACPBackendAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer stg_good" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"code":"UNAUTHENTICATED","message":"the token was revoked"}}`))
			return
		}
		switch r.Method + " " + r.URL.Path {
		case "POST /api/v1/conversations/c1/turns":
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"error":{"code":"TURN_RUNNING","message":"a turn of this conversation is still running"}}`))
		case "POST /api/v1/conversations/c1/handoffs/h1/accept":
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"error":{"code":"HANDOFF_DECIDED","message":"decided"}}`))
		case "GET /api/v1/conversations/c1":
			_, _ = w.Write([]byte(`{"id":"c1","handoffs":[{"id":"h0","executeTurnId":null},{"id":"h1","executeTurnId":"t9"}]}`))
		case "GET /api/v1/conversations/c1/strategy":
			_, _ = w.Write([]byte(`{"rootStepId":"s5","steps":[{"id":"s1","count":60},{"id":"s5","displayName":"Off chromosome 14","count":89,"countProvenance":{"source":"offline snapshot"}}]}`))
		case "GET /api/v1/conversations/c2/strategy":
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":"NOT_FOUND","message":"strategy not found"}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	good := &apiBackend{base: srv.URL, token: "stg_good", site: "plasmodb", client: srv.Client()}
	bad := &apiBackend{base: srv.URL, token: "stg_bad", site: "plasmodb", client: srv.Client()}

	_, err := bad.CreateConversation(ctx)
	if ae, ok := errors.AsType[*acp.AuthError](err); !ok || !strings.Contains(ae.Message, "the token was revoked") {
		t.Errorf("a refused token: %v", err)
	}
	_, err = good.StartTurn(ctx, "c1", "hello")
	if re, ok := errors.AsType[*acp.RequestError](err); !ok || re.Message != "a turn of this conversation is still running" {
		t.Errorf("a running turn: %v", err)
	}
	turn, err := good.AcceptHandoff(ctx, "c1", "h1")
	if err != nil || turn != "t9" {
		t.Errorf("a plan accepted elsewhere is followed: %q %v", turn, err)
	}
	line, err := good.Summary(ctx, "c1")
	if err != nil || line != "Root step s5 (Off chromosome 14): 89 genes (offline snapshot)." {
		t.Errorf("summary: %q %v", line, err)
	}
	if line, err := good.Summary(ctx, "c2"); err != nil || line != "No strategy has been built yet." {
		t.Errorf("no strategy: %q %v", line, err)
	}
}

func TestACPNeedsAToken(t *testing.T) {
	err := acpCmd(context.Background(), nil, strings.NewReader(""), &bytes.Buffer{}, envMap(map[string]string{}))
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "needs an API token") {
		t.Fatalf("no token: %v", err)
	}
	if err := acpCmd(context.Background(), []string{"extra"}, strings.NewReader(""), &bytes.Buffer{}, envMap(map[string]string{"STRATEGIST_TOKEN": "t"})); !errors.Is(err, errUsage) {
		t.Fatalf("an extra argument: %v", err)
	}
	// With a token and nothing on standard input, it ends cleanly.
	var out bytes.Buffer
	if err := acpCmd(context.Background(), nil, strings.NewReader(""), &out, envMap(map[string]string{"STRATEGIST_TOKEN": "t"})); err != nil || out.Len() != 0 {
		t.Fatalf("empty input: %v %q", err, out.String())
	}
}
