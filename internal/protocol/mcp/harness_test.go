package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/protocol/mcp"
	"strategist/internal/sites"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// fakeHost is the server as the MCP server sees it: conversations in a
// map, the offline catalog, and turns answered by converse.
type fakeHost struct {
	cat      catalog.Catalog
	statuses protocol.SiteStatuses
	// createErr, when set, fails every new conversation (the store
	// refusing it, as for a user deleted after their token was checked).
	createErr error
	// converse answers a message (nil: the orchestrator is not serving).
	converse func(ctx context.Context, m protocol.Message, onRecord func(*event.Record, event.Event) error) (protocol.Outcome, error)

	mu    sync.Mutex
	convs map[string]store.Conversation
	// sent are the messages sent to converse.
	sent []protocol.Message
}

func (h *fakeHost) Logger() *slog.Logger     { return slog.New(slog.DiscardHandler) }
func (h *fakeHost) Version() string          { return "test" }
func (h *fakeHost) Catalog() catalog.Catalog { return h.cat }

func (h *fakeHost) UsableSite(ctx context.Context, userID, site string) error {
	return protocol.UsableSite(ctx, h.cat, h.statuses, userID, site)
}

func (h *fakeHost) Conversation(_ context.Context, userID, id string) (store.Conversation, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.convs[id]
	if !ok || c.UserID != userID {
		return store.Conversation{}, store.ErrNotFound
	}
	return c, nil
}

func (h *fakeHost) CreateConversation(_ context.Context, userID, site, title string) (store.Conversation, error) {
	if h.createErr != nil {
		return store.Conversation{}, h.createErr
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	c := store.Conversation{ID: uuid.NewString(), UserID: userID, SiteID: site, Title: title}
	h.convs[c.ID] = c
	return c, nil
}

func (h *fakeHost) Converse(ctx context.Context, m protocol.Message, onRecord func(*event.Record, event.Event) error) (protocol.Outcome, error) {
	h.mu.Lock()
	h.sent = append(h.sent, m)
	h.mu.Unlock()
	if h.converse == nil {
		return protocol.Outcome{}, &protocol.APIError{Status: http.StatusServiceUnavailable, Code: protocol.CodeUnavailable, Message: "the server is starting or stopping"}
	}
	return h.converse(ctx, m, onRecord)
}

func (h *fakeHost) RootSummary(context.Context, string, string) (string, *strategy.Step) {
	return "No strategy has been built yet.", nil
}

func (h *fakeHost) ConversationURL(id string) string {
	return "https://strategist.test/conversations/" + id
}

func (h *fakeHost) Hold(echo.Context, context.CancelFunc) func() { return func() {} }

// harness serves one MCP server over a fake host to one user, as the
// server does after authenticating their token.
type harness struct {
	t    testing.TB
	host *fakeHost
	srv  *httptest.Server
	user string
}

func newHarness(t testing.TB, configure func(*fakeHost)) *harness {
	t.Helper()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h := &fakeHost{cat: cat, convs: map[string]store.Conversation{}}
	if configure != nil {
		configure(h)
	}
	p, err := mcp.New(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	user := uuid.NewString()
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		ae, ok := errors.AsType[*protocol.APIError](err)
		if !ok {
			ae = &protocol.APIError{Status: http.StatusInternalServerError, Code: protocol.CodeInternal, Message: "internal error"}
		}
		_ = p.WriteError(c, ae)
	}
	for _, r := range p.Routes() {
		e.Any(r.Path, r.Handler, func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error {
				c.SetRequest(c.Request().WithContext(account.WithUser(c.Request().Context(), user)))
				return next(c)
			}
		})
	}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return &harness{t: t, host: h, srv: srv, user: user}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

// do posts one JSON-RPC body to /mcp.
func (e *harness) do(body string) reply {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+mcp.Path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return reply{status: res.StatusCode, header: res.Header, body: b}
}

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
func (e *harness) mcpPost(body string) (int, []rpcAnswer) {
	e.t.Helper()
	r := e.do(body)
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
func (e *harness) callMCP(tool string, args map[string]any) rpcAnswer {
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
