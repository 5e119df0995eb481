package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"

	"strategist/internal/llm"
	"strategist/internal/telemetry"
	"strategist/internal/tool"
)

// outcome is one tool call's result, rendered.
type outcome struct {
	content json.RawMessage // the full rendered result or failure
	model   json.RawMessage // content bounded by ResultLimits
	failure *ToolFailure
	output  any
	dur     time.Duration
	endsRun bool // a successful call of an EndsRun tool
}

// runTools runs the calls of one response. Start events are yielded before
// each handler runs, end events as calls finish; the results go into history
// in call order. It returns false if the consumer stopped, and the id of the
// first successful call of an EndsRun tool; it never returns before every
// goroutine it started has finished.
func (r *run) runTools(ctx context.Context, calls []llm.ToolCall, round int) (ok bool, endedBy string) {
	n := len(calls)
	outs := make([]outcome, n)
	if n == 1 || r.cfg.MaxParallelTools == 1 {
		// One at a time: on this goroutine, which saves a goroutine (and
		// its stack growth) per call in the most common case.
		for i, c := range calls {
			if !r.yield(ToolCallStart{CallID: c.ID, Name: c.Name, Round: round, Args: c.Args}) {
				return false, ""
			}
			p := r.prepare(ctx, c, round)
			if p.run != nil {
				p.finish(ctx, r)
			}
			outs[i] = p.outcome(r)
			if !r.yield(r.endEvent(c, round, outs[i])) {
				return false, ""
			}
		}
	} else if !r.runConcurrently(ctx, calls, round, outs) {
		return false, ""
	}

	seen := make([]llm.ToolResult, n)
	kept := make([]llm.ToolResult, n)
	for i, c := range calls {
		o := outs[i]
		seen[i] = llm.ToolResult{CallID: c.ID, Name: c.Name, IsError: o.failure != nil, Content: o.model}
		kept[i] = seen[i]
		kept[i].Content = digestValid(o.content, r.cfg.HistoryLimits)
		if o.endsRun && endedBy == "" {
			endedBy = c.ID
		}
	}
	r.msgs = append(r.msgs, llm.Message{Role: llm.RoleTool, ToolResults: seen})
	r.out = append(r.out, llm.Message{Role: llm.RoleTool, ToolResults: kept})
	return true, endedBy
}

func (r *run) endEvent(c llm.ToolCall, round int, o outcome) ToolCallEnd {
	return ToolCallEnd{CallID: c.ID, Name: c.Name, Round: round, OK: o.failure == nil,
		Result: o.model, Error: o.failure, Output: o.output, Duration: o.dur}
}

// runConcurrently runs calls on goroutines, at most MaxParallelTools at a
// time, starting them in call order. Each goroutine runs one handler and
// writes only its own pending call before signalling on done. It returns
// false if the consumer stopped, after cancelling and waiting for the calls
// still running.
func (r *run) runConcurrently(ctx context.Context, calls []llm.ToolCall, round int, outs []outcome) bool {
	n := len(calls)
	done := make(chan int, n) // buffered: a finishing call never blocks
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pending := make([]*call, n)
	next, running := 0, 0
	abandon := func() bool {
		cancel()
		for ; running > 0; running-- {
			<-done
		}
		return false
	}
	for finished := 0; finished < n; finished++ {
		for running < r.cfg.MaxParallelTools && next < n {
			i := next
			next++
			c := calls[i]
			if !r.yield(ToolCallStart{CallID: c.ID, Name: c.Name, Round: round, Args: c.Args}) {
				return abandon()
			}
			p := r.prepare(tctx, c, round)
			pending[i] = p
			running++
			if p.run == nil { // failed before running: done at once
				done <- i
				continue
			}
			go func() {
				p.finish(tctx, r)
				done <- i
			}()
		}
		i := <-done
		running--
		outs[i] = pending[i].outcome(r)
		if !r.yield(r.endEvent(calls[i], round, outs[i])) {
			return abandon()
		}
	}
	return true
}

