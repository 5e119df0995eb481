package chat

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"strategist/internal/event"
)

// TestRecoveredTurnJoinsItsTrace: a turn whose process died is recovered
// by another, which records the recovery in the turn's own trace, under
// the turn's root span named by its turn_start.
func TestRecoveredTurnJoinsItsTrace(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	s := &Service{cfg: Config{Tracer: tp}}

	start := &event.TurnStart{Base: event.Base{TurnID: "t1"}, Mode: ModeExecute, Model: "offline",
		TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7"}
	typ, payload, err := event.Encode(start)
	if err != nil {
		t.Fatal(err)
	}
	past := []event.Record{{TurnID: "t1", Type: typ, Payload: payload}}
	s.traceRecovery(context.Background(), "t1", past)
	ended := rec.Ended()
	if len(ended) != 1 {
		t.Fatalf("spans = %d", len(ended))
	}
	sp := ended[0]
	if sp.SpanContext().TraceID().String() != start.TraceID || sp.Parent().SpanID().String() != start.SpanID {
		t.Errorf("recovery span in trace %s under %s", sp.SpanContext().TraceID(), sp.Parent().SpanID())
	}
	if len(sp.Events()) != 1 || sp.Events()[0].Name != "turn interrupted" {
		t.Errorf("recovery span events = %v", sp.Events())
	}

	// A turn started without tracing has no trace to join.
	typ, payload, err = event.Encode(&event.TurnStart{Base: event.Base{TurnID: "t2"}, Mode: ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	s.traceRecovery(context.Background(), "t2", []event.Record{{TurnID: "t2", Type: typ, Payload: payload}})
	if len(rec.Ended()) != 1 {
		t.Error("a recovery span was made for an untraced turn")
	}
}
