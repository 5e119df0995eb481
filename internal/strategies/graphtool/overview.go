package graphtool

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"strategist/internal/catalog"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// Reader is what get_strategy reads of strategies.Service, which satisfies
// it.
type Reader interface {
	Conversation(ctx context.Context, userID, conversationID string) (strategy.Snapshot, error)
	Previous(ctx context.Context, userID, strategyID string) (strategy.Snapshot, bool, error)
}

var _ Reader = (*strategies.Service)(nil)

// SearchLookup finds a search's parameters, to tell a step's key values
// from its defaults; catalog.Catalog satisfies it.
type SearchLookup interface {
	Search(ctx context.Context, site, recordType, name string) (*catalog.Search, error)
}

// OverviewConfig binds get_strategy to one conversation.
type OverviewConfig struct {
	Strategies     Reader // required
	UserID         string // required: every read is the owner's
	ConversationID string // required
	// Catalog, when set, lets key parameters leave out the values a step
	// holds only because they are its search's defaults.
	Catalog SearchLookup
}

// GetStrategyTool is the name of the read-only overview tool.
const GetStrategyTool = "get_strategy"

const getStrategyDoc = `Read the conversation's strategy as it stands, before planning or changing it: every step (stepId, name, search, key parameter values, operator, inputs, count or why there is none), its roots and its root, and previous: the strategy as it last was with a different result (for "undo that"). A follow-up that refines the strategy ("now also exclude chromosome 5") reuses its steps in a plan as {"type":"step","stepId":"s3"} (usually the root) next to new tasks; a new, unrelated request is planned without step nodes and replaces the strategy (Undo brings it back). To go back to previous, plan {"type":"step","stepId":<its root>} when previous.rootStillExists.`

// GetStrategy returns get_strategy: a read-only overview of the
// conversation's strategy, shared by the planner and the executor. It
// never creates a strategy.
func GetStrategy(cfg OverviewConfig) (tool.Tool, error) {
	if cfg.Strategies == nil || strings.TrimSpace(cfg.UserID) == "" || strings.TrimSpace(cfg.ConversationID) == "" {
		return tool.Tool{}, errors.New("graphtool: get_strategy: Strategies, UserID and ConversationID are required")
	}
	return tool.NewTool(GetStrategyTool, getStrategyDoc, func(ctx context.Context, _ NoArgs) (*Overview, error) {
		return overview(ctx, cfg)
	}), nil
}

// Overview is get_strategy's result.
type Overview struct {
	// StrategyID is empty when the conversation has no strategy yet.
	StrategyID string            `json:"strategyId,omitempty"`
	Name       string            `json:"name,omitempty"`
	Version    int               `json:"version"`
	Steps      []StepSummary     `json:"steps"`
	Roots      []strategy.StepID `json:"roots"`
	// RootStepID is set when the strategy is complete (one root).
	RootStepID strategy.StepID `json:"rootStepId,omitempty"`
	// Previous is the last complete earlier version with another result;
	// absent when there is none.
	Previous *PreviousVersion `json:"previous,omitempty"`
	// Hint says how a plan uses the strategy.
	Hint string `json:"hint"`
}

// StepSummary is one step as get_strategy shows it.
type StepSummary struct {
	StepID      strategy.StepID `json:"stepId"`
	DisplayName string          `json:"displayName"`
	Kind        strategy.Kind   `json:"kind"` // search, transform or combine
	// SearchName and KeyParameters are a search's or transform's: the
	// values it was given, without the empty ones and those that only
	// repeat the search's defaults.
	SearchName    string               `json:"searchName,omitempty"`
	KeyParameters map[string]string    `json:"keyParameters,omitempty"`
	Operator      strategy.Operator    `json:"operator,omitempty"`
	Colocation    *strategy.Colocation `json:"colocation,omitempty"`
	Inputs        []strategy.StepID    `json:"inputs,omitempty"`
	// Count is the step's count, or why there is none (not evaluable
	// offline, failed), and whether it is approximate.
	Count Count `json:"count"`
}

// PreviousVersion is the strategy as it last was with another result.
type PreviousVersion struct {
	Version    int             `json:"version"`
	Name       string          `json:"name,omitempty"`
	RootStepID strategy.StepID `json:"rootStepId"`
	// Steps are its root's tree as it was, inputs before the steps that
	// use them.
	Steps []StepSummary `json:"steps"`
	// RootStillExists says that its root is a step of the strategy now,
	// so a plan can reuse it to go back.
	RootStillExists bool `json:"rootStillExists"`
}