// call is one tool call on its way: found and decoded by prepare (on the
// loop's goroutine), then run by finish (on any goroutine).
type call struct {
	c       llm.ToolCall
	round   int
	tool    tool.Tool
	timeout time.Duration
	run     tool.Handler // nil once the outcome is known
	start   time.Time
	end     time.Time
	val     any
	err     error
	failure *ToolFailure
}

// prepare looks the tool up and decodes the arguments. A call that cannot
// run (unknown tool, bad arguments, run cancelled) comes back with its
// failure and no handler.
func (r *run) prepare(ctx context.Context, c llm.ToolCall, round int) *call {
	p := r.lookup(ctx, c, round)
	if p.run == nil {
		// A call that cannot run is still a call: its span says why.
		_, span := p.startSpan(ctx)
		p.endSpan(span)
	}
	return p
}

// lookup finds the call's tool and decodes its arguments.
func (r *run) lookup(ctx context.Context, c llm.ToolCall, round int) *call {
	p := &call{c: c, round: round, start: time.Now(), timeout: r.cfg.ToolTimeout}
	ok := false
	if r.cfg.Tools != nil {
		p.tool, ok = r.cfg.Tools.Lookup(c.Name)
	}
	if !ok {
		var names []string
		if r.cfg.Tools != nil {
			names = r.cfg.Tools.Names()
		}
		p.failure = &ToolFailure{Code: tool.CodeUnknownTool, Message: fmt.Sprintf("there is no tool named %q", c.Name),
			Details: map[string]any{"available": names}}
		return p
	}
	if p.tool.Timeout() > 0 {
		p.timeout = p.tool.Timeout()
	}
	if ctx.Err() != nil {
		p.failure = &ToolFailure{Code: tool.CodeCancelled, Message: "the run was cancelled before this call started"}
		return p
	}
	p.run, p.err = guard(r, c, func() (tool.Handler, error) { return p.tool.Prepare(c.Args) })
	if p.err != nil {
		p.run = nil
	}
	return p
}

// finish runs the handler under the call's timeout and classifies what it
// returned.
func (p *call) finish(ctx context.Context, r *run) {
	ctx, span := p.startSpan(ctx)
	defer p.endSpan(span)
	cctx, cancel := context.WithTimeout(tool.WithCall(ctx, tool.Call{ID: p.c.ID, Name: p.c.Name, Round: p.round}), p.timeout)
	defer cancel()
	p.val, p.err = guard(r, p.c, func() (any, error) { return p.run(cctx) })
	p.run, p.end = nil, time.Now()
	if p.err == nil {
		return
	}
	if _, ok := errors.AsType[*tool.ToolError](p.err); ok {
		return
	}
	switch {
	case ctx.Err() != nil:
		p.failure = &ToolFailure{Code: tool.CodeCancelled, Message: "the run was cancelled while this call ran"}
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		p.failure = &ToolFailure{Code: tool.CodeTimeout, Message: fmt.Sprintf("the tool did not finish within %v", p.timeout)}
	}
}

// startSpan starts the call's span, under the run's (a turn's or a
// sub-agent attempt's), when that one records.
func (p *call) startSpan(ctx context.Context) (context.Context, oteltrace.Span) {
	ctx, span := telemetry.Start(ctx, "execute_tool")
	if span.IsRecording() {
		span.SetName("execute_tool " + p.c.Name)
		span.SetAttributes(attribute.String("gen_ai.operation.name", "execute_tool"), telemetry.KeyToolName.String(p.c.Name),
			telemetry.KeyToolCallID.String(p.c.ID), telemetry.KeyRound.Int(p.round))
		if telemetry.Content(ctx) {
			span.SetAttributes(telemetry.KeyToolArgs.String(telemetry.Clip(string(p.c.Args))))
		}
	}
	return ctx, span
}

// endSpan records the call's outcome ("ok" or the failure's code) and
// ends its span.
func (p *call) endSpan(span oteltrace.Span) {
	if !span.IsRecording() {
		return
	}
	code := p.code()
	span.SetAttributes(telemetry.KeyToolOutcome.String(code))
	if code != "ok" {
		msg := code
		if p.err != nil {
			msg = p.err.Error()
		} else if p.failure != nil {
			msg = p.failure.Message
		}
		span.SetStatus(codes.Error, msg)
	}
	span.End()
}

