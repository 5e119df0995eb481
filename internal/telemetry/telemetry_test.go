package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"strategist/internal/telemetry"
)

// TestStartOnlyUnderARecordingSpan: outside a trace Start returns the
// context as it is and allocates nothing; inside one it starts a child on
// the parent's provider.
func TestStartOnlyUnderARecordingSpan(t *testing.T) {
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		c, span := telemetry.Start(ctx, "tool")
		if span.IsRecording() {
			span.SetName("never")
		}
		span.End()
		if c != ctx {
			t.Fatal("Start changed an untraced context")
		}
	})
	if allocs != 0 {
		t.Errorf("Start outside a trace allocates %v times", allocs)
	}

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, root := tp.Tracer("test").Start(ctx, "turn")
	_, child := telemetry.Start(ctx, "tool")
	child.End()
	root.End()
	ended := rec.Ended()
	if len(ended) != 2 || ended[0].Name() != "tool" || ended[0].Parent().SpanID() != root.SpanContext().SpanID() {
		t.Fatalf("spans = %v", ended)
	}
	if ended[0].InstrumentationScope().Name != telemetry.Scope {
		t.Errorf("child scope = %q", ended[0].InstrumentationScope().Name)
	}
}

func TestLogLinesCarryTheTrace(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewTextHandler(&buf, nil))).With("component", "test")
	log.InfoContext(context.Background(), "outside")
	if strings.Contains(buf.String(), "trace_id") {
		t.Errorf("a line outside a trace has a trace id: %s", buf.String())
	}
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "turn")
	defer span.End()
	buf.Reset()
	log.InfoContext(ctx, "inside")
	want := "trace_id=" + span.SpanContext().TraceID().String() + " span_id=" + span.SpanContext().SpanID().String()
	if !strings.Contains(buf.String(), want) {
		t.Errorf("line = %q, want %q", buf.String(), want)
	}
	buf.Reset()
	telemetry.Logger(ctx, log).Info("no context")
	if !strings.Contains(buf.String(), "trace_id="+span.SpanContext().TraceID().String()) {
		t.Errorf("turn logger line = %q", buf.String())
	}
}

func TestContentIsOptIn(t *testing.T) {
	ctx := context.Background()
	if telemetry.Content(ctx) || telemetry.Content(telemetry.WithContent(ctx, false)) {
		t.Error("content recorded without being asked for")
	}
	if !telemetry.Content(telemetry.WithContent(ctx, true)) {
		t.Error("content not recorded when asked for")
	}
	long := strings.Repeat("é", telemetry.MaxContent)
	clipped := telemetry.Clip(long)
	if len(clipped) > telemetry.MaxContent+len("…") || !strings.HasSuffix(clipped, "…") || !strings.HasPrefix(long, strings.TrimSuffix(clipped, "…")) {
		t.Errorf("Clip cut %d bytes to %d", len(long), len(clipped))
	}
	if telemetry.Clip("short") != "short" {
		t.Error("Clip changed a short text")
	}
}

// BenchmarkToolCallMetric is the cost of recording one tool call's
// latency on the SDK's meter, as every tool call does.
func BenchmarkToolCallMetric(b *testing.B) {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	m, err := telemetry.NewMetrics(mp)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m.ToolCall(ctx, "list_steps", "ok", "main", time.Millisecond)
	}
}
