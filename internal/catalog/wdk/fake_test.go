package wdk

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeWDK is a VEuPathDB WDK service in memory: it serves WDK-shaped JSON
// from the fixtures, keeps steps and strategies per user, evaluates step
// trees over fakeGenes, and enforces the live sites' rules (registered
// users only, NO_FILL step validation, "" input-step values on creation,
// 500 on a half-wired combine or two values on a single-pick, 409 on
// deleting a step in a strategy). It records every request and every
// client behaviour the live site would punish in violations.
type fakeWDK struct {
	t testing.TB

	mu         sync.Mutex
	tokens     map[string]fakeUser
	nextStep   int64
	nextStrat  int64
	steps      map[int64]*fakeStep
	strategies map[int64]*fakeStrategy
	requests   []fakeRequest
	violations []string
	injected   map[string][]fakeResponse // "METHOD path" -> responses served first
	hidden     map[string]bool           // searches removed from the site (a new release)
	inflight   int
	maxInfl    int
	// gate, when set, holds every request until it receives a value;
	// arrived gets one value per request that reached the gate.
	gate    chan struct{}
	arrived chan struct{}
}

type fakeUser struct {
	id    int64
	guest bool
}

type fakeStep struct {
	id         int64
	owner      int64
	search     string
	params     map[string]string
	weight     int
	customName string
	strategy   int64
	deleted    bool
}

type fakeStrategy struct {
	id      int64
	owner   int64
	name    string
	tree    json.RawMessage
	root    int64
	deleted bool
}

type fakeRequest struct {
	Method, Path, Query string
	Auth                []string
	Cookie              []string
	Body                string
}

type fakeResponse struct {
	status int
	header map[string]string
	body   string
}

const (
	registeredToken = "tok-registered-7f3a9c"
	guestToken      = "tok-guest-5d1e2b"
	otherToken      = "tok-other-88c0d4"
	registeredID    = int64(376543)
	otherID         = int64(912345)
	guestCookie     = "Authorization=eyJguestjwt.minted.for.this.request"
)

func newFakeWDK(t testing.TB) *fakeWDK {
	return &fakeWDK{
		t: t,
		tokens: map[string]fakeUser{
			registeredToken: {id: registeredID},
			otherToken:      {id: otherID},
			guestToken:      {id: 1000001, guest: true},
		},
		nextStep:   100,
		nextStrat:  200,
		steps:      map[int64]*fakeStep{},
		strategies: map[int64]*fakeStrategy{},
		injected:   map[string][]fakeResponse{},
		hidden:     map[string]bool{},
	}
}

// hide removes a search from the site, as a new release may.
func (f *fakeWDK) hide(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hidden[name] = true
}

func (f *fakeWDK) isHidden(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hidden[name]
}

// serve starts the fake under /plasmo/service and returns that base URL.
func (f *fakeWDK) serve() string {
	srv := httptest.NewServer(http.StripPrefix("/plasmo/service", f))
	f.t.Cleanup(srv.Close)
	return srv.URL + "/plasmo/service"
}

// inject queues responses served before the normal handling of a route.
func (f *fakeWDK) inject(method, path string, rs ...fakeResponse) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := method + " " + path
	f.injected[k] = append(f.injected[k], rs...)
}

func (f *fakeWDK) violate(format string, args ...any) {
	f.violations = append(f.violations, fmt.Sprintf(format, args...))
}

// recorded returns the requests matching method and a path prefix.
func (f *fakeWDK) recorded(method, pathPrefix string) []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeRequest
	for _, r := range f.requests {
		if (method == "" || r.Method == method) && strings.HasPrefix(r.Path, pathPrefix) {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeWDK) checkNoViolations(t *testing.T) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, v := range f.violations {
		t.Errorf("client behaviour the live site punishes: %s", v)
	}
}

func (f *fakeWDK) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	if path == "" {
		path = "/"
	}
	f.mu.Lock()
	f.requests = append(f.requests, fakeRequest{Method: r.Method, Path: path, Query: r.URL.RawQuery,
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
	var inj *fakeResponse
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
	w.Header().Add("Set-Cookie", guestCookie+"; Path=/; Max-Age=94608000")
	if inj != nil {
		for k, v := range inj.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(inj.status)
		_, _ = io.WriteString(w, inj.body)
		return
	}

	auth := r.Header.Get("Authorization")
	if auth == "" {
		http.Error(w, "Valid API Key required for this endpoint.", http.StatusUnauthorized)
		return
	}
	user, ok := f.tokens[strings.TrimPrefix(auth, "Bearer ")]
	if !ok || !strings.HasPrefix(auth, "Bearer ") {
		http.Error(w, "Invalid or expired token", http.StatusUnauthorized)
		return
	}
	if user.guest && path != "/users/current" {
		http.Error(w, "This endpoint is only available to registered users, and requires an API key.", http.StatusForbidden)
		return
	}
	f.route(w, r, path, body, user)
}

func (f *fakeWDK) route(w http.ResponseWriter, r *http.Request, path string, body []byte, user fakeUser) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case path == "/" && r.Method == http.MethodGet:
		writeRaw(w, http.StatusOK, fakeServiceInfo)
	case path == "/users/current" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"id": user.id, "isGuest": user.guest,
			"email":      map[bool]any{false: "researcher@example.org", true: nil}[user.guest],
			"properties": map[string]string{"firstName": "Ada", "lastName": "Lovelace"}})
	case parts[0] == "record-types":
		f.recordTypes(w, r, parts[1:], body)
	case parts[0] == "users" && len(parts) >= 3:
		if parts[1] == "current" {
			f.mu.Lock()
			f.violate("%s %s uses the current alias instead of the numeric user id", r.Method, path)
			f.mu.Unlock()
		} else if id, err := strconv.ParseInt(parts[1], 10, 64); err != nil || id != user.id {
			http.Error(w, "Permission denied: you cannot access another user's data", http.StatusForbidden)
			return
		}
		f.userRoute(w, r, parts[2:], body, user)
	default:
		http.Error(w, "Resource not found: "+path, http.StatusNotFound)
	}
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
