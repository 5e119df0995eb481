package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"

	"time"

	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/store"
	"strategist/internal/telemetry"
	"strategist/migrations"
)

// serve runs the web server until ctx ends.
func serve(ctx context.Context, args []string, stderr io.Writer, getenv func(string) string) error {
	cfg, err := config.Load(args, getenv, stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s (STRATEGIST_ADDR): %w", cfg.Addr, err)
	}
	return serveOn(ctx, cfg, ln, stderr)
}

// serveOn runs the server on an open listener; tests pass one on :0.
func serveOn(ctx context.Context, cfg *config.Config, ln net.Listener, stderr io.Writer) error {
	defer ln.Close()
	start := time.Now()
	log := newLogger(cfg, stderr)
	obs, err := newObservability(ctx, cfg.Telemetry, version, nil)
	if err != nil {
		return err
	}
	obs.installGlobals(log)
	defer func() {
		// Spans and metrics still buffered are sent before the process ends.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := obs.shutdown(sctx); err != nil {
			log.Warn("flushing telemetry", slog.Any("error", err))
		}
	}()
	if cfg.Telemetry.TracesEnabled() || cfg.Telemetry.MetricsEnabled() {
		log.Info("opentelemetry export on", slog.Bool("traces", cfg.Telemetry.TracesEnabled()),
			slog.Bool("metrics", cfg.Telemetry.MetricsEnabled()), slog.String("protocol", cfg.Telemetry.Protocol),
			slog.Bool("content", cfg.Telemetry.Content))
	}
	db, err := openDB(ctx, cfg, obs.storeOptions()...)
	if err != nil {
		return err
	}
	defer db.Close()
	off, err := newCatalog(cfg, log)
	if err != nil {
		return err
	}
	cfg.Listening(ln.Addr().String())
	a, err := buildApp(cfg, db, off, log, obs)
	if err != nil {
		return err
	}
	log.Info("strategist ready", slog.String("url", "http://"+ln.Addr().String()), slog.String("public_url", cfg.PublicURL),
		slog.String("auth", string(cfg.Auth)), slog.String("model", a.models.Default()),
		slog.Duration("startup", time.Since(start)))
	return a.run(ctx, ln)
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	// Lines logged inside a traced turn or request carry its trace_id.
	if cfg.LogFormat == "json" {
		return slog.New(telemetry.LogHandler(slog.NewJSONHandler(w, opts)))
	}
	return slog.New(telemetry.LogHandler(slog.NewTextHandler(w, opts)))
}

// openDB connects and applies pending migrations.
func openDB(ctx context.Context, cfg *config.Config, opts ...store.Option) (*store.DB, error) {
	if cfg.DatabaseURL == "" {
		return nil, errors.New("DATABASE_URL is not set: point it at PostgreSQL, or use `make run`, which finds or starts one")
	}
	if cfg.DBPool > 0 {
		opts = append(opts, store.WithMaxConns(cfg.DBPool))
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, migrations.FS, opts...)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	return db, nil
}

// sweepSessions deletes expired browser sessions every hour.
func sweepSessions(ctx context.Context, db *store.DB, log *slog.Logger) error {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := db.DeleteExpiredSessions(ctx, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("sweeping expired sessions", slog.Any("error", err))
		} else if n > 0 {
			log.Info("swept expired sessions", slog.Int64("count", n))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// newCatalog opens the offline PlasmoDB catalog. Missing gene data is not
// fatal: searches are still listed and validated, and answers say to run
// `make data`.
func newCatalog(cfg *config.Config, log *slog.Logger) (*offline.Catalog, error) {
	dir := offline.FindDataDir(cfg.DataDir)
	start := time.Now()
	cat, err := offline.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("offline catalog (STRATEGIST_DATA_DIR=%s): %w", dir, err)
	}
	if derr := cat.DataErr(); derr != nil {
		log.Warn("offline answers unavailable: gene data missing; run `make data`", slog.String("data_dir", dir), slog.Any("error", derr))
	} else {
		log.Info("offline catalog loaded", slog.String("data_dir", dir), slog.Int("genes", cat.Data().NumGenes()), slog.Duration("took", time.Since(start)))
	}
	return cat, nil
}
