// Package security attacks a real strategist server process the way the
// hardening trial did: parallel password guessing, a sign-in flood from many
// addresses, text PostgreSQL cannot store, cross-site writes, a revoked
// token's open stream, DNS rebinding against dev mode, and deleting a
// conversation in the middle of a build. Every attack that once got through
// is a test here, against the binary users run.
package security

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"strategist/internal/pgtest"
	"strategist/internal/proctest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m).Run()) }

// server is one strategist process with its database.
type server struct {
	*proctest.Proc
	dbURL string
}

func start(t *testing.T, env map[string]string) *server {
	t.Helper()
	dbURL := pgtest.NewURL(t)
	all := map[string]string{"DATABASE_URL": dbURL, "STRATEGIST_AUTH": "local"}
	for k, v := range env {
		all[k] = v
	}
	return &server{Proc: proctest.Start(t, all), dbURL: dbURL}
}

// cli runs a strategist command against the server's database.
func (s *server) cli(t *testing.T, stdin string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(proctest.Binary(t), args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+s.dbURL)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("strategist %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), stderr.String()
}

const password = "correct horse battery"

// user creates an account and returns an API token and its id.
func (s *server) user(t *testing.T, email string) (token, tokenID string) {
	t.Helper()
	s.cli(t, password+"\n", "user", "create", "--email", email)
	token, msg := s.cli(t, "", "user", "token", "--email", email)
	fields := strings.Fields(msg)
	if len(fields) < 3 {
		t.Fatalf("token message %q", msg)
	}
	return token, fields[2]
}

// from is an HTTP client whose connections come from a loopback address
// (127.0.0.0/8 is all loopback on Linux), so one test can be many clients.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{
		Transport:     &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       60 * time.Second,
	}
}

func (s *server) signIn(t *testing.T, c *http.Client, email, pw string) *http.Response {
	t.Helper()
	resp, err := c.PostForm(s.URL+"/signin", url.Values{"email": {email}, "password": {pw}})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func (s *server) do(t *testing.T, method, path, token, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// conversation creates a conversation on the offline site and returns its id.
func (s *server) conversation(t *testing.T, token string) string {
	t.Helper()
	code, body := s.do(t, "POST", "/api/v1/conversations", token, "application/json", `{"siteId":"plasmodb"}`)
	var conv struct{ ID string }
	if err := json.Unmarshal([]byte(body), &conv); code != http.StatusCreated || err != nil {
		t.Fatalf("create = %d %s", code, body)
	}
	return conv.ID
}

// TestParallelGuessesAreCountedBeforeTheCheck: 100 guesses sent at once
// from one address; only the free allowance reaches the password check,
// the right password among the rest does not get in.
func TestParallelGuessesAreCountedBeforeTheCheck(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	s.user(t, "ada@example.org")
	c := from("127.0.0.1")
	codes := make([]int, 100)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			pw := "guess " + strconv.Itoa(i)
			if i == 99 {
				pw = password
			}
			codes[i] = s.signIn(t, c, "ada@example.org", pw).StatusCode
		})
	}
	wg.Wait()
	checked := 0
	for _, code := range codes {
		if code != http.StatusTooManyRequests {
			checked++
		}
	}
	if checked > 5 {
		t.Errorf("%d of 100 parallel guesses reached the password check, want at most 5", checked)
	}
	// The owner, from another address, is not locked out.
	if resp := s.signIn(t, from("127.0.0.2"), "ada@example.org", password); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the owner from another address = %d, want a signed-in redirect", resp.StatusCode)
	}
}

