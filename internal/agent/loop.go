package agent

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	oteltrace "go.opentelemetry.io/otel/trace"

	"strategist/internal/llm"
	"strategist/internal/telemetry"
	"strategist/internal/tool"
)

// Defaults of Config's bounds.
const (
	DefaultMaxRounds        = 12
	DefaultToolTimeout      = 60 * time.Second
	DefaultMaxParallelTools = 4
)

// Config is one role's agent: engine, prompt, tools and bounds.
type Config struct {
	Engine llm.Engine
	// Model is the engine-local model name (llm.Model.Name).
	Model string
	// Agent names the role in requests ("planner", "executor", "subagent").
	Agent  string
	System string
	// Tools may be nil for a role without tools.
	Tools *tool.Toolset

	// MaxRounds bounds model calls per run (default 12).
	MaxRounds int
	// ToolTimeout bounds each tool call (default 60 s).
	ToolTimeout time.Duration
	// MaxParallelTools bounds the calls of one response running at once
	// (default 4; 1 runs them one by one, in order).
	MaxParallelTools int
	// TokenBudget bounds the total tokens of a run's model calls, as the
	// engine reports them; 0 means no budget.
	TokenBudget int

	Temperature     *float64
	TopP            *float64
	MaxOutputTokens int

	// ResultLimits bound results fed back to the model within the run
	// (default DefaultResultLimits); HistoryLimits bound them in
	// RunEnd.Messages (default DefaultHistoryLimits).
	ResultLimits  DigestLimits
	HistoryLimits DigestLimits

	// Estimator, when set, is calibrated with every call's prompt usage.
	Estimator *Estimator
	// NewID makes message ids (default: random).
	NewID func() string
	// Logger records handler panics (default: discard).
	Logger *slog.Logger
}

// Agent runs the tool-calling loop for one role. It holds no run state:
// one Agent serves any number of concurrent runs.
type Agent struct {
	cfg   Config
	decls []llm.ToolDecl
}

// New checks cfg and fills its defaults.
func New(cfg Config) (*Agent, error) {
	if cfg.Engine == nil {
		return nil, errors.New("agent: new: Engine is required")
	}
	if cfg.MaxRounds < 0 || cfg.ToolTimeout < 0 || cfg.MaxParallelTools < 0 || cfg.TokenBudget < 0 {
		return nil, errors.New("agent: new: negative bound")
	}
	if cfg.MaxRounds == 0 {
		cfg.MaxRounds = DefaultMaxRounds
	}
	if cfg.ToolTimeout == 0 {
		cfg.ToolTimeout = DefaultToolTimeout
	}
	if cfg.MaxParallelTools == 0 {
		cfg.MaxParallelTools = DefaultMaxParallelTools
	}
	if cfg.ResultLimits == (DigestLimits{}) {
		cfg.ResultLimits = DefaultResultLimits()
	}
	if cfg.HistoryLimits == (DigestLimits{}) {
		cfg.HistoryLimits = DefaultHistoryLimits()
	}
	if cfg.NewID == nil {
		cfg.NewID = func() string { return "msg_" + strings.ToLower(rand.Text()) }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a := &Agent{cfg: cfg}
	if cfg.Tools != nil {
		a.decls = cfg.Tools.Decls()
	}
	return a, nil
}

// Input is what a run starts from.
type Input struct {
	// History is the conversation before this turn (see BuildHistory); it
	// must not contain the user message below.
	History []llm.Message
	// User is the message that starts the run: the researcher's message,
	// or a sub-agent's task. It is sent exactly once.
	User string
	// Continue holds what earlier runs of the same turn added after User
	// and persisted, round by round (RoundEnd): the run goes on from them,
	// its model seeing them after User, instead of starting the turn's
	// rounds over. They are not in RunEnd.Messages.
	Continue []llm.Message
}

// Run runs the loop: it sends the system prompt, history and tool
// declarations, streams the answer, runs the tool calls it asks for (those
// of one response concurrently, bounded by MaxParallelTools, their results
// fed back in call order) and repeats until the model answers without tool
// calls, a successful call of an EndsRun tool completes, or a bound is hit.
// The sequence ends with exactly one RunEnd, unless the consumer stops
// ranging early; either way Run returns only after every tool goroutine it
// started has finished. No model call starts after ctx is
// done. Tool handlers must return promptly when their context is done; Run
// waits for them.
//
// A single iterator yields one run; ranging over it again runs again.
func (a *Agent) Run(ctx context.Context, in Input) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		r := &run{a: a, cfg: &a.cfg, yield: yield}
		if strings.TrimSpace(in.User) == "" {
			r.end(StopUnknown, ErrNoInput, "")
			return
		}
		r.msgs = make([]llm.Message, 0, len(in.History)+1+2*a.cfg.MaxRounds)
		r.msgs = append(r.msgs, in.History...)
		r.msgs = append(r.msgs, llm.Message{Role: llm.RoleUser, Text: in.User})
		r.msgs = append(r.msgs, in.Continue...)
		r.loop(ctx)
	}
}

