package agent

import (
	"context"

	"strategist/internal/event"
	"strategist/internal/llm"
)

// Env is what a role's agent is built for: one turn of one researcher's
// conversation, the engine it talks to, and where the events its tools
// produce go. The orchestrator fills it per turn; roles build their tools
// bound to it, so nothing reaches a tool through the context but identity.
type Env struct {
	UserID         string
	ConversationID string
	TurnID         string
	SiteID         string
	Engine         llm.Engine
	// Model is the engine-local model name.
	Model string
	// Emit appends events to the turn's stream, durably and in one append;
	// the turn id is filled in by the orchestrator.
	Emit func(ctx context.Context, evs ...event.Event) error
}

// Prompt returns the system prompt and tool declarations the agent sends
// with every call, so a caller can measure a history against a budget
// before running it.
func (a *Agent) Prompt() (string, []llm.ToolDecl) { return a.cfg.System, a.decls }
