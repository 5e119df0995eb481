package scripted_test

import (
	"encoding/json"
	"testing"

	"strategist/internal/llm"
	"strategist/internal/llm/llmtest"
	"strategist/internal/llm/scripted"
)

// TestConformance runs the engine suite on scripts that play each scenario.
func TestConformance(t *testing.T) {
	llmtest.Run(t, llmtest.Engine{
		New:     conformanceEngine,
		Request: llm.Request{Agent: "planner", Messages: []llm.Message{{Role: llm.RoleUser, Text: "Find kinases"}}},
		Name:    llm.EngineScripted,
	})
}

func conformanceEngine(t *testing.T, s llmtest.Scenario) llm.Engine {
	usage := llmtest.Usage
	var r scripted.Response
	switch s {
	case llmtest.Text:
		r = scripted.Response{Text: llmtest.TextAnswer, Usage: &usage}
	case llmtest.ToolCall:
		r = scripted.Response{Usage: &usage, ToolCalls: []scripted.ToolCall{{Name: llmtest.ToolName, Args: json.RawMessage(llmtest.ToolArgs)}}}
	case llmtest.Hold, llmtest.Backoff:
		// A latency the test never sees the end of: the script's only
		// wait, which the cancel must end.
		latency := 3_600_000
		r = scripted.Response{Text: llmtest.TextAnswer, LatencyMs: &latency}
	case llmtest.AuthError:
		r = scripted.Response{Error: "the API key was rejected", ErrorKind: "auth"}
	case llmtest.BadRequest:
		r = scripted.Response{Error: "invalid request", ErrorKind: "bad_request"}
	case llmtest.Unavailable:
		r = scripted.Response{Error: "model overloaded", ErrorKind: "retryable"}
	case llmtest.Blocked:
		r = scripted.Response{Text: "Here is", Error: "blocked by a content filter", ErrorKind: "blocked"}
	default:
		return nil
	}
	rs := make([]scripted.Response, 16)
	for i := range rs {
		rs[i] = r
	}
	e, err := scripted.New(&scripted.Script{Roles: map[string][]scripted.Response{"planner": rs}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