// run is the state of one run. It is owned by the goroutine ranging over
// Run's iterator; tool goroutines only write their own outcome slot and
// signal completion on a channel (see runTools).
type run struct {
	a       *Agent
	cfg     *Config
	yield   func(Event) bool
	msgs    []llm.Message // what the model sees: history, user, this run
	out     []llm.Message // what history keeps: this run, results digested
	usage   llm.Usage
	rounds  int
	endedBy string
}

// response is one model call's outcome.
type response struct {
	id     string
	text   strings.Builder
	calls  []llm.ToolCall
	usage  llm.Usage
	finish llm.FinishReason
	raw    *llm.Raw
	err    error
}

func (r *run) loop(ctx context.Context) {
	for round := 1; ; round++ {
		if err := ctx.Err(); err != nil {
			r.end(stopFor(err), err, "")
			return
		}
		if r.budgetSpent() {
			r.end(StopBudget, ErrBudget, "")
			return
		}
		mark := len(r.out)
		resp, ok := r.callModel(ctx, round)
		if !ok {
			return
		}
		r.rounds = round
		r.usage = r.usage.Add(resp.usage)
		if resp.err != nil {
			r.fail(ctx, resp)
			return
		}
		text := resp.text.String()
		msg := llm.Message{Role: llm.RoleAssistant, Text: text, ToolCalls: resp.calls, Raw: resp.raw}
		if text != "" || len(resp.calls) > 0 {
			r.msgs = append(r.msgs, msg)
			r.out = append(r.out, msg)
			if !r.yield(AssistantMessage{MessageID: resp.id, Round: round, Message: msg, Finish: resp.finish}) {
				return
			}
		}
		if resp.usage != (llm.Usage{}) && !r.yield(CallUsage{MessageID: resp.id, Round: round, Usage: resp.usage}) {
			return
		}
		if len(resp.calls) == 0 {
			r.end(StopCompleted, nil, text)
			return
		}
		if round >= r.cfg.MaxRounds {
			r.skipCalls(resp.calls, "the round limit was reached before this call ran")
			r.end(StopMaxRounds, fmt.Errorf("%w (%d rounds)", ErrMaxRounds, r.cfg.MaxRounds), text)
			return
		}
		if r.budgetSpent() {
			r.skipCalls(resp.calls, "the token budget was spent before this call ran")
			r.end(StopBudget, ErrBudget, text)
			return
		}
		ok, endedBy := r.runTools(ctx, resp.calls, round)
		if !ok {
			return
		}
		if endedBy != "" {
			r.endedBy = endedBy
			r.end(StopCompleted, nil, text)
			return
		}
		if ctx.Err() == nil && !r.yield(RoundEnd{Round: round, Messages: slices.Clone(r.out[mark:]),
			Results: slices.Clone(r.msgs[len(r.msgs)-1].ToolResults)}) {
			return
		}
	}
}

// callModel makes one model call, streaming its text. It returns false if
// the consumer stopped.
func (r *run) callModel(ctx context.Context, round int) (*response, bool) {
	req := llm.Request{
		Model: r.cfg.Model, System: r.cfg.System, Messages: r.msgs, Tools: r.a.decls, Agent: r.cfg.Agent,
		Temperature: r.cfg.Temperature, TopP: r.cfg.TopP, MaxOutputTokens: r.cfg.MaxOutputTokens,
	}
	var est Estimate
	if r.cfg.Estimator != nil {
		est = r.cfg.Estimator.Estimate(r.cfg.Model, &req)
	}
	resp := &response{id: r.cfg.NewID()}
	ctx, span := telemetry.Start(ctx, "chat")
	defer span.End()
	if span.IsRecording() {
		r.traceRequest(ctx, span, &req, round)
		defer r.traceResponse(ctx, span, resp)
	}
	for c, err := range r.cfg.Engine.Stream(ctx, req) {
		if err != nil {
			resp.err = err
			break
		}
		switch c.Kind {
		case llm.ChunkText:
			if c.Text == "" {
				continue
			}
			resp.text.WriteString(c.Text)
			if !r.yield(TextDelta{MessageID: resp.id, Delta: c.Text}) {
				return nil, false
			}
		case llm.ChunkToolCall:
			if c.ToolCall != nil {
				resp.calls = append(resp.calls, *c.ToolCall)
			}
		case llm.ChunkUsage:
			// Engines report one usage per call, or a running total: the
			// last one counts.
			if c.Usage != nil {
				resp.usage = *c.Usage
			}
		case llm.ChunkFinish:
			resp.finish, resp.raw = c.Finish, c.Raw
		}
	}
	if resp.err == nil && resp.finish == "" && ctx.Err() != nil {
		resp.err = ctx.Err() // the engine stopped without saying why
	}
	if resp.usage.TotalTokens == 0 {
		resp.usage.TotalTokens = resp.usage.PromptTokens + resp.usage.CompletionTokens
	}
	if r.cfg.Estimator != nil && resp.usage.PromptTokens > 0 {
		r.cfg.Estimator.Observe(r.cfg.Model, est, resp.usage.PromptTokens)
	}
	resp.calls = normalizeCalls(resp.id, resp.calls)
	return resp, true
}

