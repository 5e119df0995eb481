package strategies

import (
	"context"
	"encoding/json"
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
// that" refers to: the version the Undo button would restore (the one
// before the last turn's changes) when it is complete with another result,
// else the newest such version, skipping the half-built states and
// deletions of a build. The snapshot carries
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
	now, err := s.store.StrategyVersion(ctx, userID, strategyID, rec.Version)
	if err != nil {
		return strategy.Snapshot{}, false, fmt.Errorf("strategy: previous version of %s: %w", strategyID, err)
	}
	// The change records, to find where Undo would go: the version before
	// the last turn's changes. Versions beyond the lookback stay zero.
	changes := make([]strategy.Change, rec.Version+1)
	if err := json.Unmarshal(now.Change, &changes[rec.Version]); err != nil {
		return strategy.Snapshot{}, false, fmt.Errorf("strategy: previous version of %s: decode change %d: %w", strategyID, rec.Version, err)
	}
	graphs := make([]*strategy.Graph, len(vs))
	for i, v := range vs {
		if graphs[i], err = strategy.Decode(v.Graph); err != nil {
			return strategy.Snapshot{}, false, fmt.Errorf("strategy: previous version of %s: version %d: %w", strategyID, v.Version, err)
		}
		if err := json.Unmarshal(v.Change, &changes[v.Version]); err != nil {
			return strategy.Snapshot{}, false, fmt.Errorf("strategy: previous version of %s: decode change %d: %w", strategyID, v.Version, err)
		}
	}
	found := func(i int) (strategy.Snapshot, bool) {
		old := graphs[i]
		if len(old.Validate()) > 0 {
			return strategy.Snapshot{}, false
		}
		if key := resultKey(old); key == "" || key == current {
			return strategy.Snapshot{}, false
		}
		snap := old.Snapshot(rec.ID, vs[i].Version)
		snap.ConversationID = rec.ConversationID
		return snap, true
	}
	// First the version Undo would restore, so that "undo that" and the
	// Undo button take back the same turn; after an undo, "undo that"
	// takes the undo back (the newest complete version below).
	// Past that version, only versions older than it: the half-built
	// states of the last turn's build are never a strategy to go back to
	// (before a conversation's first build there is none).
	newest := rec.Version
	if target, _ := strategy.UndoTarget(changes, rec.Version, ""); target >= 0 && !changes[rec.Version].Restores() {
		newest = target
		for i, v := range vs {
			if v.Version == target {
				if snap, ok := found(i); ok {
					return snap, true, nil
				}
			}
		}
	}
	for i, v := range vs {
		if v.Version > newest {
			continue
		}
		if snap, ok := found(i); ok {
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