// code is the call's outcome as outcome classifies it: "ok" or the
// failure's code.
func (p *call) code() string {
	if p.failure != nil {
		return p.failure.Code
	}
	if te, ok := errors.AsType[*tool.ToolError](p.err); ok {
		return te.Code
	}
	if p.err != nil {
		return tool.CodeToolError
	}
	return "ok"
}

// outcome renders the call's result for the model and for history.
func (p *call) outcome(r *run) outcome {
	if p.end.IsZero() { // it never ran
		p.end = time.Now()
	}
	o := outcome{dur: p.end.Sub(p.start)}
	switch te, isToolErr := errors.AsType[*tool.ToolError](p.err); {
	case p.failure != nil:
		o.failure = p.failure
	case isToolErr:
		o.failure = &ToolFailure{Code: te.Code, Message: te.Message, Details: te.Details}
	case p.err != nil:
		o.failure = &ToolFailure{Code: tool.CodeToolError, Message: p.err.Error()}
	default:
		content, err := renderResult(p.val)
		if err != nil {
			o.failure = &ToolFailure{Code: tool.CodeToolError, Message: err.Error()}
			break
		}
		o.content, o.output, o.endsRun = content, p.val, p.tool.EndsRun()
	}
	if o.failure != nil {
		o.content = renderFailure(o.failure)
	}
	o.model = digestValid(o.content, r.cfg.ResultLimits) // rendered by json.Marshal
	return o
}

// guard runs f; a panic becomes an error instead of ending the process,
// since handlers run on goroutines of the loop.
func guard[T any](r *run, c llm.ToolCall, f func() (T, error)) (val T, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.cfg.Logger.Error("tool panicked", slog.String("tool", c.Name), slog.String("call_id", c.ID),
				slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			var zero T
			val, err = zero, &tool.ToolError{Code: tool.CodeToolError, Message: "the tool failed unexpectedly"}
		}
	}()
	return f()
}

// renderResult renders a successful result as described on Toolset.
func renderResult(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the tool's result cannot be encoded: %w", err)
	}
	switch b[0] {
	case 'n':
		return json.RawMessage(`{"ok":true}`), nil
	case '{':
		if hasOKKey(b) {
			return nil, errors.New(`the tool's result uses the reserved key "ok"`)
		}
		if string(b) == "{}" {
			return json.RawMessage(`{"ok":true}`), nil
		}
		out := make([]byte, 0, len(b)+10)
		out = append(out, `{"ok":true,`...)
		return append(out, b[1:]...), nil
	default:
		out := make([]byte, 0, len(b)+22)
		out = append(out, `{"ok":true,"result":`...)
		out = append(out, b...)
		return append(out, '}'), nil
	}
}

// hasOKKey reports whether the object b, as json.Marshal wrote it, has a
// top-level key "ok".
func hasOKKey(b []byte) bool {
	d := digester{in: b, pos: 1}
	for {
		c, err := d.peek()
		if err != nil || c == '}' {
			return false
		}
		if c == ',' {
			d.pos++
		}
		d.ws()
		end, err := d.stringEnd(d.pos)
		if err != nil {
			return false
		}
		if string(b[d.pos:end]) == `"ok"` {
			return true
		}
		if d.key(false) != nil || d.skipValue() != nil {
			return false
		}
	}
}

// renderFailure renders {"ok":false,"code","message","details"?}.
func renderFailure(f *ToolFailure) json.RawMessage {
	type wire struct {
		OK bool `json:"ok"`
		*ToolFailure
	}
	b, err := json.Marshal(wire{ToolFailure: f})
	if err != nil { // details that cannot be encoded are left out
		b, _ = json.Marshal(wire{ToolFailure: &ToolFailure{Code: f.Code, Message: f.Message}})
	}
	return b
}
