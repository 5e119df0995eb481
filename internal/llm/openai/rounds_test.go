package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/llm"
)

// TestMultiRoundRequest runs two rounds of a tool loop and checks the wire
// shape of the second request: system prompt, the assistant's tool_calls,
// one tool message per result with its tool_call_id, tool declarations,
// sampling options, stream and include_usage.
func TestMultiRoundRequest(t *testing.T) {
	h := newHarness(t, Config{}, sse(twoCallFrames...), sse(okFrames...))
	schema := json.RawMessage(`{"type":"object","properties":{"search_name":{"type":"string"}},"required":["search_name"],"additionalProperties":false}`)
	temp, topP := 0.2, 0.9
	req := llm.Request{
		Model:           "qwen-test",
		System:          "You plan VEuPathDB search strategies.",
		Tools:           []llm.ToolDecl{{Name: "get_search_parameters", Description: "Describe a search.", Schema: schema}, {Name: "list_sites"}},
		Temperature:     &temp,
		TopP:            &topP,
		MaxOutputTokens: 1024,
		Messages:        []llm.Message{{Role: llm.RoleUser, Text: "Kinases on chromosome 5"}},
	}
	one, err := collect(h.engine.Stream(t.Context(), req))
	if err != nil {
		t.Fatal(err)
	}
	assistant := llm.Message{Role: llm.RoleAssistant, Raw: &llm.Raw{Engine: "gemini", Data: json.RawMessage(`{"ignored":true}`)}}
	for _, c := range one {
		switch c.Kind {
		case llm.ChunkText:
			assistant.Text += c.Text
		case llm.ChunkToolCall:
			assistant.ToolCalls = append(assistant.ToolCalls, *c.ToolCall)
		}
	}
	req.Messages = append(req.Messages, assistant, llm.Message{Role: llm.RoleTool, ToolResults: []llm.ToolResult{
		{CallID: "call_A", Name: "get_search_parameters", Content: json.RawMessage(`{"ok":true,"parameters":["organism"]}`)},
		{CallID: "call_B", Name: "get_search_parameters", Content: json.RawMessage(`{"ok":false,"code":"NOT_FOUND","message":"no such search"}`), IsError: true},
	}})
	if _, err := collect(h.engine.Stream(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	reqs := h.fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	want := `{
		"model":"qwen-test",
		"stream":true,
		"stream_options":{"include_usage":true},
		"temperature":0.2,
		"top_p":0.9,
		"max_tokens":1024,
		"messages":[
			{"role":"system","content":"You plan VEuPathDB search strategies."},
			{"role":"user","content":"Kinases on chromosome 5"},
			{"role":"assistant","content":"Checking both.","tool_calls":[
				{"id":"call_A","type":"function","function":{"name":"get_search_parameters","arguments":"{\"search_name\":\"GenesByTaxon\"}"}},
				{"id":"call_B","type":"function","function":{"name":"get_search_parameters","arguments":"{\"search_name\":\"GenesByGoTerm\"}"}}]},
			{"role":"tool","tool_call_id":"call_A","content":"{\"ok\":true,\"parameters\":[\"organism\"]}"},
			{"role":"tool","tool_call_id":"call_B","content":"{\"ok\":false,\"code\":\"NOT_FOUND\",\"message\":\"no such search\"}"}],
		"tools":[
			{"type":"function","function":{"name":"get_search_parameters","description":"Describe a search.","parameters":` + string(schema) + `}},
			{"type":"function","function":{"name":"list_sites","parameters":{"type":"object","properties":{}}}}]
	}`
	if diff := cmp.Diff(json.RawMessage(want), json.RawMessage(reqs[1].Body), jsonEqual); diff != "" {
		t.Errorf("second request mismatch (-want +got):\n%s", diff)
	}
}

func TestTokenLimitField(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		field string
	}{
		{"local server defaults to max_tokens", Config{}, "max_tokens"},
		{"explicit max_completion_tokens", Config{TokenLimitField: FieldMaxCompletionTokens}, "max_completion_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg, sse(okFrames...))
			if _, err := collect(h.engine.Stream(t.Context(), llm.Request{Model: "m", MaxOutputTokens: 77, Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}})); err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(h.fake.requests()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if body[tt.field] != 77.0 || len(body) == 0 {
				t.Errorf("request %v lacks %s=77", body, tt.field)
			}
			other := map[string]string{"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}[tt.field]
			if _, ok := body[other]; ok {
				t.Errorf("request sends both %s and %s", tt.field, other)
			}
		})
	}
	e, err := New(Config{APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if !e.maxCompletionTokens {
		t.Errorf("api.openai.com should get max_completion_tokens")
	}
}

// TestNoKeyNoAuthorization: a local server without a key gets no
// Authorization header at all, and the SDK reads no OPENAI_* variable.
func TestNoKeyNoAuthorization(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment-123456")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: yes")
	f := newFake(t, sse(okFrames...))
	e, err := New(Config{BaseURL: f.srv.URL + "/v1/", HTTPClient: f.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(e.Stream(t.Context(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}})); err != nil {
		t.Fatal(err)
	}
	if got := f.requests()[0].Authorization; got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
}

func TestToMessages(t *testing.T) {
	_, err := toMessages("", []llm.Message{{Role: "robot"}})
	if err == nil || !strings.Contains(err.Error(), `unknown role "robot"`) {
		t.Errorf("error = %v, want unknown role", err)
	}
	msgs, err := toMessages("", []llm.Message{
		{Role: llm.RoleUser},
		{Role: llm.RoleAssistant},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "list_sites"}}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "c1", Name: "list_sites"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"list_sites","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"{}"}]`
	if diff := cmp.Diff(json.RawMessage(want), json.RawMessage(b), jsonEqual); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
}

func TestStreamRejectsBadRequestWithoutCalling(t *testing.T) {
	h := newHarness(t, Config{})
	for _, req := range []llm.Request{
		{Messages: []llm.Message{{Role: llm.RoleUser, Text: "no model"}}},
		{Model: "m", Messages: []llm.Message{{Role: "robot"}}},
		{Model: "m", Tools: []llm.ToolDecl{{Name: "t", Schema: json.RawMessage(`{"type":`)}}},
		{Model: "m", Tools: []llm.ToolDecl{{Name: "t", Schema: json.RawMessage(`[1]`)}}},
	} {
		_, err := collect(h.engine.Stream(t.Context(), req))
		checkErr(t, err, &llm.Error{Kind: llm.ErrorBadRequest}, nil)
	}
	if n := len(h.fake.requests()); n != 0 {
		t.Errorf("requests = %d, want 0", n)
	}
}

// TestDerivedCallIDs: ids made up for id-less calls are the same for the
// same request, differ between calls of one response, and differ between
// rounds.
func TestDerivedCallIDs(t *testing.T) {
	h := newHarness(t, Config{}, sse(ollamaCallFrames...), sse(ollamaCallFrames...), sse(ollamaCallFrames...))
	ids := func(msgs []llm.Message) []string {
		t.Helper()
		chunks, err := collect(h.engine.Stream(t.Context(), llm.Request{Model: "m", Messages: msgs}))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range chunks {
			if c.ToolCall != nil {
				out = append(out, c.ToolCall.ID)
			}
		}
		return out
	}
	first := []llm.Message{{Role: llm.RoleUser, Text: "x"}}
	a, b := ids(first), ids(first)
	later := ids(append(first, llm.Message{Role: llm.RoleAssistant, Text: "y"}, llm.Message{Role: llm.RoleUser, Text: "z"}))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("ids differ for the same request (-first +second):\n%s", diff)
	}
	if len(a) != 2 || a[0] == a[1] || !strings.HasPrefix(a[0], "call_") {
		t.Errorf("ids of one response = %v, want two distinct call_ ids", a)
	}
	if later[0] == a[0] || later[1] == a[1] {
		t.Errorf("ids repeat across rounds: %v and %v", a, later)
	}
}

func TestNewConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "nothing configured", cfg: Config{}, wantErr: "no server configured"},
		{name: "not a URL", cfg: Config{BaseURL: "localhost:11434"}, wantErr: "not an http(s) URL"},
		{name: "bad token field", cfg: Config{BaseURL: "http://localhost:11434/v1", TokenLimitField: "n_predict"}, wantErr: "n_predict"},
		{name: "negative attempts", cfg: Config{BaseURL: "http://localhost:11434/v1", MaxAttempts: -2}, wantErr: "negative"},
		{name: "base above max", cfg: Config{BaseURL: "http://localhost:11434/v1", BackoffBase: 2e9, BackoffMax: 1e9}, wantErr: "exceeds"},
		{name: "local server without key", cfg: Config{BaseURL: "http://localhost:11434/v1"}},
		{name: "OpenAI by key alone", cfg: Config{APIKey: testKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(tt.cfg)
			if tt.wantErr == "" {
				if err != nil || e == nil {
					t.Fatalf("New = %v, %v", e, err)
				}
				if p := e.retry.Config(); p.MaxAttempts != DefaultMaxAttempts || p.BackoffBase != DefaultBackoffBase || p.BackoffMax != DefaultBackoffMax {
					t.Errorf("policy = %+v, want the defaults", p)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
}
