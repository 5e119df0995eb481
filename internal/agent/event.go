package agent

import (
	"encoding/json"
	"errors"
	"time"

	"strategist/internal/llm"
)

// Event is one thing a run reports. The set is sealed: TextDelta,
// AssistantMessage, ToolCallStart, ToolCallEnd, CallUsage and RunEnd. The
// orchestrator maps them onto its own stream events (assistant_delta,
// tool_call_start, ... or the subagent_* family), so they carry ids and
// payloads, not wire names.
type Event interface{ isEvent() }

// TextDelta is a piece of the model's visible text, as it streams.
type TextDelta struct {
	MessageID string
	Delta     string
}

// AssistantMessage is a model response, complete: its text, tool calls and
// engine encoding, as it must be persisted. Incomplete marks a response cut
// short by cancellation or an engine error; it has text only.
type AssistantMessage struct {
	MessageID  string
	Round      int
	Message    llm.Message
	Finish     llm.FinishReason
	Incomplete bool
}

// ToolCallStart is emitted before a tool's handler runs.
type ToolCallStart struct {
	CallID string
	Name   string
	Round  int
	// Args is the arguments as the model sent them (an object, or {} for
	// none; a malformed value is passed through as a JSON string).
	Args json.RawMessage
}

// ToolCallEnd is emitted when a call has finished, in completion order.
type ToolCallEnd struct {
	CallID string
	Name   string
	Round  int
	OK     bool
	// Result is the JSON object fed back to the model (bounded by the run's
	// result limits): {"ok":true,...} or {"ok":false,"code",...}.
	Result json.RawMessage
	// Error is set when OK is false.
	Error *ToolFailure
	// Output is the handler's typed result (nil on failure), for callers
	// that need more than JSON without parsing it back.
	Output   any
	Duration time.Duration
}

// Outcome is the call's outcome as metrics and spans label it: "ok" or its
// failure's code.
func (e ToolCallEnd) Outcome() string {
	if e.Error != nil {
		return e.Error.Code
	}
	return "ok"
}

// ToolFailure is the code and message of a failed call.
type ToolFailure struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// CallUsage reports the tokens of one model call.
type CallUsage struct {
	MessageID string
	Round     int
	Usage     llm.Usage
}

// RoundEnd says a round that ran tools is complete: its model answer and
// every call's result. Messages are what it added to the history to
// persist (the assistant message with its tool calls, the tool results as
// history digests), so that a run cut short later can go on from them
// (Input.Continue) instead of asking the model again. A round whose tools
// ran while the run's context ended reports none: its results may be the
// stop's. RunEnd.Messages still holds every message of the run.
type RoundEnd struct {
	Round    int
	Messages []llm.Message
	// Results are the round's tool results as the run fed them to the
	// model (bounded by ResultLimits, not digested for later turns): a run
	// of the same turn that goes on from this round (StoredRound,
	// History.Continue) sees what this run saw, and answers as it would
	// have.
	Results []llm.ToolResult
}

// RunEnd is always the last event of a run that was not abandoned by its
// consumer.
type RunEnd struct {
	Reason StopReason
	// Err is nil when Reason is StopCompleted; otherwise it matches
	// ErrMaxRounds, ErrBudget, context.Canceled, context.DeadlineExceeded
	// or wraps the engine's *llm.Error.
	Err    error
	Rounds int
	Usage  llm.Usage
	// Text is the final answer (the last response's text).
	Text string
	// EndedBy is the id of the call of an EndsRun tool that ended the run.
	EndedBy string
	// Messages are the run's new history entries to persist, in order:
	// assistant messages (with tool calls and Raw) and tool results (as
	// history digests). The user message is not included: it was stored
	// before the run.
	Messages []llm.Message
}

func (TextDelta) isEvent()        {}
func (AssistantMessage) isEvent() {}
func (ToolCallStart) isEvent()    {}
func (ToolCallEnd) isEvent()      {}
func (CallUsage) isEvent()        {}
func (RoundEnd) isEvent()         {}
func (RunEnd) isEvent()           {}

// StopReason says why a run ended. The zero value is unknown.
type StopReason int

// The reasons a run ends.
const (
	StopUnknown StopReason = iota
	// StopCompleted: the model answered without tool calls.
	StopCompleted
	// StopMaxRounds: the model still wanted tools after the last round.
	StopMaxRounds
	// StopBudget: the run's token budget is spent.
	StopBudget
	// StopDeadline: the context's deadline passed.
	StopDeadline
	// StopCancelled: the context was cancelled.
	StopCancelled
	// StopEngineError: the engine failed (after its own retries).
	StopEngineError
)

// String returns the snake_case name used in events and logs.
func (r StopReason) String() string {
	switch r {
	case StopCompleted:
		return "completed"
	case StopMaxRounds:
		return "max_rounds"
	case StopBudget:
		return "budget"
	case StopDeadline:
		return "deadline"
	case StopCancelled:
		return "cancelled"
	case StopEngineError:
		return "engine_error"
	default:
		return "unknown"
	}
}

// MarshalText renders the reason as its snake_case name.
func (r StopReason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Sentinels matched by RunEnd.Err.
var (
	ErrMaxRounds = errors.New("agent: round limit reached")
	ErrBudget    = errors.New("agent: token budget spent")
	// ErrNoInput: Run was given no user message.
	ErrNoInput = errors.New("agent: no user message")
)
