package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"

	"strategist/internal/protocol/mcp"
	"strategist/internal/protocol/protocoltest"
	"strategist/internal/sites"
)

// harness serves one MCP server over the fake host to one user, as the
// server does after authenticating their token.
type harness struct {
	t    testing.TB
	host *protocoltest.Host
	srv  *httptest.Server
	user string
}

func newHarness(t testing.TB, configure func(*protocoltest.Host)) *harness {
	t.Helper()
	h := protocoltest.New(t)
	if configure != nil {
		configure(h)
	}
	p, err := mcp.New(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	user := uuid.NewString()
	return &harness{t: t, host: h, srv: protocoltest.Serve(t, h, p, user), user: user}
}

// do posts one JSON-RPC body to /mcp.
func (e *harness) do(body string) protocoltest.Reply {
	e.t.Helper()
	return protocoltest.Do(e.t, e.srv, http.MethodPost, mcp.Path, body, "Accept", "application/json, text/event-stream")
}

// mcpPost sends one JSON-RPC message (or a batch) to /mcp and returns the
// HTTP status and the answers, read from JSON or from an SSE body.
func (e *harness) mcpPost(body string) (int, []protocoltest.RPCAnswer) {
	e.t.Helper()
	r := e.do(body)
	return r.Status, protocoltest.RPCAnswers(e.t, r.Header.Get("Content-Type"), r.Body)
}

// callMCP calls one tool and returns its one answer.
func (e *harness) callMCP(tool string, args map[string]any) protocoltest.RPCAnswer {
	e.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		e.t.Fatal(err)
	}
	status, answers := e.mcpPost(string(body))
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
