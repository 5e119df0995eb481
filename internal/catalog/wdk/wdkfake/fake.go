// Package wdkfake is a test double of a VEuPathDB WDK service: it speaks
// the wire format Strategist's WDK client reads (service info, record
// types, searches with their parameters and vocabularies, standard
// reports, users' steps and strategies, WDK's error statuses and bodies)
// and keeps its state in memory.
//
// It answers from one of two sources. With no Config.Catalog it serves the
// fixtures embedded in this package (a handful of PlasmoDB-shaped searches
// over eight made-up genes, with the quirks the live sites show), which the
// wdk package's tests use. With a Catalog (the wdkfake command passes the
// offline PlasmoDB snapshot) it lists that catalog's searches in WDK's
// shapes and answers steps and strategies by running them through it, so a
// whole conversation on a live site has real counts. Either way it is not
// VEuPathDB: its counts are those of its source, not of the live site.
//
// Beyond WDK it has control endpoints under /__fake/ (revoke or add an API
// key while it runs) and pages at /app/workspace/strategies/{id} and
// /app/workspace/strategies/import/{signature} standing in for the site's
// strategy workspace and a shared strategy's link. It records requests and the client
// behaviour a live site would punish (Violations).
package wdkfake

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"strategist/internal/catalog"
)

// The API keys the fake knows without configuration, and their users.
const (
	RegisteredKey = "tok-registered-7f3a9c"
	GuestKey      = "tok-guest-5d1e2b"
	OtherKey      = "tok-other-88c0d4"
	RegisteredID  = int64(376543)
	OtherID       = int64(912345)
	GuestID       = int64(1000001)
	// GuestCookie is the cookie every answer sets, as WDK's login filter
	// does; a client that sends it back has a cookie jar it should not.
	GuestCookie = "Authorization=eyJguestjwt.minted.for.this.request"
)

// User is a WDK account an API key signs in as.
type User struct {
	ID    int64
	Guest bool
}

// Config configures New.
type Config struct {
	// Keys maps API keys to users; nil gives RegisteredKey, OtherKey and
	// GuestKey.
	Keys map[string]User
	// Catalog, when set, supplies the searches and the answers (the
	// fake's fixtures otherwise); Site is its site id.
	Catalog catalog.Catalog
	Site    string
	// Logger receives one line per violation (nil: none).
	Logger *slog.Logger
}

// Fake is the fake WDK service, an http.Handler rooted at the service
// path (".../service" stripped, see Handler). All state is under mu.
type Fake struct {
	src    *source
	logger *slog.Logger

	mu         sync.Mutex
	keys       map[string]User
	nextStep   int64
	nextStrat  int64
	nextData   int64
	steps      map[int64]*step
	strategies map[int64]*strategy
	datasets   map[int64]*dataset
	requests   []Request
	violations []string
	injected   map[string][]Response // "METHOD path" -> responses served first
	hidden     map[string]bool       // searches removed from the site (a new release)
	revokeAt   map[string]string     // key -> path prefix whose first request revokes it
	inflight   int
	maxInfl    int
	// gate, when set, holds every request until it receives a value;
	// arrived gets one value per request that reached the gate.
	gate    chan struct{}
	arrived chan struct{}
}

type step struct {
	id         int64
	owner      int64
	search     string
	params     map[string]string
	weight     int
	customName string
	strategy   int64
	deleted    bool
}

type strategy struct {
	id        int64
	owner     int64
	name      string
	tree      json.RawMessage
	root      int64
	signature string // what a share link names it by
	deleted   bool
}

// Request is one request the fake received.
type Request struct {
	Method, Path, Query string
	Auth                []string
	Cookie              []string
	Body                string
}

// Response is a canned answer Inject queues for a route.
type Response struct {
	Status int
	Header map[string]string
	Body   string
}

