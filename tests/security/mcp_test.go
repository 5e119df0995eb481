package security

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// mcpCall sends one JSON-RPC message to /mcp and returns the HTTP status
// and the first JSON document of the answer (a JSON body or an SSE event).
func (s *server) mcpCall(t *testing.T, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /mcp: %v (is the server still up?)", err)
	}
	defer resp.Body.Close()
	var raw strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		raw.WriteString(string(buf[:n]))
		if err != nil {
			break
		}
	}
	doc := raw.String()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.Lines(doc) {
			if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
				return resp.StatusCode, d
			}
		}
	}
	return resp.StatusCode, doc
}

// TestMCPRefusalsLeaveTheServerUp: every MCP tool sent each refusal the
// trial sent (an unknown site, a title over 200 characters, a live site
// without the researcher's key, a conversation id that is not one, another
// user's or no conversation) answers a tool error or a JSON-RPC error, and
// the process is up and answering after all of them. One such call used to
// end the process for every user.
func TestMCPRefusalsLeaveTheServerUp(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	token, _ := s.user(t, "ada@example.org")
	code, body := s.mcpCall(t, token, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema struct {
					Properties map[string]any `json:"properties"`
				} `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &list); code != http.StatusOK || err != nil || len(list.Result.Tools) < 10 {
		t.Fatalf("tools/list = %d %v %.300s", code, err, body)
	}
	refusals := []struct {
		name string
		args map[string]any
	}{
		{"unknown site", map[string]any{"site": "nosuchdb"}},
		{"long title", map[string]any{"title": strings.Repeat("t", 201)}},
		{"keyless live site", map[string]any{"site": "plasmodb-live"}},
		{"bad conversation id", map[string]any{"conversationId": "not-a-uuid"}},
		{"unknown conversation", map[string]any{"conversationId": "00000000-0000-4000-8000-000000000000"}},
	}
	fill := map[string]any{"query": "kinase", "searchName": "GenesByTaxon", "recordType": "transcript",
		"message": "genes", "ids": []string{"PF3D7_0100100"}, "stepId": "s1", "leftStepId": "s1", "rightStepId": "s2",
		"operator": "INTERSECT", "parameters": map[string]any{}}
	for _, tool := range list.Result.Tools {
		for _, r := range refusals {
			args := map[string]any{}
			for k := range tool.InputSchema.Properties {
				if v, ok := r.args[k]; ok {
					args[k] = v
				} else if v, ok := fill[k]; ok {
					args[k] = v
				}
			}
			raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
				"params": map[string]any{"name": tool.Name, "arguments": args}})
			if err != nil {
				t.Fatal(err)
			}
			code, body := s.mcpCall(t, token, string(raw))
			if code != http.StatusOK || !strings.Contains(body, `"isError":true`) && !strings.Contains(body, `"error":`) && !strings.Contains(body, `"result":`) {
				t.Errorf("%s with %s = %d %.300s", tool.Name, r.name, code, body)
			}
		}
	}
	for _, r := range refusals[:3] {
		raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": "create_conversation", "arguments": r.args}})
		if _, body := s.mcpCall(t, token, string(raw)); !strings.Contains(body, `"isError":true`) {
			t.Errorf("create_conversation with %s = %.300s, want a tool error", r.name, body)
		}
	}
	if code, body := s.do(t, "GET", "/healthz", "", "", ""); code != http.StatusOK {
		t.Fatalf("healthz after the refusals = %d %s", code, body)
	}
	if logs := s.Logs.String(); strings.Contains(logs, "panic") {
		t.Errorf("a refusal panicked:\n%s", logs)
	}
}
