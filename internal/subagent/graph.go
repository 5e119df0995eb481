package subagent

import (
	"context"
	"fmt"

	"strategist/internal/strategies"
	"strategist/internal/strategy"
)

// Graph is the strategy a delegation builds, as the scheduler sees it: it
// reads the graph to describe dependencies' roots and to check what a
// sub-agent returns, and applies the changes that need no model (combines,
// removing a failed attempt's steps). Every change goes through the
// strategy service, which serialises and versions it and emits the
// graph_snapshot. ServiceGraph is the implementation over
// strategies.Service; tests use an in-memory one.
type Graph interface {
	// Snapshot returns the strategy as it stands.
	Snapshot(ctx context.Context) (strategy.Snapshot, error)
	// Apply commits one mutation.
	Apply(ctx context.Context, m strategy.Mutation) (strategies.Result, error)
}

// StrategyService is what ServiceGraph uses of *strategies.Service.
type StrategyService interface {
	Conversation(ctx context.Context, userID, conversationID string) (strategy.Snapshot, error)
	Apply(ctx context.Context, userID, strategyID string, m strategy.Mutation) (strategies.Result, error)
}

// ServiceGraph is the Graph of a conversation's persisted strategy. The
// strategy is looked up on every call rather than remembered: the
// sub-agents' graph tools create it lazily with their first step, and
// every read then sees it.
type ServiceGraph struct {
	Service        StrategyService
	UserID         string
	ConversationID string
}

// Snapshot returns the conversation's strategy; store.ErrNotFound (wrapped)
// while it has none.
func (g ServiceGraph) Snapshot(ctx context.Context) (strategy.Snapshot, error) {
	snap, err := g.Service.Conversation(ctx, g.UserID, g.ConversationID)
	if err != nil {
		return strategy.Snapshot{}, fmt.Errorf("subagent: read strategy: %w", err)
	}
	return snap, nil
}

// Apply commits m to the conversation's strategy.
func (g ServiceGraph) Apply(ctx context.Context, m strategy.Mutation) (strategies.Result, error) {
	snap, err := g.Snapshot(ctx)
	if err != nil {
		return strategies.Result{}, err
	}
	return g.Service.Apply(ctx, g.UserID, snap.StrategyID, m)
}

// consumerOf returns the step that takes id as an input.
func consumerOf(snap strategy.Snapshot, id strategy.StepID) (strategy.StepID, bool) {
	for _, s := range snap.Steps {
		for _, in := range s.Inputs {
			if in == id {
				return s.ID, true
			}
		}
	}
	return "", false
}
