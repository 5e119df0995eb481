package subagent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/plan"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// AgentConfig is the model and bounds every sub-agent of a delegation runs
// with. Each attempt gets a fresh agent.Agent built from it.
type AgentConfig struct {
	Engine llm.Engine // required
	// Model is the engine-local model name.
	Model string
	// System defaults to DefaultSystemPrompt.
	System string
	// MaxRounds, ToolTimeout and TokenBudget bound one attempt (agent
	// defaults when zero).
	MaxRounds   int
	ToolTimeout time.Duration
	TokenBudget int
	Temperature *float64
}

// ToolRequest says which attempt tools are built for.
type ToolRequest struct {
	DelegationID string
	NodeID       string
	Attempt      int
	// Inputs are the root steps of the node's dependencies: besides the
	// steps the attempt creates, the only steps its graph tools may use.
	Inputs []strategy.StepID
	// Origin is the key every step the attempt's graph tools make must
	// carry (graphtool.Binding.Origin): the same for every attempt of the
	// node in every run of the turn, so a retry finds the steps an attempt
	// cut short by its server's stop had made.
	Origin string
}

// AttemptTools are the tools of one sub-agent attempt other than
// finish_subtask (which this package adds): catalog tools, and graph tools
// scoped to Inputs plus the steps the attempt creates.
type AttemptTools struct {
	Tools []tool.Tool
	// Scope reports the graph tools' scope as it stands: the inputs and
	// every step the attempt created so far. finish_subtask accepts only
	// a step of it, and a failed attempt's steps are found through it and
	// removed.
	Scope func() strategy.Scope
}

// ToolsFunc builds the tools of one attempt. It is called once per
// attempt, so a retry starts with a fresh scope.
type ToolsFunc func(ctx context.Context, r ToolRequest) (AttemptTools, error)

// Errors of an attempt.
var (
	// ErrNoFinish: the sub-agent stopped without an accepted finish_subtask.
	ErrNoFinish = errors.New("the sub-agent ended without calling finish_subtask with its root step")
	// errAttemptTimeout is the cause of an attempt's deadline.
	errAttemptTimeout = errors.New("attempt timed out")
)

// permanentError marks an attempt failure that another attempt would
// repeat (a bad tool set, an engine refusing the credentials).
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// attemptSpec is one attempt of a task node, as its worker gets it.
type attemptSpec struct {
	node     plan.Node
	attempt  int
	deps     []depRoot
	previous string
}

// depRoot is a dependency's result as the scheduler knows it.
type depRoot struct {
	nodeID string
	label  string
	root   strategy.StepID
}

// attemptResult is what a task worker sends back.
type attemptResult struct {
	root      strategy.StepID
	summary   string
	usage     llm.Usage
	err       error
	timedOut  bool
	cancelled bool
	permanent bool
}

// runTask runs one attempt of a task node: a fresh agent with the node's
// tools and finish_subtask, under its own deadline. It classifies the
// outcome (done, timed out, cancelled, failed) and, unless cancelled,
// removes the steps a failed attempt created so the next one starts from
// the inputs alone.
func (r *run) runTask(ctx context.Context, spec attemptSpec) attemptResult {
	actx, cancel := context.WithTimeoutCause(ctx, r.s.cfg.TaskTimeout, errAttemptTimeout)
	defer cancel()
	res, fin := r.attempt(actx, spec)
	if res.err == nil {
		return res
	}
	switch {
	case ctx.Err() != nil:
		res.cancelled = true
		return res
	case errors.Is(context.Cause(actx), errAttemptTimeout):
		res.timedOut = true
		res.err = fmt.Errorf("attempt %d timed out after %s", spec.attempt, r.s.cfg.TaskTimeout)
	}
	if _, ok := errors.AsType[permanentError](res.err); ok {
		res.permanent = true
	}
	if fin != nil {
		r.rollback(ctx, spec.node.ID, fin)
	}
	return res
}

