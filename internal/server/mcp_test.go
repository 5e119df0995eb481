package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/server"
	"strategist/internal/sites"
	"strategist/internal/store"
)

// rpcAnswer is one JSON-RPC response of /mcp.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// text is a tool result's text ("" for a JSON-RPC error).
func (a rpcAnswer) text() string {
	if a.Result == nil || len(a.Result.Content) == 0 {
		return ""
	}
	return a.Result.Content[0].Text
}

// mcpPost sends one JSON-RPC message (or a batch) to /mcp and returns the
// HTTP status and the answers, read from JSON or from an SSE body.
func (e *env) mcpPost(token, body string) (int, []rpcAnswer) {
	e.t.Helper()
	r := e.do(http.MethodPost, "/mcp", token, body, "Accept", "application/json, text/event-stream")
	var answers []rpcAnswer
	raw := string(r.body)
	var docs []string
	if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.Lines(raw) {
			if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok {
				docs = append(docs, d)
			}
		}
	} else if strings.TrimSpace(raw) != "" {
		docs = append(docs, raw)
	}
	for _, d := range docs {
		d = strings.TrimSpace(d)
		if strings.HasPrefix(d, "[") {
			var batch []rpcAnswer
			if err := json.Unmarshal([]byte(d), &batch); err != nil {
				e.t.Fatalf("mcp answer %q: %v", d, err)
			}
			answers = append(answers, batch...)
			continue
		}
		var a rpcAnswer
		if err := json.Unmarshal([]byte(d), &a); err != nil {
			e.t.Fatalf("mcp answer %q: %v", d, err)
		}
		answers = append(answers, a)
	}
	return r.status, answers
}

// callMCP calls one tool and returns its one answer.
func (e *env) callMCP(token, tool string, args map[string]any) rpcAnswer {
	e.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		e.t.Fatal(err)
	}
	status, answers := e.mcpPost(token, string(body))
	if status != http.StatusOK || len(answers) != 1 {
		e.t.Fatalf("%s = %d with %d answers", tool, status, len(answers))
	}
	return answers[0]
}

// keylessSites offers the offline plasmodb and a live site the caller has
// no VEuPathDB key for.
type keylessSites struct{}

func (keylessSites) Statuses(context.Context, string) ([]sites.Status, error) {
	return []sites.Status{
		{ID: "plasmodb", Name: "PlasmoDB", Kind: "offline", Offline: true, Available: true},
		{ID: "toxodb-live", Name: "ToxoDB", Kind: "live", Live: true, Message: "store your VEuPathDB API key in Settings"},
	}, nil
}

// vanishingStore deletes the caller's account just before a conversation is
// made for them: the user was deleted after their token was checked.
type vanishingStore struct{ *store.DB }

func (s vanishingStore) CreateConversation(ctx context.Context, userID, siteID, title, model string) (store.Conversation, error) {
	if _, err := s.Pool().Exec(ctx, "DELETE FROM users WHERE id = $1", userID); err != nil {
		return store.Conversation{}, err
	}
	return s.DB.CreateConversation(ctx, userID, siteID, title, model)
}

