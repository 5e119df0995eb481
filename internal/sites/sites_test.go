package sites_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
	"strategist/internal/catalog/offline"
	"strategist/internal/sites"
)

// slowLive is a live catalog whose answers never come: every call waits for
// its context.
type slowLive struct{ catalog.Catalog }

func (slowLive) Sites(context.Context) ([]catalog.Site, error) {
	return []catalog.Site{{ID: "plasmodb-live", DisplayName: "PlasmoDB", ProjectID: "PlasmoDB"}, {ID: "toxodb-live", DisplayName: "ToxoDB", ProjectID: "ToxoDB"}}, nil
}

func (slowLive) Search(ctx context.Context, site, _, _ string) (*catalog.Search, error) {
	if site != "plasmodb-live" && site != "toxodb-live" {
		return nil, errors.New("routed to the wrong catalog: " + site)
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

type keys map[string]time.Time

func (k keys) KeyedSites(context.Context, string) (map[string]time.Time, error) { return k, nil }

func newRegistry(t *testing.T, cfg sites.Config) *sites.Registry {
	t.Helper()
	off, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Offline = off
	r, err := sites.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRoutesBySite(t *testing.T) {
	r := newRegistry(t, sites.Config{Live: slowLive{}, Timeout: 50 * time.Millisecond, Keys: keys{}})
	ctx := context.Background()
	s, err := r.Search(ctx, "plasmodb", "", "GenesByGoTerm")
	if err != nil || s.Name != "GenesByGoTerm" {
		t.Fatalf("offline search = %v, %v", s, err)
	}
	start := time.Now()
	_, err = r.Search(ctx, "toxodb-live", "", "GenesByGoTerm")
	te, ok := errors.AsType[*sites.TimeoutError](err)
	if !ok || te.Site != "toxodb-live" || !errors.Is(err, catalog.ErrUnavailable) {
		t.Fatalf("live call past the bound = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the bound of 50ms took %s", d)
	}
	if _, err := r.Search(ctx, "marsdb", "", "x"); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown site = %v", err)
	}
	// The caller's own cancellation is not reported as the site's timeout.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Search(cctx, "plasmodb-live", "", "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call = %v", err)
	}
	all, _ := r.Sites(ctx)
	if len(all) != 3 || all[0].ID != "plasmodb" || !all[0].Offline || all[1].Offline {
		t.Errorf("sites = %+v", all)
	}
}

func TestStatuses(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	r := newRegistry(t, sites.Config{Live: slowLive{}, Keys: keys{"toxodb-live": at}})
	st, err := r.Statuses(context.Background(), "u1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"plasmodb": true, "plasmodb-live": false, "toxodb-live": true}
	for _, s := range st {
		if s.Available != want[s.ID] || s.Message == "" {
			t.Errorf("%s: available %v (%q), want %v", s.ID, s.Available, s.Message, want[s.ID])
		}
		if s.ID == "toxodb-live" && (s.KeyStoredAt == nil || !s.KeyStoredAt.Equal(at) || !s.Live) {
			t.Errorf("toxodb-live = %+v", s)
		}
	}
	off := newRegistry(t, sites.Config{Live: slowLive{}, Keys: keys{"toxodb-live": at}, LiveOff: "set STRATEGIST_SECRET_KEY"})
	st, _ = off.Statuses(context.Background(), "u1")
	for _, s := range st {
		if s.Live && (s.Available || s.Message != "set STRATEGIST_SECRET_KEY") {
			t.Errorf("without a server key %s = %+v", s.ID, s)
		}
	}
}

func TestWDKSites(t *testing.T) {
	got := sites.WDKSites("http://127.0.0.1:1/service")
	if len(got) != 13 || got[0].ID != "plasmodb-live" || got[12].ID != "veupathdb-live" {
		t.Fatalf("live sites = %+v", got)
	}
	for _, s := range got {
		if s.BaseURL != "http://127.0.0.1:1/service" {
			t.Errorf("%s not re-pointed: %s", s.ID, s.BaseURL)
		}
	}
}

// TestEnrichRoutes: enrichment reaches the offline catalog (which, without
// gene data, says answers are unavailable) and a live site is refused
// with a typed *enrich.UnavailableError that says what to do instead.
func TestEnrichRoutes(t *testing.T) {
	r := newRegistry(t, sites.Config{Live: slowLive{}, Timeout: 50 * time.Millisecond, Keys: keys{}})
	ctx := context.Background()
	q := &catalog.Query{Search: "GenesByGoTerm", Params: map[string]string{"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["GO:0006281"]`}}
	if _, err := r.Enrich(ctx, "plasmodb", q, 0.05); !errors.Is(err, catalog.ErrUnavailable) {
		t.Errorf("offline without data: %v", err)
	}
	_, err := r.Enrich(ctx, "toxodb-live", q, 0.05)
	ue, ok := errors.AsType[*enrich.UnavailableError](err)
	if !ok || ue.Site != "toxodb-live" || !strings.Contains(ue.Error(), "GO Enrichment analysis") {
		t.Errorf("live site: %v", err)
	}
	if _, err := r.Enrich(ctx, "nosuchdb", q, 0.05); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("unknown site: %v", err)
	}
}
