package gemini

import (
	"bytes"
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
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/llm"
)

// testKey is the API key the tests configure; no error or log line may
// contain it.
const testKey = "AIzaTEST-secret-key-0123456789"

// step answers one request of the fake Gemini API.
type step func(w http.ResponseWriter, r *http.Request)

// recorded is what the fake saw of one request.
type recorded struct {
	Path   string
	Query  string
	APIKey string
	Body   []byte
}

// fakeGemini speaks the Gemini REST streaming wire format: POST
// /v1beta/models/{model}:streamGenerateContent?alt=sse answered by
// "data: {GenerateContentResponse}\r\n\r\n" frames. Each request is answered
// by the next step of its script.
type fakeGemini struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	steps []step
	reqs  []recorded
}

func newFake(t *testing.T, steps ...step) *fakeGemini {
	t.Helper()
	f := &fakeGemini{t: t, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("fake: read body: %v", err)
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, recorded{Path: r.URL.Path, Query: r.URL.RawQuery, APIKey: r.Header.Get("x-goog-api-key"), Body: body})
	var next step
	if len(f.steps) > 0 {
		next, f.steps = f.steps[0], f.steps[1:]
	}
	f.mu.Unlock()
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") ||
		!strings.HasSuffix(r.URL.Path, ":streamGenerateContent") || r.URL.Query().Get("alt") != "sse" {
		f.t.Errorf("fake: unexpected request %s %s", r.Method, r.URL)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if next == nil {
		f.t.Errorf("fake: request %d has no scripted answer", len(f.requests()))
		apiError(http.StatusInternalServerError, "INTERNAL", "script exhausted")(w, r)
		return
	}
	next(w, r)
}

func (f *fakeGemini) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// sse answers 200 with one SSE frame per GenerateContentResponse JSON.
func sse(frames ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		writeFrames(w, frames)
	}
}

func writeFrames(w http.ResponseWriter, frames []string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, f := range frames {
		_, _ = io.WriteString(w, "data: "+f+"\r\n\r\n")
		w.(http.Flusher).Flush()
	}
}

// hold sends frames, then keeps the stream open until the client goes away.
func hold(frames ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		writeFrames(w, frames)
		<-r.Context().Done()
	}
}

// apiError answers with Google's JSON error body.
func apiError(status int, name, message string, headers ...string) step {
	return apiErrorBody(status, headers, map[string]any{"error": map[string]any{"code": status, "message": message, "status": name}})
}

func apiErrorBody(status int, headers []string, body any) step {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	}
}

// reset closes the connection without an answer.
func reset() step {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		conn.Close()
	}
}

// stall sends no headers until the client gives up.
func stall() step {
	return func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}
}

// sleeps records the delays the engine asked for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// harness is an engine wired to a fake, with its sleeps and log captured.
type harness struct {
	fake   *fakeGemini
	engine *Engine
	sleeps *sleeps
	log    *bytes.Buffer
}

func newHarness(t *testing.T, cfg Config, steps ...step) *harness {
	t.Helper()
	h := &harness{fake: newFake(t, steps...), sleeps: &sleeps{}, log: &bytes.Buffer{}}
	cfg.APIKey = testKey
	cfg.BaseURL = h.fake.srv.URL
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = h.fake.srv.Client()
	}
	if cfg.Sleep == nil {
		cfg.Sleep = h.sleeps.sleep
	}
	cfg.Logger = slog.New(slog.NewTextHandler(io.MultiWriter(h.log, t.Output()), &slog.HandlerOptions{Level: slog.LevelDebug}))
	e, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.engine = e
	return h
}

// collect ranges over a stream until its end or its first error.
func collect(seq func(func(llm.Chunk, error) bool)) ([]llm.Chunk, error) {
	var chunks []llm.Chunk
	for c, err := range seq {
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, c)
	}
	return chunks, nil
}

// jsonEqual compares JSON documents by value, so that tests state raw
// content and tool arguments as readable JSON.
var jsonEqual = cmp.Transformer("json", func(r json.RawMessage) any {
	var v any
	if err := json.Unmarshal(r, &v); err != nil {
		return "invalid JSON: " + string(r)
	}
	return v
})

// assertNoKey fails when the key appears in err, anything it wraps, or the
// log.
func assertNoKey(t *testing.T, err error, log string) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), testKey) {
			t.Errorf("error text contains the API key: %q", e.Error())
		}
	}
	if strings.Contains(log, testKey) {
		t.Errorf("log contains the API key:\n%s", log)
	}
}
