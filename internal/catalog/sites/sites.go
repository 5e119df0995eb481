// Package sites is the catalog registry: one catalog.Catalog that routes
// every call by the site id to the catalog serving that site. The offline
// PlasmoDB snapshot serves "plasmodb" (the default, always available); the
// live VEuPathDB sites are served by the WDK client under ids ending in
// "-live" ("plasmodb-live", "toxodb-live", ...). A live call is bounded by
// the registry's timeout so an unanswering site cannot hold a request or a
// turn.
//
// The registry also says, per user, which sites can be used (Statuses): a
// live site needs the user's VEuPathDB API key for it, stored sealed, which
// needs the server's secret key.
package sites

import (
	"context"
	"errors"
	"fmt"
	"time"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
)

// LiveSuffix ends the ids of live sites.
const LiveSuffix = "-live"

// DefaultTimeout bounds one live call when Config.Timeout is zero.
const DefaultTimeout = 8 * time.Second

// Keys says which live sites a user has stored an API key for, and when it
// was stored.
type Keys interface {
	KeyedSites(ctx context.Context, userID string) (map[string]time.Time, error)
}

// Config builds a Registry.
type Config struct {
	// Offline serves the offline sites; required.
	Offline catalog.Catalog
	// Live serves the live sites (nil: none).
	Live catalog.Catalog
	// Timeout bounds one call to a live site (default 8 s).
	Timeout time.Duration
	// Keys tells which users have keys; nil means live sites are
	// unavailable to everyone, for LiveOff.
	Keys Keys
	// LiveOff, when set, is why no live site is available (no server
	// secret key configured).
	LiveOff string
	// AppURLs are the live sites' web addresses by id (where a saved
	// strategy opens).
	AppURLs map[string]string
}

// Registry routes catalog calls by site. It is safe for concurrent use.
type Registry struct {
	cfg     Config
	all     []catalog.Site
	offline map[string]bool
	live    map[string]bool
	names   map[string]string
}

