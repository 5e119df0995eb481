package openai

import (
	"sync"
	"testing"

	"strategist/internal/llm"
)

// TestStreamConcurrent runs calls in parallel on one engine; under -race it
// checks that calls share no mutable state (each attempt has its own hint
// and accumulator).
func TestStreamConcurrent(t *testing.T) {
	const n = 8
	steps := make([]step, 0, n)
	for range n {
		steps = append(steps, sse(okFrames...))
	}
	h := newHarness(t, Config{}, steps...)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			got, err := collect(h.engine.Stream(t.Context(), llm.Request{Model: "qwen-test", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}))
			if err == nil && len(got) != len(okChunks) {
				t.Errorf("call %d: %d chunks", i, len(got))
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
}
