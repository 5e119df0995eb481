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
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
	"strategist/internal/telemetry"
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
	// strategy opens, what a share link points at).
	AppURLs map[string]string
	// Logger receives what the registry cannot return (nil: none).
	Logger *slog.Logger
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
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
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

// route returns the catalog of a site and the call to make on it: its
// context (bounded for a live site) and its span, when the caller's is
// traced. The caller ends the call with done.
func (r *Registry) route(ctx context.Context, site, op string) (catalog.Catalog, *call, error) {
	return r.routeFor(ctx, site, op, r.cfg.Timeout)
}

// routeFor is route with a live call bounded by limit instead.
func (r *Registry) routeFor(ctx context.Context, site, op string, limit time.Duration) (catalog.Catalog, *call, error) {
	c := &call{r: r, ctx: ctx, cctx: ctx, site: site, cancel: func() {}}
	var cat catalog.Catalog
	switch {
	case r.offline[site]:
		cat = r.cfg.Offline
	case r.live[site]:
		cat = r.cfg.Live
	default:
		return nil, nil, fmt.Errorf("sites: site %q: %w", site, catalog.ErrNotFound)
	}
	c.cctx, c.span = telemetry.Start(ctx, "catalog")
	if c.span.IsRecording() {
		c.span.SetName("catalog " + op)
		c.span.SetAttributes(telemetry.KeySite.String(site), telemetry.KeyLive.Bool(r.live[site]),
			attribute.String("strategist.catalog.operation", op))
	}
	if r.live[site] {
		c.cctx, c.cancel = context.WithTimeoutCause(withTokenMemo(c.cctx), limit, &TimeoutError{Site: site, After: limit})
	}
	return cat, c, nil
}

// call is one routed catalog call.
type call struct {
	r         *Registry
	ctx, cctx context.Context // the caller's; the one the catalog is called with
	site      string
	cancel    context.CancelFunc
	span      trace.Span
}

// describe adds what the call is about to its span.
func (c *call) describe(attrs ...attribute.KeyValue) {
	if c.span.IsRecording() {
		c.span.SetAttributes(attrs...)
	}
}

// done finishes a routed call: the live deadline becomes a *TimeoutError,
// a live site's failure a *catalog.SiteError, and the span records the
// error.
func (c *call) done(err error) error {
	c.cancel()
	err = c.r.done(c.ctx, c.cctx, c.site, err)
	if c.span.IsRecording() {
		telemetry.Fail(c.span, err)
		c.span.End()
	}
	return err
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
	cat, c, err := r.route(ctx, site, "record_types")
	if err != nil {
		return nil, err
	}
	out, err := cat.RecordTypes(c.cctx, site)
	return out, c.done(err)
}

// Searches routes to the site's catalog.
func (r *Registry) Searches(ctx context.Context, site, recordType string) ([]catalog.SearchSummary, error) {
	cat, c, err := r.route(ctx, site, "searches")
	if err != nil {
		return nil, err
	}
	c.describe(telemetry.KeyRecordType.String(recordType))
	out, err := cat.Searches(c.cctx, site, recordType)
	return out, c.done(err)
}

// Search routes to the site's catalog.
func (r *Registry) Search(ctx context.Context, site, recordType, name string) (*catalog.Search, error) {
	cat, c, err := r.route(ctx, site, "search")
	if err != nil {
		return nil, err
	}
	c.describe(telemetry.KeyRecordType.String(recordType), telemetry.KeySearch.String(name))
	out, err := cat.Search(c.cctx, site, recordType, name)
	return out, c.done(err)
}

// SearchForSearches routes to the site's catalog.
func (r *Registry) SearchForSearches(ctx context.Context, site, query, recordType string, limit int) ([]catalog.SearchSummary, error) {
	cat, c, err := r.route(ctx, site, "search_for_searches")
	if err != nil {
		return nil, err
	}
	c.describe(telemetry.KeyRecordType.String(recordType))
	out, err := cat.SearchForSearches(c.cctx, site, query, recordType, limit)
	return out, c.done(err)
}

// Validate routes to the site's catalog.
func (r *Registry) Validate(ctx context.Context, site, searchName string, params map[string]string) (map[string]string, error) {
	cat, c, err := r.route(ctx, site, "validate")
	if err != nil {
		return nil, err
	}
	c.describe(telemetry.KeySearch.String(searchName))
	out, err := cat.Validate(c.cctx, site, searchName, params)
	return out, c.done(err)
}

// Answer routes to the site's catalog.
func (r *Registry) Answer(ctx context.Context, site string, q *catalog.Query, page catalog.Page) (*catalog.Answer, error) {
	cat, c, err := r.route(ctx, site, "answer")
	if err != nil {
		return nil, err
	}
	out, err := cat.Answer(c.cctx, site, q, page)
	return out, c.done(err)
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
	cat, c, err := r.route(ctx, site, "lookup_genes")
	if err != nil {
		return nil, err
	}
	gl, ok := cat.(geneLookup)
	if !ok {
		return nil, c.done(fmt.Errorf("gene lookup is not available for site %s; search genes with a text search instead: %w", site, catalog.ErrUnavailable))
	}
	out, err := gl.LookupGenes(c.cctx, site, query, limit)
	return out, c.done(err)
}

// geneResolver is a catalog's resolution of gene lists (both catalogs:
// the offline snapshot's id tables, the live site's gene ids search).
type geneResolver interface {
	ResolveGenes(ctx context.Context, site string, ids []string) (*catalog.GeneResolution, error)
}

// resolveCalls is how many live calls' worth of time resolving a list may
// take: a list with previous ids is looked up again in parts.
const resolveCalls = 3

// ResolveGenes routes the resolution of a researcher's gene list to the
// site's catalog, when it offers one (catalog.ErrUnavailable otherwise). On
// a live site it is bounded by resolveCalls times the registry's timeout.
func (r *Registry) ResolveGenes(ctx context.Context, site string, ids []string) (*catalog.GeneResolution, error) {
	cat, c, err := r.routeFor(ctx, site, "resolve_genes", resolveCalls*r.cfg.Timeout)
	if err != nil {
		return nil, err
	}
	gr, ok := cat.(geneResolver)
	if !ok {
		return nil, c.done(fmt.Errorf("gene lists cannot be resolved against site %s: %w", site, catalog.ErrUnavailable))
	}
	out, err := gr.ResolveGenes(c.cctx, site, ids)
	return out, c.done(err)
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
	cat, c, err := r.route(ctx, site, "enrich")
	if err != nil {
		return nil, err
	}
	en, ok := cat.(enricher)
	if !ok {
		_ = c.done(nil)
		return nil, &enrich.UnavailableError{Site: site, Reason: liveEnrichmentReason}
	}
	out, err := en.Enrich(c.cctx, site, q, cutoff)
	return out, c.done(err)
}
