// Package llm defines the one call every Strategist agent makes to a language
// model: a streaming request carrying a system prompt, a typed history and tool
// declarations, answered by text deltas, tool calls, usage and a finish reason.
//
// Engines (gemini, openai, scripted, offline) live in sub-packages and are
// chosen by model id ("gemini:<model>", "openai:<model>", "scripted:<file>",
// "offline"). Nothing above this package knows which engine it talks to.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strconv"
)

// Role says who produced a history message.
type Role string

// The roles of history messages.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries the results of the tool calls of the preceding
	// assistant message, in call order.
	RoleTool Role = "tool"
)

// Message is one entry of the history sent to an engine.
type Message struct {
	Role Role `json:"role"`
	// Text is the user's text, or the assistant's visible text.
	Text string `json:"text,omitempty"`
	// ToolCalls are the calls an assistant message asked for.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolResults answer the previous assistant message's calls (RoleTool).
	ToolResults []ToolResult `json:"toolResults,omitempty"`
	// Raw is the engine's own encoding of an assistant message, kept so that
	// opaque parts (Gemini's thoughtSignature, thought parts) go back to the
	// same engine unchanged. Engines ignore Raw written by another engine.
	Raw *Raw `json:"raw,omitempty"`
}

// Raw is an engine-specific encoding of a message.
type Raw struct {
	Engine string          `json:"engine"`
	Data   json.RawMessage `json:"data"`
}

// ToolCall is a model's request to run one tool.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// ToolResult is the answer to one ToolCall. Content is a JSON object.
type ToolResult struct {
	CallID  string          `json:"callId"`
	Name    string          `json:"name"`
	Content json.RawMessage `json:"content"`
	IsError bool            `json:"isError,omitempty"`
}

// ToolDecl declares a tool to the model. Schema is a JSON Schema object.
type ToolDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Request is one model call.
type Request struct {
	// Model is the engine-local model name ("gemini-2.5-flash"), without the
	// engine prefix.
	Model    string
	System   string
	Messages []Message
	Tools    []ToolDecl
	// Agent names the role making the call ("planner", "executor",
	// "subagent"). Real engines ignore it; the scripted and offline engines
	// use it to pick their behaviour.
	Agent string
	// Temperature and TopP are optional sampling settings.
	Temperature *float64
	TopP        *float64
	// MaxOutputTokens limits the completion; 0 means the engine's default.
	MaxOutputTokens int
}

// ChunkKind says which field of a Chunk is set.
type ChunkKind int

// The kinds of chunks. The zero value is not a valid kind.
const (
	ChunkUnknown ChunkKind = iota
	// ChunkText carries a text delta in Text.
	ChunkText
	// ChunkToolCall carries one complete tool call in ToolCall.
	ChunkToolCall
	// ChunkUsage carries token usage in Usage.
	ChunkUsage
	// ChunkFinish ends the stream: Finish is set, and Raw may hold the
	// engine's encoding of the whole assistant message.
	ChunkFinish
)

// Chunk is one item of an engine's stream.
type Chunk struct {
	Kind     ChunkKind
	Text     string
	ToolCall *ToolCall
	Usage    *Usage
	Finish   FinishReason
	Raw      *Raw
}

// Usage counts the tokens of one or more model calls.
type Usage struct {
	PromptTokens     int `json:"promptTokens"`
	CompletionTokens int `json:"completionTokens"`
	TotalTokens      int `json:"totalTokens"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
	}
}

// FinishReason says why a model stopped.
type FinishReason string

// The finish reasons engines report.
const (
	FinishStop      FinishReason = "stop"
	FinishToolCalls FinishReason = "tool_calls"
	FinishLength    FinishReason = "length"
	FinishSafety    FinishReason = "safety"
	FinishOther     FinishReason = "other"
)

// OfflineIntro opens every message of the offline engine (the rules
// engine), so that no reader mistakes it for a language model. The
// conversation page shows it in the first such message only.
const OfflineIntro = "I am Strategist's offline planner, not a language model: I follow fixed rules over your words and the catalog's answers."

// Engine streams one model call. The sequence ends after a ChunkFinish or
// after the first non-nil error; cancelling ctx ends it promptly with
// ctx.Err().
type Engine interface {
	Stream(ctx context.Context, req Request) iter.Seq2[Chunk, error]
}

// ErrorKind classifies engine errors so that callers can decide what to do.
type ErrorKind int

// The kinds of engine errors.
const (
	ErrorUnknown ErrorKind = iota
	// ErrorRetryable: rate limits, 5xx, timeouts. Engines retry these
	// themselves before giving up.
	ErrorRetryable
	// ErrorAuth: bad or missing credentials.
	ErrorAuth
	// ErrorBadRequest: unknown model, invalid request.
	ErrorBadRequest
	// ErrorBlocked: the provider refused the content.
	ErrorBlocked
	// ErrorScript: a scripted engine ran out of script or did not match.
	ErrorScript
)

// Error is an engine failure with a message safe to show to a researcher
// (it never contains a credential).
type Error struct {
	Kind    ErrorKind
	Engine  string
	Status  int // HTTP status, when there was one
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return e.Engine + ": " + e.Message + " (HTTP " + strconv.Itoa(e.Status) + ")"
	}
	return e.Engine + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether err is an engine error worth retrying.
func Retryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == ErrorRetryable
}
