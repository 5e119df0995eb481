package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"strategist/internal/config"
	"strategist/internal/pgtest"
)

// The Gemini SDK's dependencies start an opencensus worker at init; it is
// not ours to stop.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(pgtest.Main(m), goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestServeReady starts the real server on :0 against a fresh database and
// waits for /readyz, then shuts it down through its context.
func TestServeReady(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	cfg, err := config.Load(nil, envMap(map[string]string{"DATABASE_URL": url, "STRATEGIST_ADDR": "127.0.0.1:0"}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var logs bytes.Buffer
	go func() { done <- serveOn(ctx, cfg, ln, &logs) }()

	base := "http://" + ln.Addr().String()
	var status int
	for range 200 { // the server migrates first; poll until ready
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			status = resp.StatusCode
			resp.Body.Close()
			if status == http.StatusOK {
				break
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	if status != http.StatusOK {
		t.Fatalf("/readyz never answered 200 (last %d); logs:\n%s", status, logs.String())
	}
	resp, err := http.Get(base + "/api/v1/sites")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous API call = %d, want 401", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve returned %v after shutdown", err)
	}
	if !strings.Contains(logs.String(), "strategist ready") {
		t.Errorf("no ready log line:\n%s", logs.String())
	}
}

func TestUserCommands(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	env := envMap(map[string]string{"DATABASE_URL": url})
	ctx := context.Background()
	exec := func(stdin string, args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, args, strings.NewReader(stdin), &out, &errOut, env)
		return out.String(), errOut.String(), err
	}
	if out, _, err := exec("", "user", "count"); err != nil || strings.TrimSpace(out) != "0" {
		t.Fatalf("user count = %q, %v", out, err)
	}
	out, errOut, err := exec("a long enough password\n", "user", "create", "--email", "ada@example.org")
	if err != nil {
		t.Fatalf("user create: %v (%s)", err, errOut)
	}
	if strings.Contains(out+errOut, "a long enough password") {
		t.Error("user create printed the password")
	}
	if _, _, err := exec("short\n", "user", "create", "--email", "bob@example.org"); err == nil {
		t.Error("a short password was accepted")
	}
	if _, _, err := exec("a long enough password\n", "user", "create", "--email", "ada@example.org"); err == nil {
		t.Error("a second account with the same email was accepted")
	}
	token, _, err := exec("", "user", "token", "--email", "ada@example.org")
	if err != nil || !strings.HasPrefix(strings.TrimSpace(token), "stg_") {
		t.Fatalf("user token = %q, %v", token, err)
	}
	if out, _, _ := exec("", "user", "count"); strings.TrimSpace(out) != "1" {
		t.Errorf("user count after create = %q", out)
	}
	if _, _, err := exec("", "user", "token", "--email", "nobody@example.org"); err == nil {
		t.Error("a token for an unknown account was issued")
	}
	if _, _, err := exec("", "user", "create"); !errors.Is(err, errUsage) {
		t.Errorf("user create without --email: %v, want a usage error", err)
	}
	if _, _, err := exec("", "frobnicate"); !errors.Is(err, errUsage) {
		t.Errorf("unknown command: %v, want a usage error", err)
	}
	if out, _, err := exec("", "version"); err != nil || !strings.HasPrefix(out, "strategist ") {
		t.Errorf("version = %q, %v", out, err)
	}
}

func TestBadConfigurationStopsServe(t *testing.T) {
	err := run(context.Background(), []string{"serve"}, strings.NewReader(""), io.Discard, io.Discard,
		envMap(map[string]string{"STRATEGIST_AUTH": "dev", "STRATEGIST_ADDR": "0.0.0.0:0"}))
	if err == nil || !strings.Contains(err.Error(), "STRATEGIST_AUTH=dev") {
		t.Errorf("dev mode off loopback: %v", err)
	}
	err = run(context.Background(), []string{"serve", "-addr", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, io.Discard, envMap(nil))
	if err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Errorf("no database: %v", err)
	}
}
