package strategies

import (
	"context"
	"strconv"
	"sync"

	"strategist/internal/strategy"
)

// overlapCacheSize bounds the versions whose overlaps are kept; past it
// the cache starts over (a version's overlaps are computed again in well
// under a second offline).
const overlapCacheSize = 256

// overlapCache keeps each strategy version's overlaps: a version's graph
// never changes, and every open page of a conversation draws the same
// version when it changes.
type overlapCache struct {
	mu sync.Mutex // guards m
	m  map[string]map[strategy.StepID]strategy.Overlap
}

// Overlaps is each combine's inputs compared gene by gene (in both, left
// only, right only; strategy.Overlaps says which combines have them),
// computed once per strategy version. The snapshot is one the caller has
// already read as its owner (the conversation's log): nothing is loaded.
func (s *Service) Overlaps(ctx context.Context, snap strategy.Snapshot) map[strategy.StepID]strategy.Overlap {
	key := snap.StrategyID + "@" + strconv.Itoa(snap.Version)
	c := &s.overlaps
	c.mu.Lock()
	o, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return o
	}
	o = strategy.Overlaps(ctx, s.cat, snap)
	if ctx.Err() != nil {
		return o // perhaps cut short: not kept
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= overlapCacheSize {
		c.m = map[string]map[strategy.StepID]strategy.Overlap{}
	}
	c.m[key] = o
	c.mu.Unlock()
	return o
}
