package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"strategist/internal/llm"
)

// outcome is one tool call's result. A tool goroutine writes only its own
// outcome, before signalling on the done channel; the run reads it after.
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
			outs[i] = r.invoke(ctx, c, round)
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
		kept[i].Content = Digest(o.content, r.cfg.HistoryLimits)
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
// time, starting them in call order; each goroutine writes only its own
// slot of outs before signalling on done. It returns false if the consumer
// stopped, after cancelling and waiting for the calls still running.
func (r *run) runConcurrently(ctx context.Context, calls []llm.ToolCall, round int, outs []outcome) bool {
	n := len(calls)
	done := make(chan int, n) // buffered: a finishing call never blocks
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
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
			running++
			go func() {
				outs[i] = r.invoke(tctx, c, round)
				done <- i
			}()
		}
		i := <-done
		running--
		if !r.yield(r.endEvent(calls[i], round, outs[i])) {
			return abandon()
		}
	}
	return true
}

// invoke runs one call and bounds its result for the model.
func (r *run) invoke(ctx context.Context, c llm.ToolCall, round int) outcome {
	start := time.Now()
	o := r.execute(ctx, c, round)
	o.dur = time.Since(start)
	o.model = Digest(o.content, r.cfg.ResultLimits)
	return o
}

// execute runs one call under its own timeout and classifies the outcome.
func (r *run) execute(ctx context.Context, c llm.ToolCall, round int) outcome {
	var tool Tool
	ok := false
	if r.cfg.Tools != nil {
		tool, ok = r.cfg.Tools.Lookup(c.Name)
	}
	if !ok {
		var names []string
		if r.cfg.Tools != nil {
			names = r.cfg.Tools.Names()
		}
		return failed(&ToolFailure{Code: CodeUnknownTool, Message: fmt.Sprintf("there is no tool named %q", c.Name),
			Details: map[string]any{"available": names}})
	}
	if ctx.Err() != nil {
		return failed(&ToolFailure{Code: CodeCancelled, Message: "the run was cancelled before this call started"})
	}
	timeout := r.cfg.ToolTimeout
	if tool.timeout > 0 {
		timeout = tool.timeout
	}
	cctx, cancel := context.WithTimeout(withCall(ctx, Call{ID: c.ID, Name: c.Name, Round: round}), timeout)
	defer cancel()
	val, err := r.call(cctx, tool, c)
	if err == nil {
		content, err := renderResult(val)
		if err != nil {
			return failed(&ToolFailure{Code: CodeToolError, Message: err.Error()})
		}
		return outcome{content: content, output: val, endsRun: tool.endsRun}
	}
	if te, ok := errors.AsType[*ToolError](err); ok {
		return failed(&ToolFailure{Code: te.Code, Message: te.Message, Details: te.Details})
	}
	switch {
	case ctx.Err() != nil:
		return failed(&ToolFailure{Code: CodeCancelled, Message: "the run was cancelled while this call ran"})
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return failed(&ToolFailure{Code: CodeTimeout, Message: fmt.Sprintf("the tool did not finish within %v", timeout)})
	default:
		return failed(&ToolFailure{Code: CodeToolError, Message: err.Error()})
	}
}

// call runs the handler; a panic becomes an error instead of ending the
// process, since the handler runs on a goroutine of the loop.
func (r *run) call(ctx context.Context, tool Tool, c llm.ToolCall) (val any, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.cfg.Logger.Error("tool handler panicked", slog.String("tool", c.Name), slog.String("call_id", c.ID),
				slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			val, err = nil, &ToolError{Code: CodeToolError, Message: "the tool failed unexpectedly"}
		}
	}()
	return tool.invoke(ctx, c.Args)
}

func failed(f *ToolFailure) outcome {
	return outcome{content: renderFailure(f), failure: f}
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
