package sites_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"strategist/internal/catalog"
	"strategist/internal/catalog/wdk"
	"strategist/internal/pgtest"
	"strategist/internal/sites"
	"strategist/internal/store"
)

// docSite is a WDK service for the document cache's tests: one record type
// ("transcript") whose searches, each with a vocabulary parameter, it
// serves with the ETag "v<version>", answering 304 to a matching
// If-None-Match. It counts the answers it sends.
type docSite struct {
	mu       sync.Mutex
	version  int
	searches int
	terms    int
	down     int           // non-zero: every request is answered with this status
	latency  time.Duration // added to every answer (a remote site)
	full     map[string]int
	notMod   map[string]int
	ifNone   []string // If-None-Match headers received
}

func newDocSite(searches, terms int) *docSite {
	return &docSite{version: 1, searches: searches, terms: terms, full: map[string]int{}, notMod: map[string]int{}}
}

const docSitePrefix = "/plasmo/service"

func (d *docSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	latency := d.latency
	d.mu.Unlock()
	if latency > 0 {
		t := time.NewTimer(latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.down != 0 {
		http.Error(w, "Service Unavailable", d.down)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, docSitePrefix)
	doc := path
	if r.URL.RawQuery != "" {
		doc += "?" + r.URL.RawQuery
	}
	etag := fmt.Sprintf(`"v%d"`, d.version)
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		d.ifNone = append(d.ifNone, inm)
		if inm == etag {
			d.notMod[doc]++
			w.Header().Set("ETag", etag)
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	body, ok := d.doc(path, r.URL.Query().Get("format"))
	if !ok {
		http.Error(w, "Not found: "+path, http.StatusNotFound)
		return
	}
	d.full[doc]++
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", etag)
	_ = json.NewEncoder(w).Encode(body)
}

// searchNames lists the site's searches; version 2 adds one.
func (d *docSite) searchNames() []string {
	names := make([]string, d.searches)
	for i := range names {
		names[i] = fmt.Sprintf("GenesByEvidence%d", i)
	}
	if d.version >= 2 {
		names = append(names, "GenesAddedInVersion2")
	}
	return names
}

func (d *docSite) doc(path, format string) (any, bool) {
	search := func(name string) map[string]any {
		return map[string]any{
			"urlSegment": name, "fullName": "GeneQuestions." + name, "displayName": "Genes by evidence " + name,
			"summary":               "Find genes by experimental evidence from a chosen data set.",
			"description":           "Genes with evidence of expression in the chosen data set and condition.",
			"outputRecordClassName": "transcript", "paramNames": []string{"dataset"},
		}
	}
	switch {
	case path == "/" || path == "":
		return map[string]any{"projectId": "PlasmoDB", "displayName": "PlasmoDB", "buildNumber": fmt.Sprint(67 + d.version),
			"releaseDate": "2026-10-01", "authentication": map[string]string{"method": "OAUTH2"}}, true
	case path == "/record-types" && format == "expanded":
		list := []map[string]any{}
		for _, n := range d.searchNames() {
			list = append(list, search(n))
		}
		return []map[string]any{{"urlSegment": "transcript", "fullName": "TranscriptRecordClasses.TranscriptRecordClass",
			"displayName": "Gene", "displayNamePlural": "Genes", "searches": list}}, true
	case path == "/record-types":
		return []string{"transcript"}, true
	case path == "/record-types/transcript/searches":
		list := []map[string]any{}
		for _, n := range d.searchNames() {
			list = append(list, search(n))
		}
		return list, true
	case strings.HasPrefix(path, "/record-types/transcript/searches/"):
		name := strings.TrimPrefix(path, "/record-types/transcript/searches/")
		found := false
		for _, n := range d.searchNames() {
			found = found || n == name
		}
		if !found {
			return nil, false
		}
		vocab := make([][]any, d.terms)
		for i := range vocab {
			vocab[i] = []any{fmt.Sprintf("DS_%05d", i), fmt.Sprintf("Data set %d (RNA-Seq, condition %d)", i, i%17), nil}
		}
		sd := search(name)
		sd["parameters"] = []map[string]any{{
			"name": "dataset", "displayName": "Data set", "type": "single-pick-vocabulary", "displayType": "select",
			"isVisible": true, "allowEmptyValue": false, "initialDisplayValue": "DS_00000", "vocabulary": vocab,
		}}
		return map[string]any{"searchData": sd, "validation": map[string]any{"level": "DISPLAYABLE", "isValid": true}}, true
	}
	return nil, false
}

func (d *docSite) set(f func(d *docSite)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f(d)
}

// counts returns the 200s and 304s sent so far, over every document.
func (d *docSite) counts() (full, notModified int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range d.full {
		full += n
	}
	for _, n := range d.notMod {
		notModified += n
	}
	return full, notModified
}

func (d *docSite) ifNoneMatch() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.ifNone...)
}

// docEnv is one database and one site, shared by the clients a test makes
// (as two server processes, or one restarted, would).
type docEnv struct {
	db   *store.DB
	site *docSite
	base string
	logs *bytes.Buffer
	mu   sync.Mutex // guards logs
}

const docSiteID = "plasmodb-live"

func newDocEnv(t testing.TB, site *docSite) *docEnv {
	t.Helper()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	return newDocEnvOn(t, db, site)
}

// newDocEnvOn serves site at a new address over db: nothing stored for it.
func newDocEnvOn(t testing.TB, db *store.DB, site *docSite) *docEnv {
	t.Helper()
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	return &docEnv{db: db, site: site, base: srv.URL + docSitePrefix, logs: &bytes.Buffer{}}
}

func (e *docEnv) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.logs.Write(p)
}