// New returns a fake with no steps or strategies.
func New(cfg Config) (*Fake, error) {
	var src *source
	var err error
	if cfg.Catalog != nil {
		src, err = catalogSource(cfg.Catalog, cfg.Site)
	} else {
		src, err = fixtureSource()
	}
	if err != nil {
		return nil, fmt.Errorf("wdkfake: %w", err)
	}
	keys := cfg.Keys
	if keys == nil {
		keys = map[string]User{
			RegisteredKey: {ID: RegisteredID},
			OtherKey:      {ID: OtherID},
			GuestKey:      {ID: GuestID, Guest: true},
		}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Fake{
		src:        src,
		logger:     log,
		keys:       keys,
		nextStep:   100,
		nextStrat:  200,
		nextData:   5000,
		steps:      map[int64]*step{},
		strategies: map[int64]*strategy{},
		datasets:   map[int64]*dataset{},
		injected:   map[string][]Response{},
		hidden:     map[string]bool{},
		revokeAt:   map[string]string{},
	}, nil
}

// Handler serves the fake under prefix+"/service" (e.g. "/plasmo" gives
// /plasmo/service/... for WDK and /plasmo/app/... for the workspace page,
// as a site's base URL and app URL are laid out), and the control
// endpoints at /__fake/.
func (f *Fake) Handler(prefix string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(prefix+"/service/", http.StripPrefix(prefix+"/service", f))
	mux.HandleFunc("GET "+prefix+"/app/workspace/strategies/{id}", f.workspace)
	mux.HandleFunc("GET "+prefix+"/app/workspace/strategies/import/{signature}", f.sharedPage)
	mux.HandleFunc("POST /__fake/revoke", f.controlRevoke)
	mux.HandleFunc("POST /__fake/keys", f.controlAddKey)
	mux.HandleFunc("GET /__fake/healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})
	return mux
}

// Hide removes a search from the site, as a new release may.
func (f *Fake) Hide(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hidden[name] = true
}

func (f *Fake) isHidden(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hidden[name]
}

// Inject queues responses served before the normal handling of a route
// (path below the service root, e.g. "/users/current").
func (f *Fake) Inject(method, path string, rs ...Response) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := method + " " + path
	f.injected[k] = append(f.injected[k], rs...)
}

// Revoke forgets an API key: later requests with it get WDK's 401.
func (f *Fake) Revoke(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.keys[key]
	delete(f.keys, key)
	return ok
}

// RevokeAt revokes key at its first request whose path (below the
// service root) starts with prefix: that request and all later ones are
// refused. It stages a key revoked in the middle of a turn, say once the
// catalog was read and a step is to be run ("/users/").
func (f *Fake) RevokeAt(key, prefix string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.keys[key]
	if ok {
		f.revokeAt[key] = prefix
	}
	return ok
}

// AddKey makes key sign in as u.
func (f *Fake) AddKey(key string, u User) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[key] = u
}

// violate records client behaviour the live site punishes (holding f.mu).
func (f *Fake) violate(format string, args ...any) {
	v := fmt.Sprintf(format, args...)
	f.violations = append(f.violations, v)
	f.logger.Warn("client behaviour the live site punishes", slog.String("violation", v))
}

// Violations returns what the client did that the live site punishes.
func (f *Fake) Violations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.violations...)
}

// Recorded returns the requests matching method ("" for any) and a path
// prefix.
func (f *Fake) Recorded(method, pathPrefix string) []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Request
	for _, r := range f.requests {
		if (method == "" || r.Method == method) && strings.HasPrefix(r.Path, pathPrefix) {
			out = append(out, r)
		}
	}
	return out
}

// Gate holds every later request until gate receives a value; arrived
// gets one value per request that reached the gate. Nil channels open it.
func (f *Fake) Gate(gate, arrived chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gate, f.arrived = gate, arrived
}

// InFlight returns the requests being served now and the most there were
// at once.
func (f *Fake) InFlight() (now, most int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inflight, f.maxInfl
}

// ServeHTTP serves the WDK service rooted at its service path.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	if path == "" {
		path = "/"
	}
	f.mu.Lock()
	f.requests = append(f.requests, Request{Method: r.Method, Path: path, Query: r.URL.RawQuery,
		Auth: r.Header.Values("Authorization"), Cookie: r.Header.Values("Cookie"), Body: string(body)})
	if n := len(r.Header.Values("Authorization")); n != 1 {
		f.violate("%s %s carries %d Authorization headers", r.Method, path, n)
	}
	if len(r.Header.Values("Cookie")) > 0 {
		f.violate("%s %s carries a Cookie (a jar collects guest tokens)", r.Method, path)
	}
	f.inflight++
	f.maxInfl = max(f.maxInfl, f.inflight)
	gate, arrived := f.gate, f.arrived
	var inj *Response
	if q := f.injected[r.Method+" "+path]; len(q) > 0 {
		inj = &q[0]
		f.injected[r.Method+" "+path] = q[1:]
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inflight--
		f.mu.Unlock()
	}()
	if gate != nil {
		arrived <- struct{}{}
		<-gate
	}

	// Like WDK's CheckLoginFilter, every answer mints a guest cookie that a
	// cookie jar would keep and send back.
	w.Header().Add("Set-Cookie", GuestCookie+"; Path=/; Max-Age=94608000")
	if inj != nil {
		for k, v := range inj.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(inj.Status)
		_, _ = io.WriteString(w, inj.Body)
		return
	}

	auth := r.Header.Get("Authorization")
	if auth == "" {
		writeError(w, "Valid API Key required for this endpoint.", http.StatusUnauthorized)
		return
	}
	key := strings.TrimPrefix(auth, "Bearer ")
	f.mu.Lock()
	if prefix, at := f.revokeAt[key]; at && strings.HasPrefix(path, prefix) {
		delete(f.keys, key)
		delete(f.revokeAt, key)
	}
	user, ok := f.keys[key]
	f.mu.Unlock()
	if !ok || !strings.HasPrefix(auth, "Bearer ") {
		// WDK answers an unknown (or revoked) key as it does a missing one.
		writeError(w, "Valid API Key required for this endpoint.", http.StatusUnauthorized)
		return
	}
	if user.Guest && path != "/users/current" {
		writeError(w, "This endpoint is only available to registered users, and requires an API key.", http.StatusForbidden)
		return
	}
	f.route(w, r, path, body, user)
}

