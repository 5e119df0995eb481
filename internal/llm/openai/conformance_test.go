package openai

import (
	"context"
	"testing"
	"time"

	"strategist/internal/llm"
	"strategist/internal/llm/llmtest"
)

// TestConformance runs the engine suite against the fake Chat Completions
// server.
func TestConformance(t *testing.T) {
	llmtest.Run(t, llmtest.Engine{
		New:     conformanceEngine,
		Request: llm.Request{Model: "qwen-test", Messages: []llm.Message{{Role: llm.RoleUser, Text: "Find kinases in P. falciparum"}}},
		Key:     testKey,
		Name:    Name,
	})
}

func conformanceEngine(t *testing.T, s llmtest.Scenario) llm.Engine {
	var cfg Config
	var answer step
	switch s {
	case llmtest.Text:
		answer = sse(textFrames...)
	case llmtest.ToolCall:
		answer = sse(
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"search_for_searches","arguments":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\":"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"kinase\"}"}}]}`, ""),
			chunk(`{}`, "tool_calls"),
			usageChunk(12, 4, 16),
		)
	case llmtest.Hold:
		answer = hold(chunk(`{"content":"Hel"}`, ""))
	case llmtest.AuthError:
		answer = apiError(401, "Incorrect API key provided: "+testKey+".", "invalid_request_error", "invalid_api_key")
	case llmtest.BadRequest:
		answer = apiError(400, "Invalid 'messages[2].tool_call_id': expected a string.", "invalid_request_error", "invalid_value")
	case llmtest.Unavailable:
		cfg.MaxAttempts = 3
		answer = apiError(503, "overloaded", "server_error", "")
	case llmtest.Backoff:
		cfg.Sleep = func(ctx context.Context, _ time.Duration) error {
			<-ctx.Done()
			return ctx.Err()
		}
		answer = plain(503, "busy")
	case llmtest.Blocked:
		answer = sse(chunk(`{"content":"Here is"}`, ""), chunk(`{}`, "content_filter"))
	default:
		return nil
	}
	steps := make([]step, 16)
	for i := range steps {
		steps[i] = answer
	}
	return newHarness(t, cfg, steps...).engine
}
