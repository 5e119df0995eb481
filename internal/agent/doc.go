// Package agent is the tool-calling loop every Strategist role (planner,
// executor, sub-agent) runs over an llm.Engine, and the history handling
// around it.
//
// A role is a Config: engine and model, system prompt, an explicit Toolset,
// and bounds (rounds, per-tool timeout, parallel calls, token budget). Run
// streams typed events (TextDelta, AssistantMessage, ToolCallStart,
// ToolCallEnd, CallUsage, and always last RunEnd with a StopReason) that the
// orchestrator persists and maps onto its stream.
//
// Tools are values built by NewTool from a typed handler; the JSON schema of
// the arguments is inferred once from the Go struct
// (github.com/google/jsonschema-go). Arguments are validated and decoded
// strictly; a bad call, an unknown tool, a handler error, a timeout or a
// panic become a structured result fed back to the model
// ({"ok":false,"code","message","details"}), and the loop goes on.
//
// History: BuildHistory turns stored messages into a model history with the
// current user message apart, so it is sent exactly once; an Estimator
// counts tokens with a cache and a per-model calibration from engine usage;
// a Compactor shrinks a history over budget by keeping the last N messages,
// summarising it whole, or summarising it in chunks; tool results enter
// history as Digest-bounded copies, the full results living in the event
// log.
package agent
