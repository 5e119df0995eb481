package wdk

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memDocs is a DocCache in memory; failing makes every call fail, as a
// database that is down does.
type memDocs struct {
	mu      sync.Mutex
	m       map[string]Doc
	failing bool
}

var errDocsDown = errors.New("document store down")

func (d *memDocs) Get(_ context.Context, site, key string) (Doc, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failing {
		return Doc{}, errDocsDown
	}
	doc, ok := d.m[site+" "+key]
	if !ok {
		return Doc{}, ErrNoDoc
	}
	return doc, nil
}

func (d *memDocs) Put(_ context.Context, site, key string, doc Doc) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failing {
		return errDocsDown
	}
	if d.m == nil {
		d.m = map[string]Doc{}
	}
	d.m[site+" "+key] = doc
	return nil
}

func (d *memDocs) Touch(_ context.Context, site, key string, expiresAt time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failing {
		return errDocsDown
	}
	doc := d.m[site+" "+key]
	doc.ExpiresAt = expiresAt
	d.m[site+" "+key] = doc
	return nil
}

func (d *memDocs) Delete(_ context.Context, site, key string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.m, site+" "+key)
	return nil
}

// serviceRoot is a site that only has its service root, and counts asks.
func serviceRoot(t *testing.T, asked *atomic.Int32) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Header().Set("ETag", `"b68"`)
		_, _ = w.Write([]byte(`{"projectId":"PlasmoDB","buildNumber":"68"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/plasmo/service"
}

func docClient(t *testing.T, base string, docs DocCache, tokens *atomic.Int32, logs *syncBuffer) *Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := New(Config{
		Tokens: TokenFunc(func(context.Context, string) (string, error) {
			tokens.Add(1)
			return "key-of-ada", nil
		}),
		Sites:      []Site{{ID: "plasmodb", DisplayName: "PlasmoDB", BaseURL: base}},
		HTTPClient: &http.Client{Transport: tr},
		DocCache:   docs,
		Logger:     slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDocCacheFreshNeedsNoKey: a stored document that has not expired is
// read without asking for the caller's key or the site, as the in-memory
// cache is.
func TestDocCacheFreshNeedsNoKey(t *testing.T) {
	var asked, tokens atomic.Int32
	base := serviceRoot(t, &asked)
	docs := &memDocs{}
	if _, err := docClient(t, base, docs, &tokens, &syncBuffer{}).ServiceInfo(bg, "plasmodb"); err != nil {
		t.Fatal(err)
	}
	tokens.Store(0)
	info, err := docClient(t, base, docs, &tokens, &syncBuffer{}).ServiceInfo(bg, "plasmodb")
	if err != nil || info.BuildNumber != "68" {
		t.Fatalf("ServiceInfo from the store = %+v, %v", info, err)
	}
	if asked.Load() != 1 || tokens.Load() != 0 {
		t.Errorf("the site was asked %d times (want 1), the key %d times (want 0)", asked.Load(), tokens.Load())
	}
	d := docs.m["plasmodb "+base+"/"]
	if d.ETag != `"b68"` || d.ExpiresAt.Sub(d.FetchedAt) != DefaultDocTTL {
		t.Errorf("stored %+v, want the ETag and a %v expiry", d, DefaultDocTTL)
	}
}

// TestDocCacheStoreDown: a document store that fails is logged and
// bypassed; the researcher's call goes to the site and succeeds.
func TestDocCacheStoreDown(t *testing.T) {
	var asked, tokens atomic.Int32
	logs := &syncBuffer{}
	c := docClient(t, serviceRoot(t, &asked), &memDocs{failing: true}, &tokens, logs)
	info, err := c.ServiceInfo(bg, "plasmodb")
	if err != nil || info.ProjectID != "PlasmoDB" || asked.Load() != 1 {
		t.Fatalf("ServiceInfo with the store down = %+v, %v (site asked %d times)", info, err, asked.Load())
	}
	for _, want := range []string{"catalog document store unavailable", "could not store a catalog document"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no log line %q:\n%s", want, logs.String())
		}
	}
}

// TestDocCacheBoundsMemoryTTL: the in-memory cache never keeps a value
// longer than the stored document it came from is valid.
func TestDocCacheBoundsMemoryTTL(t *testing.T) {
	c, err := New(Config{Tokens: staticTokens{}, DocCache: &memDocs{}, DocTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if c.cache.details.ttl != time.Minute {
		t.Errorf("in-memory TTL = %v with DocTTL 1m, want 1m", c.cache.details.ttl)
	}
}
