package protocoltest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/internal/protocol"
)

// Serve mounts p's routes on a test server, as the server does: each
// route but a public one runs as user (an API token's, already checked),
// and the errors of p's routes are written by p's WriteError, worded by
// h.APIError.
func Serve(t testing.TB, h *Host, p protocol.Protocol, user string) *httptest.Server {
	t.Helper()
	e := echo.New()
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		var ae *protocol.APIError
		if he, ok := errors.AsType[*echo.HTTPError](err); ok {
			ae = &protocol.APIError{Status: he.Code, Code: strings.ToUpper(strings.ReplaceAll(http.StatusText(he.Code), " ", "_")), Message: http.StatusText(he.Code)}
		} else {
			ae = h.APIError(err)
		}
		if p.Owns(c.Request()) {
			_ = p.WriteError(c, ae)
			return
		}
		_ = protocol.WriteJSONError(c, ae)
	}
	asUser := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.SetRequest(c.Request().WithContext(account.WithUser(c.Request().Context(), user)))
			return next(c)
		}
	}
	for _, r := range p.Routes() {
		var mw []echo.MiddlewareFunc
		if !r.Public {
			mw = append(mw, asUser)
		}
		if r.Method == "" {
			e.Any(r.Path, r.Handler, mw...)
		} else {
			e.Add(r.Method, r.Path, r.Handler, mw...)
		}
	}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv
}

// RPCAnswer is one JSON-RPC response (MCP's, A2A's), as far as the tests
// read it.
type RPCAnswer struct {
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

// Text is an MCP tool result's text ("" for a JSON-RPC error).
func (a RPCAnswer) Text() string {
	if a.Result == nil || len(a.Result.Content) == 0 {
		return ""
	}
	return a.Result.Content[0].Text
}

// RPCAnswers reads the JSON-RPC answers of a response body: one document
// or a batch, as JSON or as the data of SSE events (contentType says
// which).
func RPCAnswers(t testing.TB, contentType string, body []byte) []RPCAnswer {
	t.Helper()
	raw := string(body)
	var docs []string
	if strings.HasPrefix(contentType, "text/event-stream") {
		for line := range strings.Lines(raw) {
			if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok {
				docs = append(docs, d)
			}
		}
	} else if strings.TrimSpace(raw) != "" {
		docs = append(docs, raw)
	}
	var answers []RPCAnswer
	for _, d := range docs {
		d = strings.TrimSpace(d)
		if strings.HasPrefix(d, "[") {
			var batch []RPCAnswer
			if err := json.Unmarshal([]byte(d), &batch); err != nil {
				t.Fatalf("json-rpc answer %q: %v", d, err)
			}
			answers = append(answers, batch...)
			continue
		}
		var a RPCAnswer
		if err := json.Unmarshal([]byte(d), &a); err != nil {
			t.Fatalf("json-rpc answer %q: %v", d, err)
		}
		answers = append(answers, a)
	}
	return answers
}

// Reply is one HTTP answer, read whole.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends a request to srv and reads the answer whole; header holds
// name, value pairs.
func Do(t testing.TB, srv *httptest.Server, method, path, body string, header ...string) Reply {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Reply{Status: res.StatusCode, Header: res.Header, Body: b}
}
