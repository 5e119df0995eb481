package wdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"strategist/internal/catalog"
)

// TokenSource gives the VEuPathDB API key of the user a call is made for.
// The server implements it from the request identity in ctx and the user's
// sealed credential; a user without a key for the site is ErrNoToken.
type TokenSource interface {
	Token(ctx context.Context, siteID string) (string, error)
}

// TokenFunc adapts a function to TokenSource.
type TokenFunc func(ctx context.Context, siteID string) (string, error)

// Token calls f.
func (f TokenFunc) Token(ctx context.Context, siteID string) (string, error) { return f(ctx, siteID) }

// Config configures a Client. Only Tokens is required.
type Config struct {
	// Tokens gives the API key for each call.
	Tokens TokenSource
	// Sites replaces DefaultSites().
	Sites []Site
	// BaseURLs overrides service base URLs by site id (tests point them at
	// an httptest server; QA mirrors).
	BaseURLs map[string]string
	// HTTPClient is copied; its cookie jar is dropped (one credential per
	// request, never a jar that collects guest tokens) and redirects are
	// not followed.
	HTTPClient *http.Client
	// Concurrency bounds requests in flight per site (default 6: the sites
	// answer 6 concurrent requests well; more gets 502/504 from nginx).
	Concurrency int
	// MaxAttempts bounds attempts of a request that fails with 429, 502,
	// 503, 504 or a transport error (default 4).
	MaxAttempts int
	// MaxDelayedPolls bounds repeats of a request answered 202
	// WDK-DELAYED-RESULT (default 8).
	MaxDelayedPolls int
	// BackoffBase and BackoffMax shape the exponential backoff (defaults
	// 500ms and 10s); each wait is jittered between half and all of it.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for
	// (default 30s); a longer one ends the retries.
	MaxRetryAfter time.Duration
	// RequestTimeout bounds one attempt (default 60s; Site.Timeout wins).
	RequestTimeout time.Duration
	// CacheTTL is how long record types, search lists and search details
	// are kept in memory (default 15m, never longer than DocTTL when a
	// DocCache is set): the live catalog changes between releases.
	CacheTTL time.Duration
	// DocCache, when set, keeps the catalog documents (service root,
	// record types, search lists, search details: the GETs whose answer is
	// the same for every user) below the in-memory cache, so another Client
	// or a restarted server reads them instead of asking the site; nil keeps
	// the catalog in memory only.
	DocCache DocCache
	// DocTTL is how long a stored document is used before it is
	// revalidated with the site (default 24h).
	DocTTL time.Duration
	// TempStrategyPrefix names the temporary strategies Answer creates so
	// they are recognisable in a user's account (default
	// "__strategist_temp__:").
	TempStrategyPrefix string
	Logger             *slog.Logger
}

// Client is a VEuPathDB WDK REST client and a live catalog.Catalog.
//
// Concurrency: a Client is safe for concurrent use and starts no goroutine
// of its own; Answer runs step creations concurrently and waits for them.
// Each site has a semaphore (a buffered channel owned by its siteConn)
// held for one HTTP attempt, so at most Concurrency requests per site are in
// flight; backoff waits do not hold it. The user-id and catalog caches are
// guarded by their own mutexes; everything else is immutable after New.
type Client struct {
	tokens     TokenSource
	http       *http.Client
	log        *slog.Logger
	sites      map[string]*siteConn
	order      []string
	retry      retryPolicy
	tempPrefix string
	users      *userIDs
	datasets   *datasetIDs
	cache      *caches
	docs       *docStore // nil without a DocCache
}

type siteConn struct {
	Site
	base    string
	sem     chan struct{}
	timeout time.Duration
}

type retryPolicy struct {
	maxAttempts   int
	maxPolls      int
	base, max     time.Duration
	maxRetryAfter time.Duration
}

