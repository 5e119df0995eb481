package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/server"
)

// TestReadyzNotReady: a replica that cannot run turns (its owner session
// lost, the database gone) answers /readyz 503 in JSON with Retry-After,
// whatever the client accepts, and says why.
func TestReadyzNotReady(t *testing.T) {
	t.Parallel()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncLog{}
	e := newEnvWith(t, config.AuthLocal, cat, func(c *server.Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
		c.Ready = func(context.Context) error {
			return fmt.Errorf("chat: no owner session: %w", errors.New("connect: connection refused"))
		}
	})
	r := e.do("GET", "/readyz", "", "", "Accept", "text/html")
	var body struct {
		Error struct{ Code, Message string }
	}
	if r.status != http.StatusServiceUnavailable || json.Unmarshal(r.body, &body) != nil || body.Error.Code != "UNAVAILABLE" ||
		!strings.Contains(body.Error.Message, "owner session") || r.header.Get("Retry-After") == "" {
		t.Errorf("readyz = %d %s (Retry-After %q); want 503 JSON UNAVAILABLE naming the reason, with Retry-After", r.status, r.body, r.header.Get("Retry-After"))
	}
	// Not ready is what the probe is for, not a server failure: the
	// access log says it as a warning, never an error.
	if got := logs.String(); strings.Contains(got, "level=ERROR") || !strings.Contains(got, "path=/readyz status=503") {
		t.Errorf("a not-ready /readyz logged as an error, or not at all:\n%s", got)
	}
}