// New lists the sites of both catalogs. A site id served by both is an
// error.
func New(ctx context.Context, cfg Config) (*Registry, error) {
	if cfg.Offline == nil {
		return nil, errors.New("sites: nil offline catalog")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	r := &Registry{cfg: cfg, offline: map[string]bool{}, live: map[string]bool{}, names: map[string]string{}}
	off, err := cfg.Offline.Sites(ctx)
	if err != nil {
		return nil, fmt.Errorf("sites: offline: %w", err)
	}
	for _, s := range off {
		r.offline[s.ID] = true
		r.all = append(r.all, s)
	}
	if cfg.Live != nil {
		live, err := cfg.Live.Sites(ctx)
		if err != nil {
			return nil, fmt.Errorf("sites: live: %w", err)
		}
		for _, s := range live {
			if r.offline[s.ID] || r.live[s.ID] {
				return nil, fmt.Errorf("sites: site %s served twice", s.ID)
			}
			s.Offline = false
			r.live[s.ID] = true
			r.names[s.ID] = s.DisplayName
			r.all = append(r.all, s)
		}
	}
	return r, nil
}

// route returns the catalog of a site and the context to call it with.
func (r *Registry) route(ctx context.Context, site string) (catalog.Catalog, context.Context, context.CancelFunc, error) {
	switch {
	case r.offline[site]:
		return r.cfg.Offline, ctx, func() {}, nil
	case r.live[site]:
		cctx, cancel := context.WithTimeoutCause(withTokenMemo(ctx), r.cfg.Timeout, &TimeoutError{Site: site, After: r.cfg.Timeout})
		return r.cfg.Live, cctx, cancel, nil
	}
	return nil, nil, nil, fmt.Errorf("sites: site %q: %w", site, catalog.ErrNotFound)
}

// bound turns the live deadline into a *TimeoutError when it is what ended
// the call (the caller's own deadline or cancel stays as it is).
func bound(ctx, cctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	if te, ok := context.Cause(cctx).(*TimeoutError); ok && cctx.Err() != nil {
		return te
	}
	return err
}

// done finishes a routed call: the live deadline becomes a *TimeoutError
// and a live site's failure a *catalog.SiteError.
func (r *Registry) done(ctx, cctx context.Context, site string, err error) error {
	err = bound(ctx, cctx, err)
	if err == nil || !r.live[site] {
		return err
	}
	return classify(r.names[site], site, err)
}

// Sites lists every site: the offline ones first, then the live ones.
func (r *Registry) Sites(context.Context) ([]catalog.Site, error) {
	return append([]catalog.Site(nil), r.all...), nil
}

// RecordTypes routes to the site's catalog.
func (r *Registry) RecordTypes(ctx context.Context, site string) ([]catalog.RecordType, error) {
	cat, cctx, cancel, err := r.route(ctx, site)
	if err != nil {
		return nil, err
	}
	defer cancel()
	out, err := cat.RecordTypes(cctx, site)
	return out, r.done(ctx, cctx, site, err)
}

// Searches routes to the site's catalog.
func (r *Registry) Searches(ctx context.Context, site, recordType string) ([]catalog.SearchSummary, error) {
	cat, cctx, cancel, err := r.route(ctx, site)
	if err != nil {
		return nil, err
	}
	defer cancel()
	out, err := cat.Searches(cctx, site, recordType)
	return out, r.done(ctx, cctx, site, err)
}

// Search routes to the site's catalog.
func (r *Registry) Search(ctx context.Context, site, recordType, name string) (*catalog.Search, error) {
	cat, cctx, cancel, err := r.route(ctx, site)
	if err != nil {
		return nil, err
	}
	defer cancel()
	out, err := cat.Search(cctx, site, recordType, name)
	return out, r.done(ctx, cctx, site, err)
}

// SearchForSearches routes to the site's catalog.
func (r *Registry) SearchForSearches(ctx context.Context, site, query, recordType string, limit int) ([]catalog.SearchSummary, error) {
	cat, cctx, cancel, err := r.route(ctx, site)
	if err != nil {
		return nil, err
	}
	defer cancel()
	out, err := cat.SearchForSearches(cctx, site, query, recordType, limit)
	return out, r.done(ctx, cctx, site, err)
}

// Validate routes to the site's catalog.
func (r *Registry) Validate(ctx context.Context, site, searchName string, params map[string]string) (map[string]string, error) {
	cat, cctx, cancel, err := r.route(ctx, site)
	if err != nil {
		return nil, err
	}
	defer cancel()
	out, err := cat.Validate(cctx, site, searchName, params)
	return out, r.done(ctx, cctx, site, err)
}

// Answer routes to the site's catalog.
func (r *Registry) Answer(ctx context.Context, site string, q *catalog.Query, page catalog.Page) (*catalog.Answer, error) {
	cat, cctx, cancel, err := r.route(ctx, site)
	if err != nil {
		return nil, err
	}
	defer cancel()
	out, err := cat.Answer(cctx, site, q, page)
	return out, r.done(ctx, cctx, site, err)
}

// Status is a site as a user sees it: whether it can be used and why not.
type Status struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	ProjectID   string `json:"projectId"`
	// Kind is "offline" or "live".
	Kind      string `json:"kind"`
	Offline   bool   `json:"offline"`
	Live      bool   `json:"live"`
	Available bool   `json:"available"`
	Message   string `json:"message"`
	// KeyStoredAt is when the user stored their API key for a live site.
	KeyStoredAt *time.Time `json:"keyStoredAt,omitempty"`
}

