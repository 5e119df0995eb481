package rules

import (
	"testing"

	"strategist/internal/llm"
	"strategist/internal/llm/llmtest"
)

// TestConformance runs the parts of the engine suite that apply to an
// engine without a network: text and tool calls (its own answers), zero
// usage reported, cancellation, early stop, concurrent calls, and a request
// it cannot serve as a bad-request *llm.Error.
func TestConformance(t *testing.T) {
	text := llm.Request{Agent: RolePlanner, Messages: []llm.Message{{Role: llm.RoleUser, Text: "please"}}}
	llmtest.Run(t, llmtest.Engine{
		New: func(t *testing.T, s llmtest.Scenario) llm.Engine {
			switch s {
			case llmtest.Text, llmtest.ToolCall, llmtest.Hold, llmtest.BadRequest:
				return newEngine(t)
			}
			return nil // no service to fail or to wait for
		},
		RequestFor: func(s llmtest.Scenario) llm.Request {
			switch s {
			case llmtest.ToolCall:
				return llm.Request{Agent: RolePlanner, Messages: []llm.Message{{Role: llm.RoleUser, Text: "tRNA genes on chromosome 5"}},
					Tools: decls("search_for_searches", "get_search_parameters", "set_conversation_title")}
			case llmtest.BadRequest:
				return llm.Request{Agent: "critic", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}, Tools: decls("x")}
			}
			return text
		},
		Want: &llmtest.Want{Usage: &llm.Usage{}},
		Name: EngineName,
	})
}
