package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/plan"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/telemetry"
)

// Defaults of Config.
const (
	DefaultConcurrency = 4
	DefaultTaskTimeout = 120 * time.Second
	// DefaultMaxAttempts is the first run and two retries.
	DefaultMaxAttempts = 3
	// DefaultMaxDuration bounds a whole delegation.
	DefaultMaxDuration = 30 * time.Minute
)

// Emitter appends a delegation's events to its turn's stream: in order,
// durably, before returning (eventlog.Log.Append does). The events of one
// call should be one append: a delegation hands over, in one call,
// everything its nodes produced while the previous append was in flight.
// Each delegation calls it from one goroutine at a time; several
// delegations (turns) may share it.
type Emitter interface {
	Emit(ctx context.Context, events ...event.Event) error
}

// Store keeps the delegations and delegation_nodes rows current, so that a
// reloaded page shows a delegation as it stands. *store.DB satisfies it.
type Store interface {
	CreateDelegation(ctx context.Context, userID string, d store.NewDelegation) (store.Delegation, error)
	UpdateDelegationNodes(ctx context.Context, userID, delegationID string, us []store.DelegationNodeUpdate) error
	FinishDelegation(ctx context.Context, userID, delegationID string, status store.DelegationStatus, usage json.RawMessage) error
	PreviousNodes(ctx context.Context, userID, turnID string, plan json.RawMessage) (map[string]store.PreviousNode, error)
}

// Config is a Scheduler's settings, shared by every delegation it runs.
type Config struct {
	Store Store // required
	// Concurrency bounds the sub-agents of one delegation running at once
	// (default 4). Combines need no model and do not count.
	Concurrency int
	// TaskTimeout bounds each attempt of a task (default 120 s); an attempt
	// that outlives it fails and counts as an attempt.
	TaskTimeout time.Duration
	// MaxAttempts bounds the attempts of a task (default 3: two retries).
	MaxAttempts int
	// MaxDuration bounds a whole delegation (default 30 min): when it
	// passes, running tasks are stopped and the delegation fails.
	MaxDuration time.Duration
	// CombineHold keeps a combine node running this long after its step
	// is made, before it ends (0: not at all). Only tests set it, to stop
	// a server in the middle of a combine.
	CombineHold time.Duration
	Logger      *slog.Logger
	// Metrics records attempts and sub-agents' tool calls and tokens (nil:
	// none).
	Metrics *telemetry.Metrics
}

// Scheduler runs delegations. It holds no run state: each Run owns its
// own, so one Scheduler serves every turn of the process.
type Scheduler struct {
	cfg Config
	log *slog.Logger
}

