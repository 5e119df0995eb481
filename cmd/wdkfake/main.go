// Command wdkfake runs Strategist's WDK fake (internal/catalog/wdk/wdkfake)
// as its own process, for browser tests and for trying live sites without
// VEuPathDB:
//
//	wdkfake [-addr 127.0.0.1:8091] [-data DIR] [-fixtures] [-key KEY ...]
//
// It serves WDK under /plasmo/service (point STRATEGIST_WDK_BASE_URL at
// http://ADDR/plasmo/service), the strategy page a saved strategy's link
// opens under /plasmo/app, and control endpoints under /__fake/ (POST
// /__fake/revoke?key=K makes a key stop working). By default it answers
// from the offline PlasmoDB snapshot (-data, else STRATEGIST_DATA_DIR, else
// ./data); -fixtures serves the package's small fixtures instead. Each -key
// is a registered user's API key (users 1001, 1002, ... in order); the
// fixtures' keys work too. It prints "wdkfake: listening on URL" once it
// accepts connections. It is a test double, not VEuPathDB.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"strategist/internal/catalog/offline"
	"strategist/internal/catalog/wdk/wdkfake"
)

func main() { os.Exit(exitStatus()) }

// exitStatus runs the fake and returns the process's exit status, so that
// its deferred calls run before main exits.
func exitStatus() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 2
	default:
		fmt.Fprintln(os.Stderr, "wdkfake:", err)
		return 1
	}
}

// keyList is a repeatable -key flag.
type keyList []string

func (k *keyList) String() string     { return strings.Join(*k, ",") }
func (k *keyList) Set(v string) error { *k = append(*k, v); return nil }

// logRequests logs each request's method, path, status and duration.
func logRequests(log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		log.Info("request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", sw.status), slog.Duration("took", time.Since(start)))
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// run serves the fake until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("wdkfake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8091", "listen address (port 0 picks a free one)")
	dataDir := fs.String("data", getenv("STRATEGIST_DATA_DIR"), "offline gene data directory")
	fixtures := fs.Bool("fixtures", false, "serve the package's fixtures instead of the offline snapshot")
	prefix := fs.String("prefix", "/plasmo", "path before /service and /app, as on the site")
	var keys keyList
	fs.Var(&keys, "key", "a registered user's API key (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("component", "wdkfake")

	cfg := wdkfake.Config{Logger: log}
	if !*fixtures {
		cat, err := offline.Open(offline.FindDataDir(*dataDir))
		if err != nil {
			return err
		}
		if err := cat.DataErr(); err != nil {
			return fmt.Errorf("the offline snapshot answers nothing: %w", err)
		}
		cfg.Catalog, cfg.Site = cat, offline.SiteID
	}
	fake, err := wdkfake.New(cfg)
	if err != nil {
		return err
	}
	for i, k := range keys {
		fake.AddKey(k, wdkfake.User{ID: int64(1001 + i)})
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: logRequests(log, fake.Handler(*prefix)), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "wdkfake: listening on http://%s (WDK at http://%s%s/service)\n", ln.Addr(), ln.Addr(), *prefix)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
