package sites

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"strategist/internal/catalog/wdk"
	"strategist/internal/strategy"
)

// strategyBuilder is what saving needs from the live client (*wdk.Client).
type strategyBuilder interface {
	BuildStrategy(ctx context.Context, siteID string, s wdk.NewStrategy, plan *wdk.StepPlan) (int64, wdk.StepTree, error)
}

// Saved is a strategy saved to a live site.
type Saved struct {
	Site       string `json:"siteId"`
	StrategyID int64  `json:"strategyId"`
	// URL opens the strategy on the site.
	URL string `json:"url"`
}

// ErrNotLive means a strategy of an offline site cannot be saved to
// VEuPathDB.
var ErrNotLive = errors.New("only strategies of a live site can be saved to VEuPathDB")

// SaveStrategy creates the exported strategy in the user's account on a
// live site with the client's strategy builder (wdk.Client.BuildStrategy,
// which answers use too): its steps, created concurrently, then one
// strategy with the step tree. If anything fails, the steps already
// created are deleted again, so nothing half-made stays in the account.
// The save is bounded by the registry's timeout for each of its requests,
// one per step and one for the strategy.
func (r *Registry) SaveStrategy(ctx context.Context, site string, ws *strategy.WDKStrategy) (*Saved, error) {
	if !r.live[site] {
		return nil, ErrNotLive
	}
	b, ok := r.cfg.Live.(strategyBuilder)
	if !ok {
		return nil, ErrNotLive
	}
	plan, err := stepPlan(ws, &ws.StepTree)
	if err != nil {
		return nil, err
	}
	ctx = withTokenMemo(ctx) // one key look-up for the whole save
	limit := r.cfg.Timeout * time.Duration(len(ws.Steps)+1)
	cctx, cancel := context.WithTimeoutCause(ctx, limit, &TimeoutError{Site: site, After: limit})
	defer cancel()
	strategyID, _, err := b.BuildStrategy(cctx, site, wdk.NewStrategy{Name: ws.Name}, plan)
	if err := r.done(ctx, cctx, site, err); err != nil {
		return nil, fmt.Errorf("saving the strategy: %w", err)
	}
	return &Saved{Site: site, StrategyID: strategyID, URL: r.cfg.AppURLs[site] + "/app/workspace/strategies/" + strconv.FormatInt(strategyID, 10)}, nil
}

// stepPlan turns an exported strategy's step tree into the client's plan:
// each step's body, with its inputs in the tree's order.
func stepPlan(ws *strategy.WDKStrategy, t *strategy.WDKStepTree) (*wdk.StepPlan, error) {
	s, ok := ws.Steps[t.StepID]
	if !ok {
		return nil, fmt.Errorf("the step tree names step %s, which the strategy does not have", t.StepID)
	}
	p := &wdk.StepPlan{Step: wdk.NewStep{
		SearchName: s.SearchName, CustomName: s.CustomName,
		SearchConfig: wdk.SearchConfig{Parameters: s.SearchConfig.Parameters, WDKWeight: s.SearchConfig.WDKWeight},
	}}
	for _, in := range []*strategy.WDKStepTree{t.PrimaryInput, t.SecondaryInput} {
		if in == nil {
			continue
		}
		child, err := stepPlan(ws, in)
		if err != nil {
			return nil, err
		}
		p.Inputs = append(p.Inputs, child)
	}
	return p, nil
}
