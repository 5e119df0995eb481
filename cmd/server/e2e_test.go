package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/event/sseclient"
	"strategist/internal/offlinetest"
	"strategist/internal/pgtest"
	"strategist/internal/proctest"
)

// The -update flag rewrites the golden files; eventtest.Golden reads it with
// flag.Lookup.
var _ = flag.Bool("update", false, "rewrite the golden files")

// dataDir is the offline gene data (offlinetest.DataDir: STRATEGIST_DATA_DIR,
// else data/ at the repository root); without it a test is skipped, except
// with CI=true.
func dataDir(t testing.TB) string {
	t.Helper()
	return offlinetest.DataDir(t)
}

// geneCatalog is the offline catalog over the gene data, opened once for
// every app the tests start (newCatalog opens it per process; it is only
// read, and its result cache is safe to share).
var geneCatalog = offlinetest.Shared(offline.Open)

// testApp is a running Strategist (the real application graph) on :0.
type testApp struct {
	t     testing.TB
	URL   string
	Token string
	// UserID is the user the Token signs in.
	UserID string
	app    *app
	obs    *observability
	stop   context.CancelFunc
	done   chan error
	logs   *proctest.Logs
}

type appOptions struct {
	// DatabaseURL shares a database between apps (two processes); "" makes a
	// fresh one.
	DatabaseURL string
	// Script is the scripted engine file under testdata/scripts used as the
	// default model.
	Script string
	Env    map[string]string
	// Spans, when set, turns tracing on and receives the app's spans.
	Spans sdktrace.SpanExporter
}

func startApp(t testing.TB, opts appOptions) *testApp {
	t.Helper()
	dbURL := opts.DatabaseURL
	if dbURL == "" {
		dbURL = pgtest.NewURL(t)
	}
	env := map[string]string{
		"DATABASE_URL":           dbURL,
		"STRATEGIST_ADDR":        "127.0.0.1:0",
		"STRATEGIST_DATA_DIR":    dataDir(t),
		"STRATEGIST_SCRIPTS_DIR": "testdata/scripts",
		"STRATEGIST_LOG_LEVEL":   "warn",
	}
	if opts.Script != "" {
		env["STRATEGIST_MODEL"] = "scripted:" + opts.Script
	}
	for k, v := range opts.Env {
		env[k] = v
	}
	cfg, err := config.Load(nil, envMap(env), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &proctest.Logs{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithCancel(context.Background())
	obs, err := newObservability(ctx, cfg.Telemetry, version, opts.Spans)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	db, err := openDB(ctx, cfg, obs.storeOptions()...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cfg.Listening(ln.Addr().String())
	a, err := buildApp(cfg, db, geneCatalog(t), log, obs)
	if err != nil {
		cancel()
		db.Close()
		t.Fatal(err)
	}
	ta := &testApp{t: t, URL: "http://" + ln.Addr().String(), app: a, obs: obs, stop: cancel, done: make(chan error, 1), logs: logs}
	go func() {
		err := a.run(ctx, ln)
		db.Close()
		ta.done <- errors.Join(err, obs.shutdown(context.Background()))
	}()
	t.Cleanup(ta.Stop)
	u, err := a.accounts.CreateUser(context.Background(), fmt.Sprintf("ada%d@example.org", time.Now().UnixNano()), "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	ta.UserID = u.ID
	ta.Token, _, err = a.accounts.CreateAPIToken(context.Background(), u.ID, "e2e")
	if err != nil {
		t.Fatal(err)
	}
	ta.waitReady()
	return ta
}

// Stop shuts the app down and fails the test if it did not stop cleanly.
func (a *testApp) Stop() {
	if a.stop == nil {
		return
	}
	a.stop()
	a.stop = nil
	select {
	case err := <-a.done:
		if err != nil {
			a.t.Errorf("app stopped with %v\nlogs:\n%s", err, a.logs.String())
		}
	case <-time.After(20 * time.Second):
		a.t.Errorf("app did not stop within 20 s\nlogs:\n%s", a.logs.String())
	}
}

func (a *testApp) waitReady() {
	a.t.Helper()
	for range 400 {
		resp, err := http.Get(a.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.t.Fatalf("app never became ready\nlogs:\n%s", a.logs.String())
}

// call sends a JSON request with the app's token and decodes the JSON
// answer into out (when not nil); it returns the status.
func (a *testApp) call(method, path string, body any, out any) int {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			a.t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

func (a *testApp) newConversation() string {
	a.t.Helper()
	var conv struct{ ID string }
	if st := a.call("POST", "/api/v1/conversations", map[string]string{"siteId": "plasmodb"}, &conv); st != http.StatusCreated {
		a.t.Fatalf("create conversation: %d", st)
	}
	return conv.ID
}

// startTurn starts a turn, retrying while the orchestrator is still coming
// up (503), and returns its id.
func (a *testApp) startTurn(conv, mode, message string) string {
	a.t.Helper()
	return a.startTurnWith(conv, map[string]string{"mode": mode, "message": message})
}

// startTurnWith starts a turn with the given request body.
func (a *testApp) startTurnWith(conv string, body map[string]string) string {
	a.t.Helper()
	for range 200 {
		var out struct {
			TurnID string
			Error  struct{ Code, Message string }
		}
		st := a.call("POST", "/api/v1/conversations/"+conv+"/turns", body, &out)
		switch st {
		case http.StatusAccepted:
			return out.TurnID
		case http.StatusServiceUnavailable:
			time.Sleep(10 * time.Millisecond)
			continue
		}
		a.t.Fatalf("start turn: %d %s: %s", st, out.Error.Code, out.Error.Message)
	}
	a.t.Fatal("the orchestrator never started serving turns")
	return ""
}

func (a *testApp) streamURL(conv string) string {
	return a.URL + "/api/v1/conversations/" + conv + "/events"
}

// collect follows conv's stream from after until stop says the transcript
// is complete, or fails after timeout.
func (a *testApp) collect(conv string, after int64, timeout time.Duration, stop func([]event.Record) bool) []event.Record {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var recs []event.Record
	for rec, err := range sseclient.Follow(ctx, a.streamURL(conv), a.Token, after) {
		if err != nil {
			a.t.Fatalf("stream: %v", err)
		}
		recs = append(recs, rec)
		if stop(recs) {
			return recs
		}
	}
	a.t.Fatalf("stream ended before the transcript was complete (%d events):\n%s\nlogs:\n%s", len(recs), eventtest.Mask(recs), a.logs.String())
	return nil
}

// untilTurnEnds stops collecting at the n-th turn_end.
func untilTurnEnds(n int) func([]event.Record) bool {
	return func(recs []event.Record) bool {
		ends := 0
		for _, r := range recs {
			if r.Type == "turn_end" {
				ends++
			}
		}
		return ends >= n
	}
}

// payload decodes a record's payload into a map.
func payload(t testing.TB, r event.Record) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Payload, &m); err != nil {
		t.Fatalf("payload of %s: %v", r.Type, err)
	}
	return m
}

// find returns the records of a type.
func find(recs []event.Record, typ string) []event.Record {
	var out []event.Record
	for _, r := range recs {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}
