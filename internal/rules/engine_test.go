package rules

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/llm"
)

func collect(t *testing.T, e *Engine, ctx context.Context, req llm.Request) ([]llm.Chunk, error) {
	t.Helper()
	var out []llm.Chunk
	for c, err := range e.Stream(ctx, req) {
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func newEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := New(Config{DeltaSize: 40})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestStreamText: text streams as several deltas that add up to the
// message, then zero usage (no model ran), then a stop.
func TestStreamText(t *testing.T) {
	e := newEngine(t)
	chunks, err := collect(t, e, t.Context(), llm.Request{Agent: RolePlanner, Messages: []llm.Message{{Role: llm.RoleUser, Text: "please"}}})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	deltas := 0
	for _, c := range chunks[:len(chunks)-2] {
		if c.Kind != llm.ChunkText {
			t.Fatalf("chunk %v before usage and finish", c.Kind)
		}
		text.WriteString(c.Text)
		deltas++
	}
	if deltas < 3 {
		t.Errorf("%d text deltas, want several", deltas)
	}
	if !strings.HasPrefix(text.String(), intro) || !strings.Contains(text.String(), "nothing to search for") {
		t.Errorf("text = %q", text.String())
	}
	tail := chunks[len(chunks)-2:]
	want := []llm.Chunk{{Kind: llm.ChunkUsage, Usage: &llm.Usage{}}, {Kind: llm.ChunkFinish, Finish: llm.FinishStop}}
	if diff := cmp.Diff(want, tail); diff != "" {
		t.Errorf("tail mismatch (-want +got):\n%s", diff)
	}
}

// TestStreamToolCalls: the planner's first response looks up the searches
// it needs (and titles the conversation), all in one response.
func TestStreamToolCalls(t *testing.T) {
	e := newEngine(t)
	req := llm.Request{Agent: RolePlanner, Messages: []llm.Message{{Role: llm.RoleUser, Text: "tRNA genes on chromosome 5"}},
		Tools: decls("search_for_searches", "get_search_parameters", "lookup_genes", "set_conversation_title", "save_planning_artifact",
			"save_delegation_draft", "request_executor_build")}
	chunks, err := collect(t, e, t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range chunks {
		if c.Kind == llm.ChunkToolCall {
			got = append(got, c.ToolCall.Name+" "+string(c.ToolCall.Args))
		}
	}
	want := []string{
		`set_conversation_title {"title":"tRNA and chromosome 5"}`,
		`search_for_searches {"limit":5,"query":"GO term biological process","record_type":"transcript"}`,
		`search_for_searches {"limit":5,"query":"gene type","record_type":"transcript"}`,
		`search_for_searches {"limit":5,"query":"chromosome location","record_type":"transcript"}`,
		`search_for_searches {"limit":5,"query":"text","record_type":"transcript"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
	if last := chunks[len(chunks)-1]; last.Finish != llm.FinishToolCalls {
		t.Errorf("finish = %s, want tool_calls", last.Finish)
	}
}

func decls(names ...string) []llm.ToolDecl {
	out := make([]llm.ToolDecl, len(names))
	for i, n := range names {
		out[i] = llm.ToolDecl{Name: n}
	}
	return out
}

// TestStreamBadRequest: a request the engine cannot serve is a bad
// request, not a crash.
func TestStreamBadRequest(t *testing.T) {
	e := newEngine(t)
	for _, req := range []llm.Request{
		{Agent: RolePlanner},
		{Agent: "critic", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, Tools: decls("x")},
	} {
		_, err := collect(t, e, t.Context(), req)
		var le *llm.Error
		if !errors.As(err, &le) || le.Kind != llm.ErrorBadRequest || le.Engine != EngineName {
			t.Errorf("Stream(%+v) error = %v, want a bad-request *llm.Error", req, err)
		}
	}
}

// TestReadTurn: only the calls after the last user message count, each
// paired with its result by call id.
func TestReadTurn(t *testing.T) {
	args := json.RawMessage(`{"query":"text"}`)
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "earlier"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "old", Name: "search_for_searches", Args: args}}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "old", Name: "search_for_searches", Content: json.RawMessage(`{"ok":true}`)}}},
		{Role: llm.RoleUser, Text: "now"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "search_for_searches", Args: args}, {ID: "b", Name: "lookup_genes", Args: json.RawMessage(`{}`)}}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{
			{CallID: "b", Name: "lookup_genes", Content: json.RawMessage(`{"ok":false,"code":"UNAVAILABLE","message":"no genes"}`), IsError: true},
			{CallID: "a", Name: "search_for_searches", Content: json.RawMessage(`{"ok":true,"searches":[]}`)}}},
	}}
	tr, err := readTurn(req)
	if err != nil {
		t.Fatal(err)
	}
	if tr.user != "now" || len(tr.calls) != 2 || tr.rounds != 1 {
		t.Fatalf("turn = %q, %d calls, %d rounds", tr.user, len(tr.calls), tr.rounds)
	}
	d := tr.result(newCall("search_for_searches", map[string]string{"query": "text"}))
	if d == nil || !d.ok {
		t.Errorf("search_for_searches result = %+v", d)
	}
	if l := tr.last("lookup_genes"); l == nil || l.ok || l.code != "UNAVAILABLE" || l.msg != "no genes" {
		t.Errorf("lookup_genes result = %+v", l)
	}
}

// TestSummarize: the summarizer digests the compactor's transcript and
// says what it is.
func TestSummarize(t *testing.T) {
	e := newEngine(t)
	transcript := "Researcher: find DNA repair genes\nAssistant called search_for_searches {\"query\":\"GO\"}\n" +
		"Result of search_for_searches: {\"ok\":true}\nAssistant called search_for_searches {}\nAssistant: I saved a plan.\n"
	chunks, err := collect(t, e, t.Context(), llm.Request{Agent: RoleSummarizer,
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "Summarise.\n\n<transcript>\n" + transcript + "</transcript>"}}})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range chunks {
		text.WriteString(c.Text)
	}
	for _, want := range []string{"not a language model", "- find DNA repair genes", "search_for_searches ×2", "last message: I saved a plan."} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("summary does not contain %q:\n%s", want, text.String())
		}
	}
}

func TestDeltas(t *testing.T) {
	text := "one two three four five six seven eight nine ten eleven twelve"
	got := deltas(text, 16)
	if strings.Join(got, "") != text {
		t.Errorf("deltas do not add up: %q", got)
	}
	for _, d := range got[:len(got)-1] {
		if len(d) > 16 {
			t.Errorf("delta %q longer than 16", d)
		}
	}
	if got := deltas("averyveryverylongwordwithoutspaces and more", 8); strings.Join(got, "") != "averyveryverylongwordwithoutspaces and more" {
		t.Errorf("long word deltas = %q", got)
	}
}

func TestFencedJSON(t *testing.T) {
	msg := "Build the approved plan:\n```json\n{\"goal\":\"g\",\"plan\":{\"type\":\"task\",\"task\":\"t\"},\"planningArtifacts\":[{\"summaryMarkdown\":\"a ```fence``` inside\"}]}\n```"
	bc, plan, ok := parseBuildContext(msg)
	if !ok || bc.Goal != "g" || plan.Task != "t" {
		t.Errorf("parseBuildContext = %+v, %+v, %v", bc, plan, ok)
	}
	if _, _, ok := parseBuildContext("Build the approved plan: nothing"); ok {
		t.Error("a message without a JSON block was read as a plan")
	}
}
