package server_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"iter"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"strategist/internal/catalog/offline"
	"strategist/internal/config"
	"strategist/internal/eventlog"
	"strategist/internal/server"
)

// openStreamer's streams stay open, silent but for heartbeats, until
// their request ends.
type openStreamer struct{}

func (openStreamer) Batches(ctx context.Context, _, _ string, _ int64, heartbeat time.Duration) iter.Seq2[[]*eventlog.Published, error] {
	return func(yield func([]*eventlog.Published, error) bool) {
		var beat <-chan time.Time
		if heartbeat > 0 {
			t := time.NewTicker(heartbeat)
			defer t.Stop()
			beat = t.C
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-beat:
				if !yield(nil, nil) {
					return
				}
			}
		}
	}
}

// limitsEnv serves through server.Serve with opts.
func limitsEnv(t *testing.T, opts ...func(*server.Config)) *env {
	t.Helper()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return newEnvServed(t, true, config.AuthLocal, cat, opts...)
}

// openStream opens path as an event stream with token or cookie and
// returns the response; a 200's first line has been read.
func (e *env) openStream(path, token string, cookie *http.Cookie) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	// One connection per stream, closed with it.
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode == http.StatusOK {
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			e.t.Fatalf("reading the stream's first line: %v", err)
		}
	}
	return resp
}

// waitFor polls cond until it holds; the test fails after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still not %s after 10 s", what)
		}
	}
}

// TestStreamsPerCredentialAreCapped: a session's page and API streams
// count together against its cap; beyond it the answer is 429 with
// Retry-After, another user is not affected, a closed stream frees its
// slot, and once all are closed no goroutine is left behind.
func TestStreamsPerCredentialAreCapped(t *testing.T) {
	e := limitsEnv(t, func(c *server.Config) { c.Streamer = openStreamer{}; c.StreamsPerUser = 3 })
	_, tokenA := e.user("ada@example.org")
	_, tokenB := e.user("bob@example.org")
	convA := createConversation(t, e, tokenA)
	convB := createConversation(t, e, tokenB)
	ck := sessionCookie(t, e.form("/signin", url.Values{"email": {"ada@example.org"}, "password": {"correct horse battery"}}, nil))
	before := runtime.NumGoroutine()

	pagePath, apiPath := "/conversations/"+convA+"/stream", "/api/v1/conversations/"+convA+"/events"
	var open []*http.Response
	for _, p := range []string{pagePath, pagePath, apiPath} {
		resp := e.openStream(p, "", ck)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d (%s) = %d, want 200", len(open)+1, p, resp.StatusCode)
		}
		open = append(open, resp)
	}
	for _, p := range []string{apiPath, pagePath} {
		refused := e.openStream(p, "", ck)
		if refused.StatusCode != http.StatusTooManyRequests || refused.Header.Get("Retry-After") == "" {
			t.Fatalf("a 4th stream (%s) = %d, Retry-After %q, want 429 with Retry-After", p, refused.StatusCode, refused.Header.Get("Retry-After"))
		}
		body, _ := io.ReadAll(refused.Body)
		if p == apiPath {
			if code := (response{status: refused.StatusCode, body: body}).errorCode(t); code != server.CodeRateLimited {
				t.Errorf("a 4th stream's code = %s, want %s", code, server.CodeRateLimited)
			}
		}
	}
	// Another user, and the same user's token (another credential), are
	// served.
	if resp := e.openStream("/api/v1/conversations/"+convB+"/events", tokenB, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("another user's stream = %d, want 200", resp.StatusCode)
	} else {
		open = append(open, resp)
	}
	if resp := e.openStream(apiPath, tokenA, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the user's token's stream = %d, want 200", resp.StatusCode)
	} else {
		open = append(open, resp)
	}

	// Closing one frees its slot once the server sees it end.
	open[0].Body.Close()
	waitFor(t, "accepted after a stream closed", func() bool {
		resp := e.openStream(apiPath, "", ck)
		if resp.StatusCode == http.StatusOK {
			open = append(open, resp)
			return true
		}
		resp.Body.Close()
		return false
	})

	for _, resp := range open {
		resp.Body.Close()
	}
	waitFor(t, "back to the goroutines before the streams", func() bool { return runtime.NumGoroutine() <= before })
}

// createConversation makes a conversation of token's user.
func createConversation(t *testing.T, e *env, token string) string {
	t.Helper()
	r := e.do(http.MethodPost, "/api/v1/conversations", token, `{"siteId":"plasmodb"}`)
	id, _ := r.json(t)["id"].(string)
	if r.status != http.StatusCreated || id == "" {
		t.Fatalf("create conversation = %d %s", r.status, r.body)
	}
	return id
}