func (e *docEnv) log() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.logs.String()
}

// client returns a new WDK client (an empty in-memory cache) over the
// shared document store.
func (e *docEnv) client(t testing.TB) *wdk.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := wdk.New(wdk.Config{
		Tokens:      wdk.TokenFunc(func(context.Context, string) (string, error) { return "key-of-ada", nil }),
		Sites:       []wdk.Site{{ID: docSiteID, DisplayName: "PlasmoDB", ProjectID: "PlasmoDB", BaseURL: e.base}},
		HTTPClient:  &http.Client{Transport: tr},
		MaxAttempts: 2, BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond,
		DocCache: sites.NewDocCache(e.db),
		Logger:   slog.New(slog.NewTextHandler(e, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// load reads what a new conversation reads first: the search list and one
// search's parameters with its vocabulary.
func load(t testing.TB, c *wdk.Client) ([]catalog.SearchSummary, *catalog.Search) {
	t.Helper()
	ctx := context.Background()
	list, err := c.Searches(ctx, docSiteID, "transcript")
	if err != nil {
		t.Fatalf("Searches: %v", err)
	}
	s, err := c.Search(ctx, docSiteID, "transcript", "GenesByEvidence1")
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	return list, s
}

// expireAll makes what load stored expire a minute ago.
func (e *docEnv) expireAll(t *testing.T) {
	t.Helper()
	for _, path := range []string{searchesDoc, searchesDoc + "/GenesByEvidence1"} {
		if err := e.db.TouchCatalogDoc(context.Background(), docSiteID, e.base+path, time.Now().Add(-time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *docEnv) row(t *testing.T, path string) store.CatalogDoc {
	t.Helper()
	d, err := e.db.CatalogDoc(context.Background(), docSiteID, e.base+path)
	if err != nil {
		t.Fatalf("stored %s: %v", path, err)
	}
	return d
}

const searchesDoc = "/record-types/transcript/searches"

// TestDocCacheSharedBetweenClients: a second client (another server
// process, or the same one restarted) reads the documents the first
// stored and asks the site nothing.
func TestDocCacheSharedBetweenClients(t *testing.T) {
	t.Parallel()
	e := newDocEnv(t, newDocSite(40, 300))
	list1, s1 := load(t, e.client(t))
	if full, _ := e.site.counts(); full != 2 {
		t.Fatalf("first client: the site served %d documents, want 2 (list, search)", full)
	}
	list2, s2 := load(t, e.client(t))
	if full, nm := e.site.counts(); full != 2 || nm != 0 {
		t.Errorf("second client: the site served %d documents and %d 304s in all, want 2 and 0", full, nm)
	}
	if len(list2) != 40 || len(list1) != len(list2) || len(s2.Params) != 1 || len(s2.Params[0].Vocabulary) != 300 ||
		s2.Params[0].Vocabulary[299].Term != s1.Params[0].Vocabulary[299].Term {
		t.Errorf("second client read %d searches, search %+v", len(list2), s2.Params)
	}
	d := e.row(t, searchesDoc)
	if d.ETag != `"v1"` || !d.ExpiresAt.After(time.Now().Add(23*time.Hour)) {
		t.Errorf("stored list: etag %s, expires %v", d.ETag, d.ExpiresAt)
	}
}

// TestDocCacheRevalidatesWithETag: an expired document is asked for with
// its ETag; a 304 keeps the stored body and moves the expiry.
func TestDocCacheRevalidatesWithETag(t *testing.T) {
	t.Parallel()
	e := newDocEnv(t, newDocSite(40, 300))
	load(t, e.client(t))
	before := e.row(t, searchesDoc)
	e.expireAll(t)

	list, s := load(t, e.client(t))
	full, nm := e.site.counts()
	if full != 2 || nm != 2 {
		t.Errorf("after expiry the site served %d documents (want 2, none new) and %d 304s (want 2)", full, nm)
	}
	if got := e.site.ifNoneMatch(); len(got) != 2 || got[0] != `"v1"` || got[1] != `"v1"` {
		t.Errorf("If-None-Match sent: %q, want the stored ETag twice", got)
	}
	if len(list) != 40 || len(s.Params[0].Vocabulary) != 300 {
		t.Errorf("revalidated catalog: %d searches, %d terms", len(list), len(s.Params[0].Vocabulary))
	}
	after := e.row(t, searchesDoc)
	if !after.ExpiresAt.After(time.Now().Add(23*time.Hour)) || !after.FetchedAt.Equal(before.FetchedAt) || !bytes.Equal(after.Body, before.Body) {
		t.Errorf("after the 304: expires %v (want a day ahead), fetched %v (want %v unchanged)", after.ExpiresAt, after.FetchedAt, before.FetchedAt)
	}
}

// TestDocCacheReplacedOnChange: when the site's catalog changed, the
// conditional request gets a 200 and the new body and ETag replace the
// stored ones.
func TestDocCacheReplacedOnChange(t *testing.T) {
	t.Parallel()
	e := newDocEnv(t, newDocSite(40, 300))
	load(t, e.client(t))
	e.site.set(func(d *docSite) { d.version = 2 })
	e.expireAll(t)

	list, _ := load(t, e.client(t))
	if full, nm := e.site.counts(); full != 4 || nm != 0 {
		t.Errorf("the site served %d documents and %d 304s, want 4 and 0", full, nm)
	}
	if len(list) != 41 || list[40].Name != "GenesAddedInVersion2" {
		t.Errorf("after the change, %d searches (want 41 with GenesAddedInVersion2)", len(list))
	}
	d := e.row(t, searchesDoc)
	if d.ETag != `"v2"` || !bytes.Contains(d.Body, []byte("GenesAddedInVersion2")) || !d.ExpiresAt.After(time.Now()) {
		t.Errorf("stored list: etag %s, expires %v, new search stored %v", d.ETag, d.ExpiresAt, bytes.Contains(d.Body, []byte("GenesAddedInVersion2")))
	}
	// A third client reads the new version from the store.
	if list, _ := load(t, e.client(t)); len(list) != 41 {
		t.Errorf("third client read %d searches, want 41", len(list))
	}
	if full, _ := e.site.counts(); full != 4 {
		t.Errorf("third client asked the site: %d documents served", full)
	}
}

// TestDocCacheServesStaleWhenSiteDown: a refresh the site cannot answer
// serves the expired document and says so in the log; the document stays
// expired so the next load asks again.
func TestDocCacheServesStaleWhenSiteDown(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusInternalServerError} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			e := newDocEnv(t, newDocSite(40, 300))
			load(t, e.client(t))
			e.expireAll(t)
			e.site.set(func(d *docSite) { d.down = status })

			list, s := load(t, e.client(t))
			if len(list) != 40 || len(s.Params[0].Vocabulary) != 300 {
				t.Errorf("with the site down: %d searches, %d terms", len(list), len(s.Params[0].Vocabulary))
			}
			if !strings.Contains(e.log(), "serving a stale catalog document") {
				t.Errorf("no log line says the document is stale:\n%s", e.log())
			}
			if d := e.row(t, searchesDoc); d.ExpiresAt.After(time.Now()) {
				t.Errorf("a failed refresh moved the expiry to %v", d.ExpiresAt)
			}
		})
	}
	// A site that does not answer within half the caller's remaining time
	// is down too: the other half serves the stored document.
	t.Run("no answer", func(t *testing.T) {
		t.Parallel()
		e := newDocEnv(t, newDocSite(40, 300))
		load(t, e.client(t))
		e.expireAll(t)
		e.site.set(func(d *docSite) { d.latency = time.Minute })
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		list, err := e.client(t).Searches(ctx, docSiteID, "transcript")
		if err != nil || len(list) != 40 {
			t.Errorf("with the site silent: %d searches, %v", len(list), err)
		}
		if !strings.Contains(e.log(), "serving a stale catalog document") {
			t.Errorf("no log line says the document is stale:\n%s", e.log())
		}
	})
	// Without a stored document there is nothing to serve: the failure is
	// the researcher's answer.
	e := newDocEnv(t, newDocSite(40, 300))
	e.site.set(func(d *docSite) { d.down = http.StatusServiceUnavailable })
	if _, err := e.client(t).Searches(context.Background(), docSiteID, "transcript"); !errors.Is(err, catalog.ErrUnavailable) {
		t.Errorf("site down, nothing stored: %v, want ErrUnavailable", err)
	}
}

// TestDocCacheUndecodableRowIsAMiss: a stored document that does not
// decode is fetched again, unconditionally, and replaced.
func TestDocCacheUndecodableRowIsAMiss(t *testing.T) {
	t.Parallel()
	e := newDocEnv(t, newDocSite(40, 300))
	load(t, e.client(t))
	for _, body := range []string{`{"truncated": [`, `"a string where a list belongs"`} {
		d := e.row(t, searchesDoc)
		d.Body = []byte(body)
		if err := e.db.PutCatalogDoc(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		before, _ := e.site.counts()
		list, _ := load(t, e.client(t))
		if len(list) != 40 {
			t.Errorf("body %s: %d searches, want 40", body, len(list))
		}
		if full, _ := e.site.counts(); full != before+1 {
			t.Errorf("body %s: the site served %d documents, want the list again", body, full-before)
		}
		if d := e.row(t, searchesDoc); !json.Valid(d.Body) || bytes.Equal(d.Body, []byte(body)) {
			t.Errorf("body %s: the row was not replaced: %.40s", body, d.Body)
		}
	}
	if got := e.site.ifNoneMatch(); len(got) != 0 {
		t.Errorf("an undecodable document was revalidated (If-None-Match %q) instead of fetched", got)
	}
	if !strings.Contains(e.log(), "does not decode") {
		t.Errorf("no log line about the undecodable document:\n%s", e.log())
	}
}

// TestDocCacheSearchGone: a search the site no longer has is a 404; its
// list is dropped from the store so the next client does not offer it.
func TestDocCacheSearchGone(t *testing.T) {
	t.Parallel()
	e := newDocEnv(t, newDocSite(40, 300))
	c := e.client(t)
	load(t, c)
	e.site.set(func(d *docSite) { d.searches = 2 })
	if _, err := c.Search(context.Background(), docSiteID, "transcript", "GenesByEvidence7"); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("vanished search = %v, want ErrNotFound", err)
	}
	if _, err := e.db.CatalogDoc(context.Background(), docSiteID, e.base+searchesDoc); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the list naming a vanished search is still stored: %v", err)
	}
	if list, _ := load(t, e.client(t)); len(list) != 2 {
		t.Errorf("next client offers %d searches, want 2", len(list))
	}
}
