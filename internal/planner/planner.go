// Package planner is Strategist's plan mode: the prompt and tools of the
// agent that explores a site's catalog with the researcher, saves planning
// artifacts, drafts a delegation plan (validated on save), and asks for the
// build. It never builds steps itself; the executor does, once the
// researcher approves.
package planner

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"strategist/internal/agent"
	"strategist/internal/catalog"
	"strategist/internal/catalog/catalogtool"
	"strategist/internal/event"
	"strategist/internal/store"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/tool"
)

// Store is what the planner's tools need from persistence.
type Store interface {
	SaveArtifact(ctx context.Context, sa store.SaveArtifact) (store.Artifact, error)
	Artifacts(ctx context.Context, userID, conversationID string) ([]store.Artifact, error)
	Artifact(ctx context.Context, userID, conversationID, id string) (store.Artifact, error)
	CreateHandoff(ctx context.Context, userID, conversationID, artifactID, turnID, goal string, plan json.RawMessage) (store.Handoff, error)
	Handoffs(ctx context.Context, userID, conversationID string) ([]store.Handoff, error)
	AutoTitleConversation(ctx context.Context, userID, id, title string) (store.Conversation, bool, error)
}

// Config configures the planner role.
type Config struct {
	Store   Store
	Catalog catalog.Catalog
	// Strategies reads the conversation's strategy (get_strategy, and the
	// steps a draft reuses); *strategies.Service satisfies it.
	Strategies graphtool.Reader
	// Lists, when set, offers find_gene_list: a request may name one of
	// the researcher's gene lists.
	Lists Lists
	// MaxRounds bounds model calls per turn (default 16: planning explores).
	MaxRounds int
	// ToolTimeout bounds each tool call (default 30 s).
	ToolTimeout time.Duration
	// Estimator is calibrated by every model call (optional, shared).
	Estimator *agent.Estimator
}

// Planner builds plan-mode agents.
type Planner struct {
	cfg Config
}

// New checks cfg and returns the planner role.
func New(cfg Config) (*Planner, error) {
	if cfg.Store == nil || cfg.Catalog == nil || cfg.Strategies == nil {
		return nil, errors.New("planner: nil store, catalog or strategies")
	}
	if cfg.MaxRounds == 0 {
		cfg.MaxRounds = 16
	}
	if cfg.ToolTimeout == 0 {
		cfg.ToolTimeout = 30 * time.Second
	}
	return &Planner{cfg: cfg}, nil
}

// Agent returns the planner for one turn.
func (p *Planner) Agent(env agent.Env) (*agent.Agent, error) {
	tools, err := p.Tools(env)
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{
		Engine: env.Engine, Model: env.Model, Agent: "planner",
		System: SystemPrompt(env.SiteID), Tools: tools,
		MaxRounds: p.cfg.MaxRounds, ToolTimeout: p.cfg.ToolTimeout, Estimator: p.cfg.Estimator,
	})
}

// Tools returns the planner's explicit tool set for one turn.
func (p *Planner) Tools(env agent.Env) (*tool.Toolset, error) {
	cat, err := catalogtool.New(catalogtool.Config{Catalog: p.cfg.Catalog, Site: env.SiteID})
	if err != nil {
		return nil, err
	}
	t := &tools{store: p.cfg.Store, catalog: p.cfg.Catalog, strategies: p.cfg.Strategies, lists: p.cfg.Lists, env: env}
	getStrategy, err := graphtool.GetStrategy(graphtool.OverviewConfig{Strategies: p.cfg.Strategies, Catalog: p.cfg.Catalog,
		UserID: env.UserID, ConversationID: env.ConversationID})
	if err != nil {
		return nil, err
	}
	all := append(cat.Tools(), getStrategy,
		tool.NewTool("save_planning_artifact", saveArtifactDoc, t.savePlanningArtifact),
		tool.NewTool("save_delegation_draft", saveDraftDoc, t.saveDelegationDraft),
		tool.NewTool("list_artifacts", "List this conversation's saved artifacts (planning notes and the delegation draft) with ids and versions.", t.listArtifacts),
		tool.NewTool("get_artifact", "Read one saved artifact in full by id.", t.getArtifact),
		tool.NewTool("request_executor_build", requestBuildDoc, t.requestExecutorBuild),
		tool.NewTool("ask_researcher", askDoc, t.askResearcher),
		tool.NewTool("count_plan", countPlanDoc, t.countPlan),
		tool.NewTool("set_conversation_title", "Give the conversation a short, specific title (at most 200 characters), e.g. \"DNA repair genes off chromosome 14\". "+
			"Only a conversation still without a title takes it: a title the researcher chose, or one given before, is kept (the result says kept).", t.setTitle),
	)
	if p.cfg.Lists != nil {
		all = append(all, tool.NewTool("find_gene_list", findListDoc, t.findGeneList), tool.NewTool("set_controls", graphtool.SetControlsDoc, t.setControls))
	}
	return tool.NewToolset(all...)
}

// View turns a stored artifact into the shape streamed and shown.
func View(a store.Artifact) event.Artifact {
	var body artifactBody
	_ = json.Unmarshal(a.Body, &body)
	v := event.Artifact{
		ID: a.ID, Kind: a.Kind, Title: a.Title, SummaryMarkdown: body.SummaryMarkdown,
		Assumptions: body.Assumptions, Parameters: body.Parameters, Plan: body.Plan, Validation: body.Validation,
		Version: a.Version,
	}
	if v.Assumptions == nil {
		v.Assumptions = []string{}
	}
	if len(v.Parameters) == 0 {
		v.Parameters = json.RawMessage(`{}`)
	}
	return v
}

// artifactBody is the stored JSON of an artifact.
type artifactBody struct {
	Goal            string          `json:"goal,omitempty"`
	SummaryMarkdown string          `json:"summaryMarkdown"`
	Assumptions     []string        `json:"assumptions"`
	Parameters      json.RawMessage `json:"parameters"`
	Plan            json.RawMessage `json:"plan,omitempty"`
	Validation      json.RawMessage `json:"validation,omitempty"`
}
