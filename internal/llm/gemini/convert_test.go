package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"strategist/internal/llm"
)

func TestToContents(t *testing.T) {
	tests := []struct {
		name    string
		msgs    []llm.Message
		want    string // JSON of the contents
		wantErr string
	}{
		{
			name: "history from another engine is rebuilt with the placeholder signature",
			msgs: []llm.Message{
				{Role: llm.RoleUser, Text: "Genes on chromosome 5"},
				{Role: llm.RoleAssistant, Text: "Looking.", Raw: &llm.Raw{Engine: "openai", Data: json.RawMessage(`{"ignored":true}`)}, ToolCalls: []llm.ToolCall{
					{ID: "call_abc", Name: "create_step", Args: json.RawMessage(`{"search_name":"GenesByLocation","parameters":{"chromosome":"Pf3D7_05_v3","end":1343557}}`)},
					{ID: "call_def", Name: "list_steps", Args: json.RawMessage(``)},
				}},
				{Role: llm.RoleTool, ToolResults: []llm.ToolResult{
					{CallID: "call_abc", Name: "create_step", Content: json.RawMessage(`{"ok":true,"stepId":"s1"}`)},
					{CallID: "call_def", Name: "list_steps", Content: json.RawMessage(`["s1"]`)},
				}},
			},
			want: `[
				{"role":"user","parts":[{"text":"Genes on chromosome 5"}]},
				{"role":"model","parts":[
					{"text":"Looking."},
					{"functionCall":{"name":"create_step","args":{"search_name":"GenesByLocation","parameters":{"chromosome":"Pf3D7_05_v3","end":1343557}}},"thoughtSignature":"c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="},
					{"functionCall":{"name":"list_steps"}}]},
				{"role":"user","parts":[
					{"functionResponse":{"name":"create_step","response":{"ok":true,"stepId":"s1"}}},
					{"functionResponse":{"name":"list_steps","response":{"output":["s1"]}}}]}]`,
		},
		{
			name: "empty messages are skipped",
			msgs: []llm.Message{{Role: llm.RoleUser}, {Role: llm.RoleAssistant}, {Role: llm.RoleTool}, {Role: llm.RoleUser, Text: "hi"}},
			want: `[{"role":"user","parts":[{"text":"hi"}]}]`,
		},
		{
			name:    "unknown role",
			msgs:    []llm.Message{{Role: "system", Text: "x"}},
			wantErr: `unknown role "system"`,
		},
		{
			name:    "tool result that is not JSON",
			msgs:    []llm.Message{{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "c", Name: "n", Content: json.RawMessage(`{oops`)}}}},
			wantErr: "is not JSON",
		},
		{
			name:    "corrupt stored Gemini content",
			msgs:    []llm.Message{{Role: llm.RoleAssistant, Raw: &llm.Raw{Engine: Name, Data: json.RawMessage(`[1]`)}}},
			wantErr: "decode stored Gemini content",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := toContents(tt.msgs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(json.RawMessage(tt.want), json.RawMessage(b), jsonEqual); diff != "" {
				t.Errorf("contents mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGenerateConfigRejectsBadSchema(t *testing.T) {
	_, err := generateConfig(llm.Request{Tools: []llm.ToolDecl{{Name: "t", Schema: json.RawMessage(`{"type":`)}}})
	if err == nil || !strings.Contains(err.Error(), "tool t") {
		t.Fatalf("error = %v, want one naming the tool", err)
	}
}

// TestDerivedCallIDs: ids made up for id-less calls are the same for the
// same request, differ between calls of one response, and differ between
// rounds.
func TestDerivedCallIDs(t *testing.T) {
	h := newHarness(t, Config{}, sse(frameTwo), sse(frameTwo), sse(frameTwo))
	ids := func(msgs []llm.Message) []string {
		t.Helper()
		chunks, err := collect(h.engine.Stream(t.Context(), llm.Request{Model: "gemini-test", Messages: msgs}))
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
		{name: "no key", cfg: Config{}, wantErr: "no API key"},
		{name: "negative attempts", cfg: Config{APIKey: testKey, MaxAttempts: -1}, wantErr: "negative"},
		{name: "base above max", cfg: Config{APIKey: testKey, BackoffBase: 2e9, BackoffMax: 1e9}, wantErr: "exceeds"},
		{name: "defaults", cfg: Config{APIKey: testKey}},
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

func TestStreamRejectsBadRequestWithoutCalling(t *testing.T) {
	h := newHarness(t, Config{})
	for _, req := range []llm.Request{
		{Messages: []llm.Message{{Role: llm.RoleUser, Text: "no model"}}},
		{Model: "gemini-test", Messages: []llm.Message{{Role: "robot"}}},
		{Model: "gemini-test", Tools: []llm.ToolDecl{{Name: "t", Schema: json.RawMessage(`nope`)}}},
	} {
		_, err := collect(h.engine.Stream(t.Context(), req))
		checkErr(t, err, &llm.Error{Kind: llm.ErrorBadRequest}, nil)
	}
	if n := len(h.fake.requests()); n != 0 {
		t.Errorf("requests = %d, want 0", n)
	}
}

// TestNewIgnoresSDKEnvironment: the SDK's own variables cannot move the
// endpoint or the backend away from what Strategist configured.
func TestNewIgnoresSDKEnvironment(t *testing.T) {
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "http://elsewhere.invalid/")
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
	t.Setenv("GOOGLE_API_KEY", "another-key")
	e, err := New(Config{APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	cc := e.client.ClientConfig()
	if cc.HTTPOptions.BaseURL != DefaultBaseURL || cc.Backend != genai.BackendGeminiAPI || cc.APIKey != testKey {
		t.Errorf("client config = base %q, backend %v, key from config %v", cc.HTTPOptions.BaseURL, cc.Backend, cc.APIKey == testKey)
	}
}
