// Package server is Strategist's HTTP face: echo routes and middleware,
// authentication, the JSON API, the SSE endpoint and the browser pages. It
// translates between HTTP and the services; it holds no business rules.
package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
	"strategist/internal/chat"
	"strategist/internal/config"
	"strategist/internal/eventlog"
	"strategist/internal/llm"
	"strategist/internal/protocol"
	"strategist/internal/sites"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
	"strategist/internal/telemetry"
	"strategist/web"
)

// Store is what the handlers need from persistence.
type Store interface {
	UserByID(ctx context.Context, id string) (store.User, error)
	CreateConversation(ctx context.Context, userID, siteID, title, model string) (store.Conversation, error)
	// CreateConversationWithID starts a conversation under a client's id
	// (an AG-UI thread); a taken id is store.ErrConflict.
	CreateConversationWithID(ctx context.Context, id, userID, siteID, title, model string) (store.Conversation, error)
	Conversations(ctx context.Context, userID string, limit int) ([]store.Conversation, error)
	SearchConversations(ctx context.Context, userID, query string, limit int) ([]store.ConversationHit, error)
	Conversation(ctx context.Context, userID, id string) (store.Conversation, error)
	DeleteConversation(ctx context.Context, userID, id string) error
	Messages(ctx context.Context, userID, conversationID string) ([]store.Message, error)
	Artifacts(ctx context.Context, userID, conversationID string) ([]store.Artifact, error)
	Handoffs(ctx context.Context, userID, conversationID string) ([]store.Handoff, error)
	Turns(ctx context.Context, userID, conversationID string) ([]store.Turn, error)
	// UserTurn finds one of the user's turns by its id alone (an A2A task).
	UserTurn(ctx context.Context, userID, turnID string) (store.Turn, error)
	LatestDelegation(ctx context.Context, userID, conversationID string) (store.Delegation, error)
	// EventsAfter reads a page of the log; the conversation page is drawn
	// from it (store.DB.EventsAfter).
	EventsAfter(ctx context.Context, userID, conversationID string, after int64, limit int) ([]store.EventRow, error)
	// TurnEvents reads one turn's events (not owner-filtered: the turn
	// comes from the user's own, Turns or UserTurn).
	TurnEvents(ctx context.Context, turnID string) ([]store.EventRow, error)
	// Share links (store.DB.CreateShare and the rest): the store keeps
	// only their tokens' hashes.
	CreateShare(ctx context.Context, userID, conversationID string, tokenHash []byte, public bool) (store.Share, error)
	Shares(ctx context.Context, userID, conversationID string) ([]store.Share, error)
	RevokeShare(ctx context.Context, userID, conversationID, shareID string) error
	ShareByTokenHash(ctx context.Context, tokenHash []byte) (store.SharedConversation, error)
}

// Chat is the turn orchestrator (*chat.Service).
type Chat interface {
	StartTurn(ctx context.Context, req chat.TurnRequest) (string, error)
	Cancel(ctx context.Context, userID, conversationID, turnID string) error
	AcceptHandoff(ctx context.Context, userID, conversationID, handoffID string) (string, error)
	Rename(ctx context.Context, userID, conversationID, title string) (store.Conversation, error)
	// Delete cancels the conversation's running turn, waits for it to end,
	// then deletes the conversation.
	Delete(ctx context.Context, userID, conversationID string) error
}

// Streamer replays and follows a conversation's events in batches, with an
// empty batch after heartbeat of silence (*eventlog.Streamer).
type Streamer interface {
	Batches(ctx context.Context, userID, conversationID string, after int64, heartbeat time.Duration) iter.Seq2[[]*eventlog.Published, error]
}

