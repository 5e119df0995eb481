package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"strategist/internal/account"
	"strategist/internal/agent"
	"strategist/internal/catalog/offline"
	"strategist/internal/chat"
	"strategist/internal/config"
	"strategist/internal/eventlog"
	"strategist/internal/executor"
	"strategist/internal/genelist"
	"strategist/internal/llm"
	"strategist/internal/llm/gemini"
	"strategist/internal/llm/openai"
	"strategist/internal/llm/scripted"
	"strategist/internal/planner"
	"strategist/internal/protocol"
	"strategist/internal/protocol/a2a"
	"strategist/internal/protocol/agui"
	"strategist/internal/protocol/mcp"
	openaiapi "strategist/internal/protocol/openai"
	"strategist/internal/server"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/subagent"
	"strategist/migrations"
)

// app is the whole application graph, built once by main (and by the Go
// end-to-end tests, against a test database and port :0).
type app struct {
	log      *slog.Logger
	db       *store.DB
	accounts *account.Service
	models   *llm.Registry
	broker   *eventlog.Broker
	events   *eventlog.Log
	fanout   *eventlog.Fanout
	chat     *chat.Service
	server   *server.Server
	// metricsAddr is where /metrics is served on its own ("" = nowhere
	// but the main listener, with its token).
	metricsAddr string
}

// buildApp wires every part over the offline catalog off (newCatalog). It
// starts no goroutine: run does. obs holds the metrics every part records
// and, when tracing is on, the tracer provider turns and requests start
// their traces on.
func buildApp(cfg *config.Config, db *store.DB, off *offline.Catalog, log *slog.Logger, obs *observability) (*app, error) {
	accounts, err := account.New(account.Config{Store: db, SessionTTL: cfg.SessionTTL})
	if err != nil {
		return nil, err
	}
	cat, keys, err := newSites(cfg, db, off, log)
	if err != nil {
		return nil, err
	}
	models, err := newRegistry(cfg)
	if err != nil {
		return nil, err
	}
	origin := uuid.NewString()
	broker := eventlog.NewBroker(0)
	events, err := eventlog.NewLog(eventlog.LogConfig{Store: db, Broker: broker, Origin: origin, Logger: log, Metrics: obs.metrics})
	if err != nil {
		return nil, err
	}
	fanout, err := eventlog.NewFanout(eventlog.FanoutConfig{Store: db, Broker: broker, Origin: origin, Logger: log})
	if err != nil {
		return nil, err
	}
	streamer, err := eventlog.NewStreamer(eventlog.StreamerConfig{Store: db, Broker: broker})
	if err != nil {
		return nil, err
	}
	strategies, err := strategies.NewService(strategies.Config{
		Store: db, Catalog: cat, Logger: log, Events: events,
	})
	if err != nil {
		return nil, err
	}
	scheduler, err := subagent.NewScheduler(subagent.Config{
		Store: db, Concurrency: cfg.SubagentConcurrency, TaskTimeout: cfg.SubagentTimeout, CombineHold: cfg.CombineHold, Logger: log,
		Metrics: obs.metrics,
	})
	if err != nil {
		return nil, err
	}
	estimator := agent.NewEstimator(0)
	lists, err := genelist.New(genelist.Config{Store: db, Resolver: cat, DefaultSite: offline.SiteID, Events: events})
	if err != nil {
		return nil, err
	}
	plan, err := planner.New(planner.Config{Store: db, Catalog: cat, Strategies: strategies, Lists: lists, Estimator: estimator})
	if err != nil {
		return nil, err
	}
	exec, err := executor.New(executor.Config{Catalog: cat, Strategies: strategies, Scheduler: scheduler, Estimator: estimator, Lists: lists, Scorer: strategies})
	if err != nil {
		return nil, err
	}
	orchestrator, err := chat.New(chat.Config{
		Store: db, Log: events, Publisher: broker, Models: models,
		Planner: plan, Executor: exec, Logger: log, Origin: origin,
		AutoApprove: cfg.AutoApprove, Estimator: estimator, SweepEvery: cfg.TurnRescue,
		Tracer: obs.tracerProvider(), TraceContent: obs.content, Metrics: obs.metrics,
		TurnRate: cfg.TurnRate, TurnBurst: chat.DefaultTurnBurst, MaxRunning: cfg.RunningTurns,
	})
	if err != nil {
		return nil, err
	}
	reg := obs.registry
	srv, err := server.New(server.Config{
		Logger: log, Store: db, Accounts: accounts, Catalog: cat, Sites: cat, Keys: keys, Saver: cat,
		Chat: orchestrator, Streamer: streamer, Strategies: strategies, Models: models,
		GeneLists: lists, StrategyLists: strategies, Protocols: protocols(strategies, lists),
		Ready: func(ctx context.Context) error {
			if err := db.Ready(ctx, migrations.FS); err != nil {
				return err
			}
			return orchestrator.Ready()
		},
		Registry: reg, Gatherer: reg, MetricsToken: cfg.MetricsToken, Metrics: obs.metrics, Tracer: obs.tracerProvider(),
		PublicURL: cfg.PublicURL, TrustedProxies: cfg.TrustedProxies,
		Auth: cfg.Auth, SecureCookies: cfg.SecureCookies, DefaultModel: cfg.Model, Version: version,
		RequestRate:    cfg.RequestRate,
		StreamsPerUser: cfg.StreamsPerUser, ReadTimeout: cfg.ReadTimeout, IdleTimeout: cfg.IdleTimeout, ConnsPerAddr: connsPerAddr(cfg.ConnsPerAddr),
	})
	if err != nil {
		return nil, err
	}
	return &app{log: log, db: db, accounts: accounts, models: models, broker: broker, events: events,
		fanout: fanout, chat: orchestrator, server: srv, metricsAddr: cfg.MetricsAddr}, nil
}

