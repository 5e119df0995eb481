package main

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	colltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"

	"strategist/internal/config"
)

// traceServer is an OTLP/gRPC trace receiver.
type traceServer struct {
	colltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	names []string
}

func (s *traceServer) Export(_ context.Context, req *colltracepb.ExportTraceServiceRequest) (*colltracepb.ExportTraceServiceResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				s.names = append(s.names, sp.Name)
			}
		}
	}
	return &colltracepb.ExportTraceServiceResponse{}, nil
}

// TestSpansOverGRPC: with OTEL_EXPORTER_OTLP_PROTOCOL=grpc the spans go to
// the collector's gRPC address; shutting down sends what is buffered.
func TestSpansOverGRPC(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	recv := &traceServer{}
	srv := grpc.NewServer()
	colltracepb.RegisterTraceServiceServer(srv, recv)
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()

	cfg, err := config.Load(nil, envMap(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + ln.Addr().String(),
		"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_METRICS_EXPORTER":       "none",
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	obs, err := newObservability(ctx, cfg.Telemetry, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if obs.tracerProvider() == nil || len(obs.storeOptions()) != 1 {
		t.Fatal("tracing is off with an endpoint set")
	}
	_, span := obs.tracerProvider().Tracer("test").Start(ctx, "turn plan")
	span.End()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := obs.shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	if len(recv.names) != 1 || recv.names[0] != "turn plan" {
		t.Errorf("received spans %v", recv.names)
	}
}

// TestTracingOffWithoutAnEndpoint: with no OTEL_* setting there is no
// tracer provider (so no span is ever made) and no OTLP metric reader,
// while the Prometheus registry still has the metrics.
func TestTracingOffWithoutAnEndpoint(t *testing.T) {
	cfg, err := config.Load(nil, envMap(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	obs, err := newObservability(ctx, cfg.Telemetry, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = obs.shutdown(ctx) }()
	if obs.tracerProvider() != nil || obs.storeOptions() != nil {
		t.Error("tracing is on without an endpoint")
	}
	obs.metrics.TurnEnded(ctx, "plan", "completed", time.Second)
	mfs, err := obs.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		found = found || mf.GetName() == "strategist_turns_total"
	}
	if !found {
		t.Error("strategist_turns_total is not in the registry")
	}
}

// TestSignalURLs: the base endpoint gets each signal's path for OTLP/HTTP;
// a signal's own endpoint is used as it is; gRPC takes the base as it is.
func TestSignalURLs(t *testing.T) {
	base := config.Telemetry{OTLPEndpoint: "http://collector:4318/", Protocol: "http/protobuf"}
	if got := signalURL(base, "", "/v1/traces"); got != "http://collector:4318/v1/traces" {
		t.Errorf("traces URL = %q", got)
	}
	if got := signalURL(base, "https://other/x", "/v1/traces"); got != "https://other/x" {
		t.Errorf("own traces URL = %q", got)
	}
	base.Protocol, base.OTLPEndpoint = "grpc", "http://collector:4317"
	if got := signalURL(base, "", "/v1/metrics"); got != "http://collector:4317" {
		t.Errorf("gRPC URL = %q", got)
	}
}