// attempt runs the agent and maps its events onto the stream. fin is nil
// when the attempt failed before its tools existed.
func (r *run) attempt(ctx context.Context, spec attemptSpec) (attemptResult, *finisher) {
	var res attemptResult
	inputs := make([]strategy.StepID, len(spec.deps))
	for i, d := range spec.deps {
		inputs[i] = d.root
	}
	deps, err := r.describe(ctx, spec.deps)
	if err != nil {
		res.err = err
		return res, nil
	}
	tools, err := r.d.Tools(ctx, ToolRequest{DelegationID: r.id, NodeID: spec.node.ID, Attempt: spec.attempt, Inputs: inputs,
		Origin: r.origin(spec.node.ID)})
	if err != nil {
		res.err = fmt.Errorf("build tools: %w", err)
		return res, nil
	}
	if tools.Scope == nil {
		res.err = permanentError{errors.New("build tools: the tools have no scope")}
		return res, nil
	}
	fin := &finisher{graph: r.d.Graph, scope: tools.Scope, inputs: inputs}
	ts, err := tool.NewToolset(append(slices.Clip(tools.Tools), fin.tool())...)
	if err != nil {
		res.err = permanentError{err}
		return res, fin
	}
	cfg := r.d.Agent
	system := cfg.System
	if system == "" {
		system = DefaultSystemPrompt
	}
	ag, err := agent.New(agent.Config{
		Engine: cfg.Engine, Model: cfg.Model, Agent: "subagent", System: system, Tools: ts,
		MaxRounds: cfg.MaxRounds, ToolTimeout: cfg.ToolTimeout, TokenBudget: cfg.TokenBudget,
		Temperature: cfg.Temperature, Logger: r.log,
	})
	if err != nil {
		res.err = permanentError{err}
		return res, fin
	}
	user := taskMessage(r.d.Goal, spec.node, deps, spec.attempt, r.s.cfg.MaxAttempts, spec.previous)
	var end *agent.RunEnd
	for ev := range ag.Run(ctx, agent.Input{User: user}) {
		if r.forward(spec.node.ID, ev, &res.usage) {
			if _, _, ok := fin.result(); ok {
				break // the task is done: no model call after an accepted finish
			}
		}
		if e, ok := ev.(agent.RunEnd); ok {
			end = &e
		}
	}
	if root, summary, ok := fin.result(); ok {
		res.root, res.summary = root, summary
		return res, fin
	}
	switch {
	case end == nil || end.Err == nil:
		res.err = ErrNoFinish
	case isPermanentEngineError(end.Err):
		res.err = permanentError{end.Err}
	default:
		res.err = end.Err
	}
	return res, fin
}

// forward maps one agent event onto the stream (through the pump, in
// order) and adds call usage; it reports whether the event was the end of
// a successful finish_subtask.
func (r *run) forward(nodeID string, ev agent.Event, usage *llm.Usage) bool {
	base := event.Base{TurnID: r.d.TurnID}
	switch e := ev.(type) {
	case agent.ToolCallStart:
		r.events.send(&event.SubagentToolCallStart{Base: base, DelegationID: r.id, NodeID: nodeID,
			CallID: e.CallID, Name: e.Name, Args: e.Args})
	case agent.ToolCallEnd:
		r.s.cfg.Metrics.ToolCall(r.writeCtx, e.Name, e.Outcome(), "subagent", e.Duration)
		end := &event.SubagentToolCallEnd{Base: base, DelegationID: r.id, NodeID: nodeID, CallID: e.CallID,
			Name: e.Name, OK: e.OK, Result: e.Result, DurationMs: e.Duration.Milliseconds()}
		if e.Error != nil {
			end.Error = &event.ToolError{Code: e.Error.Code, Message: e.Error.Message}
		}
		r.events.send(end)
		return e.Name == FinishTool && e.OK
	case agent.AssistantMessage:
		if e.Message.Text != "" {
			r.events.send(&event.SubagentMessage{Base: base, DelegationID: r.id, NodeID: nodeID, Content: e.Message.Text})
		}
	case agent.CallUsage:
		r.s.cfg.Metrics.Tokens(r.writeCtx, r.d.Agent.Model, e.Usage.PromptTokens, e.Usage.CompletionTokens)
		*usage = usage.Add(e.Usage)
	}
	return false
}

// describe looks up the root steps of a node's dependencies.
func (r *run) describe(ctx context.Context, deps []depRoot) ([]plan.Dependency, error) {
	if len(deps) == 0 {
		return nil, nil
	}
	snap, err := r.d.Graph.Snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("describe inputs: %w", err)
	}
	out := make([]plan.Dependency, len(deps))
	for i, d := range deps {
		s, ok := snap.Step(d.root)
		if !ok {
			return nil, fmt.Errorf("describe inputs: %s's root step %s is gone from the strategy", d.nodeID, d.root)
		}
		out[i] = plan.DependencyOf(d.nodeID, d.label, s)
	}
	return out, nil
}

// rollbackTimeout bounds the removal of a failed attempt's steps.
const rollbackTimeout = 30 * time.Second

// rollback removes the steps a failed attempt created, newest first (each
// is then a root, and deleting a step that consumed an input makes the
// input a root again). A step it cannot remove is logged and left.
func (r *run) rollback(ctx context.Context, nodeID string, fin *finisher) {
	ctx, cancel := context.WithTimeout(ctx, rollbackTimeout)
	defer cancel()
	snap, err := r.d.Graph.Snapshot(ctx)
	if err != nil {
		r.log.Warn("cannot read the strategy to remove a failed attempt's steps", "node_id", nodeID, slog.Any("error", err))
		return
	}
	own := fin.own(snap)
	for i := len(own) - 1; i >= 0; i-- {
		if _, err := r.d.Graph.Apply(ctx, strategy.DeleteStep{Step: own[i]}); err != nil {
			r.log.Warn("cannot remove a failed attempt's step", "node_id", nodeID, "step_id", string(own[i]), slog.Any("error", err))
			return
		}
	}
}

// isPermanentEngineError reports engine failures a new attempt would meet
// again: refused credentials or a request the engine cannot serve.
func isPermanentEngineError(err error) bool {
	e, ok := errors.AsType[*llm.Error](err)
	return ok && (e.Kind == llm.ErrorAuth || e.Kind == llm.ErrorBadRequest)
}
