package server_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/protocol"
	"strategist/internal/protocol/a2a"
	"strategist/internal/protocol/agui"
	"strategist/internal/protocol/mcp"
	"strategist/internal/protocol/openai"
	"strategist/internal/protocol/protocoltest"
	"strategist/internal/server"
)

// testProtocols are the protocol packages the test servers mount, as main
// does: MCP (without the strategy tools: no strategy service here), the
// OpenAI-compatible API, AG-UI and A2A.
func testProtocols() []server.ProtocolFunc {
	return []server.ProtocolFunc{
		func(h *server.Host) (protocol.Protocol, error) { return mcp.New(h, nil) },
		func(h *server.Host) (protocol.Protocol, error) { return openai.New(h) },
		func(h *server.Host) (protocol.Protocol, error) { return agui.New(h) },
		func(h *server.Host) (protocol.Protocol, error) { return a2a.New(h) },
	}
}

// mcpPost sends one JSON-RPC message (or a batch) to /mcp and returns the
// HTTP status and the answers, read from JSON or from an SSE body.
func (e *env) mcpPost(token, body string) (int, []protocoltest.RPCAnswer) {
	e.t.Helper()
	r := e.do(http.MethodPost, "/mcp", token, body, "Accept", "application/json, text/event-stream")
	return r.status, protocoltest.RPCAnswers(e.t, r.header.Get("Content-Type"), r.body)
}

// callMCP calls one tool and returns its one answer.
func (e *env) callMCP(token, tool string, args map[string]any) protocoltest.RPCAnswer {
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

// echoProtocol is a protocol of one route that answers the caller's user
// id, or fails with the error its "fail" query names; it writes errors and
// refusals in a form of its own.
type echoProtocol struct{}

func (echoProtocol) Routes() []protocol.Route {
	return []protocol.Route{{Method: http.MethodGet, Path: "/echo-protocol", Stream: true, Handler: func(c echo.Context) error {
		if c.QueryParam("fail") == "conflict" {
			return &protocol.APIError{Status: http.StatusConflict, Code: protocol.CodeConflict, Message: "taken"}
		}
		if c.QueryParam("fail") == "internal" {
			return errors.New("a bug")
		}
		return c.String(http.StatusOK, "ok")
	}}}
}

func (echoProtocol) Deny(c echo.Context, msg string) error {
	return c.JSON(http.StatusUnauthorized, map[string]string{"denied": msg})
}

func (echoProtocol) Owns(r *http.Request) bool { return r.URL.Path == "/echo-protocol" }

func (echoProtocol) WriteError(c echo.Context, ae *protocol.APIError) error {
	return c.JSON(ae.Status, map[string]string{"protocolError": ae.Code})
}

// TestProtocolsMountedBehindTokens: a protocol of Config.Protocols is
// served only to API-token callers (its own Deny answers the others, a
// browser session included), and the server's error handler writes the
// errors of its routes, its own and the server's, with its WriteError.
func TestProtocolsMountedBehindTokens(t *testing.T) {
	t.Parallel()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, config.AuthLocal, cat, func(c *server.Config) {
		c.Protocols = append(c.Protocols, func(*server.Host) (protocol.Protocol, error) { return echoProtocol{}, nil })
	})
	_, token := e.user("ada@example.org")
	if r := e.do(http.MethodGet, "/echo-protocol", "", ""); r.status != http.StatusUnauthorized || !strings.Contains(string(r.body), `"denied"`) {
		t.Errorf("without a token = %d %s, want the protocol's 401", r.status, r.body)
	}
	if r := e.do(http.MethodGet, "/echo-protocol", token, ""); r.status != http.StatusOK || string(r.body) != "ok" {
		t.Errorf("with a token = %d %s, want 200 ok", r.status, r.body)
	}
	for fail, want := range map[string]string{"conflict": `{"protocolError":"CONFLICT"}`, "internal": `{"protocolError":"INTERNAL"}`} {
		if r := e.do(http.MethodGet, "/echo-protocol?fail="+fail, token, ""); strings.TrimSpace(string(r.body)) != want {
			t.Errorf("failing with %s = %d %s, want %s", fail, r.status, r.body, want)
		}
	}
	if r := e.do(http.MethodPost, "/echo-protocol", token, "{}"); strings.TrimSpace(string(r.body)) != `{"protocolError":"METHOD_NOT_ALLOWED"}` {
		t.Errorf("a wrong method = %d %s, want the protocol's METHOD_NOT_ALLOWED", r.status, r.body)
	}
}
