// Package executor is Strategist's execute mode: the prompt and tools of the
// agent that builds a conversation's strategy graph, directly for small
// builds and through delegate_strategy_subtasks for multi-step plans, whose
// tasks run as sub-agents in dependency order.
package executor

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"strategist/internal/agent"
	"strategist/internal/catalog"
	"strategist/internal/catalog/catalogtool"
	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/subagent"
	"strategist/internal/tool"
)

// Strategies is what the executor needs of the strategy service: the graph
// tools' and the sub-agents' needs (*strategies.Service satisfies it).
type Strategies interface {
	graphtool.Service
	graphtool.Reader
	subagent.StrategyService
	RequirementChecker
}

// Config configures the executor role.
type Config struct {
	Catalog    catalog.Catalog
	Strategies Strategies
	Scheduler  *subagent.Scheduler
	// MaxRounds bounds model calls per turn (default 12).
	MaxRounds int
	// ToolTimeout bounds each tool call (default 60 s); a delegation is
	// bounded by DelegationTimeout instead.
	ToolTimeout       time.Duration
	DelegationTimeout time.Duration
	// SubagentMaxRounds bounds each sub-agent attempt (default 8).
	SubagentMaxRounds int
	Estimator         *agent.Estimator
	// Lists and Scorer, when both set, give the executor the list tools
	// (create_list_step, save_gene_list, score_controls, trace_gene) over
	// the researcher's gene lists (*genelist.Service and
	// *strategies.Service).
	Lists  graphtool.Lists
	Scorer graphtool.Scorer
}

// Executor builds execute-mode agents.
type Executor struct {
	cfg Config
}

// New checks cfg and returns the executor role.
func New(cfg Config) (*Executor, error) {
	if cfg.Catalog == nil || cfg.Strategies == nil || cfg.Scheduler == nil {
		return nil, errors.New("executor: nil catalog, strategy service or scheduler")
	}
	if cfg.MaxRounds == 0 {
		cfg.MaxRounds = 12
	}
	if cfg.ToolTimeout == 0 {
		cfg.ToolTimeout = 60 * time.Second
	}
	if cfg.DelegationTimeout == 0 {
		cfg.DelegationTimeout = 20 * time.Minute
	}
	if cfg.SubagentMaxRounds == 0 {
		cfg.SubagentMaxRounds = 8
	}
	return &Executor{cfg: cfg}, nil
}

// RecordType is the record type of the strategies the executor builds.
const RecordType = "transcript"

// Agent returns the executor for one turn.
func (x *Executor) Agent(env agent.Env) (*agent.Agent, error) {
	tools, err := x.Tools(env)
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{
		Engine: env.Engine, Model: env.Model, Agent: "executor",
		System: SystemPrompt(env.SiteID), Tools: tools,
		MaxRounds: x.cfg.MaxRounds, ToolTimeout: x.cfg.ToolTimeout, Estimator: x.cfg.Estimator,
	})
}

// Tools returns the executor's explicit tool set for one turn: the catalog
// tools, the graph tools over the conversation's strategy, and delegation.
func (x *Executor) Tools(env agent.Env) (*tool.Toolset, error) {
	cat, err := catalogtool.New(catalogtool.Config{Catalog: x.cfg.Catalog, Site: env.SiteID})
	if err != nil {
		return nil, err
	}
	binding := x.binding(env)
	graph, err := graphtool.ExecutorTools(binding)
	if err != nil {
		return nil, err
	}
	getStrategy, err := graphtool.GetStrategy(graphtool.OverviewConfig{Strategies: x.cfg.Strategies, Catalog: x.cfg.Catalog,
		UserID: env.UserID, ConversationID: env.ConversationID})
	if err != nil {
		return nil, err
	}
	d := &delegator{x: x, env: env, catalog: cat, binding: binding}
	all := append(cat.Tools(), getStrategy)
	all = append(all, graph...)
	all = append(all, tool.NewTool("delegate_strategy_subtasks", delegateDoc, d.delegate,
		tool.WithTimeout(x.cfg.DelegationTimeout)), x.checkTool(env))
	return tool.NewToolset(all...)
}

