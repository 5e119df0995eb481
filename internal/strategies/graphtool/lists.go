package graphtool

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"strategist/internal/catalog"
	"strategist/internal/genelist"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// Lists is the researcher's gene lists (*genelist.Service): found by id
// or name, made from a step's genes, and the conversation's controls.
type Lists interface {
	Find(ctx context.Context, userID, ref string) (store.GeneList, error)
	FromGenes(ctx context.Context, userID, siteID, name string, ids []string) (store.GeneList, error)
	Controls(ctx context.Context, userID, conversationID string) (store.Controls, error)
	Resolve(ctx context.Context, siteID string, ids []string) (*catalog.GeneResolution, error)
	ControlSetter
}

// ControlSetter saves genes the researcher named as a list and makes it
// one side of the conversation's controls (*genelist.Service).
type ControlSetter interface {
	KnownAsControls(ctx context.Context, userID, siteID, conversationID, name string, ids []string, negatives bool) (store.Controls, store.GeneList, error)
}

// Scorer reads a strategy's genes against lists (*strategies.Service).
type Scorer interface {
	StepResults(ctx context.Context, userID, strategyID string, stepID strategy.StepID, page catalog.Page) (*catalog.Answer, error)
	Controls(ctx context.Context, userID, strategyID string, positives, negatives []string) (*strategies.ControlReport, error)
	TraceGene(ctx context.Context, userID, strategyID, gene string) (*strategies.GeneTrace, error)
}

// ListStepArgs are the arguments of create_list_step.
type ListStepArgs struct {
	List        string `json:"list" jsonschema:"the researcher's gene list: its name (any case) or id"`
	DisplayName string `json:"display_name,omitempty" jsonschema:"a short name for the step (default: List: <name>)"`
}

func (t *tools) createListStep() tool.Tool {
	return tool.NewTool("create_list_step",
		"Add a search step whose genes are one of the researcher's saved gene lists (the gene ids search, GeneByLocusTag, over the list's current ids). "+
			"The new step becomes a root: start a strategy from the list, or combine it with other steps (e.g. INTERSECT with a chromosome step).",
		t.doCreateListStep, tool.WithSchema(func(s *jsonschema.Schema) {
			s.Properties["list"].MinLength = ptr(1)
		}))
}

// doCreateListStep is the create_list_step tool.
func (t *tools) doCreateListStep(ctx context.Context, a ListStepArgs) (*StepResult, error) {
	const op = "create list step"
	l, err := t.s.b.Lists.Find(ctx, t.s.b.UserID, a.List)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &tool.ToolError{Code: "LIST_NOT_FOUND", Message: trimPrefix(err.Error()), Err: err}
	}
	if ie, ok := errors.AsType[*genelist.InputError](err); ok {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: ie.Message, Err: err}
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	if l.SiteID != t.s.b.Site {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: "the list " + l.Name + " was resolved on site " + l.SiteID + ", not this conversation's " + t.s.b.Site}
	}
	m, err := genelist.Step(l, a.DisplayName)
	if err != nil {
		return nil, t.fail(op, err)
	}
	return t.apply(ctx, op, m, true)
}

// SaveListArgs are the arguments of save_gene_list.
type SaveListArgs struct {
	StepID string `json:"step_id" jsonschema:"the step whose genes to save"`
	Name   string `json:"name" jsonschema:"the list's name"`
}

// SavedList is save_gene_list's result.
type SavedList struct {
	ListID string `json:"listId"`
	Name   string `json:"name"`
	Size   int    `json:"size"`
}

func (t *tools) saveGeneList() tool.Tool {
	return tool.NewTool("save_gene_list",
		"Save all of a step's genes as one of the researcher's gene lists (kept across conversations; usable as a step or as controls). "+
			"Use it when the researcher asks to save or keep genes as a list or set; it never changes the strategy.",
		t.doSaveGeneList, tool.WithSchema(func(s *jsonschema.Schema) {
			s.Properties["step_id"].MinLength = ptr(1)
			s.Properties["name"].MinLength = ptr(1)
		}))
}

