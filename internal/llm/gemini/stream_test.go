package gemini

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"strategist/internal/llm"
)

// Real GenerateContentResponse frames, as the Gemini API streams them.
const (
	frameHel       = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"r1"}`
	frameLo        = `{"candidates":[{"content":{"role":"model","parts":[{"text":"lo, "}]},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"r1"}`
	frameWorld     = `{"candidates":[{"content":{"role":"model","parts":[{"text":"world."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":4,"totalTokenCount":16},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`
	frameCall      = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"fc-1","name":"search_for_searches","args":{"query":"kinase","record_type":"transcript"}},"thoughtSignature":"c2lnLW9uZQ=="}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":9,"thoughtsTokenCount":20,"totalTokenCount":69}}`
	frameTwo       = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_search_parameters","args":{"search_name":"GenesByTaxon"}},"thoughtSignature":"c2lnLXR3bw=="},{"functionCall":{"name":"get_search_parameters","args":{"search_name":"GenesByGoTerm"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":12,"totalTokenCount":62}}`
	frameOK        = `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4}}`
	frameUnsafe    = `{"candidates":[{"content":{"role":"model","parts":[{"text":" more"}]},"finishReason":"SAFETY","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]}]}`
	frameBlocked   = `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH"}]},"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}`
	frameNoEnd     = `{"candidates":[{"content":{"role":"model","parts":[{"text":"half an ans"}]},"index":0}]}`
	frameStreamErr = `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`
)

var okChunks = []llm.Chunk{
	{Kind: llm.ChunkText, Text: "ok"},
	{Kind: llm.ChunkUsage, Usage: &llm.Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4}},
	{Kind: llm.ChunkFinish, Finish: llm.FinishStop, Raw: &llm.Raw{Engine: Name, Data: []byte(`{"role":"model","parts":[{"text":"ok"}]}`)}},
}

func TestStream(t *testing.T) {
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		cfg        Config
		steps      []step
		want       []llm.Chunk
		wantErr    *llm.Error // Kind, Status; Message checked by wantMsg
		wantMsg    []string   // substrings of the error text
		wantSleeps []time.Duration
		sleepRange [][2]time.Duration // when jittered: bounds per sleep
		wantReqs   int
	}{
		{
			name:  "text in several deltas",
			steps: []step{sse(frameHel, frameLo, frameWorld)},
			want: []llm.Chunk{
				{Kind: llm.ChunkText, Text: "Hel"},
				{Kind: llm.ChunkText, Text: "lo, "},
				{Kind: llm.ChunkText, Text: "world."},
				{Kind: llm.ChunkUsage, Usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 4, TotalTokens: 16}},
				{Kind: llm.ChunkFinish, Finish: llm.FinishStop, Raw: &llm.Raw{Engine: Name, Data: []byte(`{"role":"model","parts":[{"text":"Hello, world."}]}`)}},
			},
			wantReqs: 1,
		},
		{
			name:  "one tool call with its id, thought tokens counted as completion",
			steps: []step{sse(frameCall)},
			want: []llm.Chunk{
				{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{ID: "fc-1", Name: "search_for_searches", Args: []byte(`{"query":"kinase","record_type":"transcript"}`)}},
				{Kind: llm.ChunkUsage, Usage: &llm.Usage{PromptTokens: 40, CompletionTokens: 29, TotalTokens: 69}},
				{Kind: llm.ChunkFinish, Finish: llm.FinishToolCalls, Raw: &llm.Raw{Engine: Name, Data: []byte(
					`{"role":"model","parts":[{"functionCall":{"id":"fc-1","name":"search_for_searches","args":{"query":"kinase","record_type":"transcript"}},"thoughtSignature":"c2lnLW9uZQ=="}]}`)}},
			},
			wantReqs: 1,
		},
		{
			name:  "parallel tool calls without ids get derived ones",
			steps: []step{sse(frameTwo)},
			want: []llm.Chunk{
				{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{Name: "get_search_parameters", Args: []byte(`{"search_name":"GenesByTaxon"}`)}},
				{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{Name: "get_search_parameters", Args: []byte(`{"search_name":"GenesByGoTerm"}`)}},
				{Kind: llm.ChunkUsage, Usage: &llm.Usage{PromptTokens: 50, CompletionTokens: 12, TotalTokens: 62}},
				{Kind: llm.ChunkFinish, Finish: llm.FinishToolCalls, Raw: &llm.Raw{Engine: Name, Data: []byte(
					`{"role":"model","parts":[{"functionCall":{"name":"get_search_parameters","args":{"search_name":"GenesByTaxon"}},"thoughtSignature":"c2lnLXR3bw=="},{"functionCall":{"name":"get_search_parameters","args":{"search_name":"GenesByGoTerm"}}}]}`)}},
			},
			wantReqs: 1,
		},
		{
			name:       "429 with Retry-After seconds, then success",
			steps:      []step{apiError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", "Retry-After", "7"), sse(frameOK)},
			want:       okChunks,
			wantSleeps: []time.Duration{7 * time.Second},
			wantReqs:   2,
		},
		{
			name: "429 with Retry-After as an HTTP date",
			cfg:  Config{Now: func() time.Time { return clock }},
			steps: []step{
				apiError(429, "RESOURCE_EXHAUSTED", "quota", "Retry-After", clock.Add(12*time.Second).Format(http.TimeFormat)),
				sse(frameOK),
			},
			want:       okChunks,
			wantSleeps: []time.Duration{12 * time.Second},
			wantReqs:   2,
		},
		{
			name: "429 with google.rpc.RetryInfo, then success",
			steps: []step{
				apiErrorBody(429, nil, map[string]any{"error": map[string]any{
					"code": 429, "message": "You exceeded your current quota.", "status": "RESOURCE_EXHAUSTED",
					"details": []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3s"}},
				}}),
				sse(frameOK),
			},
			want:       okChunks,
			wantSleeps: []time.Duration{3 * time.Second},
			wantReqs:   2,
		},
		{
			name:     "Retry-After beyond BackoffMax fails at once",
			cfg:      Config{BackoffMax: 10 * time.Second},
			steps:    []step{apiError(429, "RESOURCE_EXHAUSTED", "quota", "Retry-After", "3600")},
			wantErr:  &llm.Error{Kind: llm.ErrorRetryable, Status: 429},
			wantMsg:  []string{"rate limit", "asks to wait 1h0m0s"},
			wantReqs: 1,
		},
		{
			name:       "500 twice, then success",
			cfg:        Config{BackoffBase: time.Second, BackoffMax: 30 * time.Second},
			steps:      []step{apiError(500, "INTERNAL", "An internal error has occurred."), apiError(500, "INTERNAL", "again"), sse(frameOK)},
			want:       okChunks,
			sleepRange: [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}},
			wantReqs:   3,
		},
		{
			name:       "503 until attempts are exhausted",
			cfg:        Config{MaxAttempts: 3, BackoffBase: time.Second},
			steps:      []step{apiError(503, "UNAVAILABLE", "The model is overloaded."), apiError(503, "UNAVAILABLE", "overloaded"), apiError(503, "UNAVAILABLE", "still overloaded")},
			wantErr:    &llm.Error{Kind: llm.ErrorRetryable, Status: 503},
			wantMsg:    []string{"unavailable", "still overloaded", "gave up after 3 attempts"},
			sleepRange: [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}},
			wantReqs:   3,
		},
		{
			name:       "connection reset, then success",
			steps:      []step{reset(), sse(frameOK)},
			want:       okChunks,
			sleepRange: [][2]time.Duration{{500 * time.Millisecond, time.Second}},
			wantReqs:   2,
		},
		{
			name:       "error frame inside the stream before any chunk, then success",
			steps:      []step{sse(frameStreamErr), sse(frameOK)},
			want:       okChunks,
			sleepRange: [][2]time.Duration{{500 * time.Millisecond, time.Second}},
			wantReqs:   2,
		},
		{
			name:     "stream cut after text is not retried",
			steps:    []step{sse(frameHel, frameNoEnd)},
			want:     []llm.Chunk{{Kind: llm.ChunkText, Text: "Hel"}, {Kind: llm.ChunkText, Text: "half an ans"}},
			wantErr:  &llm.Error{Kind: llm.ErrorRetryable},
			wantMsg:  []string{"ended before Gemini finished"},
			wantReqs: 1,
		},
		{
			name:     "400 unknown model",
			steps:    []step{apiError(400, "INVALID_ARGUMENT", "models/gemini-nope is not found for API version v1beta, or is not supported for generateContent.")},
			wantErr:  &llm.Error{Kind: llm.ErrorBadRequest, Status: 400},
			wantMsg:  []string{`unknown Gemini model "gemini-test"`, "not found"},
			wantReqs: 1,
		},
		{
			name:     "404 unknown model",
			steps:    []step{apiError(404, "NOT_FOUND", "models/gemini-test is not found for API version v1beta.")},
			wantErr:  &llm.Error{Kind: llm.ErrorBadRequest, Status: 404},
			wantMsg:  []string{`unknown Gemini model "gemini-test"`},
			wantReqs: 1,
		},
		{
			name:     "400 invalid argument",
			steps:    []step{apiError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"foo\".")},
			wantErr:  &llm.Error{Kind: llm.ErrorBadRequest, Status: 400},
			wantMsg:  []string{"invalid", "Unknown name"},
			wantReqs: 1,
		},
		{
			name: "400 API_KEY_INVALID is a bad key, and the echoed key is redacted",
			steps: []step{apiErrorBody(400, nil, map[string]any{"error": map[string]any{
				"code": 400, "message": "API key not valid. Please pass a valid API key: " + testKey, "status": "INVALID_ARGUMENT",
				"details": []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}},
			}})},
			wantErr:  &llm.Error{Kind: llm.ErrorAuth, Status: 400},
			wantMsg:  []string{"rejected the API key", "GEMINI_API_KEY", "[redacted]"},
			wantReqs: 1,
		},
		{
			name:     "401 bad key",
			steps:    []step{apiError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials ("+testKey+").")},
			wantErr:  &llm.Error{Kind: llm.ErrorAuth, Status: 401},
			wantMsg:  []string{"rejected the API key", "GEMINI_API_KEY"},
			wantReqs: 1,
		},
		{
			name:     "403 permission denied",
			steps:    []step{apiError(403, "PERMISSION_DENIED", "Permission denied: Consumer 'api_key:"+testKey+"' has been suspended.")},
			wantErr:  &llm.Error{Kind: llm.ErrorAuth, Status: 403},
			wantMsg:  []string{"denied permission", "GEMINI_API_KEY"},
			wantReqs: 1,
		},
		{
			name:     "blocked prompt",
			steps:    []step{sse(frameBlocked)},
			wantErr:  &llm.Error{Kind: llm.ErrorBlocked},
			wantMsg:  []string{"blocked the prompt", "SAFETY"},
			wantReqs: 1,
		},
		{
			name:     "answer stopped for safety",
			steps:    []step{sse(frameHel, frameUnsafe)},
			want:     []llm.Chunk{{Kind: llm.ChunkText, Text: "Hel"}, {Kind: llm.ChunkText, Text: " more"}},
			wantErr:  &llm.Error{Kind: llm.ErrorBlocked},
			wantMsg:  []string{"safety", "SAFETY"},
			wantReqs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg, tt.steps...)
			got, err := collect(h.engine.Stream(t.Context(), llm.Request{
				Model:    "gemini-test",
				Messages: []llm.Message{{Role: llm.RoleUser, Text: "Find kinases in P. falciparum"}},
			}))
			// Derived ids are checked by TestDerivedCallIDs; here only their shape.
			for _, c := range got {
				if c.ToolCall != nil && strings.HasPrefix(c.ToolCall.ID, "call_") {
					c.ToolCall.ID = ""
				}
			}
			if diff := cmp.Diff(tt.want, got, jsonEqual, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("chunks mismatch (-want +got):\n%s", diff)
			}
			checkErr(t, err, tt.wantErr, tt.wantMsg)
			assertNoKey(t, err, h.log.String())
			reqs := h.fake.requests()
			if len(reqs) != tt.wantReqs {
				t.Errorf("requests = %d, want %d", len(reqs), tt.wantReqs)
			}
			for _, r := range reqs {
				if r.APIKey != testKey {
					t.Errorf("x-goog-api-key = %q, want the configured key", r.APIKey)
				}
				if strings.Contains(r.Query, testKey) {
					t.Errorf("key sent in the URL query %q", r.Query)
				}
			}
			slept := h.sleeps.got()
			if tt.sleepRange == nil {
				if diff := cmp.Diff(tt.wantSleeps, slept, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("sleeps mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if len(slept) != len(tt.sleepRange) {
				t.Fatalf("sleeps = %v, want %d within %v", slept, len(tt.sleepRange), tt.sleepRange)
			}
			for i, d := range slept {
				if d < tt.sleepRange[i][0] || d > tt.sleepRange[i][1] {
					t.Errorf("sleep %d = %v, want within %v", i, d, tt.sleepRange[i])
				}
			}
		})
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

// TestStreamHeaderTimeoutRetried: a server that never answers is a timeout,
// retried like a dropped connection.
func TestStreamHeaderTimeoutRetried(t *testing.T) {
	f := newFake(t, stall(), sse(frameOK))
	tr := f.srv.Client().Transport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 50 * time.Millisecond
	t.Cleanup(tr.CloseIdleConnections)
	s := &sleeps{}
	e, err := New(Config{APIKey: testKey, BaseURL: f.srv.URL, HTTPClient: &http.Client{Transport: tr}, Sleep: s.sleep})
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(e.Stream(t.Context(), llm.Request{Model: "gemini-test", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if diff := cmp.Diff(okChunks, got, jsonEqual); diff != "" {
		t.Errorf("chunks mismatch (-want +got):\n%s", diff)
	}
	if n := len(s.got()); n != 1 {
		t.Errorf("sleeps = %d, want 1", n)
	}
}