func (f *Fake) route(w http.ResponseWriter, r *http.Request, path string, body []byte, user User) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case path == "/" && r.Method == http.MethodGet:
		writeRaw(w, http.StatusOK, string(f.src.serviceInfo))
	case path == "/users/current" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"id": user.ID, "isGuest": user.Guest,
			"email":       map[bool]any{false: "researcher@example.org", true: nil}[user.Guest],
			"properties":  map[string]string{"firstName": "Ada", "lastName": "Lovelace"},
			"preferences": map[string]any{"global": map[string]string{}, "project": map[string]string{}}})
	case parts[0] == "record-types":
		f.recordTypes(w, r, parts[1:], body, user)
	case parts[0] == "users" && len(parts) >= 3:
		if parts[1] == "current" {
			f.mu.Lock()
			f.violate("%s %s uses the current alias instead of the numeric user id", r.Method, path)
			f.mu.Unlock()
		} else if id, err := strconv.ParseInt(parts[1], 10, 64); err != nil || id != user.ID {
			writeError(w, "Permission denied: you cannot access another user's data", http.StatusForbidden)
			return
		}
		f.userRoute(w, r, parts[2:], body, user)
	default:
		writeError(w, "Resource not found: "+path, http.StatusNotFound)
	}
}

// controlRevoke is POST /__fake/revoke?key=K[&at=PREFIX]: the key stops
// working, as when a researcher regenerates it on the site; with at, from
// its first request under that path (see RevokeAt).
func (f *Fake) controlRevoke(w http.ResponseWriter, r *http.Request) {
	key, at := r.URL.Query().Get("key"), r.URL.Query().Get("at")
	if key == "" {
		http.Error(w, "key is required", http.StatusBadRequest)
		return
	}
	ok := false
	if at != "" {
		ok = f.RevokeAt(key, at)
	} else {
		ok = f.Revoke(key)
	}
	if !ok {
		http.Error(w, "no such key", http.StatusNotFound)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// controlAddKey is POST /__fake/keys?key=K&user=ID[&guest=true].
func (f *Fake) controlAddKey(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, err := strconv.ParseInt(q.Get("user"), 10, 64)
	if q.Get("key") == "" || err != nil || id <= 0 {
		http.Error(w, "key and a numeric user are required", http.StatusBadRequest)
		return
	}
	f.AddKey(q.Get("key"), User{ID: id, Guest: q.Get("guest") == "true"})
	w.WriteHeader(http.StatusNoContent)
}

// workspace stands in for the site's strategy page, where the
// open-in-VEuPathDB link leads: the strategy's name, its steps and its
// size, readable by anyone who has the link (the fake has no sign-in).
func (f *Fake) workspace(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.strategies[id]
	if err != nil || !ok || s.deleted {
		http.Error(w, "Strategy not found", http.StatusNotFound)
		return
	}
	size := "unknown"
	if a, err := f.evalStep(r.Context(), s.root, 0, 0); err == nil {
		size = strconv.Itoa(a.genes)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>Strategy %d</title><h1 data-testid=\"wdk-strategy-name\">%s</h1>"+
		"<p>Strategy <span data-testid=\"wdk-strategy-id\">%d</span> of user %d: "+
		"<span data-testid=\"wdk-strategy-size\">%s</span> genes.</p>"+
		"<p>This is Strategist's WDK fake, a test double, not VEuPathDB.</p>",
		s.id, html.EscapeString(s.name), s.id, s.owner, size)
}

// sharedPage stands for the page a shared strategy's link opens on the
// site (/app/workspace/strategies/import/{signature}), which copies it into
// the visitor's account there: here it names the strategy and its owner.
func (f *Fake) sharedPage(w http.ResponseWriter, r *http.Request) {
	s, ok := f.StrategyBySignature(r.PathValue("signature"))
	if !ok {
		http.Error(w, "Strategy not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>Shared strategy</title><h1 data-testid=\"wdk-strategy-name\">%s</h1>"+
		"<p>A strategy shared by user %d. This is Strategist's WDK fake, a test double, not VEuPathDB.</p>",
		html.EscapeString(s.Name), s.Owner)
}

func writeRaw(w http.ResponseWriter, status int, s string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, s)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	writeRaw(w, status, string(b))
}

// writeError sends an error as WDK does outside validation: the message
// as plain text.
func writeError(w http.ResponseWriter, msg string, status int) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg)
}

// write422 sends WDK's validation bundle, as text/plain like the site.
func write422(w http.ResponseWriter, general []string, byKey map[string][]string) {
	b, _ := json.Marshal(map[string]any{"level": "SEMANTIC", "isValid": false,
		"errors": map[string]any{"general": orEmpty(general), "byKey": byKey}})
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusUnprocessableEntity)
	_, _ = w.Write(b)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
