package scripted

import (
	"encoding/json"
	"testing"

	"strategist/internal/llm"
)

func TestResolveRefs(t *testing.T) {
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{Content: json.RawMessage(`{"ok":true,"step":{"stepId":"s1"}}`)}}},
		{Role: llm.RoleAssistant, Text: "next"},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{
			{Content: json.RawMessage(`{"ok":true}`)},
			{Content: json.RawMessage(`{"ok":true,"step":{"stepId":"s7"},"roots":[{"stepId":"s3"},{"stepId":"s7"}]}`)},
		}},
	}}
	tests := []struct {
		args, want string
		wantErr    bool
	}{
		{`{"root_step_id":"$result.step.stepId","summary":"done"}`, `{"root_step_id":"s7","summary":"done"}`, false},
		{`{"ids":["$result.roots.0.stepId"]}`, `{"ids":["s3"]}`, false},
		{`{"plain":"no reference"}`, `{"plain":"no reference"}`, false},
		{`{"x":"$result.missing"}`, ``, true},
		{`{"x":"$result.roots.9.stepId"}`, ``, true},
	}
	for _, tt := range tests {
		got, err := resolveRefs(json.RawMessage(tt.args), req)
		if tt.wantErr {
			if err == nil {
				t.Errorf("resolveRefs(%s) = %s, want an error", tt.args, got)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("resolveRefs(%s) = %s, %v; want %s", tt.args, got, err, tt.want)
		}
	}
	if _, err := resolveRefs(json.RawMessage(`{"x":"$result.a"}`), llm.Request{}); err == nil {
		t.Error("a reference without any tool result was accepted")
	}
}
