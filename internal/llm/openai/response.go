package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	oai "github.com/openai/openai-go/v3"

	"strategist/internal/llm"
)

// accumulator turns the chunks of one streamed chat completion into
// Strategist chunks. Tool calls arrive as deltas keyed by index: the first
// delta of a call carries its id and name, later ones pieces of its
// arguments. Servers send one call's deltas before the next call's, so a
// call is complete when a delta for another call arrives or the choice
// finishes. It belongs to a single attempt.
type accumulator struct {
	seed   string
	open   *pendingCall
	done   map[int64]bool // indexes of calls already yielded
	calls  int
	reason string
	usage  *llm.Usage
}

// pendingCall is a tool call whose deltas are still arriving.
type pendingCall struct {
	index    int64
	id, name string
	args     strings.Builder
}

func newAccumulator(seed string) *accumulator {
	return &accumulator{seed: seed, done: make(map[int64]bool)}
}

// add takes one streamed chunk and returns what it completes: text deltas
// and finished tool calls.
func (a *accumulator) add(c oai.ChatCompletionChunk) ([]llm.Chunk, error) {
	if c.JSON.Usage.Valid() {
		a.usage = &llm.Usage{
			PromptTokens:     int(c.Usage.PromptTokens),
			CompletionTokens: int(c.Usage.CompletionTokens),
			TotalTokens:      int(c.Usage.TotalTokens),
		}
		if a.usage.TotalTokens == 0 {
			a.usage.TotalTokens = a.usage.PromptTokens + a.usage.CompletionTokens
		}
	}
	var out []llm.Chunk
	for _, choice := range c.Choices {
		if choice.Index != 0 {
			continue // Strategist asks for one choice.
		}
		d := choice.Delta
		if d.Content != "" {
			out = append(out, llm.Chunk{Kind: llm.ChunkText, Text: d.Content})
		}
		// A refusal is the model's own visible answer ("I can't help with
		// that"), so the researcher sees it like any text.
		if d.Refusal != "" {
			out = append(out, llm.Chunk{Kind: llm.ChunkText, Text: d.Refusal})
		}
		for _, tc := range d.ToolCalls {
			if a.open != nil && (tc.Index != a.open.index || (tc.ID != "" && a.open.id != "" && tc.ID != a.open.id)) {
				out = append(out, a.complete())
			}
			if a.open == nil {
				if a.done[tc.Index] && tc.ID == "" {
					return out, fmt.Errorf("the server interleaved the deltas of tool call %d with another call's", tc.Index)
				}
				a.open = &pendingCall{index: tc.Index}
			}
			if a.open.id == "" {
				a.open.id = tc.ID
			}
			if a.open.name == "" {
				a.open.name = tc.Function.Name
			}
			a.open.args.WriteString(tc.Function.Arguments)
		}
		if choice.FinishReason != "" {
			a.reason = choice.FinishReason
			if a.open != nil {
				out = append(out, a.complete())
			}
			if a.reason == "content_filter" {
				return out, &blockedError{message: "the server's content filter stopped the answer (finish reason content_filter)"}
			}
		}
	}
	return out, nil
}

// complete yields the open call. Arguments that are not JSON (a model can
// produce anything) travel as a JSON string, so that the agent reports the
// problem to the model instead of failing to encode its events.
func (a *accumulator) complete() llm.Chunk {
	p := a.open
	a.open = nil
	a.done[p.index] = true
	args := []byte(strings.TrimSpace(p.args.String()))
	switch {
	case len(args) == 0:
		args = []byte("{}")
	case !json.Valid(args):
		args, _ = json.Marshal(string(args))
	}
	id := p.id
	if id == "" {
		id = llm.DerivedCallID(a.seed, a.calls, p.name, args)
	}
	a.calls++
	return llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: &llm.ToolCall{ID: id, Name: p.name, Args: args}}
}

// finish ends a complete stream with the usage chunk, if the server sent
// usage, and the finish chunk. A stream that ended without a finish reason
// was cut off, and its half-received call is not yielded.
func (a *accumulator) finish() ([]llm.Chunk, error) {
	if a.reason == "" {
		return nil, errTruncated
	}
	var out []llm.Chunk
	if a.usage != nil {
		out = append(out, llm.Chunk{Kind: llm.ChunkUsage, Usage: a.usage})
	}
	return append(out, llm.Chunk{Kind: llm.ChunkFinish, Finish: a.finishReason()}), nil
}

// finishReason maps the server's reason. Some servers (older Ollama) report
// "stop" after tool calls, and "tool_calls" without any call is no request
// to run tools, so the calls decide.
func (a *accumulator) finishReason() llm.FinishReason {
	switch {
	case a.calls > 0:
		return llm.FinishToolCalls
	case a.reason == "stop":
		return llm.FinishStop
	case a.reason == "length":
		return llm.FinishLength
	default:
		return llm.FinishOther
	}
}
