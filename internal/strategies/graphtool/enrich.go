package graphtool

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"strategist/internal/catalog/enrich"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// The codes of enrich_step's own refusals.
const (
	// CodeEnrichmentUnavailable: the site's GO annotations are not
	// available to Strategist (the live sites); the message says what to
	// do instead.
	CodeEnrichmentUnavailable = "ENRICHMENT_UNAVAILABLE"
	// CodeNoRoot: no step was named and the strategy has no one root.
	CodeNoRoot = "NO_ROOT"
)

// Bounds of what enrich_step shows a model: the most significant terms
// and the first genes of each, with how many more there are.
const (
	maxEnrichedTerms = 15
	maxTermGenes     = 10
)

const enrichStepDoc = "Test a step's genes for Gene Ontology enrichment: which biological-process terms they are over-represented in, " +
	"against every annotated gene of the organism (one-sided hypergeometric test, Fisher's exact, as VEuPathDB's GO enrichment; " +
	"Benjamini–Hochberg (benjamini) and Bonferroni adjustments over all tested terms). Leave step_id empty for the strategy's root. " +
	"Returns the most significant terms (GO id, name, the step's genes in the term of its annotated genes, the term's genes in the " +
	"background, fold enrichment, p-value, adjusted p-values, the genes) and what the data cannot offer (molecular function, cellular " +
	"component, evidence codes). Report the adjusted p-value (benjamini) with each term."

// EnrichArgs are the arguments of enrich_step.
type EnrichArgs struct {
	StepID string  `json:"step_id,omitempty" jsonschema:"the step whose genes to test; empty for the strategy's root"`
	Cutoff float64 `json:"cutoff,omitempty" jsonschema:"keep terms whose p-value is at most this, greater than 0 and at most 1 (default 0.05)"`
}

// EnrichedTerm is one term as enrich_step shows it.
type EnrichedTerm struct {
	GOID            string           `json:"goId"`
	Name            string           `json:"name"`
	ResultCount     int              `json:"resultCount"`
	BackgroundCount int              `json:"backgroundCount"`
	FoldEnrichment  float64          `json:"foldEnrichment"`
	OddsRatio       enrich.OddsRatio `json:"oddsRatio"`
	PValue          float64          `json:"pValue"`
	Benjamini       float64          `json:"benjamini"`
	Bonferroni      float64          `json:"bonferroni"`
	GeneIDs         []string         `json:"geneIds"`
	MoreGenes       int              `json:"moreGenes,omitempty"`
}

// EnrichResult is the result of enrich_step.
type EnrichResult struct {
	StepID   strategy.StepID `json:"stepId"`
	Ontology string          `json:"ontology"`
	Method   string          `json:"method"`
	Cutoff   float64         `json:"cutoff"`
	// StepSize is the step's genes, ResultSize those with an annotation,
	// BackgroundSize the annotated genes of the organism.
	StepSize       int `json:"stepSize"`
	ResultSize     int `json:"resultSize"`
	BackgroundSize int `json:"backgroundSize"`
	TestedTerms    int `json:"testedTerms"`
	// Significant is how many terms passed the cutoff; Terms are the most
	// significant of them, by p-value.
	Significant int            `json:"significant"`
	Terms       []EnrichedTerm `json:"terms"`
	Limits      string         `json:"limits,omitempty"`
	Provenance  string         `json:"provenance"`
}

func (t *tools) enrichStep() tool.Tool {
	return tool.NewTool("enrich_step", enrichStepDoc, t.doEnrichStep, tool.WithSchema(func(s *jsonschema.Schema) {
		s.Properties["cutoff"].Minimum, s.Properties["cutoff"].Maximum = ptr(0.0), ptr(1.0)
	}))
}

// doEnrichStep is the enrich_step tool.
func (t *tools) doEnrichStep(ctx context.Context, a EnrichArgs) (*EnrichResult, error) {
	const op = "enrich step"
	step := strategy.StepID(strings.TrimSpace(a.StepID))
	cutoff := a.Cutoff
	if cutoff == 0 {
		cutoff = enrich.DefaultCutoff
	}
	if err := enrich.CheckCutoff(cutoff); err != nil {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: err.Error(), Details: map[string]any{"cutoff": a.Cutoff}}
	}
	id, ok, err := t.s.forRead(ctx)
	if err == nil && !ok {
		return nil, noStrategyYet(op, step)
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	if step == "" {
		snap, err := t.s.b.Service.Conversation(ctx, t.s.b.UserID, t.s.b.ConversationID)
		if err != nil {
			return nil, t.fail(op, err)
		}
		if step = snap.RootStepID; step == "" {
			return nil, &tool.ToolError{Code: CodeNoRoot, Details: map[string]any{"roots": snap.Roots},
				Message: fmt.Sprintf("%s: the strategy has no one root (roots: %s); name the step to test in step_id", op, joinIDs(snap.Roots))}
		}
	}
	res, err := t.s.b.Service.StepEnrichment(ctx, t.s.b.UserID, id, step, cutoff)
	if ue, ok := errors.AsType[*enrich.UnavailableError](err); ok {
		return nil, &tool.ToolError{Code: CodeEnrichmentUnavailable, Message: ue.Error(), Details: map[string]any{"site": ue.Site}, Err: err}
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	out := &EnrichResult{
		StepID: step, Ontology: res.Ontology, Method: res.Method, Cutoff: res.Cutoff, StepSize: res.StepSize,
		ResultSize: res.ResultSize, BackgroundSize: res.BackgroundSize, TestedTerms: res.TestedTerms,
		Significant: len(res.Terms), Terms: []EnrichedTerm{}, Limits: res.Limits, Provenance: provenance(res.Provenance),
	}
	for _, term := range res.Terms[:min(len(res.Terms), maxEnrichedTerms)] {
		out.Terms = append(out.Terms, EnrichedTerm{
			GOID: term.GOID, Name: term.Name, ResultCount: term.ResultCount, BackgroundCount: term.BackgroundCount,
			FoldEnrichment: term.FoldEnrichment, OddsRatio: term.OddsRatio, PValue: term.PValue,
			Benjamini: term.Benjamini, Bonferroni: term.Bonferroni,
			GeneIDs: term.GeneIDs[:min(len(term.GeneIDs), maxTermGenes)], MoreGenes: max(0, len(term.GeneIDs)-maxTermGenes),
		})
	}
	return out, nil
}
