package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"strategist/internal/llm"
)

// Strategy is how a Compactor shrinks a history that is over budget. The
// set is sealed: KeepLastN, WholeHistory, Chunked.
type Strategy interface{ strategy() string }

// KeepLastN keeps the last N messages and drops the rest (no model call).
// The cut moves forward past tool results whose call it would drop.
type KeepLastN struct{ N int }

// WholeHistory replaces the whole history with one TL;DR written by the
// model (a call without tools).
type WholeHistory struct{}

// Chunked summarises the history in chunks of Size messages, one model call
// each, and replaces it with the chunk summaries in order: each summary
// stays short even when the history is long.
type Chunked struct{ Size int }

func (KeepLastN) strategy() string    { return "keep_last_n" }
func (WholeHistory) strategy() string { return "whole_history" }
func (Chunked) strategy() string      { return "chunked" }

// Compactor shrinks a History when its prompt would exceed a token budget.
type Compactor struct {
	Strategy Strategy
	// Budget is the prompt size allowed: system prompt, tool declarations,
	// history and the current message, in calibrated tokens.
	Budget int
	// Estimator measures prompts; nil means a private, uncalibrated one.
	Estimator *Estimator
	// Engine and Model write summaries; Agent names the role of those calls
	// (default "summarizer", which a scripted engine can script).
	Engine llm.Engine
	Model  string
	Agent  string
	// Instruction replaces the default request for a summary.
	Instruction string
	// TranscriptLimits bound tool calls and results as the summariser sees
	// them (default DefaultHistoryLimits).
	TranscriptLimits DigestLimits
}

// CompactResult says what Compact did.
type CompactResult struct {
	Strategy  string
	Compacted bool
	// Before and After are the estimated prompt tokens.
	Before, After int
	// Summary, when a summary replaced messages, is the row to store (role
	// summary) so that later turns start from it instead of summarising
	// again.
	Summary *StoredMessage
	// Usage counts the summary calls.
	Usage llm.Usage
}

// ErrEmptySummary is returned when the model answers a summary request
// with no text.
var ErrEmptySummary = errors.New("agent: compact: empty summary")

const defaultInstruction = "Summarise the conversation below in a short TL;DR for the assistant that will continue it. " +
	"Keep the researcher's goal, decisions, organisms, record types, search names, parameter values, step and artifact ids, " +
	"results that matter and open questions. Leave out pleasantries. Answer with the summary only."

const summarizerSystem = "You condense conversations between a researcher and Strategist, an assistant that builds " +
	"VEuPathDB search strategies, so that the conversation can continue with less text."

// Compact checks the prompt h would make with system and tools and, if it
// is over Budget, shrinks h.Messages in place with the strategy. The
// current message is never touched. After may still exceed Budget (a
// single huge current message); the caller decides what to do then.
func (c *Compactor) Compact(ctx context.Context, h *History, system string, tools []llm.ToolDecl) (CompactResult, error) {
	if c.Strategy == nil {
		return CompactResult{}, errors.New("agent: compact: no strategy")
	}
	est := c.Estimator
	if est == nil {
		est = NewEstimator(0)
	}
	measure := func() int {
		req := llm.Request{System: system, Tools: tools, Messages: append(h.Messages[:len(h.Messages):len(h.Messages)],
			llm.Message{Role: llm.RoleUser, Text: h.Current})}
		return est.Estimate(c.Model, &req).Tokens
	}
	res := CompactResult{Strategy: c.Strategy.strategy(), Before: measure()}
	res.After = res.Before
	if res.Before <= c.Budget || len(h.Messages) == 0 {
		return res, nil
	}
	switch s := c.Strategy.(type) {
	case KeepLastN:
		if s.N < 0 {
			return res, errors.New("agent: compact: negative N")
		}
		cut := max(len(h.Messages)-s.N, 0)
		for cut < len(h.Messages) && h.Messages[cut].Role == llm.RoleTool {
			cut++
		}
		if cut == 0 {
			return res, nil
		}
		h.Messages, h.IDs = h.Messages[cut:], h.IDs[cut:]
	case WholeHistory:
		text, usage, err := c.summarize(ctx, h.Messages)
		res.Usage = usage
		if err != nil {
			return res, err
		}
		c.replace(h, text, &res)
	case Chunked:
		if s.Size <= 0 {
			return res, errors.New("agent: compact: chunk size must be positive")
		}
		chunks := chunk(h.Messages, s.Size)
		parts := make([]string, len(chunks))
		for i, ch := range chunks {
			text, usage, err := c.summarize(ctx, ch)
			res.Usage = res.Usage.Add(usage)
			if err != nil {
				return res, err
			}
			parts[i] = text
			if len(chunks) > 1 {
				parts[i] = "Part " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(chunks)) + ":\n" + text
			}
		}
		c.replace(h, strings.Join(parts, "\n\n"), &res)
	default:
		return res, fmt.Errorf("agent: compact: unknown strategy %T", s)
	}
	res.Compacted = true
	res.After = measure()
	return res, nil
}

