package gemini

import (
	"context"
	"testing"
	"time"

	"strategist/internal/llm"
	"strategist/internal/llm/llmtest"
)

// TestConformance runs the engine suite against the fake Gemini API.
func TestConformance(t *testing.T) {
	llmtest.Run(t, llmtest.Engine{
		New:     conformanceEngine,
		Request: llm.Request{Model: "gemini-test", Messages: []llm.Message{{Role: llm.RoleUser, Text: "Find kinases in P. falciparum"}}},
		Key:     testKey,
		Name:    Name,
	})
}

func conformanceEngine(t *testing.T, s llmtest.Scenario) llm.Engine {
	var cfg Config
	var answer step
	switch s {
	case llmtest.Text:
		answer = sse(frameHel, frameLo, frameWorld)
	case llmtest.ToolCall:
		answer = sse(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"fc-1","name":"search_for_searches","args":{"query":"kinase"}},"thoughtSignature":"c2lnLW9uZQ=="}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":4,"totalTokenCount":16}}`)
	case llmtest.Hold:
		answer = hold(frameHel)
	case llmtest.AuthError:
		answer = apiError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials ("+testKey+").")
	case llmtest.BadRequest:
		answer = apiError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"foo\".")
	case llmtest.Unavailable:
		cfg.MaxAttempts = 3
		answer = apiError(503, "UNAVAILABLE", "The model is overloaded.")
	case llmtest.Backoff:
		cfg.Sleep = func(ctx context.Context, _ time.Duration) error {
			<-ctx.Done()
			return ctx.Err()
		}
		answer = apiError(503, "UNAVAILABLE", "overloaded")
	case llmtest.Blocked:
		answer = sse(frameBlocked)
	default:
		return nil
	}
	steps := make([]step, 16)
	for i := range steps {
		steps[i] = answer
	}
	return newHarness(t, cfg, steps...).engine
}
