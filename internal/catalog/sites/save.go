package sites

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"strategist/internal/catalog/wdk"
	"strategist/internal/strategy"
)

// strategyWriter is what saving needs from the live client (*wdk.Client).
type strategyWriter interface {
	CreateStep(ctx context.Context, siteID string, step wdk.NewStep) (int64, error)
	DeleteStep(ctx context.Context, siteID string, stepID int64) error
	CreateStrategy(ctx context.Context, siteID string, s wdk.NewStrategy) (int64, error)
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
// live site: its steps, then one strategy with the step tree. If anything
// fails, the steps already created are deleted again, so nothing half-made
// stays in the account. Each call is bounded by the registry's timeout.
func (r *Registry) SaveStrategy(ctx context.Context, site string, ws *strategy.WDKStrategy) (*Saved, error) {
	if !r.live[site] {
		return nil, ErrNotLive
	}
	w, ok := r.cfg.Live.(strategyWriter)
	if !ok {
		return nil, ErrNotLive
	}
	ctx = withTokenMemo(ctx) // one key look-up for the whole save
	ids := make([]strategy.StepID, 0, len(ws.Steps))
	for id := range ws.Steps {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	created := map[strategy.StepID]int64{}
	var order []int64
	fail := func(err error) (*Saved, error) {
		r.cleanup(ctx, w, site, order)
		return nil, err
	}
	for _, id := range ids {
		s := ws.Steps[id]
		var stepID int64
		err := r.call(ctx, site, func(cctx context.Context) error {
			var err error
			stepID, err = w.CreateStep(cctx, site, wdk.NewStep{
				SearchName: s.SearchName, CustomName: s.CustomName,
				SearchConfig: wdk.SearchConfig{Parameters: s.SearchConfig.Parameters, WDKWeight: s.SearchConfig.WDKWeight},
			})
			return err
		})
		if err != nil {
			return fail(fmt.Errorf("creating step %s (%s): %w", id, s.SearchName, err))
		}
		created[id] = stepID
		order = append(order, stepID)
	}
	tree, err := wdkTree(&ws.StepTree, created)
	if err != nil {
		return fail(err)
	}
	var strategyID int64
	err = r.call(ctx, site, func(cctx context.Context) error {
		var err error
		strategyID, err = w.CreateStrategy(cctx, site, wdk.NewStrategy{Name: ws.Name, StepTree: *tree})
		return err
	})
	if err != nil {
		return fail(fmt.Errorf("creating the strategy: %w", err))
	}
	return &Saved{Site: site, StrategyID: strategyID, URL: r.cfg.AppURLs[site] + "/app/workspace/strategies/" + strconv.FormatInt(strategyID, 10)}, nil
}

// call runs one live call under the registry's bound, with its failure
// classified.
func (r *Registry) call(ctx context.Context, site string, f func(context.Context) error) error {
	cctx, cancel := context.WithTimeoutCause(ctx, r.cfg.Timeout, &TimeoutError{Site: site, After: r.cfg.Timeout})
	defer cancel()
	return r.done(ctx, cctx, site, f(cctx))
}

// cleanup deletes the steps a failed save created, newest first, even if
// the caller has gone.
func (r *Registry) cleanup(ctx context.Context, w strategyWriter, site string, steps []int64) {
	ctx = context.WithoutCancel(ctx)
	for i := len(steps) - 1; i >= 0; i-- {
		cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
		_ = w.DeleteStep(cctx, site, steps[i])
		cancel()
	}
}

func wdkTree(t *strategy.WDKStepTree, ids map[strategy.StepID]int64) (*wdk.StepTree, error) {
	if t == nil {
		return nil, nil
	}
	id, ok := ids[t.StepID]
	if !ok {
		return nil, fmt.Errorf("the step tree names step %s, which the strategy does not have", t.StepID)
	}
	out := &wdk.StepTree{StepID: id}
	var err error
	if out.PrimaryInput, err = wdkTree(t.PrimaryInput, ids); err != nil {
		return nil, err
	}
	if out.SecondaryInput, err = wdkTree(t.SecondaryInput, ids); err != nil {
		return nil, err
	}
	return out, nil
}
