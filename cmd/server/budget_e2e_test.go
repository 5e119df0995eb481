package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// rpcOutcome counts the answers of MCP tools/call requests: calls that
// ran, calls refused with RATE_LIMITED, and anything else (with a sample).
type rpcOutcome struct {
	ran, limited, other int
	sample              string
}

func (o *rpcOutcome) add(p rpcOutcome) {
	o.ran, o.limited, o.other = o.ran+p.ran, o.limited+p.limited, o.other+p.other
	if o.sample == "" {
		o.sample = p.sample
	}
}

// postMCP posts body (one JSON-RPC message or a batch) to /mcp with token
// and sorts the answers, read from a JSON body or the SSE events.
func postMCP(t *testing.T, a *testApp, token, body string) rpcOutcome {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out rpcOutcome
	if resp.StatusCode == http.StatusTooManyRequests && bytes.Contains(raw, []byte("RATE_LIMITED")) {
		// The request was refused whole, before MCP read it: by the cap on
		// the token's open streams, which /mcp requests hold while they
		// run. Each of its calls is refused.
		var batch []json.RawMessage
		if json.Unmarshal([]byte(body), &batch) == nil {
			out.limited = len(batch)
		} else {
			out.limited = 1
		}
		return out
	}
	var docs [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range bytes.Lines(raw) {
			if d, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
				docs = append(docs, bytes.TrimSpace(d))
			}
		}
	} else {
		docs = append(docs, raw)
	}
	for _, d := range docs {
		var answers []json.RawMessage
		if bytes.HasPrefix(d, []byte("[")) {
			if err := json.Unmarshal(d, &answers); err != nil {
				t.Fatalf("mcp answer %s: %v", d, err)
			}
		} else {
			answers = []json.RawMessage{d}
		}
		for _, a := range answers {
			s := string(a)
			switch {
			case !strings.Contains(s, `"id"`):
				continue // a notification
			case strings.Contains(s, "RATE_LIMITED"):
				out.limited++
			case strings.Contains(s, `"result"`) && !strings.Contains(s, `"isError":true`):
				out.ran++
			default:
				out.other++
				if out.sample == "" {
					out.sample = fmt.Sprintf("%d %.400s", resp.StatusCode, s)
				}
			}
		}
	}
	return out
}

// askCall is one ask_strategist tools/call message.
func askCall(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask_strategist","arguments":{"message":"tRNA genes"}}}`, id)
}

// conversationCount is how many conversations token's user has.
func conversationCount(t *testing.T, a *testApp, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.URL+"/api/v1/conversations", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct{ Conversations []json.RawMessage }
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	return len(list.Conversations)
}

// otherUser makes another account of the app and returns its token.
func otherUser(t *testing.T, a *testApp, email string) string {
	t.Helper()
	u, err := a.app.accounts.CreateUser(context.Background(), email, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := a.app.accounts.CreateAPIToken(context.Background(), u.ID, "e2e")
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// TestMCPCallsSpendTheTurnBudget: 30 parallel ask_strategist calls, and a
// batch of 200 in one request, start no more turns than the user's burst
// (10); every other call is refused RATE_LIMITED (a tool error, or the
// whole request a 429 when the token's open-stream cap is full), and
// leaves no conversation. Another user is not held back by the first one's calls.
func TestMCPCallsSpendTheTurnBudget(t *testing.T) {
	t.Parallel()
	// The rate refills one start in 100 s: within the test only the burst counts.
	a := startApp(t, appOptions{Env: map[string]string{"STRATEGIST_TURN_RATE": "0.01", "STRATEGIST_RUNNING_TURNS": "1000"}})
	a.startTurn(a.newConversation(), "plan", "tRNA genes") // the orchestrator serves; one start spent
	var (
		mu       sync.Mutex
		parallel rpcOutcome
		wg       sync.WaitGroup
	)
	for i := range 30 {
		wg.Go(func() {
			o := postMCP(t, a, a.Token, askCall(i))
			mu.Lock()
			parallel.add(o)
			mu.Unlock()
		})
	}
	wg.Wait()
	if parallel.ran != 9 || parallel.limited != 21 {
		t.Errorf("30 parallel calls: %d ran, %d refused, %d other (%s); want 9 and 21", parallel.ran, parallel.limited, parallel.other, parallel.sample)
	}
	if n := conversationCount(t, a, a.Token); n != 10 {
		t.Errorf("%d conversations after the parallel calls, want 10 (the refused calls' are deleted)", n)
	}

	eve := otherUser(t, a, "eve@example.org")
	calls := make([]string, 200)
	for i := range calls {
		calls[i] = askCall(i + 1)
	}
	batch := postMCP(t, a, eve, "["+strings.Join(calls, ",")+"]")
	// Each call of a batch spends the budget as a call of its own.
	if batch.ran != 10 || batch.limited != 190 {
		t.Errorf("a batch of 200 calls: %d ran, %d refused, %d other (%s); want 10 and 190", batch.ran, batch.limited, batch.other, batch.sample)
	}
	if n := conversationCount(t, a, eve); n != 10 {
		t.Errorf("%d conversations after the batch, want 10", n)
	}
}

// TestTurnBudgetIsSharedByEveryWayIn: turns started through the JSON API,
// MCP and the OpenAI-compatible API spend one budget; past it, each answers
// its own refusal, and another user starts turns as before.
func TestTurnBudgetIsSharedByEveryWayIn(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Env: map[string]string{"STRATEGIST_TURN_RATE": "0.01", "STRATEGIST_RUNNING_TURNS": "1000"}})
	for range 4 {
		a.startTurn(a.newConversation(), "plan", "tRNA genes")
	}
	for i := range 3 {
		if o := postMCP(t, a, a.Token, askCall(i)); o.ran != 1 {
			t.Fatalf("ask_strategist %d: %+v", i, o)
		}
	}
	for i := range 3 {
		resp := openAIPost(t, a, a.Token, `{"model":"strategist","messages":[{"role":"user","content":"tRNA genes"}]}`, nil)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("chat completion %d = %d %s", i, resp.StatusCode, body)
		}
	}
	// Ten turns started: the budget is spent on every way in.
	var out struct{ Error struct{ Code string } }
	resp := a.call("POST", "/api/v1/conversations/"+a.newConversation()+"/turns", map[string]string{"mode": "plan", "message": "more"}, &out)
	if resp != http.StatusTooManyRequests || out.Error.Code != "RATE_LIMITED" {
		t.Errorf("11th turn on the JSON API = %d %s, want 429 RATE_LIMITED", resp, out.Error.Code)
	}
	if o := postMCP(t, a, a.Token, askCall(99)); o.limited != 1 {
		t.Errorf("11th turn on MCP = %+v, want a RATE_LIMITED tool error", o)
	}
	r := openAIPost(t, a, a.Token, `{"model":"strategist","messages":[{"role":"user","content":"tRNA genes"}]}`, nil)
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), "rate_limit_error") || r.Header.Get("Retry-After") == "" {
		t.Errorf("11th turn on the OpenAI API = %d %s, want 429 rate_limit_error with Retry-After", r.StatusCode, body)
	}
	// Another user has a budget of their own.
	eve := otherUser(t, a, "eve@example.org")
	if o := postMCP(t, a, eve, askCall(1)); o.ran != 1 {
		t.Errorf("another user's ask_strategist = %+v", o)
	}
}
