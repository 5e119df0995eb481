package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	oai "github.com/openai/openai-go/v3"

	"strategist/internal/llm"
)

// benchFrames is a 200-delta text answer followed by two tool calls whose
// arguments arrive in pieces, the finish and the usage chunk.
func benchFrames() []string {
	frames := make([]string, 0, 210)
	for i := range 200 {
		frames = append(frames, chunk(fmt.Sprintf(`{"content":"token%d "}`, i), ""))
	}
	frames = append(frames, twoCallFrames...)
	return frames
}

// BenchmarkStream measures one streamed call end to end against a loopback
// server replaying a canned answer: SDK decoding, assembly and chunking.
func BenchmarkStream(b *testing.B) {
	var body strings.Builder
	for _, f := range benchFrames() {
		body.WriteString("data: " + f + "\n\n")
	}
	body.WriteString("data: [DONE]\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body.String())
	}))
	defer srv.Close()
	e, err := New(Config{BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()})
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Model: "bench", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, err := range e.Stream(b.Context(), req) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 205 {
			b.Fatalf("chunks = %d, want 205", n)
		}
	}
}

// BenchmarkAccumulate measures the engine's own share of a call: assembling
// parsed deltas into text chunks and complete tool calls.
func BenchmarkAccumulate(b *testing.B) {
	frames := benchFrames()
	chunks := make([]oai.ChatCompletionChunk, len(frames))
	for i, f := range frames {
		if err := json.Unmarshal([]byte(f), &chunks[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		acc := newAccumulator("seed")
		for _, c := range chunks {
			if _, err := acc.add(c); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := acc.finish(); err != nil {
			b.Fatal(err)
		}
	}
}