// replace swaps the history for one summary message, and records the row
// to store.
func (c *Compactor) replace(h *History, text string, res *CompactResult) {
	covers := h.IDs[len(h.IDs)-1]
	h.Messages = []llm.Message{{Role: llm.RoleUser, Text: summaryPrefix + text}}
	h.IDs = []string{covers}
	data, _ := json.Marshal(storedData{CoversThrough: covers}) // a string field always encodes
	res.Summary = &StoredMessage{Role: StoredSummary, Content: text, Data: data}
}

// chunk cuts msgs into runs of about size messages, never between a tool
// call and its results.
func chunk(msgs []llm.Message, size int) [][]llm.Message {
	var out [][]llm.Message
	for start := 0; start < len(msgs); {
		end := min(start+size, len(msgs))
		for end < len(msgs) && msgs[end].Role == llm.RoleTool {
			end++
		}
		out = append(out, msgs[start:end])
		start = end
	}
	return out
}

// summarize asks the model, without tools, for a summary of msgs rendered
// as a plain transcript (engine-neutral: no tool-call parts, no Raw).
func (c *Compactor) summarize(ctx context.Context, msgs []llm.Message) (string, llm.Usage, error) {
	if c.Engine == nil {
		return "", llm.Usage{}, errors.New("agent: compact: a summary strategy needs an Engine")
	}
	instruction := c.Instruction
	if instruction == "" {
		instruction = defaultInstruction
	}
	agent := c.Agent
	if agent == "" {
		agent = "summarizer"
	}
	req := llm.Request{
		Model: c.Model, System: summarizerSystem, Agent: agent,
		Messages: []llm.Message{{Role: llm.RoleUser, Text: instruction + "\n\n<transcript>\n" + c.transcript(msgs) + "</transcript>"}},
	}
	var text strings.Builder
	var usage llm.Usage
	for ch, err := range c.Engine.Stream(ctx, req) {
		if err != nil {
			return "", usage, fmt.Errorf("agent: compact: summary call: %w", err)
		}
		switch ch.Kind {
		case llm.ChunkText:
			text.WriteString(ch.Text)
		case llm.ChunkUsage:
			if ch.Usage != nil {
				usage = *ch.Usage
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return "", usage, fmt.Errorf("agent: compact: summary call: %w", err)
	}
	s := strings.TrimSpace(text.String())
	if s == "" {
		return "", usage, ErrEmptySummary
	}
	return s, usage, nil
}

func (c *Compactor) transcript(msgs []llm.Message) string {
	lim := c.TranscriptLimits
	if lim == (DigestLimits{}) {
		lim = DefaultHistoryLimits()
	}
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			b.WriteString("Researcher: " + m.Text + "\n")
		case llm.RoleAssistant:
			if m.Text != "" {
				b.WriteString("Assistant: " + m.Text + "\n")
			}
			for _, call := range m.ToolCalls {
				b.WriteString("Assistant called " + call.Name + " " + string(Digest(call.Args, lim)) + "\n")
			}
		case llm.RoleTool:
			for _, r := range m.ToolResults {
				b.WriteString("Result of " + r.Name + ": " + string(Digest(r.Content, lim)) + "\n")
			}
		}
	}
	return b.String()
}