// dialFrom connects to e's server from a loopback address of its own.
func (e *env) dialFrom(ip string) net.Conn {
	e.t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	conn, err := d.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { conn.Close() })
	return conn
}

// readResponse reads one response from conn, failing the test when none
// comes within 5 s.
func readResponse(t *testing.T, conn net.Conn, br *bufio.Reader) *http.Response {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading a response: %v", err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("reading a response's body: %v", err)
	}
	return resp
}

// TestTrickledBodyIsDropped: a sign-in body sent a byte at a time, never
// finished, gets 408 once the read timeout passes, however steadily the
// bytes come.
func TestTrickledBodyIsDropped(t *testing.T) {
	e := limitsEnv(t, func(c *server.Config) { c.ReadTimeout = 300 * time.Millisecond })
	conn := e.dialFrom("127.0.0.1")
	if _, err := io.WriteString(conn, "POST /signin HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ne"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	trickled := make(chan struct{})
	go func() {
		defer close(trickled)
		for ctx.Err() == nil {
			if _, err := io.WriteString(conn, "m"); err != nil {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	resp := readResponse(t, conn, bufio.NewReader(conn))
	cancel()
	<-trickled
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("a trickled body = %d, want 408", resp.StatusCode)
	}
}

// TestIdleKeepAliveIsClosed: a connection that asks nothing after its
// first request is closed by the server.
func TestIdleKeepAliveIsClosed(t *testing.T) {
	e := limitsEnv(t, func(c *server.Config) { c.IdleTimeout = 200 * time.Millisecond })
	conn := e.dialFrom("127.0.0.1")
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if resp := readResponse(t, conn, br); resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("healthz = %d (close %v), want 200 kept alive", resp.StatusCode, resp.Close)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("reading an idle keep-alive connection: %v, want EOF (closed by the server)", err)
	}
}

// TestStreamOutlivesReadTimeout: an event stream keeps sending long after
// the server's read timeout has passed.
func TestStreamOutlivesReadTimeout(t *testing.T) {
	const readTimeout = 200 * time.Millisecond
	e := limitsEnv(t, func(c *server.Config) {
		c.Streamer = openStreamer{}
		c.ReadTimeout = readTimeout
		c.KeepAlive = 50 * time.Millisecond
	})
	_, token := e.user("ada@example.org")
	conv := createConversation(t, e, token)
	resp := e.openStream("/api/v1/conversations/"+conv+"/events", token, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream = %d, want 200", resp.StatusCode)
	}
	br := bufio.NewReader(resp.Body)
	start := time.Now()
	for time.Since(start) < 4*readTimeout {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended %v after it opened (read timeout %v): %v", time.Since(start), readTimeout, err)
		}
		_ = line
	}
}

// TestConnectionsPerAddressAreCapped: beyond its cap an address's new
// connection is answered 429 and closed, another address is served, and a
// closed connection frees its place.
func TestConnectionsPerAddressAreCapped(t *testing.T) {
	e := limitsEnv(t, func(c *server.Config) { c.ConnsPerAddr = 3 })
	var held []net.Conn
	for range 3 {
		held = append(held, e.dialFrom("127.0.0.1"))
	}
	// The held connections are accepted: each answers a request.
	for _, c := range held {
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if resp := readResponse(t, c, bufio.NewReader(c)); resp.StatusCode != http.StatusOK {
			t.Fatalf("a held connection's healthz = %d", resp.StatusCode)
		}
	}
	extra := e.dialFrom("127.0.0.1")
	resp := readResponse(t, extra, bufio.NewReader(extra))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a 4th connection = %d, Retry-After %q, want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	other := e.dialFrom("127.0.0.2")
	if _, err := io.WriteString(other, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if resp := readResponse(t, other, bufio.NewReader(other)); resp.StatusCode != http.StatusOK {
		t.Errorf("another address = %d, want 200", resp.StatusCode)
	}

	// A trusted proxy's address is not capped.
	proxied := limitsEnv(t, func(c *server.Config) {
		c.ConnsPerAddr = 1
		_, n, _ := net.ParseCIDR("127.0.0.5/32")
		c.TrustedProxies = []*net.IPNet{n}
	})
	for range 3 {
		c := proxied.dialFrom("127.0.0.5")
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if resp := readResponse(t, c, bufio.NewReader(c)); resp.StatusCode != http.StatusOK {
			t.Errorf("a trusted proxy's connection = %d, want 200", resp.StatusCode)
		}
	}

	held[0].Close()
	waitFor(t, "served after a connection closed", func() bool {
		c := e.dialFrom("127.0.0.1")
		defer c.Close()
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return false
		}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		r, err := http.ReadResponse(bufio.NewReader(c), nil)
		return err == nil && r.StatusCode == http.StatusOK && !strings.Contains(r.Header.Get("Retry-After"), "5")
	})
}