// Strategies reads and undoes conversations' strategies (*strategies.Service).
type Strategies interface {
	Conversation(ctx context.Context, userID, conversationID string) (strategy.Snapshot, error)
	Versions(ctx context.Context, userID, strategyID string) ([]strategies.Version, error)
	Undo(ctx context.Context, userID, strategyID string) (strategies.Result, error)
	Redo(ctx context.Context, userID, strategyID string) (strategies.Result, error)
	// Restore returns the strategy to an earlier version (the history).
	Restore(ctx context.Context, userID, strategyID string, version int) (strategies.Result, error)
	// Apply changes the strategy as the agents' graph tools do (the
	// researcher's own edits: combine roots, delete a step).
	Apply(ctx context.Context, userID, strategyID string, m strategy.Mutation) (strategies.Result, error)
	StepResults(ctx context.Context, userID, strategyID string, stepID strategy.StepID, page catalog.Page) (*catalog.Answer, error)
	WDK(ctx context.Context, userID, strategyID string) (*strategy.WDKStrategy, error)
	StepEnrichment(ctx context.Context, userID, strategyID string, stepID strategy.StepID, cutoff float64) (*enrich.Result, error)
	// Overlaps compares each combine's inputs gene by gene where their
	// genes can be read (the offline snapshot), for a snapshot the caller
	// read as the conversation's owner or through its share link.
	Overlaps(ctx context.Context, snap strategy.Snapshot) map[strategy.StepID]strategy.Overlap
}

// Sites reports the sites' states for a user (*sites.Registry).
type Sites interface {
	Statuses(ctx context.Context, userID string) ([]sites.Status, error)
}

// Models lists the models researchers can pick (*llm.Registry).
type Models interface {
	Models() llm.ModelList
}

// Config is everything the server is built from. main wires it.
type Config struct {
	Logger   *slog.Logger
	Store    Store
	Accounts *account.Service
	Catalog  catalog.Catalog
	// Sites says which sites each user can use (*sites.Registry); nil
	// means every site of Catalog is available to everyone.
	Sites Sites
	// Keys stores researchers' VEuPathDB API keys (nil: not offered).
	Keys VEuPathDBKeys
	// Saver saves built strategies to live sites and reads them from there
	// (nil: not offered).
	Saver      StrategySaver
	Chat       Chat
	Streamer   Streamer
	Strategies Strategies
	// GeneLists keeps researchers' gene lists and conversations' controls
	// (*genelist.Service); StrategyLists imports WDK strategies and scores
	// strategies against controls (*strategies.Service). Without both the
	// gene-list, control and import routes are left out.
	GeneLists     GeneLists
	StrategyLists StrategyLists
	Models        Models
	// Protocols are the agent protocols served beside the app (MCP,
	// ...), each behind API-token authentication.
	Protocols []ProtocolFunc
	// Ready reports whether the replica can run turns: the database
	// answers and is migrated, and the orchestrator serves with its owner
	// session held.
	Ready func(ctx context.Context) error
	// Registry receives the server's metrics; Gatherer serves /metrics.
	Registry prometheus.Registerer
	Gatherer prometheus.Gatherer
	// MetricsToken, when set, serves /metrics on this server to callers
	// sending it as a bearer token; otherwise /metrics is only on
	// MetricsHandler (a separate listener).
	MetricsToken string
	// Metrics counts open streams (nil: not counted).
	Metrics *telemetry.Metrics
	// Tracer, when set, gives each request a span (named by its route),
	// continuing a caller's trace sent as W3C traceparent; health checks,
	// metrics, static files and event streams are not traced.
	Tracer trace.TracerProvider

	// PublicURL is the address clients reach this server at, scheme and
	// host (https://strategist.example.org): every absolute URL the server
	// writes (the A2A agent card, share links, conversation links in
	// protocol answers) is on it, never on a request's Host or forwarded
	// headers, which a client or a shared cache could poison. Required.
	PublicURL string
	// TrustedProxies are the networks of the reverse proxies in front of
	// the server: a request from one of them is the client's that its
	// X-Forwarded-For names; from anywhere else it is the connection's
	// (none: every request is the connection's).
	TrustedProxies []*net.IPNet

	Auth          config.AuthMode
	SecureCookies bool
	DefaultModel  string
	Version       string
	// RequestTimeout bounds ordinary requests (not streams); default 30 s.
	RequestTimeout time.Duration
	// BodyLimit caps request bodies, e.g. "1M"; default 1 MiB.
	BodyLimit string
	// KeepAlive is how long a stream stays silent before it sends an SSE
	// comment line (default 15 s); WriteTimeout bounds writing one burst of
	// SSE frames (default 10 s, at least half of it) so a stuck client is
	// dropped.
	KeepAlive    time.Duration
	WriteTimeout time.Duration
	// RequestRate limits requests per client address (default 50/s, burst
	// four times that).
	RequestRate float64
	// StreamsPerUser caps the streams one credential has open at once
	// (streamRoute; default 20).
	StreamsPerUser int
	// ReadTimeout bounds reading a request, body included (default 30 s;
	// streams outlive it: readBody);
	// IdleTimeout closes a keep-alive connection with no request for that
	// long (default 60 s).
	ReadTimeout time.Duration
	IdleTimeout time.Duration
	// ConnsPerAddr caps the connections open at once from one client
	// address (default 256; negative: no cap).
	ConnsPerAddr int
}