// New returns a client for the configured sites.
func New(cfg Config) (*Client, error) {
	if cfg.Tokens == nil {
		return nil, errors.New("wdk: Config.Tokens is required")
	}
	c := &Client{
		tokens: cfg.Tokens,
		log:    cfg.Logger,
		sites:  map[string]*siteConn{},
		retry: retryPolicy{
			maxAttempts:   or(cfg.MaxAttempts, 4),
			maxPolls:      or(cfg.MaxDelayedPolls, 8),
			base:          or(cfg.BackoffBase, 500*time.Millisecond),
			max:           or(cfg.BackoffMax, 10*time.Second),
			maxRetryAfter: or(cfg.MaxRetryAfter, 30*time.Second),
		},
		tempPrefix: cfg.TempStrategyPrefix,
		users:      &userIDs{m: map[[32]byte]int64{}},
		datasets:   &datasetIDs{},
	}
	memTTL := or(cfg.CacheTTL, 15*time.Minute)
	if cfg.DocCache != nil {
		c.docs = &docStore{cache: cfg.DocCache, ttl: or(cfg.DocTTL, DefaultDocTTL)}
		memTTL = min(memTTL, c.docs.ttl)
	}
	c.cache = newCaches(memTTL)
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.log = c.log.With("component", "wdk")
	if c.tempPrefix == "" {
		c.tempPrefix = "__strategist_temp__:"
	}
	hc := http.Client{}
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	hc.Jar = nil
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.http = &hc

	sites := cfg.Sites
	if sites == nil {
		sites = DefaultSites()
	}
	conc := or(cfg.Concurrency, 6)
	for _, s := range sites {
		if s.ID == "" {
			return nil, errors.New("wdk: a site has no id")
		}
		if _, dup := c.sites[s.ID]; dup {
			return nil, fmt.Errorf("wdk: site %s listed twice", s.ID)
		}
		if u, ok := cfg.BaseURLs[s.ID]; ok {
			s.BaseURL = u
		}
		if pu, err := url.Parse(s.BaseURL); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return nil, fmt.Errorf("wdk: site %s: base URL %q is not an http(s) URL", s.ID, s.BaseURL)
		}
		c.sites[s.ID] = &siteConn{
			Site:    s,
			base:    strings.TrimRight(s.BaseURL, "/"),
			sem:     make(chan struct{}, conc),
			timeout: or(s.Timeout, or(cfg.RequestTimeout, 60*time.Second)),
		}
		c.order = append(c.order, s.ID)
	}
	for id := range cfg.BaseURLs {
		if _, ok := c.sites[id]; !ok {
			return nil, fmt.Errorf("wdk: base URL for unknown site %s", id)
		}
	}
	return c, nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func (c *Client) site(id string) (*siteConn, error) {
	s, ok := c.sites[id]
	if !ok {
		return nil, fmt.Errorf("wdk: site %q: %w", id, catalog.ErrNotFound)
	}
	return s, nil
}

// token asks the TokenSource for the caller's key.
func (c *Client) token(ctx context.Context, s *siteConn) (string, error) {
	tok, err := c.tokens.Token(ctx, s.ID)
	switch {
	case errors.Is(err, ErrNoToken):
		return "", &MissingTokenError{Site: s.ID}
	case err != nil:
		return "", fmt.Errorf("api key: %w", err)
	}
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", &MissingTokenError{Site: s.ID}
	}
	return tok, nil
}

// request is one WDK call.
type request struct {
	method string
	path   string // from the service base, starting with "/"
	query  url.Values
	body   any // JSON-encoded when non-nil
	out    any // decoded from a 2xx body when non-nil
	// search names the search in validation errors.
	search string
	// header is added to the request (a stored document's validators).
	header http.Header
	// got, when set, receives the final answer undecoded, and a 304 Not
	// Modified is then an answer, not an error.
	got *answer
}

// answer is a response as the site sent it.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// maxBody bounds a response body (expanded record types are large).
const maxBody = 256 << 20

