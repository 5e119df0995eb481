package strategies

import (
	"context"
	"fmt"

	"strategist/internal/strategy"
)

// PreviousLookback bounds the versions Previous reads: far more than one
// build's changes (its steps, and a deletion for each step it replaced).
const PreviousLookback = 100

// Previous returns the strategy as it last was, before now, with a
// different result: the newest earlier version (among the last
// PreviousLookback) that was complete (Validate finds nothing) and whose
// root computes another query than the current root (any complete one
// when the strategy is not complete now). It is what a researcher's "undo
// that" refers to: single-change undos walk through the half-built states
// and deletions of a build, which Previous skips. The snapshot carries
// that version's number. ok is false when there is none within the bound.
// The versions are read in one query.
func (s *Service) Previous(ctx context.Context, userID, strategyID string) (strategy.Snapshot, bool, error) {
	_, g, rec, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return strategy.Snapshot{}, false, err
	}
	current := resultKey(g)
	vs, err := s.store.RecentStrategyVersions(ctx, userID, strategyID, rec.Version, PreviousLookback)
	if err != nil {
		return strategy.Snapshot{}, false, fmt.Errorf("strategy: previous version of %s: %w", strategyID, err)
	}
	for _, v := range vs {
		old, err := strategy.Decode(v.Graph)
		if err != nil {
			return strategy.Snapshot{}, false, fmt.Errorf("strategy: previous version of %s: version %d: %w", strategyID, v.Version, err)
		}
		if len(old.Validate()) > 0 {
			continue
		}
		if key := resultKey(old); key != "" && key != current {
			snap := old.Snapshot(rec.ID, v.Version)
			snap.ConversationID = rec.ConversationID
			return snap, true, nil
		}
	}
	return strategy.Snapshot{}, false, nil
}

// resultKey identifies what a graph's single root computes (its query
// tree); "" when the graph has no single root.
func resultKey(g *strategy.Graph) string {
	root, ok := g.Root()
	if !ok {
		return ""
	}
	q, err := g.Query(root)
	if err != nil {
		return ""
	}
	return q.Key()
}
