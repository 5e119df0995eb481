package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"strategist/internal/config"
	"strategist/internal/store"
	"strategist/internal/telemetry"
)

// observability is the process's telemetry: the Prometheus registry behind
// /metrics, the meter provider whose instruments (telemetry.Metrics) it and
// an OTLP exporter read, and, when tracing is configured, the tracer
// provider that turns, requests and the database start their spans on.
// Everything else starts spans only under those (telemetry.Start), so with
// tracing off no span exists anywhere.
type observability struct {
	registry *prometheus.Registry
	metrics  *telemetry.Metrics
	meter    *sdkmetric.MeterProvider
	// tracer is nil when tracing is off.
	tracer  *sdktrace.TracerProvider
	content bool
}

// tracerProvider is the provider to start root spans on, nil when tracing
// is off.
func (o *observability) tracerProvider() trace.TracerProvider {
	if o.tracer == nil {
		return nil
	}
	return o.tracer
}

// newObservability builds the providers from the configuration. spans,
// when set, receives the spans through a batch processor instead of an
// OTLP exporter, and turns tracing on (tests and benchmarks).
func newObservability(ctx context.Context, cfg config.Telemetry, version string, spans sdktrace.SpanExporter) (*observability, error) {
	o := &observability{registry: prometheus.NewRegistry(), content: cfg.Content}
	o.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	prom, err := otelprom.New(otelprom.WithRegisterer(o.registry), otelprom.WithoutTargetInfo(), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
	}
	res, err := newResource(ctx, cfg, version)
	if err != nil {
		return nil, err
	}
	readers := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(prom)}
	if cfg.MetricsEnabled() {
		exp, err := metricExporter(ctx, cfg)
		if err != nil {
			return nil, err
		}
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(cfg.MetricInterval))))
	}
	o.meter = sdkmetric.NewMeterProvider(readers...)
	if o.metrics, err = telemetry.NewMetrics(o.meter); err != nil {
		return nil, errors.Join(fmt.Errorf("telemetry: metrics: %w", err), o.meter.Shutdown(ctx))
	}
	if spans == nil && cfg.TracesEnabled() {
		if spans, err = spanExporter(ctx, cfg); err != nil {
			return nil, errors.Join(err, o.meter.Shutdown(ctx))
		}
	}
	if spans != nil {
		o.tracer = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(spans),
			sdktrace.WithSampler(sampler(cfg)))
	}
	return o, nil
}

// storeOptions trace the database's queries when tracing is on.
func (o *observability) storeOptions() []store.Option {
	if o.tracer == nil {
		return nil
	}
	return []store.Option{store.WithTracing(o.tracer)}
}

// shutdown exports what is buffered and stops the exporters.
func (o *observability) shutdown(ctx context.Context) error {
	var errs []error
	if o.tracer != nil {
		errs = append(errs, o.tracer.Shutdown(ctx))
	}
	errs = append(errs, o.meter.Shutdown(ctx))
	return errors.Join(errs...)
}

// installGlobals makes the tracer provider the process's OpenTelemetry
// global (so a library that traces puts its spans under ours) and sends
// the SDK's own errors, such as a collector that does not answer, to the
// log. The meter provider stays private: /metrics shows Strategist's
// metrics only. Only the server process calls it: tests build several
// apps in one process.
func (o *observability) installGlobals(log *slog.Logger) {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("opentelemetry", slog.Any("error", err))
	}))
	otel.SetTextMapPropagator(propagators)
	if o.tracer != nil {
		otel.SetTracerProvider(o.tracer)
	}
}

// propagators read and write W3C trace context and baggage headers.
var propagators = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

func newResource(ctx context.Context, cfg config.Telemetry, version string) (*resource.Resource, error) {
	name := cfg.ServiceName
	if name == "" {
		name = "strategist"
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name), attribute.String("service.version", version)}
	for k, v := range cfg.ResourceAttributes {
		if k != "service.name" {
			attrs = append(attrs, attribute.String(k, v))
		}
	}
	res, err := resource.New(ctx, resource.WithTelemetrySDK(), resource.WithAttributes(attrs...))
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	return res, nil
}

// signalURL is where one signal goes: its own endpoint as it is, else the
// base endpoint with the signal's path for OTLP/HTTP (gRPC needs only the
// host and port).
func signalURL(cfg config.Telemetry, own, path string) string {
	if own != "" {
		return own
	}
	if cfg.Protocol == "grpc" {
		return cfg.OTLPEndpoint
	}
	return strings.TrimSuffix(cfg.OTLPEndpoint, "/") + path
}

func spanExporter(ctx context.Context, cfg config.Telemetry) (sdktrace.SpanExporter, error) {
	u := signalURL(cfg, cfg.OTLPTracesEndpoint, "/v1/traces")
	var (
		exp sdktrace.SpanExporter
		err error
	)
	if cfg.Protocol == "grpc" {
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(u), otlptracegrpc.WithHeaders(cfg.Headers))
	} else {
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u), otlptracehttp.WithHeaders(cfg.Headers))
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: trace exporter for %s: %w", u, err)
	}
	return exp, nil
}

func metricExporter(ctx context.Context, cfg config.Telemetry) (sdkmetric.Exporter, error) {
	u := signalURL(cfg, cfg.OTLPMetricsEndpoint, "/v1/metrics")
	var (
		exp sdkmetric.Exporter
		err error
	)
	if cfg.Protocol == "grpc" {
		exp, err = otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(u), otlpmetricgrpc.WithHeaders(cfg.Headers))
	} else {
		exp, err = otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(u), otlpmetrichttp.WithHeaders(cfg.Headers))
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: metric exporter for %s: %w", u, err)
	}
	return exp, nil
}

// sampler is the configured OTEL_TRACES_SAMPLER. A turn's span is a root
// (its request's span is a link, not its parent), so the parent-based
// samplers decide turns by their own ratio and requests by their caller's
// choice.
func sampler(cfg config.Telemetry) sdktrace.Sampler {
	switch cfg.Sampler {
	case "always_on":
		return sdktrace.AlwaysSample()
	case "always_off":
		return sdktrace.NeverSample()
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(cfg.SamplerArg)
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample())
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.SamplerArg))
	}
	return sdktrace.ParentBased(sdktrace.AlwaysSample())
}
