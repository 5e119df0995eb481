package wdk

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"strategist/internal/catalog"
)

// These tests run in synctest bubbles: backoff and Retry-After waits pass
// in fake time, so the assertions on waited time are exact, not timing.

const delayedBody = `{"status":"accepted","message":"WDK-DELAYED-RESULT"}`

func repeat(r fakeResponse, n int) []fakeResponse {
	out := make([]fakeResponse, n)
	for i := range out {
		out[i] = r
	}
	return out
}

func TestRetries(t *testing.T) {
	s503 := fakeResponse{status: 503, body: "Service Unavailable"}
	tests := []struct {
		name      string
		responses []fakeResponse
		wantErr   func(error) bool
		wantSent  int
		minWait   time.Duration
		maxWait   time.Duration
	}{
		{"429 honours Retry-After", []fakeResponse{{status: 429, header: map[string]string{"Retry-After": "7"}, body: "slow down"}},
			nil, 2, 7 * time.Second, 7 * time.Second},
		{"503 twice backs off exponentially", repeat(s503, 2), nil, 3, 750 * time.Millisecond, 1500 * time.Millisecond},
		{"502 from the proxy", []fakeResponse{{status: 502, header: map[string]string{"Content-Type": "text/html"}, body: "<html>Bad Gateway</html>"}},
			nil, 2, 250 * time.Millisecond, 500 * time.Millisecond},
		{"504 from the proxy", []fakeResponse{{status: 504, body: "<html>Gateway Time-out</html>"}}, nil, 2, 250 * time.Millisecond, 500 * time.Millisecond},
		{"Retry-After in the past", []fakeResponse{{status: 503, header: map[string]string{"Retry-After": "Fri, 31 Dec 1999 23:59:00 GMT"}}},
			nil, 2, 250 * time.Millisecond, 500 * time.Millisecond},
		{"retries run out", repeat(s503, 4), func(err error) bool {
			var se *ServerError
			return errors.As(err, &se) && se.Status == 503 && se.Attempts == 4 && errors.Is(err, catalog.ErrUnavailable)
		}, 4, 1750 * time.Millisecond, 3500 * time.Millisecond},
		{"Retry-After too long ends the retries", []fakeResponse{{status: 429, header: map[string]string{"Retry-After": "120"}}}, func(err error) bool {
			var se *ServerError
			return errors.As(err, &se) && se.Status == 429 && se.RetryAfter == 120*time.Second
		}, 1, 0, 0},
		{"400 is not retried", []fakeResponse{{status: 400, body: "Malformed JSON"}}, func(err error) bool {
			var re *RequestError
			return errors.As(err, &re)
		}, 1, 0, 0},
		{"422 is not retried", []fakeResponse{{status: 422, body: `{"level":"SEMANTIC","isValid":false,"errors":{"general":["bad"],"byKey":{}}}`}}, func(err error) bool {
			var ve *catalog.ValidationError
			return errors.As(err, &ve)
		}, 1, 0, 0},
		{"500 is not retried", []fakeResponse{{status: 500, body: "Internal Error"}}, func(err error) bool {
			var se *ServerError
			return errors.As(err, &se) && se.Status == 500 && !errors.Is(err, catalog.ErrUnavailable)
		}, 1, 0, 0},
		{"202 delayed result is polled", []fakeResponse{{status: 202, body: delayedBody}, {status: 202, body: delayedBody}},
			nil, 3, 750 * time.Millisecond, 1500 * time.Millisecond},
		{"202 delayed until the polls run out", repeat(fakeResponse{status: 202, body: delayedBody}, 8), func(err error) bool {
			var de *DelayedError
			return errors.As(err, &de) && de.Attempts == 8 && errors.Is(err, catalog.ErrUnavailable)
		}, 8, 0, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newBubbleClient(t, nil)
				c.fake.inject(http.MethodGet, "/", tt.responses...)
				start := time.Now()
				info, err := c.ServiceInfo(bg, "plasmodb")
				waited := time.Since(start)
				if tt.wantErr == nil {
					if err != nil || info.ProjectID != "PlasmoDB" {
						t.Fatalf("ServiceInfo() = %+v, %v; want success after retries", info, err)
					}
				} else if err == nil || !tt.wantErr(err) {
					t.Fatalf("ServiceInfo() error = %v (%T)", err, err)
				}
				if n := len(c.fake.recorded(http.MethodGet, "/")); n != tt.wantSent {
					t.Errorf("sent %d times, want %d", n, tt.wantSent)
				}
				if waited < tt.minWait || waited > tt.maxWait {
					t.Errorf("waited %v, want between %v and %v", waited, tt.minWait, tt.maxWait)
				}
			})
		})
	}
}

