package strategies

import (
	"context"
	"hash/fnv"
	"sync"

	"strategist/internal/strategy"
)

// reportStripes is the number of locks snapshots are ordered under.
const reportStripes = 64

// reporter delivers snapshots to the change hook in version order per
// strategy. Apply and Undo hold their strategy's stripe from before the
// locked transaction until the hook returned, so within a process the hook
// sees versions in commit order; last drops a snapshot older than one
// already delivered (a creation racing the first change), because the newer
// snapshot already shows it. Across processes a consumer must still ignore
// a version it has seen surpassed.
type reporter struct {
	hook    func(ctx context.Context, s strategy.Snapshot)
	stripes [reportStripes]reportStripe
}

type reportStripe struct {
	mu   sync.Mutex     // held across a strategy's write and its report
	last map[string]int // strategy id -> last version delivered; guarded by mu
}

func newReporter(hook func(ctx context.Context, s strategy.Snapshot)) *reporter {
	r := &reporter{hook: hook}
	for i := range r.stripes {
		r.stripes[i].last = map[string]int{}
	}
	return r
}

// stripe returns the lock strategyID's writes and reports go under.
func (r *reporter) stripe(strategyID string) *reportStripe {
	h := fnv.New32a()
	h.Write([]byte(strategyID))
	return &r.stripes[h.Sum32()%reportStripes]
}

// deliver calls the hook unless a newer version of the strategy was
// delivered already; the caller holds st.mu. The hook gets ctx without its
// cancellation: a change that committed is always reported.
func (r *reporter) deliver(ctx context.Context, st *reportStripe, s strategy.Snapshot) {
	if last, ok := st.last[s.StrategyID]; ok && last >= s.Version {
		return
	}
	st.last[s.StrategyID] = s.Version
	r.hook(context.WithoutCancel(ctx), s)
}

// report takes the stripe lock and delivers s.
func (r *reporter) report(ctx context.Context, s strategy.Snapshot) {
	st := r.stripe(s.StrategyID)
	st.mu.Lock()
	defer st.mu.Unlock()
	r.deliver(ctx, st, s)
}