// do sends r with bounded concurrency, retries and typed errors.
func (c *Client) do(ctx context.Context, s *siteConn, token string, r request) error {
	if !safePath(r.path) {
		// A name that is a dot segment or holds a slash would make the
		// site, or a proxy that normalises paths, serve another resource
		// than the one named; no record type or search is named so.
		return &NotFoundError{Site: s.ID, Path: r.path, Message: "not a name the site has (refused before asking it)"}
	}
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return fmt.Errorf("encode %s %s: %w", r.method, r.path, err)
		}
	}
	failures, polls := 0, 0
	for {
		status, hdr, body, err := c.send(ctx, s, token, r, payload)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return fmt.Errorf("%s %s: %w", r.method, r.path, ctxErr)
			}
			failures++
			if failures >= c.retry.maxAttempts {
				return &ServerError{Site: s.ID, Method: r.method, Path: r.path, Attempts: failures, Err: redactErr(err, token)}
			}
			if err := c.wait(ctx, s, r, failures, 0, "transport error"); err != nil {
				return err
			}
			continue
		}
		switch {
		case status == http.StatusAccepted && bytes.Contains(body, []byte("WDK-DELAYED-RESULT")):
			polls++
			if polls >= c.retry.maxPolls {
				return &DelayedError{Site: s.ID, Method: r.method, Path: r.path, Attempts: polls}
			}
			if err := c.wait(ctx, s, r, polls, retryAfter(hdr), "delayed result"); err != nil {
				return err
			}
		case status == http.StatusNotModified && r.got != nil:
			*r.got = answer{status: status, header: hdr}
			return nil
		case status >= 200 && status < 300:
			if r.got != nil {
				*r.got = answer{status: status, header: hdr, body: body}
			}
			if r.out == nil || len(bytes.TrimSpace(body)) == 0 {
				return nil
			}
			if err := json.Unmarshal(body, r.out); err != nil {
				return fmt.Errorf("decode %s %s: %w", r.method, r.path, err)
			}
			return nil
		case retryable(status):
			failures++
			ra := retryAfter(hdr)
			if failures >= c.retry.maxAttempts || ra > c.retry.maxRetryAfter {
				return &ServerError{Site: s.ID, Method: r.method, Path: r.path, Status: status,
					Message: bodyMessage(body, token), Attempts: failures, RetryAfter: ra, LogMarker: hdr.Get("X-Log-Marker")}
			}
			if err := c.wait(ctx, s, r, failures, ra, "HTTP "+strconv.Itoa(status)); err != nil {
				return err
			}
		default:
			return statusError(s, r, status, hdr, body, token, failures+1)
		}
	}
}

// retryable reports the statuses that say "not now" rather than "no": rate
// limiting and the proxy in front of WDK failing to reach it.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// wait sleeps before attempt n+1: exponential backoff with jitter, at least
// the Retry-After the site asked for.
func (c *Client) wait(ctx context.Context, s *siteConn, r request, n int, retryAfter time.Duration, why string) error {
	d := c.retry.base << min(n-1, 20)
	if d > c.retry.max || d <= 0 {
		d = c.retry.max
	}
	d = d/2 + rand.N(d/2+1)
	d = max(d, retryAfter)
	c.log.LogAttrs(ctx, slog.LevelWarn, "wdk retry",
		slog.String("site", s.ID), slog.String("method", r.method), slog.String("path", r.path),
		slog.String("reason", why), slog.Int("attempt", n), slog.Duration("wait", d))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("%s %s: %w", r.method, r.path, ctx.Err())
	case <-t.C:
		return nil
	}
}

// send makes one attempt while holding the site's semaphore. The error is
// a transport error (or the caller's context ending).
func (c *Client) send(ctx context.Context, s *siteConn, token string, r request, payload []byte) (int, http.Header, []byte, error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return 0, nil, nil, ctx.Err()
	}
	defer func() { <-s.sem }()

	actx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	u := s.base + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, r.method, u, body)
	if err != nil {
		return 0, nil, nil, err
	}
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// Exactly one credential: the header. No cookie is ever sent.
	req.Header.Set("Authorization", "Bearer "+token)

	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.log.LogAttrs(ctx, slog.LevelDebug, "wdk request failed", slog.String("site", s.ID),
			slog.String("method", r.method), slog.String("path", r.path), slog.Any("error", redactErr(err, token)))
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	c.log.LogAttrs(ctx, slog.LevelDebug, "wdk request", slog.String("site", s.ID),
		slog.String("method", r.method), slog.String("path", r.path), slog.Int("status", resp.StatusCode),
		slog.Int("bytes", len(b)), slog.Duration("duration", time.Since(start)))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("read body: %w", err)
	}
	return resp.StatusCode, resp.Header, b, nil
}

// retryAfter reads Retry-After as seconds or an HTTP date.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// opErr prefixes an error with the site and operation.
func opErr(site, op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("wdk: %s: %s: %w", site, op, err)
}

// safePath reports whether every segment of an escaped request path names
// exactly one resource in its place: not empty, not "." or "..", and,
// unescaped, free of slashes, backslashes, percent signs (a server that
// decodes twice), spaces and control characters. "/" alone is the
// service root.
func safePath(p string) bool {
	if p == "/" {
		return true
	}
	rest, ok := strings.CutPrefix(p, "/")
	if !ok {
		return false
	}
	for seg := range strings.SplitSeq(rest, "/") {
		dec, err := url.PathUnescape(seg)
		if err != nil || dec == "" || dec == "." || dec == ".." || !utf8.ValidString(dec) ||
			strings.ContainsFunc(dec, func(r rune) bool {
				return r == '/' || r == '\\' || r == '%' || !unicode.IsPrint(r) || unicode.IsSpace(r)
			}) {
			return false
		}
	}
	return true
}
