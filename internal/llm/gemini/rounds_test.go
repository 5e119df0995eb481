package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/llm"
)

// Round one of a multi-step call, as Gemini 3 streams it with thoughts
// included: a thought summary, a signed function call, and a second call.
const (
	roundOneA = `{"candidates":[{"content":{"role":"model","parts":[{"text":"The researcher wants kinases; ","thought":true}]},"index":0}]}`
	roundOneB = `{"candidates":[{"content":{"role":"model","parts":[{"text":"search the catalog first.","thought":true,"thoughtSignature":"dGhvdWdodC1zaWduYXR1cmUtQQ=="}]},"index":0}]}`
	roundOneC = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"search_for_searches","args":{"query":"protein kinase"}},"thoughtSignature":"Y2FsbC1zaWduYXR1cmUtQg=="},{"functionCall":{"name":"list_record_types","args":{}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":20,"thoughtsTokenCount":30,"totalTokenCount":150}}`
	roundTwo  = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Use GenesByText with \"protein kinase\".","thoughtSignature":"ZmluYWwtc2lnbmF0dXJlLUM="}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":180,"candidatesTokenCount":10,"totalTokenCount":190}}`
)

// wantRoundOneContent is round one merged into one model content: the two
// thought deltas joined with the signature of the second, each call its own
// part with its signature where it had one.
const wantRoundOneContent = `{"role":"model","parts":[
	{"text":"The researcher wants kinases; search the catalog first.","thought":true,"thoughtSignature":"dGhvdWdodC1zaWduYXR1cmUtQQ=="},
	{"functionCall":{"name":"search_for_searches","args":{"query":"protein kinase"}},"thoughtSignature":"Y2FsbC1zaWduYXR1cmUtQg=="},
	{"functionCall":{"name":"list_record_types"}}]}`

