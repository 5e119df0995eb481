package strategies

import (
	"context"
	"errors"
	"fmt"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
	"strategist/internal/strategy"
)

// Page sizes for step results.
const (
	DefaultPageSize = 50
	MaxPageSize     = 1000
)

// StepResults returns one page of a step's records (its whole subtree
// evaluated by the catalog), for GET .../strategy/steps/{stepId}/results.
// A limit of 0 means DefaultPageSize. A search the catalog cannot evaluate
// is ErrNotEvaluable wrapping the *catalog.NotEvaluableError.
func (s *Service) StepResults(ctx context.Context, userID, strategyID string, stepID strategy.StepID, page catalog.Page) (*catalog.Answer, error) {
	if page.Limit == 0 {
		page.Limit = DefaultPageSize
	}
	if page.Offset < 0 || page.Limit < 0 || page.Limit > MaxPageSize {
		return nil, fmt.Errorf("strategy: step results: %w: offset must be ≥ 0 and limit between 1 and %d", strategy.ErrInvalidPage, MaxPageSize)
	}
	_, g, _, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return nil, err
	}
	q, err := g.Query(stepID)
	if err != nil {
		return nil, err
	}
	ans, err := s.cat.Answer(ctx, g.SiteID, q, page)
	if err != nil {
		return nil, answerError(stepID, err)
	}
	return ans, nil
}

// StepCount returns a step's count: the recorded one when it is known, else
// computed now through the cached counter. It reads only; the graph is not
// changed (a count is recorded by the next change of the strategy).
func (s *Service) StepCount(ctx context.Context, userID, strategyID string, stepID strategy.StepID) (strategy.CountResult, error) {
	_, g, _, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return strategy.CountResult{}, err
	}
	st, ok := g.Step(stepID)
	if !ok {
		return strategy.CountResult{}, &strategy.StepError{Kind: strategy.ErrStepNotFound, Op: "count", Step: stepID, Roots: g.Roots(),
			Detail: fmt.Sprintf("there is no step %s", stepID)}
	}
	if st.CountStatus == strategy.CountOK || st.CountStatus == strategy.CountNotEvaluable {
		res := strategy.CountResult{Status: st.CountStatus, Message: st.CountMessage, Provenance: st.CountProvenance}
		if st.Count != nil {
			res.Count = *st.Count
		}
		return res, nil
	}
	q, err := g.Query(stepID)
	if err != nil {
		return strategy.CountResult{}, err
	}
	return s.counter.Count(ctx, g.SiteID, q), nil
}

func answerError(id strategy.StepID, err error) error {
	if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
		return fmt.Errorf("strategy: results of %s: %w: %w", id, strategy.ErrNotEvaluable, ne)
	}
	return fmt.Errorf("strategy: results of %s: %w", id, err)
}

// Enricher computes the GO enrichment of a query tree's genes
// (*sites.Registry, or the offline catalog itself).
type Enricher interface {
	Enrich(ctx context.Context, site string, q *catalog.Query, cutoff float64) (*enrich.Result, error)
}

// StepEnrichment is the GO enrichment of a step's genes (its whole subtree
// evaluated by the catalog), keeping the terms with p ≤ cutoff. A catalog
// that cannot compute one is an *enrich.UnavailableError; a search it
// cannot evaluate is ErrNotEvaluable, as for StepResults.
func (s *Service) StepEnrichment(ctx context.Context, userID, strategyID string, stepID strategy.StepID, cutoff float64) (*enrich.Result, error) {
	if err := enrich.CheckCutoff(cutoff); err != nil {
		return nil, fmt.Errorf("strategy: enrichment of %s: %w", stepID, err)
	}
	_, g, _, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return nil, err
	}
	q, err := g.Query(stepID)
	if err != nil {
		return nil, err
	}
	en, ok := s.cat.(Enricher)
	if !ok {
		return nil, &enrich.UnavailableError{Site: g.SiteID, Reason: "this catalog has no GO annotations to test"}
	}
	res, err := en.Enrich(ctx, g.SiteID, q, cutoff)
	if err != nil {
		return nil, answerError(stepID, err)
	}
	return res, nil
}
