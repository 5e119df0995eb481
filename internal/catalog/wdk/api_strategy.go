package wdk

import (
	"context"
	"net/http"
	"strconv"
)

// Steps and strategies live in the user's VEuPathDB account; every path
// uses the numeric user id resolved from the token, never the "current"
// alias (which with a wrong token silently writes into a guest account).

// CreateStep creates a step (POST /users/{id}/steps) and returns its id.
// Input-step parameters must be "": only a strategy's step tree wires
// inputs. WDK validates without filling defaults, so send every parameter.
func (c *Client) CreateStep(ctx context.Context, siteID string, step NewStep) (int64, error) {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return 0, opErr(siteID, "create step", err)
	}
	if step.SearchConfig.Parameters == nil {
		step.SearchConfig.Parameters = map[string]string{}
	}
	var out struct {
		ID optInt `json:"id"`
	}
	r := request{method: http.MethodPost, path: sc.path("/steps"), body: step, out: &out, search: step.SearchName}
	if err := c.doUser(ctx, sc, r); err != nil {
		return 0, opErr(siteID, "create step "+step.SearchName, err)
	}
	return out.ID.V, nil
}

// Step reads a step (GET /users/{id}/steps/{step}).
func (c *Client) Step(ctx context.Context, siteID string, stepID int64) (*Step, error) {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return nil, opErr(siteID, "get step", err)
	}
	var w wireStep
	if err := c.doUser(ctx, sc, request{method: http.MethodGet, path: sc.path("/steps/%d", stepID), out: &w}); err != nil {
		return nil, opErr(siteID, "get step "+strconv.FormatInt(stepID, 10), err)
	}
	s := w.step()
	return &s, nil
}

// UpdateStep changes a step's name or display settings (PATCH
// /users/{id}/steps/{step}).
func (c *Client) UpdateStep(ctx context.Context, siteID string, stepID int64, meta StepMeta) error {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return opErr(siteID, "update step", err)
	}
	err = c.doUser(ctx, sc, request{method: http.MethodPatch, path: sc.path("/steps/%d", stepID), body: meta})
	return opErr(siteID, "update step "+strconv.FormatInt(stepID, 10), err)
}

// DeleteStep deletes a step (DELETE /users/{id}/steps/{step}). A step still
// in a strategy is a *ConflictError: replace the step tree first.
func (c *Client) DeleteStep(ctx context.Context, siteID string, stepID int64) error {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return opErr(siteID, "delete step", err)
	}
	err = c.doUser(ctx, sc, request{method: http.MethodDelete, path: sc.path("/steps/%d", stepID)})
	return opErr(siteID, "delete step "+strconv.FormatInt(stepID, 10), err)
}

// PutSearchConfig replaces a step's answer spec (PUT
// /users/{id}/steps/{step}/search-config). Input-step values must stay
// byte-identical to the current ones, so read the step first.
func (c *Client) PutSearchConfig(ctx context.Context, siteID string, stepID int64, cfg SearchConfig) error {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return opErr(siteID, "update search config", err)
	}
	if cfg.Parameters == nil {
		cfg.Parameters = map[string]string{}
	}
	err = c.doUser(ctx, sc, request{method: http.MethodPut, path: sc.path("/steps/%d/search-config", stepID), body: cfg})
	return opErr(siteID, "update search config of step "+strconv.FormatInt(stepID, 10), err)
}

// StepReport runs the standard report of a step that is part of a strategy
// (POST /users/{id}/steps/{step}/reports/standard).
func (c *Client) StepReport(ctx context.Context, siteID string, stepID int64, rc ReportConfig) (*Report, error) {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return nil, opErr(siteID, "step report", err)
	}
	body := struct {
		ReportConfig ReportConfig `json:"reportConfig"`
	}{rc}
	var w wireReport
	if err := c.doUser(ctx, sc, request{method: http.MethodPost, path: sc.path("/steps/%d/reports/standard", stepID), body: body, out: &w}); err != nil {
		return nil, opErr(siteID, "report of step "+strconv.FormatInt(stepID, 10), err)
	}
	r := w.report()
	return &r, nil
}

// CreateStrategy assembles steps into a strategy (POST
// /users/{id}/strategies) and returns its id.
func (c *Client) CreateStrategy(ctx context.Context, siteID string, s NewStrategy) (int64, error) {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return 0, opErr(siteID, "create strategy", err)
	}
	var out struct {
		ID optInt `json:"id"`
	}
	if err := c.doUser(ctx, sc, request{method: http.MethodPost, path: sc.path("/strategies"), body: s, out: &out}); err != nil {
		return 0, opErr(siteID, "create strategy", err)
	}
	return out.ID.V, nil
}

// Strategy reads a strategy with its steps (GET
// /users/{id}/strategies/{strategy}); WDK recomputes stale step sizes
// before answering.
func (c *Client) Strategy(ctx context.Context, siteID string, strategyID int64) (*Strategy, error) {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return nil, opErr(siteID, "get strategy", err)
	}
	var w wireStrategy
	if err := c.doUser(ctx, sc, request{method: http.MethodGet, path: sc.path("/strategies/%d", strategyID), out: &w}); err != nil {
		return nil, opErr(siteID, "get strategy "+strconv.FormatInt(strategyID, 10), err)
	}
	s := w.strategy()
	return &s, nil
}

// PutStepTree replaces a strategy's step tree (PUT
// /users/{id}/strategies/{strategy}/step-tree). Steps left out are
// orphaned, not deleted.
func (c *Client) PutStepTree(ctx context.Context, siteID string, strategyID int64, tree StepTree) error {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return opErr(siteID, "replace step tree", err)
	}
	body := struct {
		StepTree StepTree `json:"stepTree"`
	}{tree}
	err = c.doUser(ctx, sc, request{method: http.MethodPut, path: sc.path("/strategies/%d/step-tree", strategyID), body: body})
	return opErr(siteID, "replace step tree of strategy "+strconv.FormatInt(strategyID, 10), err)
}

// DeleteStrategy deletes a strategy (DELETE /users/{id}/strategies/{strategy}).
func (c *Client) DeleteStrategy(ctx context.Context, siteID string, strategyID int64) error {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return opErr(siteID, "delete strategy", err)
	}
	err = c.doUser(ctx, sc, request{method: http.MethodDelete, path: sc.path("/strategies/%d", strategyID)})
	return opErr(siteID, "delete strategy "+strconv.FormatInt(strategyID, 10), err)
}