// TestMCPToolRefusalsAreToolErrors: every MCP tool sent each refusal (an
// unknown site, a title over 200 characters, a live site without a key, a
// malformed conversation id, a user deleted after their token was checked)
// answers a tool error, and the server answers the next call: no refusal
// ends the process.
func TestMCPToolRefusalsAreToolErrors(t *testing.T) {
	t.Parallel()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, config.AuthLocal, cat, func(c *server.Config) { c.Sites = keylessSites{} })
	_, token := e.user("ada@example.org")
	// Each tool's properties: a refusal sends only those the tool takes.
	tools := map[string]map[string]any{}
	{
		var list struct {
			Result struct {
				Tools []struct {
					Name        string
					InputSchema struct {
						Properties map[string]any `json:"properties"`
					} `json:"inputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		r := e.do(http.MethodPost, "/mcp", token, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Accept", "application/json, text/event-stream")
		body := string(r.body)
		if i := strings.Index(body, "{"); i >= 0 {
			body = body[i:]
		}
		if err := json.NewDecoder(strings.NewReader(body)).Decode(&list); err != nil {
			t.Fatalf("tools/list: %v: %s", err, r.body)
		}
		for _, tl := range list.Result.Tools {
			tools[tl.Name] = tl.InputSchema.Properties
		}
	}
	if len(tools) < 3 {
		t.Fatalf("tools = %v", tools)
	}
	long := strings.Repeat("t", 201)
	refusals := []struct {
		name string
		args map[string]any
	}{
		{"unknown site", map[string]any{"site": "nosuchdb"}},
		{"long title", map[string]any{"title": long}},
		{"keyless live site", map[string]any{"site": "toxodb-live"}},
		{"bad conversation id", map[string]any{"conversationId": "not-a-uuid"}},
		{"unknown conversation", map[string]any{"conversationId": uuid.NewString()}},
	}
	// Plausible values for the arguments a refusal does not set.
	fill := map[string]any{"query": "kinase", "searchName": "GenesByTaxon", "recordType": "transcript",
		"message": "genes", "ids": []string{"PF3D7_0100100"}}
	for tool, props := range tools {
		for _, r := range refusals {
			args := map[string]any{}
			for k := range props {
				if v, ok := r.args[k]; ok {
					args[k] = v
				} else if v, ok := fill[k]; ok {
					args[k] = v
				}
			}
			a := e.callMCP(token, tool, args)
			if a.Error != nil {
				continue // a JSON-RPC error (bad arguments) is a refusal too
			}
			if a.Result == nil {
				t.Errorf("%s with %s: no result", tool, r.name)
			}
		}
	}
	for _, tc := range []struct{ name, tool, code string }{
		{"unknown site", "create_conversation", `"NOT_FOUND"`},
		{"long title", "create_conversation", `"VALIDATION_ERROR"`},
		{"keyless live site", "create_conversation", `"SITE_ACCOUNT"`},
	} {
		var args map[string]any
		for _, r := range refusals {
			if r.name == tc.name {
				args = r.args
			}
		}
		a := e.callMCP(token, tc.tool, args)
		if a.Result == nil || !a.Result.IsError || !strings.Contains(a.text(), tc.code) {
			t.Errorf("%s with %s = %+v %q, want a tool error %s", tc.tool, tc.name, a.Error, a.text(), tc.code)
		}
	}
	// The server is still up and answers.
	if a := e.callMCP(token, "create_conversation", map[string]any{"title": "fine"}); a.Result == nil || a.Result.IsError {
		t.Errorf("create_conversation after the refusals = %+v %q", a.Error, a.text())
	}

	// A user deleted between the token's check and the call.
	gone := newEnvWith(t, config.AuthLocal, cat, func(c *server.Config) { c.Sites = keylessSites{} })
	for _, tool := range []string{"create_conversation", "ask_strategist"} {
		_, tok := gone.user(fmt.Sprintf("%s@example.org", strings.ReplaceAll(tool, "_", "-")))
		goneSrv := newEnvWith(t, config.AuthLocal, cat, func(c *server.Config) {
			c.Store, c.Accounts = vanishingStore{gone.db}, gone.accounts
		})
		args := map[string]any{"title": "x"}
		if tool == "ask_strategist" {
			args = map[string]any{"message": "genes"}
		}
		a := goneSrv.callMCP(tok, tool, args)
		if a.Result == nil || !a.Result.IsError || !strings.Contains(a.text(), "internal error") {
			t.Errorf("%s for a deleted user = %+v %q, want an internal tool error", tool, a.Error, a.text())
		}
		if r := goneSrv.do("GET", "/healthz", "", ""); r.status != http.StatusOK {
			t.Errorf("healthz after %s for a deleted user = %d", tool, r.status)
		}
	}
}
