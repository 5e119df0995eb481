package graphtool

import (
	"context"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"

	"strategist/internal/genelist"
	"strategist/internal/store"
	"strategist/internal/tool"
)

// Lists finds the researcher's gene lists by id or name (*genelist.Service).
type Lists interface {
	Find(ctx context.Context, userID, ref string) (store.GeneList, error)
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
