package strategies

import (
	"context"
	"errors"
	"fmt"

	"strategist/internal/catalog"
	"strategist/internal/strategy"
)

// StepControls are a step's figures against the conversation's control
// lists: how many of the known positives and negatives its genes include.
// Recall is PositivesFound / PositivesTotal and Precision is
// PositivesFound / (PositivesFound + NegativesFound); each is null where
// its denominator is zero, and every figure is null when the step's genes
// cannot be computed (Status and Message say why).
type StepControls struct {
	StepID         strategy.StepID `json:"stepId"`
	PositivesFound *int            `json:"positivesFound"`
	PositivesTotal int             `json:"positivesTotal"`
	NegativesFound *int            `json:"negativesFound"`
	NegativesTotal int             `json:"negativesTotal"`
	Recall         *float64        `json:"recall"`
	Precision      *float64        `json:"precision"`
	// PositivesMissed are the positives the step does not find, in the
	// list's order: where a known gene is lost.
	PositivesMissed []string `json:"positivesMissed"`
	// NegativesFoundIDs are the negatives the step finds.
	NegativesFoundIDs []string             `json:"negativesFoundIds"`
	Status            strategy.CountStatus `json:"status"`
	Message           string               `json:"message,omitempty"`
}

// ControlReport is every step's figures against the controls, in the
// graph's step order, for one version of a strategy.
type ControlReport struct {
	StrategyID string          `json:"strategyId"`
	Version    int             `json:"version"`
	RootStepID strategy.StepID `json:"rootStepId,omitempty"`
	Steps      []StepControls  `json:"steps"`
}

// Controls computes each step's figures against positives and negatives
// (current gene ids; either may be empty) exactly: each step's whole
// answer is read from the catalog and intersected with the lists. A step
// whose answer the catalog cannot compute has null figures and says why;
// a catalog that cannot answer at all is an error.
func (s *Service) Controls(ctx context.Context, userID, strategyID string, positives, negatives []string) (*ControlReport, error) {
	snap, g, _, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return nil, err
	}
	pos, neg := distinct(positives), distinct(negatives)
	out := &ControlReport{StrategyID: snap.StrategyID, Version: snap.Version, RootStepID: snap.RootStepID, Steps: make([]StepControls, 0, len(g.Steps))}
	for _, st := range g.Steps {
		sc := StepControls{StepID: st.ID, PositivesTotal: len(pos), NegativesTotal: len(neg), PositivesMissed: []string{}, NegativesFoundIDs: []string{}}
		genes, err := s.stepGenes(ctx, g, st.ID)
		if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
			sc.Status, sc.Message = strategy.CountNotEvaluable, ne.Error()
			out.Steps = append(out.Steps, sc)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("strategy: controls of %s: %w", st.ID, err)
		}
		pf, nf := 0, 0
		for _, id := range pos {
			if genes[id] {
				pf++
			} else {
				sc.PositivesMissed = append(sc.PositivesMissed, id)
			}
		}
		for _, id := range neg {
			if genes[id] {
				nf++
				sc.NegativesFoundIDs = append(sc.NegativesFoundIDs, id)
			}
		}
		sc.Status, sc.PositivesFound, sc.NegativesFound = strategy.CountOK, &pf, &nf
		sc.Recall, sc.Precision = ratio(pf, len(pos)), ratio(pf, pf+nf)
		out.Steps = append(out.Steps, sc)
	}
	return out, nil
}

// stepGenes reads all of a step's genes, a page at a time.
func (s *Service) stepGenes(ctx context.Context, g *strategy.Graph, id strategy.StepID) (map[string]bool, error) {
	q, err := g.Query(id)
	if err != nil {
		return nil, err
	}
	return strategy.Genes(ctx, s.cat, g.SiteID, q)
}

// ratio is n/d, or nil when d is zero.
func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	r := float64(n) / float64(d)
	return &r
}

// distinct keeps the first of each id, in order.
func distinct(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// GeneTrace is where one gene goes through a strategy: each step, from
// the root down (each step before its inputs, primary first), with whether
// the step's genes include it. LostAt are the steps that drop it: the
// gene is among an input's genes but not the step's own.
type GeneTrace struct {
	Gene   string            `json:"gene"`
	Steps  []StepTrace       `json:"steps"`
	LostAt []strategy.StepID `json:"lostAt"`
}

// StepTrace is one step of a GeneTrace. Found is null when the step's
// genes cannot be computed (Message says why).
type StepTrace struct {
	StepID  strategy.StepID   `json:"stepId"`
	Depth   int               `json:"depth"`
	Inputs  []strategy.StepID `json:"inputs"`
	Found   *bool             `json:"found"`
	Message string            `json:"message,omitempty"`
}

// TraceGene follows a gene (a current gene id) through every step of the
// strategy, answering "which step drops my gene".
func (s *Service) TraceGene(ctx context.Context, userID, strategyID, gene string) (*GeneTrace, error) {
	_, g, _, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return nil, err
	}
	out := &GeneTrace{Gene: gene, Steps: []StepTrace{}, LostAt: []strategy.StepID{}}
	found := map[strategy.StepID]*bool{}
	var walk func(id strategy.StepID, depth int) error
	walk = func(id strategy.StepID, depth int) error {
		st, ok := g.Step(id)
		if !ok || depth > len(g.Steps) {
			return fmt.Errorf("strategy: trace %s: %w: step %s", gene, strategy.ErrInvalidGraph, id)
		}
		tr := StepTrace{StepID: id, Depth: depth, Inputs: st.Inputs}
		genes, err := s.stepGenes(ctx, g, id)
		if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
			tr.Message = ne.Error()
		} else if err != nil {
			return fmt.Errorf("strategy: trace %s through %s: %w", gene, id, err)
		} else {
			f := genes[gene]
			tr.Found = &f
		}
		found[id] = tr.Found
		out.Steps = append(out.Steps, tr)
		for _, in := range st.Inputs {
			if err := walk(in, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, root := range g.Roots() {
		if err := walk(root, 0); err != nil {
			return nil, err
		}
	}
	for _, tr := range out.Steps {
		if tr.Found == nil || *tr.Found {
			continue
		}
		for _, in := range tr.Inputs {
			if f := found[in]; f != nil && *f {
				out.LostAt = append(out.LostAt, tr.StepID)
				break
			}
		}
	}
	return out, nil
}
