package server_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/server"
)

// TestShareTokensStayOutOfLogsAndSpans: whoever reads the access log or
// the traces cannot open a shared conversation. A share link's requests
// (the page, a mistyped variant, another route under /shared) are logged
// and traced by their route, with the token left out; other parameters
// (a conversation id) are still there to follow a request.
func TestShareTokensStayOutOfLogsAndSpans(t *testing.T) {
	t.Parallel()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncLog{}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	e := newEnvWith(t, config.AuthLocal, cat, func(c *server.Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.Tracer = tp
	})
	_, token := e.user("ada@example.org")
	id := e.do("POST", "/api/v1/conversations", token, `{"siteId":"plasmodb","title":"kinases"}`).json(t)["id"].(string)
	r := e.do("POST", "/api/v1/conversations/"+id+"/share", token, `{"public":true}`)
	var share struct{ Token string }
	if err := json.Unmarshal(r.body, &share); err != nil || r.status != http.StatusCreated || !strings.HasPrefix(share.Token, "shr_") {
		t.Fatalf("share = %d %s", r.status, r.body)
	}
	for _, path := range []string{"/shared/" + share.Token, "/shared/" + share.Token + "/", "/shared/" + share.Token + "/x", "/shared/" + share.Token + "?a=1"} {
		e.page(path, nil)
	}
	if err := tp.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := logs.String(); strings.Contains(got, share.Token) || strings.Contains(got, share.Token[4:]) {
		t.Errorf("a share token reached the log:\n%s", got)
	} else if !strings.Contains(got, "/shared/:token") || !strings.Contains(got, id) {
		t.Errorf("the log lost the route or the conversation id:\n%s", got)
	}
	spans := rec.Ended()
	if len(spans) == 0 {
		t.Fatal("no spans recorded")
	}
	var sharedRoute bool
	for _, s := range spans {
		if strings.Contains(s.Name(), share.Token[4:]) {
			t.Errorf("span name %q has the share token", s.Name())
		}
		for _, a := range s.Attributes() {
			if strings.Contains(a.Value.String(), share.Token[4:]) {
				t.Errorf("span %q: %s=%q has the share token", s.Name(), a.Key, a.Value.String())
			}
			if a.Key == attribute.Key("url.path") && a.Value.AsString() == "/shared/:token" {
				sharedRoute = true
			}
		}
	}
	if !sharedRoute {
		t.Error("no span has url.path /shared/:token")
	}
}
