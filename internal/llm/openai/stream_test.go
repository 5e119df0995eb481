package openai

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"strategist/internal/llm"
)

// Streamed pieces of real answers.
var (
	textFrames = []string{
		chunk(`{"role":"assistant","content":""}`, ""),
		chunk(`{"content":"Hel"}`, ""),
		chunk(`{"content":"lo, "}`, ""),
		chunk(`{"content":"world."}`, ""),
		chunk(`{}`, "stop"),
		usageChunk(12, 4, 16),
	}
	// One call whose name and arguments arrive over several chunks.
	oneCallFrames = []string{
		chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"search_for_searches","arguments":""}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\":"}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"kinase\",\"record_type\""}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":":\"transcript\"}"}}]}`, ""),
		chunk(`{}`, "tool_calls"),
		usageChunk(40, 9, 49),
	}
	// Two calls, the second's deltas after the first's, as OpenAI sends them.
	twoCallFrames = []string{
		chunk(`{"role":"assistant","content":"Checking both.","tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"get_search_parameters","arguments":""}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"search_name\":\"GenesByTaxon\"}"}}]}`, ""),
		chunk(`{"tool_calls":[{"index":1,"id":"call_B","type":"function","function":{"name":"get_search_parameters","arguments":"{\"search_name\":"}}]}`, ""),
		chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"GenesByGoTerm\"}"}}]}`, ""),
		chunk(`{}`, "tool_calls"),
		usageChunk(50, 12, 62),
	}
	// Ollama: each call complete in one chunk, no ids, finish "stop", no usage.
	ollamaCallFrames = []string{
		chunk(`{"role":"assistant","content":"","tool_calls":[{"index":0,"type":"function","function":{"name":"list_sites","arguments":"{}"}}]}`, ""),
		chunk(`{"role":"assistant","content":"","tool_calls":[{"index":1,"type":"function","function":{"name":"list_record_types","arguments":"{\"site\":\"plasmodb\"}"}}]}`, ""),
		chunk(`{"role":"assistant","content":""}`, "stop"),
	}
	okFrames = []string{chunk(`{"role":"assistant","content":"ok"}`, ""), chunk(`{}`, "stop"), usageChunk(3, 1, 4)}
	okChunks = []llm.Chunk{
		{Kind: llm.ChunkText, Text: "ok"},
		{Kind: llm.ChunkUsage, Usage: &llm.Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4}},
		{Kind: llm.ChunkFinish, Finish: llm.FinishStop},
	}
	streamErrorFrame = `{"error":{"object":"error","message":"The engine is currently overloaded, please try again later","type":"ServiceUnavailableError","param":null,"code":503}}`
)

