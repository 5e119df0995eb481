package server

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog/enrich"
	"strategist/internal/sites"
	"strategist/internal/strategy"
	"strategist/web"
)

// CodeEnrichmentUnavailable: GO enrichment cannot be computed for the
// conversation's site (the live sites); 422, the message says what to do
// instead.
const CodeEnrichmentUnavailable = "ENRICHMENT_UNAVAILABLE"

// enrichmentColumns are the columns of the enrichment table as downloaded.
var enrichmentColumns = []string{"go_id", "name", "result_count", "background_count", "result_size", "background_size",
	"fold_enrichment", "odds_ratio", "p_value", "benjamini", "bonferroni", "gene_ids"}

// enrichmentBody is the JSON answer: the step and its enrichment.
type enrichmentBody struct {
	StepID strategy.StepID `json:"stepId"`
	*enrich.Result
}

// queryCutoff reads the cutoff parameter: a p-value in (0, 1], default
// enrich.DefaultCutoff.
func queryCutoff(c echo.Context) (float64, error) {
	raw := c.QueryParam("cutoff")
	if raw == "" {
		return enrich.DefaultCutoff, nil
	}
	v, err := strconv.ParseFloat(raw, 64)
	if err != nil || enrich.CheckCutoff(v) != nil {
		return 0, badRequest("cutoff: " + enrich.ErrInvalidCutoff.Error() + ", such as 0.05")
	}
	return v, nil
}

// stepEnrichment is GET /api/v1/conversations/{id}/strategy/steps/{stepId}/enrichment:
// the GO enrichment of a step's genes (terms with p ≤ cutoff, adjusted
// over every tested term), as JSON or, with format=tsv, as a table to
// download.
func (s *Server) stepEnrichment(c echo.Context) error {
	format := c.QueryParam("format")
	if format != "" && format != "json" && format != "tsv" {
		return badRequest(`format must be "json" or "tsv"`)
	}
	cutoff, err := queryCutoff(c)
	if err != nil {
		return err
	}
	conv, snap, err := s.conversationAndStrategy(c)
	if err != nil {
		return err
	}
	stepID := strategy.StepID(c.Param("stepId"))
	res, err := s.cfg.Strategies.StepEnrichment(c.Request().Context(), userID(c), snap.StrategyID, stepID, cutoff)
	if err != nil {
		return strategyError(err)
	}
	if format != "tsv" {
		return c.JSON(http.StatusOK, enrichmentBody{StepID: stepID, Result: res})
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/tab-separated-values; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="strategist-%s-%s-go-enrichment.tsv"`, conv.ID[:8], stepID))
	h.Set("Cache-Control", "no-store")
	return c.String(http.StatusOK, enrichmentTSV(stepID, res))
}

// enrichmentTSV writes the enrichment as a table: "# " lines saying what
// was tested, how and from what data, then a header and one term a row.
// Numbers are written exactly (the shortest form that reads back the same
// value); an odds ratio is "Inf" when infinite and "NA" when undefined.
func enrichmentTSV(stepID strategy.StepID, r *enrich.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# GO enrichment (%s) of step %s: %d of its %d genes annotated, background %d annotated genes; %d terms tested, %d with p <= %s\n",
		r.Ontology, stepID, r.ResultSize, r.StepSize, r.BackgroundSize, r.TestedTerms, len(r.Terms), num(r.Cutoff))
	fmt.Fprintf(&b, "# %s\n", r.Method)
	fmt.Fprintf(&b, "# %s\n", provenanceLine(r.Provenance))
	if r.Limits != "" {
		fmt.Fprintf(&b, "# %s\n", r.Limits)
	}
	b.WriteString(strings.Join(enrichmentColumns, "\t") + "\n")
	for _, t := range r.Terms {
		cells := []string{t.GOID, tsvCell.Replace(t.Name), strconv.Itoa(t.ResultCount), strconv.Itoa(t.BackgroundCount),
			strconv.Itoa(t.ResultSize), strconv.Itoa(t.BackgroundSize), num(t.FoldEnrichment), oddsCell(t.OddsRatio),
			num(t.PValue), num(t.Benjamini), num(t.Bonferroni), strings.Join(t.GeneIDs, ",")}
		b.WriteString(strings.Join(cells, "\t") + "\n")
	}
	return b.String()
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func oddsCell(o enrich.OddsRatio) string {
	if s := o.String(); s == "Inf" || s == "NA" {
		return s
	}
	return num(float64(o))
}

// enrichmentError maps the enrichment's own errors; others are strategy
// errors.
func enrichmentError(err error) (*APIError, bool) {
	if ue, ok := errors.AsType[*enrich.UnavailableError](err); ok {
		return &APIError{Status: http.StatusUnprocessableEntity, Code: CodeEnrichmentUnavailable, Message: ue.Error(),
			Details: map[string]any{"site": ue.Site}, Err: err}, true
	}
	if errors.Is(err, enrich.ErrInvalidCutoff) {
		return badRequest("cutoff: " + enrich.ErrInvalidCutoff.Error()), true
	}
	return nil, false
}

// stepEnrichmentPage is GET /conversations/{id}/strategy/steps/{stepId}/enrichment:
// the step's GO enrichment table, as the fragment htmx puts under its
// genes, or as a page of its own for a plain browser. A step without one
// (a live site, a search the snapshot cannot evaluate) says why instead.
func (s *Server) stepEnrichmentPage(c echo.Context) error {
	cutoff, err := queryCutoff(c)
	if err != nil {
		return err
	}
	snap, st, err := s.conversationStep(c)
	if err != nil {
		return err
	}
	stepID := st.ID
	v := web.EnrichmentView{ConversationID: c.Param("id"), StepID: string(stepID), StepName: st.DisplayName}
	if v.StepName == "" {
		v.StepName = st.SearchName
	}
	v.GenePage, _ = sites.GenePages(snap.SiteID)
	res, err := s.cfg.Strategies.StepEnrichment(c.Request().Context(), userID(c), snap.StrategyID, stepID, cutoff)
	if err != nil {
		ae := toAPIError(strategyError(err))
		if ae.Status >= 500 && ae.Code != CodeUnavailable && ae.Code != CodeSiteUnavailable && ae.Code != CodeSiteError {
			return err
		}
		if ae.Status == http.StatusNotFound {
			return ae
		}
		v.Error = ae.Message
	}
	v.Result = res
	if isHTMX(c) {
		return s.render(c, http.StatusOK, web.Enrichment(v))
	}
	return s.render(c, http.StatusOK, web.EnrichmentPage(s.page(c, "GO enrichment of "+v.StepName), v))
}
