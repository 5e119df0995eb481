package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/catalog/catalogtool"
	catoffline "strategist/internal/catalog/offline"
	"strategist/internal/llm"
	"strategist/internal/rules"
	"strategist/internal/tool"
)

// handler answers one tool call in a simulated run: a result object, or a
// failure (code and message).
type handler func(args json.RawMessage) (any, *agent.ToolFailure)

// override replaces a tool in a simulated run; real is the tool it
// replaces (nil for a tool without a real handler).
type override func(real handler, args json.RawMessage) (any, *agent.ToolFailure)

// simulate runs the engine as the agent loop would, with the real catalog
// tools and hand-written handlers for the rest, until it answers with text
// or maxRounds pass. It returns the calls made, by name, and the text.
func simulate(t *testing.T, role, user string, overrides map[string]override, maxRounds int) ([]string, string) {
	t.Helper()
	set, err := catalogtool.New(catalogtool.Config{Catalog: geneCatalog(t), Site: catoffline.SiteID})
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]handler{}
	for _, tl := range set.Tools() {
		tools[tl.Name()] = func(args json.RawMessage) (any, *agent.ToolFailure) {
			out, err := tl.Call(context.Background(), args)
			if te, ok := err.(*tool.ToolError); ok {
				return nil, &agent.ToolFailure{Code: te.Code, Message: te.Message, Details: te.Details}
			}
			if err != nil {
				return nil, &agent.ToolFailure{Code: "TOOL_ERROR", Message: err.Error()}
			}
			return out, nil
		}
	}
	ok := func(v any) handler { return func(json.RawMessage) (any, *agent.ToolFailure) { return v, nil } }
	tools["set_conversation_title"] = ok(map[string]string{"title": "t"})
	tools["save_planning_artifact"] = ok(map[string]any{"artifactId": "a1", "kind": "planning", "version": 1})
	tools["save_delegation_draft"] = ok(map[string]any{"artifactId": "a2", "kind": "delegation_draft", "version": 1})
	tools["request_executor_build"] = ok(map[string]any{"handoffId": "h1", "status": "awaiting_approval"})
	for name, o := range overrides {
		real := tools[name]
		tools[name] = func(args json.RawMessage) (any, *agent.ToolFailure) { return o(real, args) }
	}
	var decls []llm.ToolDecl
	for name := range tools {
		decls = append(decls, llm.ToolDecl{Name: name})
	}
	e, err := rules.New(rules.Config{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Text: user}}
	var calls []string
	for round := range maxRounds {
		var text strings.Builder
		var asked []llm.ToolCall
		for c, err := range e.Stream(t.Context(), llm.Request{Agent: role, Messages: msgs, Tools: decls}) {
			if err != nil {
				t.Fatal(err)
			}
			switch c.Kind {
			case llm.ChunkText:
				text.WriteString(c.Text)
			case llm.ChunkToolCall:
				tc := *c.ToolCall
				tc.ID = fmt.Sprintf("c%d-%d", round, len(asked))
				asked = append(asked, tc)
			}
		}
		if len(asked) == 0 {
			return calls, text.String()
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, ToolCalls: asked})
		var results []llm.ToolResult
		for _, c := range asked {
			calls = append(calls, c.Name)
			h, found := tools[c.Name]
			if !found {
				t.Fatalf("the engine called %s, which it was not offered", c.Name)
			}
			out, fail := h(c.Args)
			var content []byte
			if fail != nil {
				content, _ = json.Marshal(map[string]any{"ok": false, "code": fail.Code, "message": fail.Message, "details": fail.Details})
			} else {
				b, _ := json.Marshal(out)
				content = append([]byte(`{"ok":true,`), b[1:]...)
				if string(b) == "{}" || string(b) == "null" {
					content = []byte(`{"ok":true}`)
				}
			}
			results = append(results, llm.ToolResult{CallID: c.ID, Name: c.Name, Content: content, IsError: fail != nil})
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolResults: results})
	}
	t.Fatalf("no answer after %d rounds; calls: %v", maxRounds, calls)
	return nil, ""
}