func TestStream(t *testing.T) {
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		cfg        Config
		steps      []step
		want       []llm.Chunk
		wantErr    *llm.Error
		wantMsg    []string
		wantSleeps []time.Duration
		sleepRange [][2]time.Duration
		wantReqs   int
	}{
		{
			name:  "text in several deltas with usage",
			steps: []step{sse(textFrames...)},
			want: []llm.Chunk{
				{Kind: llm.ChunkText, Text: "Hel"},
				{Kind: llm.ChunkText, Text: "lo, "},
				{Kind: llm.ChunkText, Text: "world."},
				{Kind: llm.ChunkUsage, Usage: &llm.Usage{PromptTokens: 12, CompletionTokens: 4, TotalTokens: 16}},
				{Kind: llm.ChunkFinish, Finish: llm.FinishStop},
			},
			wantReqs: 1,
		},
		{
			name:  "one tool call assembled from deltas",
			steps: []step{sse(oneCallFrames...)},
			want: []llm.Chunk{
				{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{ID: "call_A", Name: "search_for_searches", Args: []byte(`{"query":"kinase","record_type":"transcript"}`)}},
				{Kind: llm.ChunkUsage, Usage: &llm.Usage{PromptTokens: 40, CompletionTokens: 9, TotalTokens: 49}},
				{Kind: llm.ChunkFinish, Finish: llm.FinishToolCalls},
			},
			wantReqs: 1,
		},
		{
			name:  "parallel tool calls, each yielded once complete",
			steps: []step{sse(twoCallFrames...)},
			want: []llm.Chunk{
				{Kind: llm.ChunkText, Text: "Checking both."},
				{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{ID: "call_A", Name: "get_search_parameters", Args: []byte(`{"search_name":"GenesByTaxon"}`)}},
				{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{ID: "call_B", Name: "get_search_parameters", Args: []byte(`{"search_name":"GenesByGoTerm"}`)}},
				{Kind: llm.ChunkUsage, Usage: &llm.Usage{PromptTokens: 50, CompletionTokens: 12, TotalTokens: 62}},
				{Kind: llm.ChunkFinish, Finish: llm.FinishToolCalls},
			},
			wantReqs: 1,
		},
		{
			name:  "Ollama-style calls without ids, finish stop, no usage",
			steps: []step{sseNoDone(ollamaCallFrames...)},
			want: []llm.Chunk{
				{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{Name: "list_sites", Args: []byte(`{}`)}},
				{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{Name: "list_record_types", Args: []byte(`{"site":"plasmodb"}`)}},
				{Kind: llm.ChunkFinish, Finish: llm.FinishToolCalls},
			},
			wantReqs: 1,
		},
		{
			name: "arguments that are not JSON travel as a JSON string",
			steps: []step{sse(
				chunk(`{"tool_calls":[{"index":0,"id":"call_X","type":"function","function":{"name":"create_step","arguments":"{\"search_name\": GenesByTaxon"}}]}`, ""),
				chunk(`{}`, "tool_calls"),
			)},
			want: []llm.Chunk{
				{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{ID: "call_X", Name: "create_step", Args: []byte(`"{\"search_name\": GenesByTaxon"`)}},
				{Kind: llm.ChunkFinish, Finish: llm.FinishToolCalls},
			},
			wantReqs: 1,
		},
		{
			name:  "length",
			steps: []step{sse(chunk(`{"content":"Genes on"}`, ""), chunk(`{}`, "length"))},
			want: []llm.Chunk{
				{Kind: llm.ChunkText, Text: "Genes on"},
				{Kind: llm.ChunkFinish, Finish: llm.FinishLength},
			},
			wantReqs: 1,
		},
		{
			name:       "429 with Retry-After seconds, then success",
			steps:      []step{apiError(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded", "Retry-After", "7"), sse(okFrames...)},
			want:       okChunks,
			wantSleeps: []time.Duration{7 * time.Second},
			wantReqs:   2,
		},
		{
			name:       "429 with Retry-After-Ms, then success",
			steps:      []step{apiError(429, "Rate limit reached", "requests", "rate_limit_exceeded", "Retry-After-Ms", "1500", "Retry-After", "2"), sse(okFrames...)},
			want:       okChunks,
			wantSleeps: []time.Duration{1500 * time.Millisecond},
			wantReqs:   2,
		},
		{
			name:       "429 with Retry-After as an HTTP date",
			cfg:        Config{Now: func() time.Time { return clock }},
			steps:      []step{apiError(429, "slow down", "requests", "", "Retry-After", clock.Add(12*time.Second).Format(http.TimeFormat)), sse(okFrames...)},
			want:       okChunks,
			wantSleeps: []time.Duration{12 * time.Second},
			wantReqs:   2,
		},
		{
			name:     "Retry-After beyond BackoffMax fails at once",
			cfg:      Config{BackoffMax: 10 * time.Second},
			steps:    []step{apiError(429, "slow down", "requests", "", "Retry-After", "600")},
			wantErr:  &llm.Error{Kind: llm.ErrorRetryable, Status: 429},
			wantMsg:  []string{"rate limit", "asks to wait 10m0s"},
			wantReqs: 1,
		},
		{
			name:     "429 insufficient_quota is not retried",
			steps:    []step{apiError(429, "You exceeded your current quota, please check your plan and billing details.", "insufficient_quota", "insufficient_quota")},
			wantErr:  &llm.Error{Kind: llm.ErrorAuth, Status: 429},
			wantMsg:  []string{"no quota", "OPENAI_API_KEY"},
			wantReqs: 1,
		},
		{
			name:       "500 twice, then success",
			steps:      []step{apiError(500, "The server had an error while processing your request.", "server_error", ""), plain(502, "<html>Bad Gateway</html>"), sse(okFrames...)},
			want:       okChunks,
			sleepRange: [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}},
			wantReqs:   3,
		},
		{
			name:       "503 until attempts are exhausted",
			cfg:        Config{MaxAttempts: 3},
			steps:      []step{plain(503, "Service Unavailable"), plain(503, "Service Unavailable"), apiError(503, "overloaded", "server_error", "")},
			wantErr:    &llm.Error{Kind: llm.ErrorRetryable, Status: 503},
			wantMsg:    []string{"unavailable", "overloaded", "gave up after 3 attempts"},
			sleepRange: [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}},
			wantReqs:   3,
		},
		{
			name:       "connection reset, then success",
			steps:      []step{reset(), sse(okFrames...)},
			want:       okChunks,
			sleepRange: [][2]time.Duration{{500 * time.Millisecond, time.Second}},
			wantReqs:   2,
		},
		{
			name:       "error event inside the stream before any chunk, then success",
			steps:      []step{sse(streamErrorFrame), sse(okFrames...)},
			want:       okChunks,
			sleepRange: [][2]time.Duration{{500 * time.Millisecond, time.Second}},
			wantReqs:   2,
		},
		{
			name:     "error event after text is not retried",
			steps:    []step{sse(chunk(`{"content":"Hel"}`, ""), streamErrorFrame)},
			want:     []llm.Chunk{{Kind: llm.ChunkText, Text: "Hel"}},
			wantErr:  &llm.Error{Kind: llm.ErrorRetryable, Status: 503},
			wantMsg:  []string{"overloaded"},
			wantReqs: 1,
		},
		{
			name:     "stream cut mid tool call is not retried and the half call is dropped",
			steps:    []step{sseNoDone(chunk(`{"content":"Let me look."}`, ""), chunk(`{"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"list_sites","arguments":"{\"a"}}]}`, ""))},
			want:     []llm.Chunk{{Kind: llm.ChunkText, Text: "Let me look."}},
			wantErr:  &llm.Error{Kind: llm.ErrorRetryable},
			wantMsg:  []string{"ended before the model finished"},
			wantReqs: 1,
		},
		{
			name:     "404 unknown model (Ollama)",
			steps:    []step{apiError(404, `model "qwen9:1b" not found, try pulling it first`, "api_error", "")},
			wantErr:  &llm.Error{Kind: llm.ErrorBadRequest, Status: 404},
			wantMsg:  []string{`unknown model "qwen-test"`, "try pulling it"},
			wantReqs: 1,
		},
		{
			name:     "400 model_not_found (OpenAI)",
			steps:    []step{apiError(400, "The model `gpt-9` does not exist or you do not have access to it.", "invalid_request_error", "model_not_found")},
			wantErr:  &llm.Error{Kind: llm.ErrorBadRequest, Status: 400},
			wantMsg:  []string{`unknown model "qwen-test"`},
			wantReqs: 1,
		},
		{
			name:     "400 invalid request",
			steps:    []step{apiError(400, "Invalid 'messages[2].tool_call_id': expected a string.", "invalid_request_error", "invalid_value")},
			wantErr:  &llm.Error{Kind: llm.ErrorBadRequest, Status: 400},
			wantMsg:  []string{"invalid", "tool_call_id"},
			wantReqs: 1,
		},
		{
			name:     "401 bad key, echoed key redacted",
			steps:    []step{apiError(401, "Incorrect API key provided: "+testKey+". You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")},
			wantErr:  &llm.Error{Kind: llm.ErrorAuth, Status: 401},
			wantMsg:  []string{"rejected the API key", "OPENAI_API_KEY", "[redacted]"},
			wantReqs: 1,
		},
		{
			name:     "401 echoing a masked key",
			steps:    []step{apiError(401, "Incorrect API key provided: sk-test-**********************CRET.", "invalid_request_error", "invalid_api_key")},
			wantErr:  &llm.Error{Kind: llm.ErrorAuth, Status: 401},
			wantMsg:  []string{"Incorrect API key provided: [redacted]"},
			wantReqs: 1,
		},
		{
			name:     "403 denied",
			steps:    []step{apiError(403, "Project does not have access to model qwen-test", "invalid_request_error", "model_not_found")},
			wantErr:  &llm.Error{Kind: llm.ErrorAuth, Status: 403},
			wantMsg:  []string{"denied access", "OPENAI_API_KEY"},
			wantReqs: 1,
		},
		{
			name:     "content filter stops the answer",
			steps:    []step{sse(chunk(`{"content":"Here is"}`, ""), chunk(`{}`, "content_filter"))},
			want:     []llm.Chunk{{Kind: llm.ChunkText, Text: "Here is"}},
			wantErr:  &llm.Error{Kind: llm.ErrorBlocked},
			wantMsg:  []string{"content filter"},
			wantReqs: 1,
		},
		{
			name:     "content policy refuses the prompt",
			steps:    []step{apiError(400, "Your request was rejected as a result of our safety system.", "invalid_request_error", "content_policy_violation")},
			wantErr:  &llm.Error{Kind: llm.ErrorBlocked, Status: 400},
			wantMsg:  []string{"content policy"},
			wantReqs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg, tt.steps...)
			got, err := collect(h.engine.Stream(t.Context(), llm.Request{
				Model:    "qwen-test",
				Messages: []llm.Message{{Role: llm.RoleUser, Text: "Find kinases in P. falciparum"}},
			}))
			for _, c := range got {
				if c.ToolCall != nil && strings.HasPrefix(c.ToolCall.ID, "call_") && len(c.ToolCall.ID) == 25 {
					c.ToolCall.ID = "" // derived; see TestDerivedCallIDs
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
				if r.Authorization != "Bearer "+testKey {
					t.Errorf("Authorization = %q, want the bearer key", r.Authorization)
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
