package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
const testKey = "sk-test-0123456789abcdefSECRET"

// step answers one request of the fake server.
type step func(w http.ResponseWriter, r *http.Request)

// recorded is what the fake saw of one request.
type recorded struct {
	Path          string
	Authorization string
	Body          []byte
}

// fakeServer speaks the Chat Completions streaming wire format: POST
// /v1/chat/completions with "stream":true answered by "data: {chunk}\n\n"
// frames and "data: [DONE]\n\n". Each request is answered by the next step
// of its script.
type fakeServer struct {
	t     *testing.T
	srv   *httptest.Server
	mu    sync.Mutex
	steps []step
	reqs  []recorded
}

func newFake(t *testing.T, steps ...step) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("fake: read body: %v", err)
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, recorded{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Body: body})
	var next step
	if len(f.steps) > 0 {
		next, f.steps = f.steps[0], f.steps[1:]
	}
	f.mu.Unlock()
	var req struct {
		Stream bool `json:"stream"`
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || json.Unmarshal(body, &req) != nil || !req.Stream {
		f.t.Errorf("fake: unexpected request %s %s %s", r.Method, r.URL, body)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if next == nil {
		f.t.Errorf("fake: request %d has no scripted answer", len(f.requests()))
		apiError(http.StatusInternalServerError, "script exhausted", "server_error", "")(w, r)
		return
	}
	next(w, r)
}

func (f *fakeServer) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// chunk is a real chat.completion.chunk with one choice.
func chunk(delta, finish string) string {
	fin := "null"
	if finish != "" {
		fin = `"` + finish + `"`
	}
	return fmt.Sprintf(`{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1763726400,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`, delta, fin)
}

// usageChunk is the final chunk include_usage asks for: no choices.
func usageChunk(prompt, completion, total int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1763726400,"model":"qwen3:8b","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, prompt, completion, total)
}

// sse answers 200 with the frames and the [DONE] sentinel.
func sse(frames ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		writeFrames(w, frames)
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	}
}

// sseNoDone answers 200 with the frames and closes without [DONE].
func sseNoDone(frames ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		writeFrames(w, frames)
	}
}

func writeFrames(w http.ResponseWriter, frames []string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, f := range frames {
		_, _ = io.WriteString(w, "data: "+f+"\n\n")
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

// apiError answers with OpenAI's JSON error body.
func apiError(status int, message, typ, code string, headers ...string) step {
	var c any
	if code != "" {
		c = code
	}
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": c}})
	}
}

// plain answers with a non-JSON body, as a proxy would.
func plain(status int, body string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
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
	fake   *fakeServer
	engine *Engine
	sleeps *sleeps
	log    *bytes.Buffer
}

func newHarness(t *testing.T, cfg Config, steps ...step) *harness {
	t.Helper()
	h := &harness{fake: newFake(t, steps...), sleeps: &sleeps{}, log: &bytes.Buffer{}}
	if cfg.APIKey == "" {
		cfg.APIKey = testKey
	}
	cfg.BaseURL = h.fake.srv.URL + "/v1"
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

// jsonEqual compares JSON documents by value.
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

func checkErr(t *testing.T, err error, want *llm.Error, msgs []string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var got *llm.Error
	if !errors.As(err, &got) {
		t.Fatalf("error = %v (%T), want *llm.Error", err, err)
	}
	if got.Kind != want.Kind || got.Status != want.Status || got.Engine != Name {
		t.Errorf("error kind/status/engine = %v/%d/%q, want %v/%d/%q (%v)", got.Kind, got.Status, got.Engine, want.Kind, want.Status, Name, err)
	}
	if llm.Retryable(err) != (want.Kind == llm.ErrorRetryable) {
		t.Errorf("llm.Retryable(%v) = %v", err, llm.Retryable(err))
	}
	for _, m := range msgs {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not mention %q", err.Error(), m)
		}
	}
}