// run serves on ln until ctx ends. Shutdown goes in order: the HTTP server
// stops taking requests and ends streams, the orchestrator hands its turns
// back to the job queue (another replica continues them), and only then do the event log and the
// process's owner session stop, so nothing a turn writes on its way out is
// lost.
func (a *app) run(ctx context.Context, ln net.Listener) error {
	backCtx, stopBack := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBack()
	back, backCtx := errgroup.WithContext(backCtx)
	owner := make(chan string, 1)
	back.Go(func() error { return a.events.Run(backCtx) })
	back.Go(func() error { return a.fanout.Run(backCtx) })
	back.Go(func() error {
		var once sync.Once
		return a.db.HoldOwnerSession(backCtx, store.OwnerSession{
			Held: func(o string) {
				once.Do(func() { owner <- o })
				a.chat.OwnerHeld()
			},
			Lost:   a.chat.OwnerLost,
			Logger: a.log,
		})
	})

	front, frontCtx := errgroup.WithContext(ctx)
	front.Go(func() error { return a.server.Serve(frontCtx, ln) })
	front.Go(func() error {
		select {
		case o := <-owner:
			return a.chat.Run(frontCtx, o)
		case <-backCtx.Done():
			return errors.New("the owner session could not be opened")
		case <-frontCtx.Done():
			return nil
		}
	})
	front.Go(func() error { return sweepSessions(frontCtx, a.db, a.log) })
	// A signed-out session, a revoked token or a deleted conversation
	// (here, in another replica or from the command line) ends its streams.
	front.Go(func() error {
		return a.db.Listen(frontCtx, []string{store.EndStreamsChannel}, func(_, key string) {
			a.accounts.Forget(key)
			a.server.EndStreams(key)
		}, func(error) {
			// Announcements made while the listener was away are lost:
			// ask the database again for every credential.
			a.accounts.Forget("")
		})
	})
	if a.metricsAddr != "" {
		front.Go(func() error { return serveMetrics(frontCtx, a.metricsAddr, a.server.MetricsHandler(), a.log) })
	}
	// A failing background part (the log cannot write) stops the front too.
	front.Go(func() error {
		select {
		case <-backCtx.Done():
			if ctx.Err() == nil {
				return fmt.Errorf("background stopped: %w", context.Cause(backCtx))
			}
		case <-frontCtx.Done():
		}
		return nil
	})
	frontErr := front.Wait()
	stopBack()
	backErr := back.Wait()
	if frontErr != nil {
		return frontErr
	}
	if backErr != nil && !errors.Is(backErr, context.Canceled) {
		return backErr
	}
	return nil
}

// newRegistry offers the engines the configuration enables.
func newRegistry(cfg *config.Config) (*llm.Registry, error) {
	rc := llm.RegistryConfig{
		Default: cfg.Model,
		Gemini: llm.HostedConfig{
			Enabled: cfg.GeminiAPIKey != "", Models: cfg.GeminiModels,
			New: func() (llm.Engine, error) { return gemini.New(gemini.Config{APIKey: cfg.GeminiAPIKey}) },
		},
		OpenAI: llm.HostedConfig{
			Enabled: cfg.OpenAIBaseURL != "", Models: cfg.OpenAIModels, AcceptUnlisted: true,
			New: func() (llm.Engine, error) {
				return openai.New(openai.Config{BaseURL: cfg.OpenAIBaseURL, APIKey: cfg.OpenAIAPIKey})
			},
		},
		Offline: newOfflineEngine,
	}
	if cfg.ScriptsDir != "" {
		rc.Scripted = llm.ScriptedConfig{
			Enabled: true, Files: os.DirFS(cfg.ScriptsDir),
			New: func(fsys fs.FS, name string) (llm.Engine, error) { return scripted.Load(fsys, name) },
		}
	}
	return llm.NewRegistry(rc)
}

// serveMetrics answers /metrics on addr until ctx ends: the metrics stay
// off the public listener, on an address only operators reach.
func serveMetrics(ctx context.Context, addr string, h http.Handler, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s (STRATEGIST_METRICS_ADDR): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	log.Info("metrics served", slog.String("url", "http://"+ln.Addr().String()+"/metrics"))
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

// connsPerAddr is the server's cap for the configured one: server.Config
// reads 0 as its default, config 0 as no cap.
func connsPerAddr(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// protocols are the agent protocols served beside the app, each a package
// of internal/protocol over the server's host: MCP (with the strategy
// tools over graph and the list tools over lists and graph), the
// OpenAI-compatible API, AG-UI and A2A.
func protocols(graph *strategies.Service, lists *genelist.Service) []server.ProtocolFunc {
	return []server.ProtocolFunc{
		func(h *server.Host) (protocol.Protocol, error) { return mcp.New(h, graph, mcp.WithLists(lists, graph)) },
		func(h *server.Host) (protocol.Protocol, error) { return openaiapi.New(h) },
		func(h *server.Host) (protocol.Protocol, error) { return agui.New(h) },
		func(h *server.Host) (protocol.Protocol, error) { return a2a.New(h) },
	}
}