func (t *tools) doSaveGeneList(ctx context.Context, a SaveListArgs) (*SavedList, error) {
	const op = "save gene list"
	id, ok, err := t.s.forRead(ctx)
	if err == nil && !ok {
		return nil, noStrategyYet(op, strategy.StepID(a.StepID))
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	var ids []string
	page := catalog.Page{Limit: strategies.MaxPageSize}
	for {
		ans, err := t.s.b.Scorer.StepResults(ctx, t.s.b.UserID, id, strategy.StepID(a.StepID), page)
		if err != nil {
			return nil, t.fail(op, err)
		}
		for _, r := range ans.Records {
			ids = append(ids, r.GeneID)
		}
		page.Offset += len(ans.Records)
		if len(ans.Records) == 0 || page.Offset >= ans.Count {
			break
		}
	}
	l, err := t.s.b.Lists.FromGenes(ctx, t.s.b.UserID, t.s.b.Site, a.Name, ids)
	if ie, ok := errors.AsType[*genelist.InputError](err); ok {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: ie.Message, Err: err}
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	return &SavedList{ListID: l.ID, Name: l.Name, Size: len(l.Genes)}, nil
}

// ControlsResult is score_controls' result: the lists and every step's
// figures, the positives each step misses cut to a few.
type ControlsResult struct {
	Positives string              `json:"positives,omitempty"`
	Negatives string              `json:"negatives,omitempty"`
	Root      strategy.StepID     `json:"rootStepId,omitempty"`
	Steps     []StepControlsBrief `json:"steps"`
}

// StepControlsBrief is one step's figures for a model.
type StepControlsBrief struct {
	strategies.StepControls
	// MissedCount is how many positives the step misses; PositivesMissed
	// keeps the first few.
	MissedCount int `json:"missedCount"`
}

const briefMissed = 10

func (t *tools) scoreControls() tool.Tool {
	return tool.NewTool("score_controls",
		"Test the strategy against the conversation's control gene lists: for every step, positives found / total, negatives found / total, "+
			"recall and precision (null where undefined), and the positives it misses. Use it for \"test this against my controls\"; it never changes the strategy.",
		t.doScoreControls)
}

func (t *tools) doScoreControls(ctx context.Context, _ NoArgs) (*ControlsResult, error) {
	const op = "score controls"
	id, ok, err := t.s.forRead(ctx)
	if err == nil && !ok {
		return nil, noStrategyYet(op, "")
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	ctl, err := t.s.b.Lists.Controls(ctx, t.s.b.UserID, t.s.b.ConversationID)
	if err != nil {
		return nil, t.fail(op, err)
	}
	if ctl.Positives == nil && ctl.Negatives == nil {
		return nil, &tool.ToolError{Code: "NO_CONTROLS", Message: "this conversation has no control lists; the researcher chooses them in the results panel, with PUT /api/v1/conversations/{id}/controls or strategist lists controls"}
	}
	out := &ControlsResult{}
	var pos, neg []string
	if ctl.Positives != nil {
		out.Positives, pos = ctl.Positives.Name, ctl.Positives.Genes
	}
	if ctl.Negatives != nil {
		out.Negatives, neg = ctl.Negatives.Name, ctl.Negatives.Genes
	}
	rep, err := t.s.b.Scorer.Controls(ctx, t.s.b.UserID, id, pos, neg)
	if err != nil {
		return nil, t.fail(op, err)
	}
	out.Root = rep.RootStepID
	for _, sc := range rep.Steps {
		b := StepControlsBrief{StepControls: sc, MissedCount: len(sc.PositivesMissed)}
		b.PositivesMissed = sc.PositivesMissed[:min(len(sc.PositivesMissed), briefMissed)]
		b.NegativesFoundIDs = sc.NegativesFoundIDs[:min(len(sc.NegativesFoundIDs), briefMissed)]
		out.Steps = append(out.Steps, b)
	}
	return out, nil
}

// TraceArgs are the arguments of trace_gene.
type TraceArgs struct {
	Gene string `json:"gene" jsonschema:"a gene id (current or previous)"`
}

func (t *tools) traceGene() tool.Tool {
	return tool.NewTool("trace_gene",
		"Which step drops a gene: follows it through every step from the root down and names the steps that lose it (lostAt). "+
			"Previous ids are resolved to the current id first. It never changes the strategy.",
		t.doTraceGene, tool.WithSchema(func(s *jsonschema.Schema) {
			s.Properties["gene"].MinLength = ptr(1)
		}))
}

func (t *tools) doTraceGene(ctx context.Context, a TraceArgs) (*strategies.GeneTrace, error) {
	const op = "trace gene"
	id, ok, err := t.s.forRead(ctx)
	if err == nil && !ok {
		return nil, noStrategyYet(op, "")
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	res, err := t.s.b.Lists.Resolve(ctx, t.s.b.Site, []string{a.Gene})
	if err != nil {
		return nil, t.fail(op, err)
	}
	if len(res.Genes) != 1 {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: a.Gene + " is not one gene of " + t.s.b.Site + "; look it up with lookup_genes",
			Details: map[string]any{"genes": res.Genes}}
	}
	tr, err := t.s.b.Scorer.TraceGene(ctx, t.s.b.UserID, id, res.Genes[0])
	if err != nil {
		return nil, t.fail(op, err)
	}
	return tr, nil
}

// ControlsArgs are the arguments of set_controls.
type ControlsArgs struct {
	Genes     []string `json:"genes" jsonschema:"the gene ids the researcher named (current or previous ids)"`
	Negatives bool     `json:"negatives,omitempty" jsonschema:"true: genes the strategy should NOT find (negative controls); default: positive controls"`
	Name      string   `json:"name,omitempty" jsonschema:"a name for the list the genes are saved as (default: Known genes: <ids>)"`
}

// ControlsSet is set_controls' result: the list the genes were saved as
// (with the ids mapped from previous ones and those unknown) and the
// conversation's controls now.
type ControlsSet struct {
	ListID    string              `json:"listId"`
	Name      string              `json:"name"`
	Genes     []string            `json:"genes"`
	Mapped    []catalog.IDMapping `json:"mapped"`
	Unknown   []string            `json:"unknown"`
	Positives string              `json:"positives,omitempty"`
	Negatives string              `json:"negatives,omitempty"`
}

// SetControlsDoc describes set_controls to a model.
const SetControlsDoc = "Make genes the researcher named the conversation's positive controls (genes the strategy should find; negatives: true for genes it should not), " +
	"saved as one of their gene lists: use it when a request names known genes (\"make sure PF3D7_0100100 is in it\", \"test this against my controls: PF3D7_…\"). " +
	"Previous ids are mapped to current ones and unknown ids listed: say both. The other side of the controls is kept. It never changes the strategy; " +
	"a build's requirement check and score_controls then report the controls found and lost."

func (t *tools) setControls() tool.Tool {
	return tool.NewTool("set_controls", SetControlsDoc, func(ctx context.Context, a ControlsArgs) (*ControlsSet, error) {
		return SetControls(ctx, t.s.b.Lists, t.s.b.UserID, t.s.b.Site, t.s.b.ConversationID, a)
	}, tool.WithSchema(func(s *jsonschema.Schema) {
		s.Properties["genes"].MinItems = ptr(1)
	}))
}

// SetControls is set_controls over lists for one conversation: the tool
// of every role that offers it.
func SetControls(ctx context.Context, lists ControlSetter, userID, site, conversationID string, a ControlsArgs) (*ControlsSet, error) {
	name := a.Name
	if name == "" {
		name = "Known genes: " + strings.Join(a.Genes, ", ")
		if r := []rune(name); len(r) > genelist.MaxNameLength {
			name = string(r[:genelist.MaxNameLength-1]) + "…"
		}
	}
	c, l, err := lists.KnownAsControls(ctx, userID, site, conversationID, name, a.Genes, a.Negatives)
	if ie, ok := errors.AsType[*genelist.InputError](err); ok {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: ie.Message, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("graph: set controls: %w", err)
	}
	out := &ControlsSet{ListID: l.ID, Name: l.Name, Genes: l.Genes, Mapped: l.Mapped, Unknown: l.Unknown}
	if c.Positives != nil {
		out.Positives = c.Positives.Name
	}
	if c.Negatives != nil {
		out.Negatives = c.Negatives.Name
	}
	return out, nil
}