// Server is the HTTP server. Create it with New and run it with Serve.
type Server struct {
	cfg  Config
	log  *slog.Logger
	echo *echo.Echo
	// stopping ends when shutdown begins, so long-lived streams end.
	stopping    context.Context
	stopStreams context.CancelFunc
	// md renders model and artifact markdown for the pages.
	md *web.Markdown
	// streams are the open streams by credential, ended on revocation.
	streams streamSet
	// slots count each credential's open streams against StreamsPerUser.
	slots streamSlots
	// handler is echo, inside the request tracing when it is on.
	handler http.Handler
	// protocols are the agent protocols mounted (Config.Protocols);
	// streamPaths their routes that follow turns.
	protocols   []protocol.Protocol
	streamPaths map[string]bool
}

// New builds the server and its routes.
func New(cfg Config) (*Server, error) {
	switch {
	case cfg.Logger == nil:
		return nil, errors.New("server: nil logger")
	case cfg.Store == nil:
		return nil, errors.New("server: nil store")
	case cfg.Accounts == nil:
		return nil, errors.New("server: nil account service")
	case cfg.Catalog == nil:
		return nil, errors.New("server: nil catalog")
	case cfg.Chat == nil || cfg.Streamer == nil || cfg.Strategies == nil || cfg.Models == nil:
		return nil, errors.New("server: nil chat, streamer, strategies or models")
	case cfg.Ready == nil:
		return nil, errors.New("server: nil readiness check")
	case cfg.Registry == nil || cfg.Gatherer == nil:
		return nil, errors.New("server: nil metrics registry")
	case cfg.Auth != config.AuthLocal && cfg.Auth != config.AuthDev:
		return nil, fmt.Errorf("server: unknown auth mode %q", cfg.Auth)
	}
	public, err := config.ParsePublicURL(cfg.PublicURL)
	if err != nil {
		return nil, fmt.Errorf("server: public URL: %w", err)
	}
	cfg.PublicURL = public
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.BodyLimit == "" {
		cfg.BodyLimit = "1M"
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = 15 * time.Second
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	if cfg.RequestRate == 0 {
		cfg.RequestRate = 50
	}
	if cfg.StreamsPerUser == 0 {
		cfg.StreamsPerUser = 20
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = 30 * time.Second
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = 60 * time.Second
	}
	if cfg.ConnsPerAddr == 0 {
		cfg.ConnsPerAddr = 256
	}
	s := &Server{
		cfg:   cfg,
		log:   cfg.Logger.With("component", "server"),
		echo:  echo.New(),
		md:    web.NewMarkdown(),
		slots: streamSlots{max: cfg.StreamsPerUser},

		streamPaths: map[string]bool{},
	}
	s.stopping, s.stopStreams = context.WithCancel(context.Background())
	if err := s.routes(); err != nil {
		return nil, err
	}
	s.handler = s.echo
	if cfg.Tracer != nil {
		s.handler = otelhttp.NewHandler(s.echo, "http", otelhttp.WithTracerProvider(cfg.Tracer),
			otelhttp.WithMeterProvider(noop.NewMeterProvider()),
			otelhttp.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
			otelhttp.WithFilter(traced))
	}
	return s, nil
}

// traced says which requests get a span: not health checks, metrics,
// static files or event streams (hours long, and followed by their
// turns' own traces).
func traced(r *http.Request) bool {
	p := r.URL.Path
	switch {
	case p == "/healthz" || p == "/readyz" || p == "/metrics" || strings.HasPrefix(p, "/static/"):
		return false
	case strings.HasSuffix(p, "/events") || strings.HasSuffix(p, "/stream"):
		return false
	}
	return true
}

// MetricsHandler serves the Prometheus metrics, for a listener of its own.
func (s *Server) MetricsHandler() http.Handler { return metricsHandler(s.cfg.Gatherer) }

// requireMetricsToken lets only the configured bearer token read /metrics.
func (s *Server) requireMetricsToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		got, _ := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.MetricsToken)) != 1 {
			return &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: "send the metrics token as Authorization: Bearer <token>"}
		}
		return next(c)
	}
}

