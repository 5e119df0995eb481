package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"strategist/internal/genelist"
	"strategist/internal/store"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/tool"
)

// Lists finds the researcher's gene lists by name or id
// (*genelist.Service).
type Lists interface {
	Find(ctx context.Context, userID, ref string) (store.GeneList, error)
	graphtool.ControlSetter
}

// FindListArgs are find_gene_list's arguments.
type FindListArgs struct {
	Name string `json:"name" jsonschema:"the list's name as the researcher wrote it (any case), or its id"`
}

// FoundList is find_gene_list's result: the list and its current gene ids,
// the values of the gene ids search (GeneByLocusTag's ds_gene_ids).
type FoundList struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	SiteID string   `json:"siteId"`
	Size   int      `json:"size"`
	Genes  []string `json:"genes"`
	Search string   `json:"search"`
}

const findListDoc = `Find one of the researcher's saved gene lists by name (any case) or id, for a request that names it ("genes in my list 'kinase screen' on chromosome 5"). Returns its genes (current ids) and the search that starts a step from them: ` + genelist.ListSearch + ` with ds_gene_ids = the genes as a JSON array. A name no list has is LIST_NOT_FOUND, and the message names the researcher's lists: say so, never search the name as text.`

func (t *tools) findGeneList(ctx context.Context, a FindListArgs) (*FoundList, error) {
	if strings.TrimSpace(a.Name) == "" {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: "name is required: the list's name or id"}
	}
	l, err := t.lists.Find(ctx, t.env.UserID, a.Name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &tool.ToolError{Code: "LIST_NOT_FOUND", Message: strings.TrimSuffix(strings.TrimPrefix(err.Error(), "genelist: "), ": "+store.ErrNotFound.Error()), Err: err}
	}
	if ie, ok := errors.AsType[*genelist.InputError](err); ok {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: ie.Message, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("planner: find gene list %q: %w", a.Name, err)
	}
	if l.SiteID != t.env.SiteID {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Message: "the list " + l.Name + " was resolved on site " + l.SiteID + ", not this conversation's " + t.env.SiteID}
	}
	return &FoundList{ID: l.ID, Name: l.Name, SiteID: l.SiteID, Size: len(l.Genes), Genes: l.Genes, Search: genelist.ListSearch}, nil
}

func (t *tools) setControls(ctx context.Context, a graphtool.ControlsArgs) (*graphtool.ControlsSet, error) {
	return graphtool.SetControls(ctx, t.lists, t.env.UserID, t.env.SiteID, t.env.ConversationID, a)
}