// Statuses lists every site with its state for a user.
func (r *Registry) Statuses(ctx context.Context, userID string) ([]Status, error) {
	var keyed map[string]time.Time
	if r.cfg.Keys != nil && r.cfg.LiveOff == "" && len(r.live) > 0 {
		var err error
		if keyed, err = r.cfg.Keys.KeyedSites(ctx, userID); err != nil {
			return nil, err
		}
	}
	out := make([]Status, 0, len(r.all))
	for _, s := range r.all {
		st := Status{ID: s.ID, Name: s.DisplayName, DisplayName: s.DisplayName, ProjectID: s.ProjectID}
		switch {
		case r.offline[s.ID]:
			st.Kind, st.Offline, st.Available = "offline", true, true
			st.Message = "offline snapshot: answers from an embedded export, always available"
		case r.cfg.LiveOff != "":
			st.Kind, st.Live = "live", true
			st.Message = r.cfg.LiveOff
		default:
			st.Kind, st.Live = "live", true
			if at, ok := keyed[s.ID]; ok {
				st.Available = true
				st.KeyStoredAt = &at
				st.Message = "live site: your VEuPathDB API key is stored"
			} else {
				st.Message = "live site: needs your VEuPathDB API key; store it on the settings page (" + s.DisplayName + " answers only registered users)"
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// TimeoutError means a live site did not answer within the registry's
// bound. Asking again later may work: it matches catalog.ErrUnavailable.
type TimeoutError struct {
	Site  string
	After time.Duration
}

// Error says what happened and what to do.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the live site %s did not answer within %s; it may be down or slow, try again later", e.Site, e.After)
}

// Unwrap lets errors.Is(err, catalog.ErrUnavailable) match. It does not
// match context.DeadlineExceeded: the request's own deadline is another
// matter.
func (e *TimeoutError) Unwrap() error { return catalog.ErrUnavailable }

// geneLookup is the offline catalog's gene lookup (catalogtool.GeneLookup).
type geneLookup interface {
	LookupGenes(ctx context.Context, site, query string, limit int) (*catalog.GeneMatches, error)
}

// LookupGenes routes a gene lookup to the site's catalog, when it offers
// one; otherwise it says to use a text search (catalog.ErrUnavailable).
func (r *Registry) LookupGenes(ctx context.Context, site, query string, limit int) (*catalog.GeneMatches, error) {
	cat, cctx, cancel, err := r.route(ctx, site)
	if err != nil {
		return nil, err
	}
	defer cancel()
	gl, ok := cat.(geneLookup)
	if !ok {
		return nil, fmt.Errorf("gene lookup is not available for site %s; search genes with a text search instead: %w", site, catalog.ErrUnavailable)
	}
	out, err := gl.LookupGenes(cctx, site, query, limit)
	return out, r.done(ctx, cctx, site, err)
}

// OfflineNoteFor is the offline snapshot's note on a search, for an offline
// site only ("" for a live one).
func (r *Registry) OfflineNoteFor(site, name string) string {
	n, ok := r.cfg.Offline.(interface{ OfflineNote(name string) string })
	if !r.offline[site] || !ok {
		return ""
	}
	return n.OfflineNote(name)
}

// enricher is the offline catalog's GO enrichment (strategy.Enricher).
type enricher interface {
	Enrich(ctx context.Context, site string, q *catalog.Query, cutoff float64) (*enrich.Result, error)
}

// liveEnrichmentReason is why a live site's steps have no enrichment here.
const liveEnrichmentReason = "Strategist computes GO enrichment from the offline PlasmoDB snapshot's annotations only and does not read " +
	"a live site's GO annotations; save the strategy to VEuPathDB and run the site's own GO Enrichment analysis on its result"

// Enrich routes a GO enrichment of a query tree to the site's catalog when
// it offers one; otherwise (the live sites) it is an
// *enrich.UnavailableError saying what to do instead, never a guess.
func (r *Registry) Enrich(ctx context.Context, site string, q *catalog.Query, cutoff float64) (*enrich.Result, error) {
	cat, cctx, cancel, err := r.route(ctx, site)
	if err != nil {
		return nil, err
	}
	defer cancel()
	en, ok := cat.(enricher)
	if !ok {
		return nil, &enrich.UnavailableError{Site: site, Reason: liveEnrichmentReason}
	}
	out, err := en.Enrich(cctx, site, q, cutoff)
	return out, r.done(ctx, cctx, site, err)
}
