package telemetry

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metrics are a server's instruments. Each is defined once here and read
// through the meter provider's readers: the Prometheus registry behind
// /metrics always, an OTLP exporter when one is configured. A nil *Metrics
// records nothing, so packages and their tests need not wire one.
//
// The Prometheus names (with the exporter's unit and _total suffixes):
//
//	strategist_turns_total{mode,status}                 turns ended
//	strategist_turn_duration_seconds{mode,status}       turn durations
//	strategist_model_tokens_total{model,type}           tokens (type input or output)
//	strategist_tool_call_duration_seconds{tool,outcome,scope}  tool calls (scope main or subagent)
//	strategist_subagent_attempts_total{kind,outcome}    sub-agent attempts and combines by outcome
//	strategist_streams_open                             event streams being served
//	strategist_eventlog_batch_size                      events per log transaction
//	strategist_eventlog_lag_seconds                     append to durable and published
type Metrics struct {
	turns        metric.Int64Counter
	turnDuration metric.Float64Histogram
	tokens       metric.Int64Counter
	toolCalls    metric.Float64Histogram
	attempts     metric.Int64Counter
	streams      metric.Int64UpDownCounter
	batchSize    metric.Int64Histogram
	lag          metric.Float64Histogram

	// toolAttrs holds each (tool, outcome, scope) label set once: a tool
	// call is the most frequent measurement, and a set built per call
	// would cost a sort and allocations each time.
	toolMu    sync.RWMutex
	toolAttrs map[toolLabels]metric.MeasurementOption
}

type toolLabels struct{ tool, outcome, scope string }

// NewMetrics creates the instruments on mp.
func NewMetrics(mp metric.MeterProvider) (*Metrics, error) {
	m := mp.Meter(Scope)
	var (
		out  = Metrics{toolAttrs: map[toolLabels]metric.MeasurementOption{}}
		errs []error
	)
	add := func(err error) { errs = append(errs, err) }
	var err error
	out.turns, err = m.Int64Counter("strategist.turns", metric.WithUnit("{turn}"),
		metric.WithDescription("Turns ended, by mode and status."))
	add(err)
	out.turnDuration, err = m.Float64Histogram("strategist.turn.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a turn's start to its end, by mode and status."),
		metric.WithExplicitBucketBoundaries(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800))
	add(err)
	out.tokens, err = m.Int64Counter("strategist.model.tokens", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens the models reported, by model and type (input or output)."))
	add(err)
	out.toolCalls, err = m.Float64Histogram("strategist.tool_call.duration", metric.WithUnit("s"),
		metric.WithDescription("Tool call latency, by tool, outcome (ok or the error code) and scope (main or subagent)."),
		metric.WithExplicitBucketBoundaries(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60))
	add(err)
	out.attempts, err = m.Int64Counter("strategist.subagent.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("Sub-agent attempts and combines of delegations, by node kind and outcome."))
	add(err)
	out.streams, err = m.Int64UpDownCounter("strategist.streams.open", metric.WithUnit("{stream}"),
		metric.WithDescription("Event streams (JSON and page) being served."))
	add(err)
	out.batchSize, err = m.Int64Histogram("strategist.eventlog.batch.size", metric.WithUnit("{event}"),
		metric.WithDescription("Events written by one event log transaction."),
		metric.WithExplicitBucketBoundaries(1, 2, 4, 8, 16, 32, 64, 128, 256, 512))
	add(err)
	out.lag, err = m.Float64Histogram("strategist.eventlog.lag", metric.WithUnit("s"),
		metric.WithDescription("Time from an append reaching the event log to its batch being durable and published (the batch's oldest append)."),
		metric.WithExplicitBucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5))
	add(err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &out, nil
}

// TurnEnded records a turn's end.
func (m *Metrics) TurnEnded(ctx context.Context, mode, status string, d time.Duration) {
	if m == nil {
		return
	}
	attrs := metric.WithAttributes(attribute.String("mode", mode), attribute.String("status", status))
	m.turns.Add(ctx, 1, attrs)
	m.turnDuration.Record(ctx, d.Seconds(), attrs)
}

// Tokens records one model call's tokens.
func (m *Metrics) Tokens(ctx context.Context, model string, input, output int) {
	if m == nil {
		return
	}
	if input > 0 {
		m.tokens.Add(ctx, int64(input), metric.WithAttributes(attribute.String("model", model), attribute.String("type", "input")))
	}
	if output > 0 {
		m.tokens.Add(ctx, int64(output), metric.WithAttributes(attribute.String("model", model), attribute.String("type", "output")))
	}
}

// ToolCall records one tool call; outcome is "ok" or the failure's code,
// scope "main" or "subagent".
func (m *Metrics) ToolCall(ctx context.Context, tool, outcome, scope string, d time.Duration) {
	if m == nil {
		return
	}
	k := toolLabels{tool, outcome, scope}
	m.toolMu.RLock()
	opt, ok := m.toolAttrs[k]
	m.toolMu.RUnlock()
	if !ok {
		opt = metric.WithAttributeSet(attribute.NewSet(attribute.String("tool", tool),
			attribute.String("outcome", outcome), attribute.String("scope", scope)))
		m.toolMu.Lock()
		m.toolAttrs[k] = opt
		m.toolMu.Unlock()
	}
	m.toolCalls.Record(ctx, d.Seconds(), opt)
}

// Attempt records how a sub-agent attempt (or a combine) ended.
func (m *Metrics) Attempt(ctx context.Context, kind, outcome string) {
	if m == nil {
		return
	}
	m.attempts.Add(ctx, 1, metric.WithAttributes(attribute.String("kind", kind), attribute.String("outcome", outcome)))
}

// StreamOpened counts an event stream while it is served: call the
// returned function when it ends.
func (m *Metrics) StreamOpened(ctx context.Context) (closed func()) {
	if m == nil {
		return func() {}
	}
	m.streams.Add(ctx, 1)
	return func() { m.streams.Add(context.WithoutCancel(ctx), -1) }
}

// EventBatch records one event log transaction: its events and the age of
// its oldest append when the batch was published.
func (m *Metrics) EventBatch(ctx context.Context, events int, lag time.Duration) {
	if m == nil {
		return
	}
	m.batchSize.Record(ctx, int64(events))
	m.lag.Record(ctx, lag.Seconds())
}
