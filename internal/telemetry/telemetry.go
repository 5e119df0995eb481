// Package telemetry is Strategist's tracing and metrics vocabulary: the
// span helpers and attribute names every instrumented package uses, the
// metric instruments of a server, and the log handler that puts a trace's
// id on each log line written inside it.
//
// It uses the OpenTelemetry API only. The providers (the SDK, the OTLP and
// Prometheus exporters) are built from the configuration by cmd/server;
// without them every helper here is a no-op. Spans are only ever started
// as children of a recording span (a traced turn or request), so code
// outside a trace, and all code when tracing is off, pays one context
// look-up and allocates nothing.
package telemetry

import (
	"context"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Scope names Strategist's spans and metrics (the instrumentation scope).
const Scope = "strategist"

// Attribute keys Strategist's spans carry. Model and tool spans use the
// OpenTelemetry GenAI names; the rest are Strategist's own.
const (
	KeyModel          = attribute.Key("gen_ai.request.model")
	KeyAgent          = attribute.Key("gen_ai.agent.name")
	KeyInputTokens    = attribute.Key("gen_ai.usage.input_tokens")
	KeyOutputTokens   = attribute.Key("gen_ai.usage.output_tokens")
	KeyFinishReasons  = attribute.Key("gen_ai.response.finish_reasons")
	KeyToolName       = attribute.Key("gen_ai.tool.name")
	KeyToolCallID     = attribute.Key("gen_ai.tool.call.id")
	KeyPrompt         = attribute.Key("gen_ai.prompt")
	KeyCompletion     = attribute.Key("gen_ai.completion")
	KeyRetries        = attribute.Key("strategist.llm.retries")
	KeyRound          = attribute.Key("strategist.agent.round")
	KeyToolOutcome    = attribute.Key("strategist.tool.outcome")
	KeyToolArgs       = attribute.Key("strategist.tool.arguments")
	KeyTurnID         = attribute.Key("strategist.turn.id")
	KeyConversationID = attribute.Key("strategist.conversation.id")
	KeyMode           = attribute.Key("strategist.turn.mode")
	KeyTurnStatus     = attribute.Key("strategist.turn.status")
	KeyHandoffID      = attribute.Key("strategist.handoff.id")
	KeyMessage        = attribute.Key("strategist.turn.message")
	KeyDelegationID   = attribute.Key("strategist.delegation.id")
	KeyNodeID         = attribute.Key("strategist.node.id")
	KeyNodeKind       = attribute.Key("strategist.node.kind")
	KeyAttempt        = attribute.Key("strategist.node.attempt")
	KeyNodeStatus     = attribute.Key("strategist.node.status")
	KeySite           = attribute.Key("strategist.site")
	KeyLive           = attribute.Key("strategist.catalog.live")
	KeySearch         = attribute.Key("strategist.catalog.search")
	KeyRecordType     = attribute.Key("strategist.catalog.record_type")
	KeyStrategyID     = attribute.Key("strategist.strategy.id")
	KeyMutation       = attribute.Key("strategist.strategy.mutation")
	KeyVersion        = attribute.Key("strategist.strategy.version")
)

// Start starts a span named name as a child of ctx's span, on that span's
// provider, when ctx's span is recording. Otherwise it returns ctx and
// ctx's (non-recording) span, whose methods do nothing: nothing is
// allocated, so instrumentation is free when tracing is off. Callers set
// attributes only when span.IsRecording(), for the same reason.
func Start(ctx context.Context, name string) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer(Scope).Start(ctx, name)
}

// Fail marks span failed with err (nothing when err is nil or the span does
// not record).
func Fail(span trace.Span, err error) {
	if err == nil || !span.IsRecording() {
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

type contentKey struct{}

// WithContent returns ctx saying whether spans started under it may record
// what researchers and models wrote (messages, prompts, completions, tool
// arguments): STRATEGIST_TRACE_CONTENT. Without it they record ids,
// names, counts and outcomes only.
func WithContent(ctx context.Context, on bool) context.Context {
	if !on {
		return ctx
	}
	return context.WithValue(ctx, contentKey{}, true)
}

// Content reports whether spans under ctx may record written content.
func Content(ctx context.Context) bool {
	on, _ := ctx.Value(contentKey{}).(bool)
	return on
}

// MaxContent bounds a content attribute, in bytes.
const MaxContent = 4096

// Clip cuts s to at most MaxContent bytes, on a character boundary, so a
// long prompt cannot swell a span past what a collector accepts.
func Clip(s string) string {
	if len(s) <= MaxContent {
		return s
	}
	cut := MaxContent
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