// NewScheduler checks cfg and fills its defaults.
func NewScheduler(cfg Config) (*Scheduler, error) {
	if cfg.Store == nil {
		return nil, errors.New("subagent: new scheduler: Store is required")
	}
	if cfg.Concurrency < 0 || cfg.TaskTimeout < 0 || cfg.MaxAttempts < 0 || cfg.MaxDuration < 0 {
		return nil, errors.New("subagent: new scheduler: negative bound")
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.TaskTimeout == 0 {
		cfg.TaskTimeout = DefaultTaskTimeout
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.MaxDuration == 0 {
		cfg.MaxDuration = DefaultMaxDuration
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{cfg: cfg, log: log.With("component", "subagent")}, nil
}

// Delegation is one plan to run, with everything that belongs to its turn.
type Delegation struct {
	TurnID         string // carried by every event
	UserID         string // owner of the conversation: every row is written as them
	ConversationID string
	Goal           string
	Plan           *plan.Plan
	// Graph is the conversation's strategy (ServiceGraph in the server).
	Graph Graph
	// Agent is the sub-agents' model (the turn's) and bounds.
	Agent AgentConfig
	// Tools builds each attempt's catalog and scoped graph tools.
	Tools   ToolsFunc
	Emitter Emitter
}

func (d *Delegation) check() error {
	switch {
	case d.Plan == nil || len(d.Plan.Nodes) == 0:
		return errors.New("a plan is required")
	case strings.TrimSpace(d.Goal) == "":
		return errors.New("a goal is required")
	case d.UserID == "" || d.ConversationID == "":
		return errors.New("user and conversation are required")
	case d.Graph == nil || d.Tools == nil || d.Emitter == nil:
		return errors.New("Graph, Tools and Emitter are required")
	case d.Agent.Engine == nil:
		return errors.New("Agent.Engine is required")
	}
	return nil
}

// Status is a node's state (the store's vocabulary). Queued and running
// are live states; the others are final and are the statuses of
// subagent_task_end.
type Status = store.NodeStatus

// The node statuses.
const (
	StatusQueued    = store.NodeQueued
	StatusRunning   = store.NodeRunning
	StatusDone      = store.NodeDone
	StatusFailed    = store.NodeFailed
	StatusSkipped   = store.NodeSkipped
	StatusCancelled = store.NodeCancelled
	StatusTimeout   = store.NodeTimeout
)

// The statuses a delegation ends with (delegations.status).
const (
	DelegationCompleted = store.DelegationCompleted
	DelegationFailed    = store.DelegationFailed
	DelegationCancelled = store.DelegationCancelled
	// DelegationInterrupted: the database could not take its events or
	// rows; its turn's next run carries what it finished.
	DelegationInterrupted = store.DelegationInterrupted
)

// Result is how a delegation ended: the status of every node, the root
// step of the delegation when every node is done, and the tokens spent.
// It is also what the delegate tool reports to the executor's model.
type Result struct {
	DelegationID string `json:"delegationId"`
	// Status is completed (every node done), failed, cancelled, or
	// interrupted (the database could not take its writes).
	Status store.DelegationStatus `json:"status"`
	// RootStepID is the root node's step, set when Status is completed.
	RootStepID strategy.StepID `json:"rootStepId,omitempty"`
	Nodes      []NodeResult    `json:"nodes"`
	// Removed lists the steps the delegation deleted, in order: those
	// above a reused step (freed for it) and, once the plan completed,
	// every step outside its result, so the strategy has one root. Each
	// deletion is a version of the strategy: Undo brings them back.
	Removed []strategy.StepID `json:"removedSteps,omitempty"`
	// Warning says what could not be tidied after a completed build.
	Warning    string    `json:"warning,omitempty"`
	Usage      llm.Usage `json:"usage"`
	DurationMs int64     `json:"durationMs"`
}

// NodeResult is how one node ended.
type NodeResult struct {
	ID         string          `json:"id"`
	Kind       plan.Kind       `json:"kind"`
	Label      string          `json:"label"`
	Status     Status          `json:"status"`
	Attempts   int             `json:"attempts,omitempty"`
	RootStepID strategy.StepID `json:"rootStepId,omitempty"`
	// Summary is the sub-agent's own account, from finish_subtask.
	Summary    string    `json:"summary,omitempty"`
	Error      string    `json:"error,omitempty"`
	DurationMs int64     `json:"durationMs"`
	Usage      llm.Usage `json:"usage"`
}

// Run runs a delegation to its end and returns how every node ended. It
// checks the steps the plan reuses against the strategy (a step that does
// not exist is a *plan.PlanError naming the valid ids, and nothing is
// stored), stores the delegation and its nodes, emits subagent_plan, then
// starts ready nodes in plan order (tasks up to Concurrency at once), each
// task attempt with a fresh agent under its own deadline, retrying a
// failed attempt up to MaxAttempts with a summary of the error; a node
// that fails for good marks its dependents skipped without spending a
// model call on them; a combine runs, without a model, as soon as both
// inputs are done; a step node is done at once, its result the existing
// step. A reused step is freed (the steps above it deleted) just before
// the node that consumes it starts, and once the plan completes every step
// outside its result is deleted, so a build leaves the strategy one root;
// each deletion is a version (Result.Removed lists them), so Undo brings
// them back.
//
// Events: subagent_plan once; per attempt subagent_task_start, the
// sub-agent's subagent_tool_call_start/_end and subagent_message, a usage
// event (scope subagent, that attempt's tokens) and subagent_task_end
// (status, attempt, the attempt's duration, the node's tokens so far); a
// failed attempt that is retried ends failed or timeout before the next
// starts. A node that never starts ends skipped or cancelled. Every event
// is durable when Run returns.
//
// When ctx is cancelled (or MaxDuration passes), every running task is
// cancelled and the nodes that had not ended end cancelled; Run returns
// only after every goroutine it started has finished, with Status
// cancelled (failed when out of time). An error is returned when the
// delegation could not start (a bad Delegation, the rows could not be
// created) or when its events or rows could not be written, which stops
// it; a failed or cancelled delegation is a Result, not an error.
func (s *Scheduler) Run(ctx context.Context, d Delegation) (res *Result, err error) {
	ctx, span := telemetry.Start(ctx, "delegation")
	if span.IsRecording() {
		defer func() { endDelegationSpan(span, res, err) }()
	}
	if err := d.check(); err != nil {
		return nil, fmt.Errorf("subagent: run: %w", err)
	}
	reused, err := checkSteps(ctx, &d)
	if err != nil {
		return nil, fmt.Errorf("subagent: run: %w", err)
	}
	planJSON, err := d.Plan.JSON()
	if err != nil {
		return nil, fmt.Errorf("subagent: run: %w", err)
	}
	nodes := make([]store.NewDelegationNode, len(d.Plan.Nodes))
	for i, n := range d.Plan.Nodes {
		nodes[i] = store.NewDelegationNode{NodeID: n.ID, Kind: n.Kind.String(), Label: n.Label,
			DependsOn: n.DependsOn, Operator: string(n.Operator)}
	}
	carried, retried, err := s.carried(ctx, d, planJSON)
	if err != nil {
		return nil, fmt.Errorf("subagent: run: %w", err)
	}
	rec, err := s.cfg.Store.CreateDelegation(ctx, d.UserID, store.NewDelegation{
		ConversationID: d.ConversationID, TurnID: d.TurnID, Goal: d.Goal, Plan: planJSON, Nodes: nodes})
	if err != nil {
		return nil, fmt.Errorf("subagent: run: %w", err)
	}
	if span.IsRecording() {
		span.SetAttributes(telemetry.KeyDelegationID.String(rec.ID), telemetry.KeyTurnID.String(d.TurnID),
			attribute.Int("strategist.delegation.nodes", len(d.Plan.Nodes)))
	}
	r := newRun(ctx, s, d, rec.ID, reused, planKey(d.TurnID, rec.ID, planJSON))
	for id, root := range carried {
		r.nodes[r.index[id]].carried = root
	}
	for id, c := range retried {
		// The next attempt continues the count, with the cause in its
		// prompt as a failed attempt's error is.
		ns := &r.nodes[r.index[id]]
		ns.attempt, ns.err = c.attempt, c.cause()
	}
	defer r.release()
	defer r.cancel(nil)
	return r.loop()
}
