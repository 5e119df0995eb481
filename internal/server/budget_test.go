package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"strategist/internal/catalog/offline"
	"strategist/internal/chat"
	"strategist/internal/config"
	"strategist/internal/server"
)

// refusingChat refuses every turn with the user's spent turn budget, as
// the orchestrator does.
type refusingChat struct {
	unusedChat
	running bool
}

func (r refusingChat) StartTurn(context.Context, chat.TurnRequest) (string, error) {
	return "", &chat.BudgetError{Running: r.running, Limit: 5, RetryAfter: 3 * time.Second}
}

// TestSpentTurnBudgetInEveryProtocol: a turn the budget refuses is 429
// RATE_LIMITED with Retry-After on the JSON API and the page, a
// rate_limit_error on the OpenAI-compatible API, a tool error on MCP, a
// JSON-RPC error on A2A and 429 on AG-UI; and a conversation a protocol
// made for the refused turn is gone again.
func TestSpentTurnBudgetInEveryProtocol(t *testing.T) {
	t.Parallel()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, running := range []bool{false, true} {
		e := newEnvWith(t, config.AuthLocal, cat, func(c *server.Config) { c.Chat = refusingChat{running: running} })
		// refusingChat needs the store for Rename and Delete.
		_, token := e.user("ada@example.org")
		conv := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb"}`).json(t)["id"].(string)
		conversations := func() int {
			t.Helper()
			list := e.do("GET", "/api/v1/conversations", token, "").json(t)
			items, _ := list["conversations"].([]any)
			return len(items)
		}

		r := e.do("POST", "/api/v1/conversations/"+conv+"/turns", token, `{"message":"genes","mode":"plan"}`)
		if r.status != http.StatusTooManyRequests || r.errorCode(t) != "RATE_LIMITED" || r.header.Get("Retry-After") != "3" {
			t.Errorf("REST turn = %d %s Retry-After %q, want 429 RATE_LIMITED, 3", r.status, r.body, r.header.Get("Retry-After"))
		}
		if running && !strings.Contains(string(r.body), "5 turns running") {
			t.Errorf("REST refusal at the running cap says %s", r.body)
		}

		r = e.do("POST", "/v1/chat/completions", token, `{"model":"strategist","messages":[{"role":"user","content":"genes"}]}`)
		if r.status != http.StatusTooManyRequests || !strings.Contains(string(r.body), `"rate_limit_error"`) || r.header.Get("Retry-After") == "" {
			t.Errorf("OpenAI = %d %s, want 429 rate_limit_error", r.status, r.body)
		}

		a := e.callMCP(token, "ask_strategist", map[string]any{"message": "genes"})
		if a.Result == nil || !a.Result.IsError || !strings.Contains(a.Text(), `"RATE_LIMITED"`) {
			t.Errorf("MCP ask_strategist = %+v %q, want a RATE_LIMITED tool error", a.Error, a.Text())
		}

		r = e.do("POST", "/a2a/v0.3", token, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m1","parts":[{"kind":"text","text":"genes"}]}}}`)
		if !strings.Contains(string(r.body), `"error"`) || !strings.Contains(string(r.body), "RATE_LIMITED") {
			t.Errorf("A2A message/send = %d %s, want a JSON-RPC error with RATE_LIMITED", r.status, r.body)
		}

		thread := uuid.NewString()
		r = e.do("POST", "/ag-ui", token, `{"threadId":"`+thread+`","runId":"r1","messages":[{"id":"u1","role":"user","content":"genes"}]}`)
		if r.status != http.StatusTooManyRequests || r.errorCode(t) != "RATE_LIMITED" {
			t.Errorf("AG-UI run = %d %s, want 429 RATE_LIMITED", r.status, r.body)
		}

		if n := conversations(); n != 1 {
			t.Errorf("%d conversations after the refused turns, want only the first", n)
		}
	}
}

// TestRefusedAGUIRunCreatesNothing: an AG-UI run refused before its turn
// starts (no user text, a resume with no plan waiting) leaves no thread.
func TestRefusedAGUIRunCreatesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, config.AuthLocal)
	_, token := e.user("ada@example.org")
	for _, body := range []string{
		`{"threadId":"%s","runId":"r1","messages":[{"id":"u1","role":"user","content":"   "}]}`,
		`{"threadId":"%s","runId":"r1","messages":[{"id":"a1","role":"assistant","content":"hello"}]}`,
	} {
		thread := uuid.NewString()
		r := e.do("POST", "/ag-ui", token, strings.Replace(body, "%s", thread, 1))
		if r.status < 400 {
			t.Fatalf("run = %d %s, want a refusal", r.status, r.body)
		}
		if got := e.do("GET", "/api/v1/conversations/"+thread, token, ""); got.status != http.StatusNotFound {
			t.Errorf("after a refused run (%d %s) its thread = %d, want 404", r.status, r.body, got.status)
		}
	}
}

// panickyChat panics starting a turn: a bug in the code a request runs.
type panickyChat struct{ unusedChat }

func (panickyChat) StartTurn(context.Context, chat.TurnRequest) (string, error) {
	panic("a bug in the orchestrator")
}

// TestPanickingRequestsAnswerInternalErrors: a panic in the code of a
// request, on whatever goroutine its protocol's SDK runs it, answers an
// internal error in the protocol's own form and leaves the server up
// (a panic that escaped would end this test's process).
func TestPanickingRequestsAnswerInternalErrors(t *testing.T) {
	t.Parallel()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, config.AuthLocal, cat, func(c *server.Config) { c.Chat = panickyChat{} })
	_, token := e.user("ada@example.org")
	conv := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb"}`).json(t)["id"].(string)

	if r := e.do("POST", "/api/v1/conversations/"+conv+"/turns", token, `{"message":"genes","mode":"plan"}`); r.status != http.StatusInternalServerError || r.errorCode(t) != "INTERNAL" {
		t.Errorf("REST turn = %d %s, want 500 INTERNAL", r.status, r.body)
	}
	if a := e.callMCP(token, "ask_strategist", map[string]any{"message": "genes", "conversationId": conv}); a.Result == nil || !a.Result.IsError || !strings.Contains(a.Text(), "internal error") {
		t.Errorf("MCP ask_strategist = %+v %q, want an internal tool error", a.Error, a.Text())
	}
	msg := `{"role":"user","messageId":"m1","contextId":"` + conv + `","parts":[{"kind":"text","text":"genes"}]}`
	for _, method := range []string{"message/send", "message/stream"} {
		r := e.do("POST", "/a2a/v0.3", token, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{"message":`+msg+`}}`)
		if !strings.Contains(string(r.body), `"error"`) || !strings.Contains(strings.ToLower(string(r.body)), "internal error") {
			t.Errorf("A2A %s = %d %s, want a JSON-RPC internal error", method, r.status, r.body)
		}
	}
	if r := e.do("POST", "/v1/chat/completions", token, `{"model":"strategist","messages":[{"role":"user","content":"genes"}]}`, "X-Strategist-Conversation", conv); r.status != http.StatusInternalServerError {
		t.Errorf("OpenAI = %d %s, want 500", r.status, r.body)
	}
	if r := e.do("POST", "/ag-ui", token, `{"threadId":"`+conv+`","runId":"r1","messages":[{"id":"u1","role":"user","content":"genes"}]}`); r.status != http.StatusInternalServerError {
		t.Errorf("AG-UI = %d %s, want 500", r.status, r.body)
	}
	if r := e.do("GET", "/healthz", "", ""); r.status != http.StatusOK {
		t.Errorf("healthz after the panics = %d", r.status)
	}
}
