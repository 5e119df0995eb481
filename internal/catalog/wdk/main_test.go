package wdk

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// staticTokens is a TokenSource with one key per site.
type staticTokens map[string]string

func (s staticTokens) Token(_ context.Context, site string) (string, error) {
	if tok, ok := s[site]; ok {
		return tok, nil
	}
	return "", ErrNoToken
}

type testClient struct {
	*Client
	fake *fakeWDK
	logs *syncBuffer
}

// newTestClient returns a client of the fake over real HTTP (httptest),
// with the registered user's key for plasmodb and debug logs captured.
func newTestClient(t *testing.T, mod func(*Config)) *testClient {
	t.Helper()
	f := newFakeWDK(t)
	base := f.serve()
	return newClientFor(t, f, base, &http.Client{Transport: &http.Transport{}}, mod)
}

func newClientFor(t testing.TB, f *fakeWDK, base string, hc *http.Client, mod func(*Config)) *testClient {
	t.Helper()
	logs := &syncBuffer{}
	cfg := Config{
		Tokens:      staticTokens{"plasmodb": registeredToken},
		BaseURLs:    map[string]string{"plasmodb": base},
		HTTPClient:  hc,
		BackoffBase: 1, // tests outside synctest must not sleep
		BackoffMax:  2,
		Logger:      slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	if tr, ok := hc.Transport.(*http.Transport); ok {
		t.Cleanup(tr.CloseIdleConnections)
	}
	return &testClient{Client: c, fake: f, logs: logs}
}

// handlerTransport serves requests with a handler in the calling
// goroutine: no network, so a synctest bubble sees every wait.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	if r.Body == nil {
		r.Body = http.NoBody // a server request always has a body
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// newBubbleClient returns a client of the fake through handlerTransport,
// for tests inside synctest.Test.
func newBubbleClient(t *testing.T, mod func(*Config)) *testClient {
	t.Helper()
	f := newFakeWDK(t)
	hc := &http.Client{Transport: handlerTransport{http.StripPrefix("/plasmo/service", f)}}
	return newClientFor(t, f, "http://plasmodb.test/plasmo/service", hc, func(c *Config) {
		c.BackoffBase, c.BackoffMax = 0, 0 // defaults: real backoff in fake time
		if mod != nil {
			mod(c)
		}
	})
}

var bg = context.Background()