// Handler returns the server as an http.Handler (tests use httptest).
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers on ln until ctx ends, then shuts down gracefully: new
// requests are refused, streams are told to end, in-flight requests get up to
// 10 s to finish. A request must arrive within ReadTimeout (its header
// within 10 s at most), a keep-alive connection idle for IdleTimeout is
// closed, and an address gets at most ConnsPerAddr connections at once.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.cfg.ConnsPerAddr > 0 {
		ln = &addrLimitListener{Listener: ln, max: s.cfg.ConnsPerAddr, exempt: s.cfg.TrustedProxies}
	}
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: min(10*time.Second, s.cfg.ReadTimeout),
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	hs.RegisterOnShutdown(s.beginStopping)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.beginStopping()
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(shutdownCtx)
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	if err != nil {
		return fmt.Errorf("server: shutdown: %w", err)
	}
	return nil
}

func (s *Server) beginStopping() { s.stopStreams() }

// crossOriginProtection refuses cross-origin state-changing requests
// (CSRF) using the browser's Sec-Fetch-Site and Origin headers.
func (s *Server) crossOriginProtection() echo.MiddlewareFunc {
	cop := http.NewCrossOriginProtection()
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := cop.Check(c.Request()); err != nil {
				return &APIError{Status: http.StatusForbidden, Code: CodeForbidden, Message: "cross-origin request refused", Err: err}
			}
			return next(c)
		}
	}
}

func (s *Server) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURIPath: true, LogMethod: true, LogLatency: true, LogRequestID: true, LogError: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelInfo
			switch {
			case v.Status >= 500 && c.Path() != "/readyz":
				level = slog.LevelError
			case v.Status >= 400:
				// A replica that is not ready yet (starting, or its owner
				// session reopening) says so on /readyz: a state the
				// probe is for, not a failure; readyz logs why.
				level = slog.LevelWarn
			}
			s.log.LogAttrs(c.Request().Context(), level, "request",
				slog.String("method", v.Method), slog.String("path", loggedPath(c)),
				slog.Int("status", v.Status), slog.Duration("latency", v.Latency),
				slog.String("request_id", v.RequestID))
			return nil
		},
	})
}

func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "version": s.cfg.Version})
}

func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 3*time.Second)
	defer cancel()
	if err := s.cfg.Ready(ctx); err != nil {
		// Probes and operators read JSON whatever they accept, with the
		// reason: load balancers retry after the header's seconds.
		s.log.Warn("not ready", slog.Any("error", err))
		c.Response().Header().Set("Retry-After", "2")
		return protocol.WriteJSONError(c, &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "not ready: " + err.Error()})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}

// secretParams are the route parameters whose values are credentials:
// logs and traces show the parameter's name instead.
var secretParams = map[string]bool{"token": true}

// loggedPath is a request's path as logs and traces show it: its route
// with each parameter's value filled in, except secrets (a share link's
// token), which stay ":token". A path no route matched is shown with any
// segment that looks like a token replaced, so a mistyped share link is
// not one either.
func loggedPath(c echo.Context) string {
	route := c.Path()
	if route == "" {
		return redactTokens(c.Request().URL.Path)
	}
	segs := strings.Split(route, "/")
	for i, seg := range segs {
		switch {
		case strings.HasPrefix(seg, ":") && !secretParams[seg[1:]]:
			segs[i] = redactTokens(c.Param(seg[1:]))
		case seg == "*":
			segs[i] = redactTokens(c.Param("*"))
		}
	}
	return strings.Join(segs, "/")
}

// redactTokens replaces each segment of a path that looks like a token.
func redactTokens(p string) string {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if account.LooksLikeToken(seg) {
			segs[i] = "(redacted)"
		}
	}
	return strings.Join(segs, "/")
}

// ipExtractor finds a request's client address: the connection's, or,
// for a connection from one of the trusted proxies, the nearest address
// in X-Forwarded-For that is not a trusted proxy. echo's defaults also
// trust loopback, link-local and private networks; here only the
// configured networks are.
func ipExtractor(proxies []*net.IPNet) echo.IPExtractor {
	if len(proxies) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range proxies {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
