package gemini

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/genai"

	"strategist/internal/llm"
)

// benchAnswer is a 200-delta text answer followed by a signed function
// call: roughly what a planner round streams.
func benchAnswer() string {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"token%d \"}]},\"index\":0}]}\r\n\r\n", i)
	}
	b.WriteString("data: " + frameCall + "\r\n\r\n")
	return b.String()
}

// BenchmarkStream measures one streamed call end to end against a loopback
// server replaying a canned answer: SDK decoding, merging and chunking.
func BenchmarkStream(b *testing.B) {
	body := benchAnswer()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	e, err := New(Config{APIKey: testKey, BaseURL: srv.URL, HTTPClient: srv.Client()})
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Model: "gemini-bench", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, err := range e.Stream(b.Context(), req) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 203 {
			b.Fatalf("chunks = %d, want 203", n)
		}
	}
}

// BenchmarkAccumulate measures the engine's own share of a call: merging
// 200 parsed text deltas and a function call, chunking, encoding Raw.
func BenchmarkAccumulate(b *testing.B) {
	resps := make([]*genai.GenerateContentResponse, 0, 201)
	for i := range 200 {
		resps = append(resps, &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{
			Role: genai.RoleModel, Parts: []*genai.Part{{Text: fmt.Sprintf("token%d ", i)}},
		}}}})
	}
	resps = append(resps, &genai.GenerateContentResponse{
		Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonStop, Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{
			FunctionCall:     &genai.FunctionCall{Name: "search_for_searches", Args: map[string]any{"query": "kinase"}},
			ThoughtSignature: []byte("signature"),
		}}}}},
		UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 200, TotalTokenCount: 210},
	})
	b.ReportAllocs()
	for b.Loop() {
		acc := newAccumulator("seed")
		for _, r := range resps {
			if _, err := acc.add(r); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := acc.finish(); err != nil {
			b.Fatal(err)
		}
	}
}