// traceRequest describes a model call on its span: the model, the role and
// the round, and, only when content may be recorded, the last message sent.
func (r *run) traceRequest(ctx context.Context, span oteltrace.Span, req *llm.Request, round int) {
	span.SetName("chat " + r.cfg.Model)
	span.SetAttributes(attribute.String("gen_ai.operation.name", "chat"), telemetry.KeyModel.String(r.cfg.Model),
		telemetry.KeyAgent.String(r.cfg.Agent), telemetry.KeyRound.Int(round))
	if telemetry.Content(ctx) && len(req.Messages) > 0 {
		last := req.Messages[len(req.Messages)-1]
		text := last.Text
		if len(last.ToolResults) > 0 {
			b, _ := json.Marshal(last.ToolResults)
			text = string(b)
		}
		span.SetAttributes(telemetry.KeyPrompt.String(telemetry.Clip(text)))
	}
}

// traceResponse records what a model call returned on its span: tokens,
// the finish reason, the tools it asked for (names only) and its failure,
// and, only when content may be recorded, its text.
func (r *run) traceResponse(ctx context.Context, span oteltrace.Span, resp *response) {
	span.SetAttributes(telemetry.KeyInputTokens.Int(resp.usage.PromptTokens),
		telemetry.KeyOutputTokens.Int(resp.usage.CompletionTokens))
	if resp.finish != "" {
		span.SetAttributes(telemetry.KeyFinishReasons.StringSlice([]string{string(resp.finish)}))
	}
	if len(resp.calls) > 0 {
		names := make([]string, len(resp.calls))
		for i, c := range resp.calls {
			names[i] = c.Name
		}
		span.SetAttributes(attribute.StringSlice("strategist.llm.tool_calls", names))
	}
	if telemetry.Content(ctx) && resp.text.Len() > 0 {
		span.SetAttributes(telemetry.KeyCompletion.String(telemetry.Clip(resp.text.String())))
	}
	telemetry.Fail(span, resp.err)
}

// normalizeCalls gives every call a unique id and JSON arguments, so that
// results can answer them and the message can be stored.
func normalizeCalls(msgID string, calls []llm.ToolCall) []llm.ToolCall {
	seen := make(map[string]bool, len(calls))
	for i := range calls {
		c := &calls[i]
		if c.ID == "" || seen[c.ID] {
			c.ID = msgID + "-" + strconv.Itoa(i)
		}
		seen[c.ID] = true
		switch {
		case len(c.Args) == 0:
			c.Args = json.RawMessage(`{}`)
		case !json.Valid(c.Args):
			b, _ := json.Marshal(string(c.Args))
			c.Args = b
		}
	}
	return calls
}

// fail ends a run whose model call failed, keeping any text it streamed.
func (r *run) fail(ctx context.Context, resp *response) {
	text := resp.text.String()
	if text != "" {
		msg := llm.Message{Role: llm.RoleAssistant, Text: text}
		r.out = append(r.out, msg)
		if !r.yield(AssistantMessage{MessageID: resp.id, Round: r.rounds, Message: msg, Incomplete: true}) {
			return
		}
	}
	if resp.usage != (llm.Usage{}) && !r.yield(CallUsage{MessageID: resp.id, Round: r.rounds, Usage: resp.usage}) {
		return
	}
	if err := ctx.Err(); err != nil {
		r.end(stopFor(err), err, text)
		return
	}
	r.end(StopEngineError, fmt.Errorf("agent: %s model call %d: %w", r.cfg.Agent, r.rounds, resp.err), text)
}

func (r *run) budgetSpent() bool {
	return r.cfg.TokenBudget > 0 && r.usage.TotalTokens >= r.cfg.TokenBudget
}

// skipCalls records results for calls the run will not make, so that the
// stored history pairs every call with a result.
func (r *run) skipCalls(calls []llm.ToolCall, why string) {
	results := make([]llm.ToolResult, len(calls))
	for i, c := range calls {
		results[i] = llm.ToolResult{CallID: c.ID, Name: c.Name, IsError: true,
			Content: renderFailure(&ToolFailure{Code: tool.CodeNotRun, Message: why})}
	}
	r.out = append(r.out, llm.Message{Role: llm.RoleTool, ToolResults: results})
}

func (r *run) end(reason StopReason, err error, text string) {
	r.yield(RunEnd{Reason: reason, Err: err, Rounds: r.rounds, Usage: r.usage, Text: text, Messages: r.out, EndedBy: r.endedBy})
}

func stopFor(err error) StopReason {
	if errors.Is(err, context.DeadlineExceeded) {
		return StopDeadline
	}
	return StopCancelled
}
