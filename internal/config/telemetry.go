package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Telemetry is the OpenTelemetry configuration, from the standard OTEL_*
// variables (and STRATEGIST_TRACE_CONTENT). Traces are exported when
// OTLPEndpoint or OTLPTracesEndpoint is set, metrics when OTLPEndpoint or
// OTLPMetricsEndpoint is; with neither, no tracer provider exists and
// instrumented code does nothing. Prometheus /metrics does not depend on
// it.
type Telemetry struct {
	// OTLPEndpoint is the collector's base URL: /v1/traces and /v1/metrics
	// are appended for OTLP/HTTP; gRPC uses its host and port.
	OTLPEndpoint string
	// OTLPTracesEndpoint and OTLPMetricsEndpoint, when set, are used as
	// they are for that signal (full URLs for OTLP/HTTP).
	OTLPTracesEndpoint  string
	OTLPMetricsEndpoint string
	// Protocol is "http/protobuf" or "grpc".
	Protocol string
	// Headers are sent with every export (a collector's credentials): never
	// logged.
	Headers map[string]string
	// ServiceName names this service in traces (default "strategist").
	ServiceName string
	// ResourceAttributes are extra resource attributes, key=value pairs.
	ResourceAttributes map[string]string
	// Sampler is an OTEL_TRACES_SAMPLER name; SamplerArg its ratio.
	Sampler    string
	SamplerArg float64
	// TracesOff and MetricsOff turn one signal's export off
	// (OTEL_TRACES_EXPORTER=none, OTEL_METRICS_EXPORTER=none); Disabled
	// turns both off (OTEL_SDK_DISABLED=true).
	TracesOff  bool
	MetricsOff bool
	Disabled   bool
	// MetricInterval is how often metrics are exported.
	MetricInterval time.Duration
	// Content lets spans record what researchers and models wrote
	// (messages, prompts, completions, tool arguments).
	Content bool
}

// TracesEnabled reports whether spans are exported.
func (t Telemetry) TracesEnabled() bool {
	return !t.Disabled && !t.TracesOff && (t.OTLPEndpoint != "" || t.OTLPTracesEndpoint != "")
}

// MetricsEnabled reports whether metrics are exported over OTLP.
func (t Telemetry) MetricsEnabled() bool {
	return !t.Disabled && !t.MetricsOff && (t.OTLPEndpoint != "" || t.OTLPMetricsEndpoint != "")
}

// otlpURL checks an OTLP endpoint: an http:// or https:// URL with a host.
func otlpURL(dst *string, v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// URL, such as http://localhost:4318")
	}
	*dst = v
	return nil
}

// exporter reads OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER.
func exporter(off *bool, v string) error {
	switch v {
	case "otlp":
		return nil
	case "none":
		*off = true
		return nil
	}
	return errors.New(`must be "otlp" or "none"`)
}

// pairs reads the OpenTelemetry list form key1=value1,key2=value2, whose
// values may be percent-encoded.
func pairs(v string) (map[string]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, p := range strings.Split(v, ",") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		k, val, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, errors.New("must be key=value pairs separated by commas")
		}
		dec, err := url.PathUnescape(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("the value of %s is not validly percent-encoded", k)
		}
		out[k] = dec
	}
	return out, nil
}
