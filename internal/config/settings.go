package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// setting ties one environment variable to its flag and parser.
type setting struct {
	env   string
	flag  string
	def   string
	usage string
	set   func(c *Config, v string) error
}

// settings is the table of every setting, in the order -help lists them:
// its variable, flag, default, help text and parser.
func settings() []setting {
	return []setting{
		{"STRATEGIST_ADDR", "addr", "127.0.0.1:8080", "listen address (host:port)", func(c *Config, v string) error {
			if _, _, err := net.SplitHostPort(v); err != nil {
				return errors.New("must be host:port, e.g. 127.0.0.1:8080")
			}
			c.Addr = v
			return nil
		}},
		{"STRATEGIST_PUBLIC_URL", "public-url", "", "the address clients reach Strategist at, scheme and host (e.g. https://strategist.example.org); the agent card, share links and conversation links use it (default: http:// and the listen address)", func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			u, err := ParsePublicURL(v)
			c.PublicURL = u
			return err
		}},
		{"STRATEGIST_TRUSTED_PROXIES", "trusted-proxies", "", "comma-separated addresses or CIDR networks of the reverse proxies in front of Strategist, whose X-Forwarded-For is believed for the client's address (default: none)", func(c *Config, v string) error {
			for _, p := range splitList(v) {
				cidr := p
				if ip := net.ParseIP(p); ip != nil && ip.To4() != nil {
					cidr += "/32"
				} else if ip != nil {
					cidr += "/128"
				}
				_, n, err := net.ParseCIDR(cidr)
				if err != nil {
					return fmt.Errorf("%q is not an address or a CIDR network such as 10.0.0.0/8", p)
				}
				c.TrustedProxies = append(c.TrustedProxies, n)
			}
			return nil
		}},
		{"DATABASE_URL", "database-url", "", "PostgreSQL connection string", func(c *Config, v string) error {
			c.DatabaseURL = v
			return nil
		}},
		{"STRATEGIST_AUTH", "auth", "local", `"local" accounts, or "dev" (one implicit user, loopback only)`, func(c *Config, v string) error {
			switch AuthMode(v) {
			case AuthLocal, AuthDev:
				c.Auth = AuthMode(v)
				return nil
			}
			return errors.New(`must be "local" or "dev"`)
		}},
		{"STRATEGIST_DATA_DIR", "data-dir", "", "offline gene data directory (default ./data)", func(c *Config, v string) error {
			c.DataDir = v
			return nil
		}},
		{"STRATEGIST_MODEL", "model", "", `default model id: "offline", "gemini:<model>", "openai:<model>" or "scripted:<file>"`, func(c *Config, v string) error {
			c.Model = v
			return nil
		}},
		{"GEMINI_API_KEY", "gemini-api-key", "", "Gemini API key", func(c *Config, v string) error {
			c.GeminiAPIKey = v
			return nil
		}},
		{"STRATEGIST_GEMINI_MODELS", "gemini-models", "gemini-2.5-flash,gemini-2.5-pro", "comma-separated Gemini models offered", func(c *Config, v string) error {
			c.GeminiModels = splitList(v)
			return nil
		}},
		{"OPENAI_BASE_URL", "openai-base-url", "", "OpenAI-compatible server base URL (Ollama, vLLM, llama.cpp, OpenAI)", func(c *Config, v string) error {
			if v != "" && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
				return errors.New("must be an http:// or https:// URL")
			}
			c.OpenAIBaseURL = v
			return nil
		}},
		{"OPENAI_API_KEY", "openai-api-key", "", "API key for the OpenAI-compatible server", func(c *Config, v string) error {
			c.OpenAIAPIKey = v
			return nil
		}},
		{"STRATEGIST_OPENAI_MODELS", "openai-models", "gpt-4.1-mini", "comma-separated models offered by the OpenAI-compatible server", func(c *Config, v string) error {
			c.OpenAIModels = splitList(v)
			return nil
		}},
		{"STRATEGIST_SCRIPTS_DIR", "scripts-dir", "", `directory of scripted-engine files ("scripted:<file>" models; tests and benchmarks)`, func(c *Config, v string) error {
			c.ScriptsDir = v
			return nil
		}},
		{"STRATEGIST_SUBAGENT_CONCURRENCY", "subagent-concurrency", "4", "sub-agents running at once per delegation (1-32)", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 32 {
				return errors.New("must be a whole number from 1 to 32")
			}
			c.SubagentConcurrency = n
			return nil
		}},
		{"STRATEGIST_SUBAGENT_TIMEOUT", "subagent-timeout", "120s", "time allowed to each attempt of a delegated task (1s to 1h)", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < time.Second || d > time.Hour {
				return errors.New("must be a duration from 1s to 1h, e.g. 120s")
			}
			c.SubagentTimeout = d
			return nil
		}},
		{"STRATEGIST_TEST_COMBINE_HOLD", "test-combine-hold", "0s", "for tests: how long a combine node stays running after its step is made (0s to 1m)", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 || d > time.Minute {
				return errors.New("must be a duration from 0s to 1m, e.g. 2s")
			}
			c.CombineHold = d
			return nil
		}},
		{"STRATEGIST_TURN_RESCUE", "turn-rescue", "5s", "how often a server resumes the turns of replicas that died: the longest such a turn waits (1s to 10m)", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < time.Second || d > 10*time.Minute {
				return errors.New("must be a duration from 1s to 10m, e.g. 5s")
			}
			c.TurnRescue = d
			return nil
		}},
		{"STRATEGIST_DB_POOL", "db-pool", "10", "the most pooled database connections a server holds (2 to 500); it holds four more of its own: its budget is this plus four", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 2 || n > 500 {
				return errors.New("must be a whole number from 2 to 500")
			}
			c.DBPool = n
			return nil
		}},
		{"STRATEGIST_TURN_RATE", "turn-rate", "1", "turns per second one user may start, by every way in together, with bursts of 10 (0.01 to 1000)", func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0.01 || f > 1000 {
				return errors.New("must be a number from 0.01 to 1000")
			}
			c.TurnRate = f
			return nil
		}},
		{"STRATEGIST_RUNNING_TURNS", "running-turns", "5", "turns one user may have running at once, on all replicas together (1 to 1000)", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				return errors.New("must be a whole number from 1 to 1000")
			}
			c.RunningTurns = n
			return nil
		}},
		{"STRATEGIST_REQUEST_RATE", "request-rate", "50", "requests per second one client address may make, with bursts of four times that (1 to 100000)", func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 1 || f > 100000 {
				return errors.New("must be a number from 1 to 100000")
			}
			c.RequestRate = f
			return nil
		}},
		{"STRATEGIST_STREAMS_PER_USER", "streams-per-user", "20", "event streams one sign-in or API token may have open at once, page and API streams together (1 to 100000)", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 100000 {
				return errors.New("must be a whole number from 1 to 100000")
			}
			c.StreamsPerUser = n
			return nil
		}},
		{"STRATEGIST_READ_TIMEOUT", "read-timeout", "30s", "time allowed to receive a request with its body (100ms to 10m); streams outlive it", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 100*time.Millisecond || d > 10*time.Minute {
				return errors.New("must be a duration from 100ms to 10m, e.g. 30s")
			}
			c.ReadTimeout = d
			return nil
		}},
		{"STRATEGIST_IDLE_TIMEOUT", "idle-timeout", "60s", "how long a keep-alive connection may wait for its next request (100ms to 1h)", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 100*time.Millisecond || d > time.Hour {
				return errors.New("must be a duration from 100ms to 1h, e.g. 60s")
			}
			c.IdleTimeout = d
			return nil
		}},
		{"STRATEGIST_CONNS_PER_ADDR", "conns-per-addr", "256", "connections one client address may have open at once (0: no cap; trusted proxies are not capped; up to 100000)", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 100000 {
				return errors.New("must be a whole number from 0 (no cap) to 100000")
			}
			c.ConnsPerAddr = n
			return nil
		}},
		{"STRATEGIST_AUTO_APPROVE", "auto-approve", "false", "accept planner handoffs without a click", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.AutoApprove = b
			return nil
		}},
		{"STRATEGIST_SECURE_COOKIES", "secure-cookies", "false", "mark session cookies Secure (serving over https)", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.SecureCookies = b
			return nil
		}},
		{"STRATEGIST_SESSION_TTL", "session-ttl", "168h", "how long a browser session lasts (Go duration, 5m to 720h)", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 5*time.Minute || d > 720*time.Hour {
				return errors.New("must be a duration from 5m to 720h, e.g. 168h")
			}
			c.SessionTTL = d
			return nil
		}},
		{"STRATEGIST_SECRET_KEY", "secret-key", "", "base64 of 32 random bytes; encrypts stored VEuPathDB API keys", func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			k, err := base64.StdEncoding.DecodeString(v)
			if err != nil || len(k) != 32 {
				return errors.New("must be the base64 encoding of exactly 32 bytes (openssl rand -base64 32)")
			}
			c.SecretKey = k
			return nil
		}},
		{"STRATEGIST_METRICS_ADDR", "metrics-addr", "", "serve Prometheus /metrics on this address only (e.g. 127.0.0.1:9090); off when unset", func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			if _, _, err := net.SplitHostPort(v); err != nil {
				return errors.New("must be host:port, such as 127.0.0.1:9090")
			}
			c.MetricsAddr = v
			return nil
		}},
		{"STRATEGIST_METRICS_TOKEN", "metrics-token", "", "serve /metrics on the main address to callers sending Authorization: Bearer <this token>", func(c *Config, v string) error {
			if v != "" && len(v) < 16 {
				return errors.New("must be at least 16 characters")
			}
			c.MetricsToken = v
			return nil
		}},
		{"STRATEGIST_WDK_BASE_URL", "wdk-base-url", "", "WDK service URL every live site is sent to instead of its own (tests, mirrors)", func(c *Config, v string) error {
			if v != "" && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") {
				return errors.New("must be an http:// or https:// URL")
			}
			c.WDKBaseURL = v
			return nil
		}},
		{"STRATEGIST_LIVE_TIMEOUT", "live-timeout", "8s", "time allowed to one catalog call to a live VEuPathDB site (100ms to 10m)", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 100*time.Millisecond || d > 10*time.Minute {
				return errors.New("must be a duration from 100ms to 10m, e.g. 8s")
			}
			c.LiveTimeout = d
			return nil
		}},
		{"STRATEGIST_CATALOG_TTL", "catalog-ttl", "24h", "time a live site's searches, parameters and vocabularies are kept in PostgreSQL before they are revalidated with the site (1m to 720h; 0 = keep them in memory only)", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || (d != 0 && (d < time.Minute || d > 720*time.Hour)) {
				return errors.New("must be 0 or a duration from 1m to 720h, e.g. 24h")
			}
			c.CatalogTTL = d
			return nil
		}},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "otlp-endpoint", "", "OpenTelemetry collector URL (e.g. http://localhost:4318); traces and metrics are exported over OTLP when set, off when unset", func(c *Config, v string) error {
			return otlpURL(&c.Telemetry.OTLPEndpoint, v)
		}},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "otlp-traces-endpoint", "", "OTLP URL for traces only, used as it is (e.g. http://localhost:4318/v1/traces)", func(c *Config, v string) error {
			return otlpURL(&c.Telemetry.OTLPTracesEndpoint, v)
		}},
		{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "otlp-metrics-endpoint", "", "OTLP URL for metrics only, used as it is (e.g. http://localhost:4318/v1/metrics)", func(c *Config, v string) error {
			return otlpURL(&c.Telemetry.OTLPMetricsEndpoint, v)
		}},
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "otlp-protocol", "http/protobuf", `OTLP transport: "http/protobuf" or "grpc"`, func(c *Config, v string) error {
			switch v {
			case "http/protobuf", "grpc":
				c.Telemetry.Protocol = v
				return nil
			}
			return errors.New(`must be "http/protobuf" or "grpc" (http/json is not supported)`)
		}},
		{"OTEL_EXPORTER_OTLP_HEADERS", "otlp-headers", "", "headers sent with every OTLP export, key=value pairs separated by commas (a collector's credentials)", func(c *Config, v string) error {
			h, err := pairs(v)
			c.Telemetry.Headers = h
			return err
		}},
		{"OTEL_SERVICE_NAME", "otel-service-name", "strategist", "service name in traces and exported metrics", func(c *Config, v string) error {
			c.Telemetry.ServiceName = v
			return nil
		}},
		{"OTEL_RESOURCE_ATTRIBUTES", "otel-resource-attributes", "", "extra resource attributes of traces and exported metrics, key=value pairs separated by commas (e.g. deployment.environment=lab)", func(c *Config, v string) error {
			a, err := pairs(v)
			c.Telemetry.ResourceAttributes = a
			return err
		}},
		{"OTEL_TRACES_SAMPLER", "otel-traces-sampler", "parentbased_always_on", "which traces are kept: always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio", func(c *Config, v string) error {
			switch v {
			case "always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio":
				c.Telemetry.Sampler = v
				return nil
			}
			return errors.New("must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio")
		}},
		{"OTEL_TRACES_SAMPLER_ARG", "otel-traces-sampler-arg", "1", "the share of traces kept by the traceidratio samplers (0 to 1)", func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || f > 1 {
				return errors.New("must be a number from 0 to 1")
			}
			c.Telemetry.SamplerArg = f
			return nil
		}},
		{"OTEL_TRACES_EXPORTER", "otel-traces-exporter", "otlp", `"otlp", or "none" to export metrics only`, func(c *Config, v string) error {
			return exporter(&c.Telemetry.TracesOff, v)
		}},
		{"OTEL_METRICS_EXPORTER", "otel-metrics-exporter", "otlp", `"otlp", or "none" to export traces only (Prometheus /metrics is not affected)`, func(c *Config, v string) error {
			return exporter(&c.Telemetry.MetricsOff, v)
		}},
		{"OTEL_METRIC_EXPORT_INTERVAL", "otel-metric-export-interval", "60000", "milliseconds between OTLP metric exports (1000 to 3600000)", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1000 || n > 3_600_000 {
				return errors.New("must be a whole number of milliseconds from 1000 to 3600000")
			}
			c.Telemetry.MetricInterval = time.Duration(n) * time.Millisecond
			return nil
		}},
		{"OTEL_SDK_DISABLED", "otel-sdk-disabled", "false", "true turns every OpenTelemetry export off, whatever else is set", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.Telemetry.Disabled = b
			return nil
		}},
		{"STRATEGIST_TRACE_CONTENT", "trace-content", "false", "let spans record what researchers and models wrote (messages, prompts, completions, tool arguments); off: ids, names, counts and outcomes only", func(c *Config, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("must be true or false")
			}
			c.Telemetry.Content = b
			return nil
		}},
		{"STRATEGIST_LOG_LEVEL", "log-level", "info", "debug, info, warn or error", func(c *Config, v string) error {
			switch v {
			case "debug", "info", "warn", "error":
				c.LogLevel = v
				return nil
			}
			return errors.New("must be debug, info, warn or error")
		}},
		{"STRATEGIST_LOG_FORMAT", "log-format", "text", "text or json", func(c *Config, v string) error {
			switch v {
			case "text", "json":
				c.LogFormat = v
				return nil
			}
			return errors.New("must be text or json")
		}},
	}
}

// secret lists the settings whose values an error must not repeat: they
// hold credentials.
var secret = map[string]bool{"STRATEGIST_SECRET_KEY": true, "OTEL_EXPORTER_OTLP_HEADERS": true}