// failingTransport fails the first n round trips like a dropped connection.
type failingTransport struct {
	mu   sync.Mutex
	n    int
	next http.RoundTripper
}

func (f *failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	fail := f.n > 0
	f.n--
	f.mu.Unlock()
	if fail {
		return nil, errors.New("connection reset by peer")
	}
	return f.next.RoundTrip(r)
}

func TestTransportErrorsAreRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newBubbleClient(t, nil)
		ft := &failingTransport{n: 2, next: c.http.Transport}
		c.http.Transport = ft
		if _, err := c.ServiceInfo(bg, "plasmodb"); err != nil {
			t.Fatalf("ServiceInfo() after two transport errors: %v", err)
		}
		ft.n = 10
		_, err := c.ServiceInfo(bg, "plasmodb")
		var se *ServerError
		if !errors.As(err, &se) || se.Status != 0 || se.Attempts != 4 || !strings.Contains(err.Error(), "connection reset") || !errors.Is(err, catalog.ErrUnavailable) {
			t.Fatalf("ServiceInfo() error = %v, want a *ServerError after 4 attempts", err)
		}
	})
}

func TestCancelDuringBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newBubbleClient(t, nil)
		c.fake.inject(http.MethodGet, "/", fakeResponse{status: 503, header: map[string]string{"Retry-After": "20"}})
		ctx, cancel := context.WithTimeout(bg, 5*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.ServiceInfo(ctx, "plasmodb")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("ServiceInfo() error = %v, want DeadlineExceeded", err)
		}
		if waited := time.Since(start); waited != 5*time.Second {
			t.Errorf("returned after %v, want at the 5s deadline", waited)
		}
	})
}

func TestConcurrencyBound(t *testing.T) {
	for _, limit := range []int{0, 3} {
		want := limit
		if want == 0 {
			want = 6 // the default
		}
		synctest.Test(t, func(t *testing.T) {
			c := newBubbleClient(t, func(cfg *Config) { cfg.Concurrency = limit })
			gate := make(chan struct{})
			c.fake.Gate(gate, make(chan struct{}, 100))
			const calls = 20
			var wg sync.WaitGroup
			errs := make(chan error, calls)
			for range calls {
				wg.Go(func() {
					_, err := c.ServiceInfo(bg, "plasmodb")
					errs <- err
				})
			}
			for released := 0; released < calls; released++ {
				synctest.Wait() // every caller is in the site or waiting for a slot
				inflight, _ := c.fake.InFlight()
				if wantNow := min(want, calls-released); inflight != wantNow {
					t.Fatalf("%d requests in flight after %d finished, want %d", inflight, released, wantNow)
				}
				gate <- struct{}{}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("ServiceInfo() error = %v", err)
				}
			}
			if _, most := c.fake.InFlight(); most != want {
				t.Errorf("at most %d requests were in flight, want %d", most, want)
			}
		})
	}
}

func TestCatalogCacheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newBubbleClient(t, func(cfg *Config) { cfg.CacheTTL = 10 * time.Minute })
		for range 3 {
			if _, err := c.Searches(bg, "plasmodb", "transcript"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Search(bg, "plasmodb", "", "GenesByGoTerm"); err != nil {
				t.Fatal(err)
			}
		}
		lists := func() int { return countPath(c, http.MethodGet, "/record-types/transcript/searches") }
		if n := lists(); n != 1 {
			t.Errorf("search list fetched %d times within the TTL, want 1", n)
		}
		if n := countPath(c, http.MethodGet, "/record-types/transcript/searches/GenesByGoTerm"); n != 1 {
			t.Errorf("details fetched %d times within the TTL, want 1", n)
		}
		time.Sleep(11 * time.Minute)
		if _, err := c.Searches(bg, "plasmodb", "transcript"); err != nil {
			t.Fatal(err)
		}
		if n := lists(); n != 2 {
			t.Errorf("search list fetched %d times after the TTL, want 2", n)
		}
	})
}

// countPath counts requests to exactly this path.
func countPath(c *testClient, method, path string) int {
	n := 0
	for _, r := range c.fake.recorded(method, path) {
		if r.Path == path {
			n++
		}
	}
	return n
}