func fail(code, msg string) override {
	return func(handler, json.RawMessage) (any, *agent.ToolFailure) {
		return nil, &agent.ToolFailure{Code: code, Message: msg}
	}
}

// TestPlannerAdapts: when a tool fails, the planner reads the failure and
// works around it or reports it; it never repeats the call.
func TestPlannerAdapts(t *testing.T) {
	var draft json.RawMessage
	keepDraft := func(_ handler, args json.RawMessage) (any, *agent.ToolFailure) {
		draft = args
		return map[string]any{"artifactId": "a2", "kind": "delegation_draft", "version": 1}, nil
	}
	tests := []struct {
		name     string
		override map[string]override
		want     []string // in the answer
		wantCall string   // a call that must be made
		notCall  string   // a call that must not be made
		inDraft  string
	}{
		{"no GO search: text search instead",
			map[string]override{"search_for_searches": func(real handler, args json.RawMessage) (any, *agent.ToolFailure) {
				if strings.Contains(string(args), "GO term") {
					return map[string]any{"query": "GO term", "searches": []any{}}, nil
				}
				return real(args)
			}, "save_delegation_draft": keepDraft},
			[]string{"I could not map 'DNA repair'; I used a text search for it"}, "request_executor_build", "", `"searchName":"GenesByText"`},
		{"the GO vocabulary is unavailable: text search instead",
			map[string]override{"get_search_parameters": func(real handler, args json.RawMessage) (any, *agent.ToolFailure) {
				if strings.Contains(string(args), "GenesByGoTerm") {
					return nil, &agent.ToolFailure{Code: "UNAVAILABLE", Message: "down"}
				}
				return real(args)
			}, "save_delegation_draft": keepDraft},
			[]string{"I could not map 'DNA repair'; I used a text search for it"}, "request_executor_build", "", `"text_expression":"\"DNA repair\""`},
		{"the draft is refused: reported, no build requested",
			map[string]override{"save_delegation_draft": fail("DELEGATION_PLAN_INVALID", "the plan has 1 problem")},
			[]string{"The delegation plan was refused (DELEGATION_PLAN_INVALID: the plan has 1 problem)", "not a language model"}, "", "request_executor_build", ""},
		{"the build request fails: reported",
			map[string]override{"request_executor_build": fail("NO_DRAFT", "there is no delegation draft yet")},
			[]string{"Requesting the build failed (NO_DRAFT: there is no delegation draft yet)"}, "request_executor_build", "", ""},
		{"the artifact fails: the plan goes on",
			map[string]override{"save_planning_artifact": fail("VALIDATION_ERROR", "title and summary_markdown must not be empty")},
			[]string{"Saving the planning artifact failed", "Build this plan"}, "request_executor_build", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			draft = nil
			calls, text := simulate(t, rules.RolePlanner, "DNA repair genes", tt.override, 16)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("answer does not say %q:\n%s", w, text)
				}
			}
			if tt.wantCall != "" && !slices.Contains(calls, tt.wantCall) {
				t.Errorf("calls %v lack %s", calls, tt.wantCall)
			}
			if tt.notCall != "" && slices.Contains(calls, tt.notCall) {
				t.Errorf("calls %v include %s", calls, tt.notCall)
			}
			if tt.inDraft != "" && !strings.Contains(string(draft), tt.inDraft) {
				t.Errorf("draft %s does not contain %s", draft, tt.inDraft)
			}
		})
	}
}

// TestConfirmationIsNotARequest: "yes, build it" is not searched for: it
// hands the plan already drafted to the executor, and nothing else.
func TestConfirmationIsNotARequest(t *testing.T) {
	calls, text := simulate(t, rules.RolePlanner, "yes, build it", nil, 2)
	if !slices.Equal(calls, []string{"request_executor_build"}) {
		t.Errorf("calls %v, answer:\n%s", calls, text)
	}
}