// peakRSS is the process's peak resident memory (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// TestSignInFloodKeepsMemoryBounded: 500 sign-ins at once, from 250
// addresses and 500 emails (so no throttle stops them), each needing a
// 19 MiB password hash. The hashing runs a few at a time; the rest wait in
// a short queue or get 503, and the server's peak memory stays bounded.
func TestSignInFloodKeepsMemoryBounded(t *testing.T) {
	t.Parallel()
	s := start(t, map[string]string{"STRATEGIST_REQUEST_RATE": "100000"})
	before := peakRSS(t, s.PID())
	clients := make([]*http.Client, 250)
	for i := range clients {
		clients[i] = from(fmt.Sprintf("127.0.%d.%d", 1+i/200, 2+i%200))
	}
	counts := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 500 {
		wg.Go(func() {
			code := s.signIn(t, clients[i%len(clients)], fmt.Sprintf("nobody%d@example.org", i), "guess guess").StatusCode
			mu.Lock()
			counts[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	peak := peakRSS(t, s.PID())
	t.Logf("500 parallel sign-ins: answers %v; peak RSS %d MiB before, %d MiB after", counts, before>>20, peak>>20)
	for code := range counts {
		if code != http.StatusUnauthorized && code != http.StatusServiceUnavailable {
			t.Errorf("%d sign-ins answered %d, want 401 (checked) or 503 (refused, busy)", counts[code], code)
		}
	}
	// Unbounded, 200 parallel sign-ins took the server from 62 MB to
	// 1.5 GB; bounded, a few 19 MiB hashes run at once.
	if peak-before > 256<<20 {
		t.Errorf("peak RSS grew by %d MiB under the flood, want it bounded (< 256 MiB)", (peak-before)>>20)
	}
}

// TestBadTextAndIDs: NUL and invalid UTF-8 in ids, titles and messages are
// 400s, never 500s.
func TestBadTextAndIDs(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	token, _ := s.user(t, "ada@example.org")
	conv := s.conversation(t, token)
	for _, tt := range []struct{ method, path, body string }{
		{"GET", "/api/v1/conversations/%ff", ""},
		{"GET", "/api/v1/conversations/%00", ""},
		{"GET", "/api/v1/conversations/not-a-uuid", ""},
		{"PATCH", "/api/v1/conversations/" + conv, "{\"title\":\"a\x00b\"}"},
		{"PATCH", "/api/v1/conversations/" + conv, `{"title":"a\u0000b"}`},
		{"PATCH", "/api/v1/conversations/" + conv, "{\"title\":\"\xff\xfe\"}"},
		{"POST", "/api/v1/conversations", `{"siteId":"plasmodb","title":"\u0000"}`},
		{"POST", "/api/v1/conversations/" + conv + "/turns", `{"message":"\u0000","mode":"plan"}`},
	} {
		if code, body := s.do(t, tt.method, tt.path, token, "application/json", tt.body); code != http.StatusBadRequest {
			t.Errorf("%s %s %q = %d %s, want 400", tt.method, tt.path, tt.body, code, body)
		}
	}
	for _, path := range []string{"/conversations/%ff", "/conversations/%00"} {
		if code, _ := s.do(t, "GET", path, token, "", ""); code != http.StatusBadRequest {
			t.Errorf("page %s = %d, want 400", path, code)
		}
	}
}

// TestCrossSiteWrites: with a browser session, a text/plain or form post
// to the JSON API (what any web page can send with the visitor's cookie)
// is refused, and so is JSON without the session's CSRF token.
func TestCrossSiteWrites(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	s.user(t, "ada@example.org")
	c := from("127.0.0.1")
	resp := s.signIn(t, c, "ada@example.org", password)
	var ck *http.Cookie
	for _, k := range resp.Cookies() {
		if k.Name == "strategist_session" {
			ck = k
		}
	}
	if ck == nil {
		t.Fatalf("sign-in = %d without a session cookie", resp.StatusCode)
	}
	for _, tt := range []struct {
		contentType string
		want        int
	}{{"text/plain", 415}, {"application/x-www-form-urlencoded", 415}, {"application/json", 403}} {
		req, _ := http.NewRequest("POST", s.URL+"/api/v1/conversations", strings.NewReader(`{"siteId":"plasmodb"}`))
		req.Header.Set("Content-Type", tt.contentType)
		req.AddCookie(ck)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("cookie write as %s = %d, want %d", tt.contentType, resp.StatusCode, tt.want)
		}
	}
}

// TestHeadersAndMetrics: every page carries the security headers, and
// /metrics is not on the public listener.
func TestHeadersAndMetrics(t *testing.T) {
	t.Parallel()
	s := start(t, map[string]string{"STRATEGIST_METRICS_ADDR": "127.0.0.1:0"})
	metrics := s.LoggedURL("metrics served")
	for _, path := range []string{"/signin", "/", "/static/app.js", "/api/v1/conversations"} {
		resp, err := from("127.0.0.1").Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") == "" {
			t.Errorf("%s headers: %v", path, h)
		}
	}
	if code, _ := s.do(t, "GET", "/metrics", "", "", ""); code != http.StatusNotFound {
		t.Errorf("public /metrics = %d, want 404", code)
	}
	resp, err := http.Get(metrics)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(raw), "strategist_http_requests_total") {
		t.Errorf("metrics address = %d", resp.StatusCode)
	}
}

// TestDevModeRefusesRebinding: a page on a domain that resolves to
// 127.0.0.1 sends its own Host; dev mode answers only loopback names.
func TestDevModeRefusesRebinding(t *testing.T) {
	t.Parallel()
	s := start(t, map[string]string{"STRATEGIST_AUTH": "dev"})
	for host, want := range map[string]int{"rebind.example.org": 421, "localhost": 200} {
		req, _ := http.NewRequest("GET", s.URL+"/api/v1/conversations", nil)
		req.Host = host + ":" + s.URL[strings.LastIndex(s.URL, ":")+1:]
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s = %d, want %d", req.Host, resp.StatusCode, want)
		}
	}
}

