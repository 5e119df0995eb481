// Package config reads Strategist's settings from the environment and
// command-line flags once, at start, and validates them together, so a bad
// value stops the program with a message naming the setting and what it
// accepts.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"
)

// AuthMode selects how researchers are identified.
type AuthMode string

// The authentication modes.
const (
	// AuthLocal: local accounts with passwords, cookie sessions and API tokens.
	AuthLocal AuthMode = "local"
	// AuthDev: one implicit local user; only allowed on a loopback address.
	AuthDev AuthMode = "dev"
)

// Config is every setting of the server.
type Config struct {
	Addr string
	// PublicURL is the address researchers and clients reach the server
	// at (scheme and host, no trailing slash): every absolute URL the
	// server writes is on it. Unset, it is the listen address's (see
	// ListenURL), known once the server listens.
	PublicURL string
	// TrustedProxies are the networks of the reverse proxies whose
	// X-Forwarded-For names the client (none: no forwarded header is
	// believed).
	TrustedProxies []*net.IPNet
	DatabaseURL    string
	Auth           AuthMode
	// DataDir is the offline gene data directory as configured ("" means
	// ./data: offline.FindDataDir).
	DataDir string
	// Model is the default model id.
	Model string

	GeminiAPIKey  string
	GeminiModels  []string
	OpenAIBaseURL string
	OpenAIAPIKey  string
	OpenAIModels  []string
	// ScriptsDir allows "scripted:<file>" models from this directory ("" = off).
	ScriptsDir string

	SubagentConcurrency int
	// TurnRate is how many turns per second one user may start (burst 10),
	// by every way in together.
	TurnRate float64
	// RunningTurns is how many turns one user may have running at once.
	RunningTurns int
	// RequestRate is how many requests per second one client address may
	// make (burst four times that).
	RequestRate float64
	// StreamsPerUser caps the event streams one session or API token has
	// open at once, page and API streams together.
	StreamsPerUser int
	// ReadTimeout bounds reading a request with its body; IdleTimeout
	// closes keep-alive connections idle that long.
	ReadTimeout time.Duration
	IdleTimeout time.Duration
	// ConnsPerAddr caps the connections open at once from one client
	// address (0: no cap).
	ConnsPerAddr int
	// SubagentTimeout bounds each attempt of a delegated task.
	SubagentTimeout time.Duration
	// CombineHold keeps each combine node running this long after its
	// change is committed (0: not at all): a knob for tests that stop a
	// server in the middle of a combine.
	CombineHold time.Duration
	// TurnRescue is how often a server looks for the turns of replicas
	// that died and resumes them: the longest a turn waits after its
	// replica died.
	TurnRescue  time.Duration
	AutoApprove bool
	// DBPool is the most pooled connections a server holds; with its
	// four dedicated ones (owner session, three listeners) it is the
	// server's connection budget.
	DBPool int

	// SecureCookies marks session cookies Secure (serve behind https).
	SecureCookies bool
	SessionTTL    time.Duration
	// SecretKey encrypts stored VEuPathDB credentials (32 bytes; nil = off).
	SecretKey []byte
	// WDKBaseURL re-points every live VEuPathDB site at one WDK service
	// ("" = each site's own; tests and fakes set it).
	WDKBaseURL string
	// LiveTimeout bounds one catalog call to a live site.
	LiveTimeout time.Duration
	// CatalogTTL is how long a live site's catalog documents stored in
	// PostgreSQL are used before they are revalidated (0 = not stored).
	CatalogTTL time.Duration

	// MetricsAddr, when set, serves /metrics on its own listener;
	// MetricsToken, when set, serves it on the main listener to callers
	// that send it as a bearer token. With neither, /metrics is not served.
	MetricsAddr  string
	MetricsToken string

	LogLevel  string
	LogFormat string

	// Telemetry is the OpenTelemetry export: off unless an OTLP endpoint
	// is set.
	Telemetry Telemetry
}

// Load reads the environment (through getenv) and then args, where flags of
// the same settings override the environment. It validates everything and
// returns the first problem as an error naming the setting.
func Load(args []string, getenv func(string) string, stderr io.Writer) (*Config, error) {
	fs := flag.NewFlagSet("strategist serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	all := settings()
	values := make([]*string, len(all))
	for i, s := range all {
		v := getenv(s.env)
		if v == "" {
			v = s.def
		}
		values[i] = fs.String(s.flag, v, s.usage+" (env "+s.env+")")
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("config: unexpected argument %q", fs.Arg(0))
	}
	c := &Config{}
	for i, s := range all {
		if err := s.set(c, *values[i]); err != nil {
			if secret[s.env] {
				return nil, fmt.Errorf("config: %s (-%s), value not shown: %w", s.env, s.flag, err)
			}
			return nil, fmt.Errorf("config: %s (-%s) = %q: %w", s.env, s.flag, *values[i], err)
		}
	}
	return c, c.finish()
}

// finish derives defaults that depend on several settings and checks the
// combinations.
func (c *Config) finish() error {
	if c.Auth == AuthDev && !IsLoopback(c.Addr) {
		return fmt.Errorf("config: STRATEGIST_AUTH=dev is refused on %s: dev mode gives everyone the same account, so it only runs on a loopback address (127.0.0.1 or ::1)", c.Addr)
	}
	if c.Model == "" {
		switch {
		case c.GeminiAPIKey != "" && len(c.GeminiModels) > 0:
			c.Model = "gemini:" + c.GeminiModels[0]
		case c.OpenAIBaseURL != "" && len(c.OpenAIModels) > 0:
			c.Model = "openai:" + c.OpenAIModels[0]
		default:
			c.Model = "offline"
		}
	}
	return nil
}

// ParsePublicURL checks a public URL: http:// or https://, a host, and
// nothing after it but an optional "/" (Strategist's routes are at the
// root), no user, query or fragment. It returns the URL without a
// trailing slash.
func ParsePublicURL(v string) (string, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", errors.New("must be an http:// or https:// URL of a host without a path, such as https://strategist.example.org")
	}
	return u.Scheme + "://" + u.Host, nil
}

// Listening records the address the server listens on, known only then
// when the configured port is 0: an unset public URL becomes ListenURL of
// it.
func (c *Config) Listening(addr string) {
	if c.PublicURL == "" {
		c.PublicURL = ListenURL(addr)
	}
}

// ListenURL is the default public URL of a server listening on addr:
// http:// and the address, with an unspecified host (":8080", 0.0.0.0,
// ::) read as localhost.
func ListenURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// IsLoopback reports whether a listen address only accepts local
// connections. An empty host ("":8080) listens everywhere and is not.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
