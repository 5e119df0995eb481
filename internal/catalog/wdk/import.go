package wdk

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"strategist/internal/catalog"
)

// CopyStrategy copies a strategy shared by its signature (what a share
// link names it by) into the caller's account (POST /users/{id}/strategies
// {"sourceStrategySignature"}) and returns the copy's id. An unknown
// signature is WDK's 422, a *catalog.ValidationError.
func (c *Client) CopyStrategy(ctx context.Context, siteID, signature string) (int64, error) {
	sc, err := c.userScope(ctx, siteID)
	if err != nil {
		return 0, opErr(siteID, "copy strategy", err)
	}
	var out struct {
		ID optInt `json:"id"`
	}
	body := map[string]string{"sourceStrategySignature": signature}
	if err := c.doUser(ctx, sc, request{method: http.MethodPost, path: sc.path("/strategies"), body: body, out: &out}); err != nil {
		return 0, opErr(siteID, "copy the shared strategy", err)
	}
	return out.ID.V, nil
}

// ReadStrategy reads a strategy of the caller's account as Strategist
// keeps steps: each step's parameters as the site stores them, except
// input-step parameters, which are "" (the step tree wires inputs), and
// input-dataset parameters, which hold the gene ids the step finds as a
// JSON array (a dataset's identifiers cannot be read back; its step's
// answer can, and gives them as current ids). The dataset steps are read
// concurrently within the site's bound.
func (c *Client) ReadStrategy(ctx context.Context, siteID string, strategyID int64) (*Strategy, error) {
	s, err := c.Strategy(ctx, siteID, strategyID)
	if err != nil {
		return nil, err
	}
	site, err := c.site(siteID)
	if err != nil {
		return nil, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cap(site.sem))
	for id, st := range s.Steps {
		d, err := c.details(ctx, siteID, "", st.SearchName)
		if err != nil {
			return nil, opErr(siteID, "read step "+strconv.FormatInt(id, 10)+" of strategy "+strconv.FormatInt(strategyID, 10), err)
		}
		params := make(map[string]string, len(st.SearchConfig.Parameters))
		for k, v := range st.SearchConfig.Parameters {
			params[k] = v
		}
		for _, name := range d.InputParams {
			if _, ok := params[name]; ok {
				params[name] = ""
			}
		}
		st.SearchConfig.Parameters = params
		s.Steps[id] = st
		if p := datasetParam(d); p != "" && catalog.IsDatasetID(params[p]) {
			g.Go(func() error {
				genes, err := c.stepGenes(gctx, siteID, id)
				if err != nil {
					return err
				}
				params[p] = catalog.EncodeTerms(genes)
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return s, nil
}

// stepGenes reads the gene ids of a step of a strategy, its whole answer,
// in the site's order.
func (c *Client) stepGenes(ctx context.Context, siteID string, stepID int64) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for offset := 0; ; {
		rep, err := c.StepReport(ctx, siteID, stepID, ReportConfig{Pagination: Pagination{Offset: offset, NumRecords: maxPageSize}})
		if err != nil {
			return nil, err
		}
		for i := range rep.Records {
			if g := strings.TrimSpace(toRecord(&rep.Records[i]).GeneID); g != "" && !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
		offset += len(rep.Records)
		if len(rep.Records) == 0 || int64(offset) >= rep.TotalCount {
			return out, nil
		}
	}
}