// openStream follows a conversation's events and returns the event types
// as they arrive; the channel closes when the server ends the stream.
func (s *server) openStream(t *testing.T, conv, token string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1/conversations/"+conv+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream = %d", resp.StatusCode)
	}
	types := make(chan string, 1024)
	go func() {
		defer close(types)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			if typ, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				types <- typ
			}
		}
	}()
	return types
}

// TestRevokedTokenStreamEnds: a token revoked from the command line (its
// own process) ends the stream that token opened on the server.
func TestRevokedTokenStreamEnds(t *testing.T) {
	t.Parallel()
	s := start(t, nil)
	token, tokenID := s.user(t, "ada@example.org")
	conv := s.conversation(t, token)
	types := s.openStream(t, conv, token)
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	s.cli(t, "", "user", "revoke", "--email", "ada@example.org", "--token-id", tokenID)
	for {
		select {
		case _, open := <-types:
			if open {
				continue
			}
			t.Logf("the stream ended %s after the revocation", time.Since(start).Round(time.Millisecond))
			return
		case <-time.After(10 * time.Second):
			t.Fatal("the revoked token's stream was still open 10 s later")
		}
	}
}

// TestDeleteMidBuildEndsWithTurnEnd: deleting a conversation while its
// sub-agents run cancels the build; the open stream gets turn_end and
// closes, and nothing keeps running.
func TestDeleteMidBuildEndsWithTurnEnd(t *testing.T) {
	t.Parallel()
	data := os.Getenv("STRATEGIST_DATA_DIR")
	if data == "" {
		data = "../../data"
	}
	scripts, err := filepath.Abs("../../cmd/server/testdata/scripts")
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, map[string]string{"STRATEGIST_SCRIPTS_DIR": scripts, "STRATEGIST_MODEL": "scripted:cancel_delegation.json", "STRATEGIST_DATA_DIR": data})
	token, _ := s.user(t, "ada@example.org")
	conv := s.conversation(t, token)
	types := s.openStream(t, conv, token)
	var (
		code int
		body string
	)
	for range 100 {
		if code, body = s.do(t, "POST", "/api/v1/conversations/"+conv+"/turns", token, "application/json", `{"message":"Build it","mode":"execute"}`); code != http.StatusServiceUnavailable {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code != http.StatusAccepted {
		t.Fatalf("turn = %d %s", code, body)
	}
	var seen []string
	started := 0
	for started < 3 {
		select {
		case typ, open := <-types:
			if !open {
				t.Fatalf("the stream ended early: %v", seen)
			}
			seen = append(seen, typ)
			if typ == "subagent_task_start" {
				started++
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no sub-agents started: %v", seen)
		}
	}
	if code, body := s.do(t, "DELETE", "/api/v1/conversations/"+conv, token, "", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE = %d %s", code, body)
	}
	deadline := time.After(15 * time.Second)
	for {
		select {
		case typ, open := <-types:
			if open {
				seen = append(seen, typ)
				continue
			}
			if seen[len(seen)-1] != "turn_end" {
				t.Fatalf("the stream ended without turn_end: %v", seen)
			}
			time.Sleep(300 * time.Millisecond)
			if logs := s.Logs.String(); strings.Contains(logs, "level=ERROR") {
				t.Errorf("work went on after the deletion:\n%s", logs)
			}
			return
		case <-deadline:
			t.Fatalf("the deleted conversation's stream was still open: %v", seen)
		}
	}
}
