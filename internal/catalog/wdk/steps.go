package wdk

import (
	"context"
	"log/slog"

	"golang.org/x/sync/errgroup"
)

// StepPlan is a strategy to build: the body of a step to create and the
// plans of its inputs, in the order of its search's input-step parameters
// (for a boolean, the left operand first). WDK creates steps without
// wiring their inputs, so every step of a plan can be created at once;
// the strategy's step tree wires them afterwards.
type StepPlan struct {
	Step   NewStep
	Inputs []*StepPlan
}

// planned is one step of a plan being built, with the id WDK gave it.
type planned struct {
	plan   *StepPlan
	inputs []*planned
	id     int64
}

// BuildStrategy creates every step of plan, concurrently within the site's
// concurrency bound, then one strategy (s, its StepTree set from the plan)
// over them, and returns the strategy's id and step tree. This is how both
// a temporary strategy for an answer and a strategy saved to a
// researcher's account are made. If a step or the strategy cannot be
// created, the steps already created are deleted again (they are in no
// strategy yet, so WDK allows it), also when the caller has given up, and
// the error is returned.
func (c *Client) BuildStrategy(ctx context.Context, siteID string, s NewStrategy, plan *StepPlan) (int64, StepTree, error) {
	site, err := c.site(siteID)
	if err != nil {
		return 0, StepTree{}, err
	}
	var all []*planned
	var walk func(p *StepPlan) *planned
	walk = func(p *StepPlan) *planned {
		n := &planned{plan: p}
		all = append(all, n)
		for _, in := range p.Inputs {
			n.inputs = append(n.inputs, walk(in))
		}
		return n
	}
	root := walk(plan)

	// Each worker writes only its own step's id; Wait orders those writes
	// before the reads below.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cap(site.sem))
	for _, n := range all {
		g.Go(func() error {
			step, err := c.stepWithDatasets(gctx, siteID, n.plan.Step)
			if err != nil {
				return err
			}
			id, err := c.CreateStep(gctx, siteID, step)
			n.id = id
			return err
		})
	}
	if err := g.Wait(); err != nil {
		c.deleteSteps(ctx, siteID, all)
		return 0, StepTree{}, err
	}
	s.StepTree = root.tree()
	id, err := c.CreateStrategy(ctx, siteID, s)
	if err != nil {
		c.deleteSteps(ctx, siteID, all)
		return 0, StepTree{}, err
	}
	return id, s.StepTree, nil
}

// stepWithDatasets is a step body whose input-dataset values that hold
// identifiers (a saved strategy's list steps) are uploaded as datasets;
// the plan is not modified.
func (c *Client) stepWithDatasets(ctx context.Context, siteID string, s NewStep) (NewStep, error) {
	d, err := c.details(ctx, siteID, "", s.SearchName)
	if err != nil {
		return s, opErr(siteID, "create step "+s.SearchName, err)
	}
	params, err := c.withDatasets(ctx, siteID, d, s.SearchConfig.Parameters)
	if err != nil {
		return s, opErr(siteID, "create step "+s.SearchName, err)
	}
	s.SearchConfig.Parameters = params
	return s, nil
}

// tree wires a step's inputs in its search's input-step order.
func (n *planned) tree() StepTree {
	t := StepTree{StepID: n.id}
	if len(n.inputs) > 0 {
		p := n.inputs[0].tree()
		t.PrimaryInput = &p
	}
	if len(n.inputs) > 1 {
		s := n.inputs[1].tree()
		t.SecondaryInput = &s
	}
	return t
}

// deleteSteps removes the steps created before a failure.
func (c *Client) deleteSteps(ctx context.Context, site string, steps []*planned) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	for _, n := range steps {
		if n.id == 0 {
			continue
		}
		if err := c.DeleteStep(cctx, site, n.id); err != nil {
			c.log.LogAttrs(ctx, slog.LevelWarn, "wdk: step not deleted after a failed build",
				slog.String("site", site), slog.Int64("step_id", n.id), slog.Any("error", err))
		}
	}
}