// executorOrigin keys the steps the executor's own tools make in a turn
// (not its sub-agents'), so that a resumed turn's repeated round gets
// them back instead of making them twice; "" (no keys) outside a turn.
func executorOrigin(turnID string) string {
	if turnID == "" {
		return ""
	}
	return "executor:" + turnID
}

func (x *Executor) binding(env agent.Env) graphtool.Binding {
	return graphtool.Binding{
		Service: x.cfg.Strategies, UserID: env.UserID, ConversationID: env.ConversationID,
		Site: env.SiteID, RecordType: RecordType, StrategyName: "Strategy",
		Origin: executorOrigin(env.TurnID), Lists: x.cfg.Lists, Scorer: x.cfg.Scorer,
	}
}

const delegateDoc = `Build a plan with sub-agents: each task runs as its own agent (in parallel where the plan allows) and creates its step(s); combines are joined for you as soon as both inputs are done; a step node reuses an existing step as it is. plan is the nested tree {"type":"task","task":...,"hint"?,"context"?,"input"?} / {"type":"combine","operator":...,"left":...,"right":...} / {"type":"step","stepId":"s3"}. A reused step that another step consumes is freed first (the steps above it are removed); when the plan completes, every step outside its result is removed so the strategy has one root. Each removal is a version: Undo brings it back. Returns every node's status, the root step of the whole plan, removedSteps, tokens spent and, once the plan completed, its requirement check (requirements: each requirement with the step that implements it, its count and example genes; the researcher sees it as a card).`

// DelegateArgs are delegate_strategy_subtasks' arguments.
type DelegateArgs struct {
	Goal string          `json:"goal" jsonschema:"the overall goal, given to every sub-agent"`
	Plan json.RawMessage `json:"plan" jsonschema:"the nested task/combine tree"`
}

// delegator runs delegations for one turn.
type delegator struct {
	x       *Executor
	env     agent.Env
	catalog *catalogtool.Set
	binding graphtool.Binding
}

func (d *delegator) delegate(ctx context.Context, a DelegateArgs) (*DelegateResult, error) {
	p, err := subagent.ParseArg(a.Plan, "/plan")
	if err != nil {
		return nil, err
	}
	res, err := d.x.cfg.Scheduler.Run(ctx, subagent.Delegation{
		TurnID: d.env.TurnID, UserID: d.env.UserID, ConversationID: d.env.ConversationID,
		Goal: a.Goal, Plan: p,
		Graph:   subagent.ServiceGraph{Service: d.x.cfg.Strategies, UserID: d.env.UserID, ConversationID: d.env.ConversationID},
		Agent:   subagent.AgentConfig{Engine: d.env.Engine, Model: d.env.Model, MaxRounds: d.x.cfg.SubagentMaxRounds},
		Tools:   d.attemptTools,
		Emitter: emitter(d.env.Emit),
	})
	if pe, ok := errors.AsType[*plan.PlanError](err); ok {
		// A step node names a step the strategy does not have: the model
		// can fix the plan from the valid ids.
		return nil, subagent.ToolError(pe, "/plan")
	}
	if err != nil {
		return nil, err
	}
	return d.x.checkDelegation(ctx, d.env, p, res), nil
}

// attemptTools gives one sub-agent attempt the catalog tools and the graph
// tools scoped to its dependencies' roots and the steps it creates.
func (d *delegator) attemptTools(_ context.Context, r subagent.ToolRequest) (subagent.AttemptTools, error) {
	scope := graphtool.NewScope(r.Inputs...)
	b := d.binding
	b.Origin = r.Origin
	graph, err := graphtool.SubagentTools(b, scope)
	if err != nil {
		return subagent.AttemptTools{}, err
	}
	return subagent.AttemptTools{Tools: append(d.catalog.Tools(), graph...), Scope: scope.Value}, nil
}

// emitter adapts the turn's emit function to subagent.Emitter.
type emitter func(ctx context.Context, evs ...event.Event) error

func (e emitter) Emit(ctx context.Context, evs ...event.Event) error { return e(ctx, evs...) }
