package config_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"strategist/internal/config"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaults(t *testing.T) {
	c, err := config.Load(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.Auth != config.AuthLocal || c.Model != "offline" ||
		c.SubagentConcurrency != 4 || c.AutoApprove || c.SessionTTL != 168*time.Hour ||
		c.CatalogTTL != 24*time.Hour {
		t.Errorf("defaults = %+v", c)
	}
}

func TestModelDefaultFollowsKeys(t *testing.T) {
	c, err := config.Load(nil, env(map[string]string{"GEMINI_API_KEY": "k"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Model, "gemini:") {
		t.Errorf("with a Gemini key, model = %q", c.Model)
	}
	c, err = config.Load(nil, env(map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Model, "openai:") {
		t.Errorf("with an OpenAI base URL, model = %q", c.Model)
	}
}

func TestFlagsOverrideEnvironment(t *testing.T) {
	c, err := config.Load([]string{"-addr", "127.0.0.1:9999", "-subagent-concurrency", "8"},
		env(map[string]string{"STRATEGIST_ADDR": "127.0.0.1:1111", "STRATEGIST_SUBAGENT_CONCURRENCY": "2"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9999" || c.SubagentConcurrency != 8 {
		t.Errorf("flags did not override: %+v", c)
	}
}

func TestBadValuesNameTheSetting(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want []string // substrings of the error
	}{
		{map[string]string{"STRATEGIST_AUTH": "ldap"}, []string{"STRATEGIST_AUTH", `"local" or "dev"`}},
		{map[string]string{"STRATEGIST_ADDR": "8080"}, []string{"STRATEGIST_ADDR", "host:port"}},
		{map[string]string{"STRATEGIST_SUBAGENT_CONCURRENCY": "0"}, []string{"STRATEGIST_SUBAGENT_CONCURRENCY", "1 to 32"}},
		{map[string]string{"STRATEGIST_AUTO_APPROVE": "sometimes"}, []string{"STRATEGIST_AUTO_APPROVE", "true or false"}},
		{map[string]string{"STRATEGIST_SESSION_TTL": "1s"}, []string{"STRATEGIST_SESSION_TTL"}},
		{map[string]string{"STRATEGIST_CATALOG_TTL": "10s"}, []string{"STRATEGIST_CATALOG_TTL", "1m to 720h"}},
		{map[string]string{"STRATEGIST_SECRET_KEY": "c2hvcnQ="}, []string{"STRATEGIST_SECRET_KEY", "32 bytes"}},
		{map[string]string{"OPENAI_BASE_URL": "localhost:11434"}, []string{"OPENAI_BASE_URL", "http"}},
		{map[string]string{"STRATEGIST_LOG_LEVEL": "loud"}, []string{"STRATEGIST_LOG_LEVEL"}},
		{map[string]string{"STRATEGIST_AUTH": "dev", "STRATEGIST_ADDR": "0.0.0.0:8080"}, []string{"STRATEGIST_AUTH=dev", "loopback"}},
		{map[string]string{"STRATEGIST_AUTH": "dev", "STRATEGIST_ADDR": ":8080"}, []string{"loopback"}},
		{map[string]string{"STRATEGIST_PUBLIC_URL": "strategist.example.org"}, []string{"STRATEGIST_PUBLIC_URL", "http:// or https://"}},
		{map[string]string{"STRATEGIST_PUBLIC_URL": "ftp://strategist.example.org"}, []string{"STRATEGIST_PUBLIC_URL"}},
		{map[string]string{"STRATEGIST_PUBLIC_URL": "https://strategist.example.org/app"}, []string{"STRATEGIST_PUBLIC_URL", "without a path"}},
		{map[string]string{"STRATEGIST_PUBLIC_URL": "https://u:p@strategist.example.org"}, []string{"STRATEGIST_PUBLIC_URL"}},
		{map[string]string{"STRATEGIST_PUBLIC_URL": "https://strategist.example.org/?x=1"}, []string{"STRATEGIST_PUBLIC_URL"}},
		{map[string]string{"STRATEGIST_PUBLIC_URL": "https://"}, []string{"STRATEGIST_PUBLIC_URL"}},
		{map[string]string{"STRATEGIST_TRUSTED_PROXIES": "10.0.0.0/8, proxy.local"}, []string{"STRATEGIST_TRUSTED_PROXIES", `"proxy.local"`}},
		{map[string]string{"STRATEGIST_TRUSTED_PROXIES": "10.0.0.0/33"}, []string{"STRATEGIST_TRUSTED_PROXIES"}},
	}
	for _, tt := range tests {
		_, err := config.Load(nil, env(tt.env), io.Discard)
		if err == nil {
			t.Errorf("Load(%v) accepted", tt.env)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Load(%v) error %q does not mention %q", tt.env, err, w)
			}
		}
	}
}

func TestDevModeOnLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8080", "[::1]:8080", "localhost:8080"} {
		if _, err := config.Load(nil, env(map[string]string{"STRATEGIST_AUTH": "dev", "STRATEGIST_ADDR": addr}), io.Discard); err != nil {
			t.Errorf("dev mode on %s refused: %v", addr, err)
		}
	}
}

func TestTelemetryIsOffUnlessAnEndpointIsSet(t *testing.T) {
	c, err := config.Load(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tc := c.Telemetry
	if tc.TracesEnabled() || tc.MetricsEnabled() || tc.Content {
		t.Errorf("telemetry on by default: %+v", tc)
	}
	if tc.Protocol != "http/protobuf" || tc.ServiceName != "strategist" || tc.Sampler != "parentbased_always_on" ||
		tc.SamplerArg != 1 || tc.MetricInterval != time.Minute {
		t.Errorf("telemetry defaults = %+v", tc)
	}

	c, err = config.Load(nil, env(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
		"OTEL_EXPORTER_OTLP_HEADERS":  "authorization=Bearer%20abc, x-team = lab",
		"OTEL_RESOURCE_ATTRIBUTES":    "deployment.environment=lab",
		"OTEL_TRACES_SAMPLER":         "parentbased_traceidratio",
		"OTEL_TRACES_SAMPLER_ARG":     "0.25",
		"OTEL_METRICS_EXPORTER":       "none",
		"STRATEGIST_TRACE_CONTENT":    "true",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	tc = c.Telemetry
	if !tc.TracesEnabled() || tc.MetricsEnabled() || !tc.Content || tc.SamplerArg != 0.25 {
		t.Errorf("configured telemetry = %+v", tc)
	}
	if tc.Headers["authorization"] != "Bearer abc" || tc.Headers["x-team"] != "lab" || tc.ResourceAttributes["deployment.environment"] != "lab" {
		t.Errorf("pairs = %v, %v", tc.Headers, tc.ResourceAttributes)
	}

	c, err = config.Load(nil, env(map[string]string{
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces",
		"OTEL_SDK_DISABLED":                  "true",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Telemetry.TracesEnabled() {
		t.Error("OTEL_SDK_DISABLED=true left tracing on")
	}
}

func TestBadTelemetrySettings(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http"}},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}},
		{map[string]string{"OTEL_TRACES_SAMPLER": "sometimes"}, []string{"OTEL_TRACES_SAMPLER", "traceidratio"}},
		{map[string]string{"OTEL_TRACES_SAMPLER_ARG": "2"}, []string{"OTEL_TRACES_SAMPLER_ARG", "0 to 1"}},
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, []string{"OTEL_TRACES_EXPORTER", `"none"`}},
		{map[string]string{"OTEL_METRIC_EXPORT_INTERVAL": "10"}, []string{"OTEL_METRIC_EXPORT_INTERVAL", "1000"}},
		{map[string]string{"STRATEGIST_TRACE_CONTENT": "maybe"}, []string{"STRATEGIST_TRACE_CONTENT"}},
	}
	for _, tt := range tests {
		_, err := config.Load(nil, env(tt.env), io.Discard)
		if err == nil {
			t.Errorf("Load(%v) accepted", tt.env)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Load(%v) = %v, want it to mention %q", tt.env, err, w)
			}
		}
	}
	// Headers carry a collector's credentials: a bad value is not echoed.
	_, err := config.Load(nil, env(map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "secret-token-without-key"}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_HEADERS") || strings.Contains(err.Error(), "secret-token") {
		t.Errorf("bad headers: %v", err)
	}
}

// TestPublicURLAndProxies: the public URL is read without its trailing
// slash; unset, it is the listen address's once the server listens (the
// kernel's port for :0), localhost for an address that listens
// everywhere. Proxies are addresses or networks; none by default.
func TestPublicURLAndProxies(t *testing.T) {
	c, err := config.Load(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.PublicURL != "" || len(c.TrustedProxies) != 0 {
		t.Errorf("defaults: public URL %q, proxies %v", c.PublicURL, c.TrustedProxies)
	}
	c.Listening("127.0.0.1:43121")
	if c.PublicURL != "http://127.0.0.1:43121" {
		t.Errorf("public URL after listening = %q", c.PublicURL)
	}
	for addr, want := range map[string]string{":8080": "http://localhost:8080", "0.0.0.0:80": "http://localhost:80", "[::]:8080": "http://localhost:8080", "[::1]:8080": "http://[::1]:8080"} {
		if got := config.ListenURL(addr); got != want {
			t.Errorf("ListenURL(%q) = %q, want %q", addr, got, want)
		}
	}
	c, err = config.Load([]string{"-public-url", "https://strategist.example.org/"}, env(map[string]string{
		"STRATEGIST_PUBLIC_URL":      "https://ignored.example.org",
		"STRATEGIST_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.7,2001:db8::1",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c.Listening("127.0.0.1:8080")
	if c.PublicURL != "https://strategist.example.org" {
		t.Errorf("public URL = %q", c.PublicURL)
	}
	var nets []string
	for _, n := range c.TrustedProxies {
		nets = append(nets, n.String())
	}
	if got := strings.Join(nets, " "); got != "10.0.0.0/8 192.0.2.7/32 2001:db8::1/128" {
		t.Errorf("trusted proxies = %s", got)
	}
}
