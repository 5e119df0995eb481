package subagent

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"strategist/internal/plan"
	"strategist/internal/strategy"
	"strategist/internal/telemetry"
)

// A traced delegation is a span under the tool call that started it, and
// each node attempt (a sub-agent's run, or a combine) a span under the
// delegation's, though the attempts run concurrently on their own
// goroutines: each worker starts its span from the run's context, which
// carries the delegation's span. A sub-agent's model and tool calls are
// spans under its attempt's.

// startNodeSpan starts the span of one attempt of node n, under the
// delegation's span, and returns the context the attempt runs with.
func (r *run) startNodeSpan(n plan.Node, attempt int) (context.Context, trace.Span) {
	ctx, span := telemetry.Start(r.ctx, "subagent.node")
	if span.IsRecording() {
		span.SetName(n.Kind.String() + " " + n.ID)
		span.SetAttributes(telemetry.KeyDelegationID.String(r.id), telemetry.KeyNodeID.String(n.ID),
			telemetry.KeyNodeKind.String(n.Kind.String()), telemetry.KeyAttempt.Int(attempt))
		if telemetry.Content(ctx) {
			span.SetAttributes(attribute.String("strategist.node.label", telemetry.Clip(n.Label)))
		}
	}
	return ctx, span
}

// outcome is how an attempt ended, as a node status: done, failed,
// timeout or cancelled.
func (a attemptResult) outcome() Status {
	switch {
	case a.err == nil:
		return StatusDone
	case a.cancelled:
		return StatusCancelled
	case a.timedOut:
		return StatusTimeout
	}
	return StatusFailed
}

func endTaskSpan(span trace.Span, res attemptResult) {
	if !span.IsRecording() {
		return
	}
	status := res.outcome()
	span.SetAttributes(telemetry.KeyNodeStatus.String(string(status)),
		telemetry.KeyInputTokens.Int(res.usage.PromptTokens), telemetry.KeyOutputTokens.Int(res.usage.CompletionTokens))
	if res.root != "" {
		span.SetAttributes(attribute.String("strategist.node.root_step", string(res.root)))
	}
	if status == StatusCancelled {
		span.AddEvent("attempt cancelled")
	} else {
		telemetry.Fail(span, res.err)
	}
	span.End()
}

func endCombineSpan(span trace.Span, root strategy.StepID, err error) {
	if !span.IsRecording() {
		return
	}
	status := StatusDone
	if err != nil {
		status = StatusFailed
	}
	span.SetAttributes(telemetry.KeyNodeStatus.String(string(status)))
	if root != "" {
		span.SetAttributes(attribute.String("strategist.node.root_step", string(root)))
	}
	telemetry.Fail(span, err)
	span.End()
}

// endDelegationSpan records how the delegation ended and ends its span: a
// cancelled delegation says so, a failed one (or one that could not run)
// is an error.
func endDelegationSpan(span trace.Span, res *Result, err error) {
	if res != nil {
		span.SetAttributes(attribute.String("strategist.delegation.status", string(res.Status)),
			telemetry.KeyInputTokens.Int(res.Usage.PromptTokens), telemetry.KeyOutputTokens.Int(res.Usage.CompletionTokens))
		switch res.Status {
		case DelegationCancelled:
			span.AddEvent("delegation cancelled")
		case DelegationFailed:
			span.SetStatus(codes.Error, "the delegation failed")
		}
	}
	telemetry.Fail(span, err)
	span.End()
}