const (
	hintEmpty    = "The conversation has no strategy yet: plan the request from scratch."
	hintExisting = `A follow-up refines this strategy: reuse its steps in the plan with {"type":"step","stepId":"<id>"} (usually the root) next to new tasks. A new, unrelated request is planned without step nodes and replaces this strategy when built (Undo brings it back).`
)

func overview(ctx context.Context, cfg OverviewConfig) (*Overview, error) {
	snap, err := cfg.Strategies.Conversation(ctx, cfg.UserID, cfg.ConversationID)
	if errors.Is(err, store.ErrNotFound) {
		return &Overview{Steps: []StepSummary{}, Roots: []strategy.StepID{}, Hint: hintEmpty}, nil
	}
	if err != nil {
		return nil, err
	}
	keys := &keyParams{lookup: cfg.Catalog, site: snap.SiteID, searches: map[string]*catalog.Search{}}
	out := &Overview{StrategyID: snap.StrategyID, Name: snap.Name, Version: snap.Version,
		Steps: keys.summaries(ctx, snap.Steps), Roots: snap.Roots, RootStepID: snap.RootStepID, Hint: hintExisting}
	if len(snap.Steps) == 0 {
		out.Hint = hintEmpty
	}
	prev, ok, err := cfg.Strategies.Previous(ctx, cfg.UserID, snap.StrategyID)
	if err != nil {
		return nil, fmt.Errorf("previous version: %w", err)
	}
	if ok {
		_, exists := snap.Step(prev.RootStepID)
		out.Previous = &PreviousVersion{Version: prev.Version, Name: prev.Name, RootStepID: prev.RootStepID,
			Steps: keys.summaries(ctx, treeOf(prev)), RootStillExists: exists}
	}
	return out, nil
}

// treeOf returns the steps of a complete snapshot's root tree, in creation
// order (inputs first).
func treeOf(snap strategy.Snapshot) []strategy.Step {
	below := snap.Subtree(snap.RootStepID)
	var out []strategy.Step
	for _, s := range snap.Steps {
		if below[s.ID] {
			out = append(out, s)
		}
	}
	return out
}

// keyParams tells a step's key parameter values from the rest, looking
// each search up once per call.
type keyParams struct {
	lookup   SearchLookup
	site     string
	searches map[string]*catalog.Search // nil value: the lookup failed
}

func (k *keyParams) summaries(ctx context.Context, steps []strategy.Step) []StepSummary {
	out := make([]StepSummary, len(steps))
	for i, s := range steps {
		out[i] = StepSummary{StepID: s.ID, DisplayName: s.DisplayName, Kind: s.Kind, Operator: s.Operator,
			Colocation: s.Colocation, Inputs: s.Inputs,
			Count: countOf(s.CountStatus, s.Count, s.CountMessage, s.CountProvenance)}
		if len(out[i].Inputs) == 0 {
			out[i].Inputs = nil
		}
		if s.Kind != strategy.KindCombine {
			out[i].SearchName = s.SearchName
			out[i].KeyParameters = k.of(ctx, s)
		}
	}
	return out
}

// of returns the values of s that say what it finds: not empty, not a
// hidden or input-step parameter, not just the search's default.
func (k *keyParams) of(ctx context.Context, s strategy.Step) map[string]string {
	search := k.search(ctx, s)
	params := map[string]catalog.Param{}
	if search != nil {
		for _, p := range search.Params {
			params[p.Name] = p
		}
	}
	out := map[string]string{}
	for name, v := range s.Parameters {
		if v == "" {
			continue
		}
		if p, ok := params[name]; ok && (p.Type == catalog.ParamInputStep || !p.IsVisible || (p.HasDefault && p.Default == v)) {
			continue
		}
		out[name] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (k *keyParams) search(ctx context.Context, s strategy.Step) *catalog.Search {
	if k.lookup == nil {
		return nil
	}
	if found, ok := k.searches[s.SearchName]; ok {
		return found
	}
	found, err := k.lookup.Search(ctx, k.site, s.RecordType, s.SearchName)
	if err != nil {
		found = nil // show every value rather than fail the overview
	}
	k.searches[s.SearchName] = found
	return found
}