// TestMultiRoundSignaturesEchoed runs two rounds of a tool loop and checks
// the second request carries round one's content exactly: the thought part,
// both signatures, and functionResponses matching the calls by name.
func TestMultiRoundSignaturesEchoed(t *testing.T) {
	h := newHarness(t, Config{}, sse(roundOneA, roundOneB, roundOneC), sse(roundTwo))
	schema := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`)
	temp := 0.2
	req := llm.Request{
		Model:           "gemini-3-pro-preview",
		System:          "You plan VEuPathDB search strategies.",
		Tools:           []llm.ToolDecl{{Name: "search_for_searches", Description: "Rank catalog searches.", Schema: schema}, {Name: "list_record_types", Description: "List record types."}},
		Temperature:     &temp,
		MaxOutputTokens: 2048,
		Messages:        []llm.Message{{Role: llm.RoleUser, Text: "Find protein kinases"}},
	}
	one, err := collect(h.engine.Stream(t.Context(), req))
	if err != nil {
		t.Fatalf("round one: %v", err)
	}
	var calls []llm.ToolCall
	var fin llm.Chunk
	for _, c := range one {
		switch c.Kind {
		case llm.ChunkText:
			t.Errorf("thought text leaked as visible text: %q", c.Text)
		case llm.ChunkToolCall:
			calls = append(calls, *c.ToolCall)
		case llm.ChunkFinish:
			fin = c
		}
	}
	if len(calls) != 2 || fin.Finish != llm.FinishToolCalls || fin.Raw == nil {
		t.Fatalf("round one: calls %v, finish %+v", calls, fin)
	}
	if diff := cmp.Diff(json.RawMessage(wantRoundOneContent), fin.Raw.Data, jsonEqual); diff != "" {
		t.Errorf("round one Raw mismatch (-want +got):\n%s", diff)
	}

	// The stored Raw goes through the database as JSON; simulate that.
	stored, err := json.Marshal(llm.Message{Role: llm.RoleAssistant, ToolCalls: calls, Raw: fin.Raw})
	if err != nil {
		t.Fatal(err)
	}
	var assistant llm.Message
	if err := json.Unmarshal(stored, &assistant); err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages, assistant, llm.Message{Role: llm.RoleTool, ToolResults: []llm.ToolResult{
		{CallID: calls[0].ID, Name: "search_for_searches", Content: json.RawMessage(`{"ok":true,"searches":[{"name":"GenesByText","score":0.9}]}`)},
		{CallID: calls[1].ID, Name: "list_record_types", Content: json.RawMessage(`{"ok":false,"code":"UNAVAILABLE","message":"catalog offline"}`), IsError: true},
	}})
	two, err := collect(h.engine.Stream(t.Context(), req))
	if err != nil {
		t.Fatalf("round two: %v", err)
	}
	if two[0].Kind != llm.ChunkText || two[0].Text != `Use GenesByText with "protein kinase".` {
		t.Errorf("round two first chunk = %+v", two[0])
	}

	reqs := h.fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	body := string(reqs[1].Body)
	for _, s := range []string{`"thoughtSignature":"dGhvdWdodC1zaWduYXR1cmUtQQ=="`, `"thoughtSignature":"Y2FsbC1zaWduYXR1cmUtQg=="`, `"thought":true`} {
		if !strings.Contains(body, s) {
			t.Errorf("second request lacks %s:\n%s", s, body)
		}
	}
	var sent struct {
		Contents          []json.RawMessage `json:"contents"`
		SystemInstruction json.RawMessage   `json:"systemInstruction"`
		Tools             json.RawMessage   `json:"tools"`
		GenerationConfig  json.RawMessage   `json:"generationConfig"`
	}
	if err := json.Unmarshal(reqs[1].Body, &sent); err != nil {
		t.Fatalf("decode second request: %v", err)
	}
	want := []json.RawMessage{
		json.RawMessage(`{"role":"user","parts":[{"text":"Find protein kinases"}]}`),
		json.RawMessage(wantRoundOneContent),
		json.RawMessage(`{"role":"user","parts":[
			{"functionResponse":{"name":"search_for_searches","response":{"ok":true,"searches":[{"name":"GenesByText","score":0.9}]}}},
			{"functionResponse":{"name":"list_record_types","response":{"error":{"ok":false,"code":"UNAVAILABLE","message":"catalog offline"}}}}]}`),
	}
	if diff := cmp.Diff(want, sent.Contents, jsonEqual); diff != "" {
		t.Errorf("second request contents mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(json.RawMessage(`{"role":"user","parts":[{"text":"You plan VEuPathDB search strategies."}]}`), sent.SystemInstruction, jsonEqual); diff != "" {
		t.Errorf("systemInstruction mismatch (-want +got):\n%s", diff)
	}
	wantTools := `[{"functionDeclarations":[
		{"name":"search_for_searches","description":"Rank catalog searches.","parametersJsonSchema":` + string(schema) + `},
		{"name":"list_record_types","description":"List record types."}]}]`
	if diff := cmp.Diff(json.RawMessage(wantTools), sent.Tools, jsonEqual); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(json.RawMessage(`{"temperature":0.2,"maxOutputTokens":2048}`), sent.GenerationConfig, jsonEqual); diff != "" {
		t.Errorf("generationConfig mismatch (-want +got):\n%s", diff)
	}
}

// TestFunctionResponseIDs: a functionResponse carries the call's id only
// when Gemini issued it.
func TestFunctionResponseIDs(t *testing.T) {
	h := newHarness(t, Config{}, sse(frameCall), sse(frameOK))
	req := llm.Request{Model: "gemini-test", Messages: []llm.Message{{Role: llm.RoleUser, Text: "kinases"}}}
	one, err := collect(h.engine.Stream(t.Context(), req))
	if err != nil {
		t.Fatal(err)
	}
	call, fin := one[0].ToolCall, one[len(one)-1]
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{*call}, Raw: fin.Raw},
		llm.Message{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: call.ID, Name: call.Name, Content: json.RawMessage(`{"ok":true}`)}}})
	if _, err := collect(h.engine.Stream(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	body := string(h.fake.requests()[1].Body)
	if !strings.Contains(body, `"functionResponse":{"id":"fc-1","name":"search_for_searches","response":{"ok":true}}`) {
		t.Errorf("functionResponse lacks the issued id:\n%s", body)
	}
}
