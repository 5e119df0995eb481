package chat

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/telemetry"
)

// A traced turn is one trace: its root span starts before the turn's start
// is committed and ends after its end is, and everything the turn does
// (model calls, tool calls, the delegation and its sub-agents, catalog
// requests, strategy mutations, database queries) is a span under it. The
// turn runs detached from the request that started it, so the request's
// span is a link, not the parent. The trace and span ids go into the
// turn_start event and the turn's log lines.

// noSpan is what an untraced turn holds: a span that does nothing.
var noSpan = trace.SpanFromContext(context.Background())

// startSpan starts t's root span when turns are traced, names its trace in
// the turn's turn_start (among first), and returns ctx with the span, so
// that the start's own database work is part of the turn's trace.
func (s *Service) startSpan(ctx context.Context, t *turn, first []event.Event) context.Context {
	t.span = noSpan
	if s.cfg.Tracer == nil {
		return ctx
	}
	attrs := []attribute.KeyValue{
		telemetry.KeyTurnID.String(t.id), telemetry.KeyConversationID.String(t.convID),
		telemetry.KeyMode.String(string(t.mode)), telemetry.KeyModel.String(t.model),
	}
	var start *event.TurnStart
	for _, ev := range first {
		if ts, ok := ev.(*event.TurnStart); ok {
			start = ts
		}
	}
	if start != nil && start.HandoffID != "" {
		attrs = append(attrs, telemetry.KeyHandoffID.String(start.HandoffID))
	}
	if start != nil && s.cfg.TraceContent {
		attrs = append(attrs, telemetry.KeyMessage.String(telemetry.Clip(start.Message)))
	}
	tctx, span := s.cfg.Tracer.Tracer(telemetry.Scope).Start(ctx, "turn "+string(t.mode),
		trace.WithNewRoot(), trace.WithLinks(trace.LinkFromContext(ctx)), trace.WithAttributes(attrs...))
	t.span = span
	// Only a sampled turn's ids are named: they lead to a trace that exists.
	if sc := span.SpanContext(); sc.IsSampled() && start != nil {
		start.TraceID, start.SpanID = sc.TraceID().String(), sc.SpanID().String()
	}
	return tctx
}

// endSpan records how the turn ended on its span and ends it: the status,
// tokens and rounds; a cancelled or interrupted turn says why, a failed
// one is an error.
func endSpan(ctx context.Context, t *turn, status event.TurnStatus, msg string, end agent.RunEnd, usage llm.Usage) {
	span := t.span
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(telemetry.KeyTurnStatus.String(string(status)),
		telemetry.KeyInputTokens.Int(usage.PromptTokens), telemetry.KeyOutputTokens.Int(usage.CompletionTokens),
		attribute.Int("strategist.turn.rounds", end.Rounds))
	switch status {
	case event.TurnFailed:
		span.SetStatus(codes.Error, msg)
	case event.TurnCancelled, event.TurnInterrupted:
		why := msg
		if cause := context.Cause(ctx); cause != nil {
			why = cause.Error()
		}
		span.AddEvent("turn "+string(status), trace.WithAttributes(attribute.String("reason", why)))
	}
	span.End()
}

// observe records the metrics of one agent event of the turn's main run:
// tool-call latency and model tokens.
func (s *Service) observe(ctx context.Context, model string, ev agent.Event) {
	if s.cfg.Metrics == nil {
		return
	}
	switch e := ev.(type) {
	case agent.ToolCallEnd:
		s.cfg.Metrics.ToolCall(ctx, e.Name, e.Outcome(), "main", e.Duration)
	case agent.CallUsage:
		s.cfg.Metrics.Tokens(ctx, model, e.Usage.PromptTokens, e.Usage.CompletionTokens)
	}
}

// traceRecovery records, in the trace of a turn whose process died, that
// the turn was recovered as interrupted: a span under the turn's root span
// (named by its turn_start), started by the process that recovered it.
func (s *Service) traceRecovery(ctx context.Context, turnID string, past []event.Record) {
	if s.cfg.Tracer == nil {
		return
	}
	var start *event.TurnStart
	for _, rec := range past {
		if rec.Type != "turn_start" {
			continue
		}
		ev, err := event.Decode(rec.Type, rec.Payload)
		if ts, ok := ev.(*event.TurnStart); err == nil && ok {
			start = ts
		}
		break
	}
	if start == nil || start.TraceID == "" {
		return
	}
	tid, err1 := trace.TraceIDFromHex(start.TraceID)
	sid, err2 := trace.SpanIDFromHex(start.SpanID)
	if err := errors.Join(err1, err2); err != nil {
		return
	}
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true})
	_, span := s.cfg.Tracer.Tracer(telemetry.Scope).Start(trace.ContextWithRemoteSpanContext(ctx, parent), "turn recovered",
		trace.WithAttributes(telemetry.KeyTurnID.String(turnID), telemetry.KeyTurnStatus.String(string(event.TurnInterrupted))))
	span.AddEvent("turn interrupted", trace.WithAttributes(attribute.String("reason", "the server running the turn stopped; another process recovered it")))
	span.End()
}
