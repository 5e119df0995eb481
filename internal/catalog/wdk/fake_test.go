package wdk

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
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
	t *testing.T

	mu         sync.Mutex
	tokens     map[string]fakeUser
	nextStep   int64
	nextStrat  int64
	steps      map[int64]*fakeStep
	strategies map[int64]*fakeStrategy
	requests   []fakeRequest
	violations []string
	injected   map[string][]fakeResponse // "METHOD path" -> responses served first
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

func newFakeWDK(t *testing.T) *fakeWDK {
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
	}
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
		io.WriteString(w, inj.body)
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
	io.WriteString(w, s)
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
	w.Write(b)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// fakeParam is what the fake needs of a fixture parameter.
type fakeParam struct {
	Name            string          `json:"name"`
	Type            string          `json:"type"`
	AllowEmptyValue bool            `json:"allowEmptyValue"`
	DependentParams []string        `json:"dependentParams"`
	Initial         *string         `json:"initialDisplayValue"`
	Vocabulary      json.RawMessage `json:"vocabulary"`
	raw             json.RawMessage
}

func (p *fakeParam) terms() []string {
	var rows [][]any
	if json.Unmarshal(p.Vocabulary, &rows) == nil {
		var out []string
		for _, r := range rows {
			out = append(out, r[0].(string))
		}
		return out
	}
	type node struct {
		Data struct {
			Term string `json:"term"`
		} `json:"data"`
		Children []node `json:"children"`
	}
	var root node
	var out []string
	var walk func(n node)
	walk = func(n node) {
		out = append(out, n.Data.Term)
		for _, c := range n.Children {
			walk(c)
		}
	}
	if json.Unmarshal(p.Vocabulary, &root) == nil {
		walk(root)
	}
	return out
}

func fakeParams(search string) []fakeParam {
	var sd struct {
		Parameters []json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(fakeSearches[search]), &sd); err != nil {
		panic(err)
	}
	out := make([]fakeParam, len(sd.Parameters))
	for i, raw := range sd.Parameters {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			panic(err)
		}
		out[i].raw = raw
	}
	return out
}

func (f *fakeWDK) recordTypes(w http.ResponseWriter, r *http.Request, parts []string, body []byte) {
	switch {
	case len(parts) == 0 && r.Method == http.MethodGet:
		if r.URL.Query().Get("format") == "expanded" {
			writeRaw(w, http.StatusOK, "["+fakeTranscriptRecordType+","+fakePathwayRecordType+"]")
			return
		}
		writeRaw(w, http.StatusOK, fakeRecordTypeNames)
	case len(parts) == 1 && r.Method == http.MethodGet:
		switch parts[0] {
		case "transcript":
			writeRaw(w, http.StatusOK, fakeTranscriptRecordType)
		case "pathway":
			writeRaw(w, http.StatusOK, fakePathwayRecordType)
		default:
			http.Error(w, "Record type not found", http.StatusNotFound)
		}
	case len(parts) == 2 && parts[1] == "searches" && r.Method == http.MethodGet:
		if parts[0] == "jbrowse-gene" {
			http.Error(w, "Internal Error", http.StatusInternalServerError)
			return
		}
		var list []json.RawMessage
		for _, name := range slices.Sorted(maps.Keys(fakeSearches)) {
			if fakeSearchRecordType[name] != parts[0] {
				continue
			}
			var m map[string]any
			json.Unmarshal([]byte(fakeSearches[name]), &m)
			delete(m, "parameters")
			b, _ := json.Marshal(m)
			list = append(list, b)
		}
		writeJSON(w, http.StatusOK, orEmptyRaw(list))
	case len(parts) >= 3 && parts[1] == "searches":
		name := parts[2]
		sd, ok := fakeSearches[name]
		if !ok || fakeSearchRecordType[name] != parts[0] {
			http.Error(w, "Search not found: "+name, http.StatusNotFound)
			return
		}
		switch {
		case len(parts) == 3 && r.Method == http.MethodGet:
			writeRaw(w, http.StatusOK, `{"searchData":`+sd+`,"validation":{"level":"DISPLAYABLE","isValid":true}}`)
		case len(parts) == 3 && r.Method == http.MethodPost:
			f.revise(w, name, sd, body)
		case len(parts) == 4 && parts[3] == "refreshed-dependent-params" && r.Method == http.MethodPost:
			f.refreshed(w, name, body)
		case len(parts) == 5 && parts[3] == "reports" && parts[4] == "standard" && r.Method == http.MethodPost:
			f.searchReport(w, name, body)
		default:
			http.Error(w, "Not found", http.StatusNotFound)
		}
	default:
		http.Error(w, "Not found", http.StatusNotFound)
	}
}

func orEmptyRaw(l []json.RawMessage) []json.RawMessage {
	if l == nil {
		return []json.RawMessage{}
	}
	return l
}

// revise answers POST search with contextParamValues: 422 for an unknown
// name, else the details with the values' validity at level SEMANTIC.
func (f *fakeWDK) revise(w http.ResponseWriter, name, sd string, body []byte) {
	var req struct {
		ContextParamValues map[string]string `json:"contextParamValues"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "Malformed JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	ps := fakeParams(name)
	for k := range req.ContextParamValues {
		if !slices.ContainsFunc(ps, func(p fakeParam) bool { return p.Name == k }) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprintf(w, "Parameter '%s' is not in container '%s'", k, name)
			return
		}
	}
	byKey := map[string][]string{}
	for _, p := range ps {
		v, ok := req.ContextParamValues[p.Name]
		if !ok {
			continue
		}
		if msg := checkFakeValue(p, v); msg != "" {
			byKey[p.Name] = append(byKey[p.Name], msg)
		}
	}
	// The dependent default of text_fields follows document_type.
	if name == "GenesByText" && req.ContextParamValues["document_type"] == "est" {
		sd = strings.Replace(sd, `"initialDisplayValue": "[\"primary_key\",\"product\"]"`, `"initialDisplayValue": "[\"primary_key\"]"`, 1)
	}
	val := map[string]any{"level": "SEMANTIC", "isValid": len(byKey) == 0}
	if len(byKey) > 0 {
		val["errors"] = map[string]any{"general": []string{}, "byKey": byKey}
	}
	vb, _ := json.Marshal(val)
	writeRaw(w, http.StatusOK, `{"searchData":`+sd+`,"validation":`+string(vb)+`}`)
}

// checkFakeValue applies WDK's value rules for one parameter.
func checkFakeValue(p fakeParam, v string) string {
	switch p.Type {
	case "multi-pick-vocabulary":
		var terms []string
		if err := json.Unmarshal([]byte(v), &terms); err != nil {
			// The live site splits a bare string on commas, silently.
			terms = strings.Split(v, ",")
		}
		if len(terms) == 0 {
			return "Cannot be empty."
		}
		for _, t := range terms {
			if !slices.Contains(p.terms(), t) {
				return fmt.Sprintf("'%s' is not in the vocabulary", t)
			}
		}
	case "single-pick-vocabulary":
		if v == "" {
			return "Cannot be empty."
		}
		if !slices.Contains(p.terms(), v) {
			return fmt.Sprintf("'%s' is not in the vocabulary", v)
		}
	case "input-step":
	default:
		if v == "" && !p.AllowEmptyValue {
			return "Cannot be empty."
		}
	}
	return ""
}

func (f *fakeWDK) refreshed(w http.ResponseWriter, name string, body []byte) {
	var req struct {
		ChangedParam struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"changedParam"`
		ContextParamValues map[string]string `json:"contextParamValues"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "Malformed JSON: value must be a string", http.StatusBadRequest)
		return
	}
	ps := fakeParams(name)
	i := slices.IndexFunc(ps, func(p fakeParam) bool { return p.Name == req.ChangedParam.Name })
	if i < 0 {
		http.Error(w, "Parameter not found", http.StatusNotFound)
		return
	}
	if msg := checkFakeValue(ps[i], req.ChangedParam.Value); msg != "" {
		write422(w, []string{fmt.Sprintf("The passed changed param value '%s' is invalid.", req.ChangedParam.Value)}, nil)
		return
	}
	var out []json.RawMessage
	for _, dep := range ps[i].DependentParams {
		for _, p := range ps {
			if p.Name == dep {
				out = append(out, p.raw)
			}
		}
	}
	writeJSON(w, http.StatusOK, orEmptyRaw(out))
}

// allowedStepKeys are the keys of WDK's step post-request schema
// (additionalProperties: false).
var allowedStepKeys = []string{"searchName", "searchConfig", "customName", "expanded", "expandedName", "displayPreferences"}

func (f *fakeWDK) userRoute(w http.ResponseWriter, r *http.Request, parts []string, body []byte, user fakeUser) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case parts[0] == "steps" && len(parts) == 1 && r.Method == http.MethodPost:
		f.createStep(w, body, user)
	case parts[0] == "steps" && len(parts) >= 2:
		id, _ := strconv.ParseInt(parts[1], 10, 64)
		st, ok := f.steps[id]
		if !ok || st.owner != user.id || st.deleted {
			http.Error(w, fmt.Sprintf("Step %d not found", id), http.StatusNotFound)
			return
		}
		f.stepRoute(w, r, parts[2:], body, st)
	case parts[0] == "strategies" && len(parts) == 1 && r.Method == http.MethodPost:
		f.createStrategy(w, body, user)
	case parts[0] == "strategies" && len(parts) >= 2:
		id, _ := strconv.ParseInt(parts[1], 10, 64)
		s, ok := f.strategies[id]
		if !ok || s.owner != user.id || s.deleted {
			http.Error(w, fmt.Sprintf("Strategy %d not found", id), http.StatusNotFound)
			return
		}
		f.strategyRoute(w, r, parts[2:], body, s)
	default:
		http.Error(w, "Not found", http.StatusNotFound)
	}
}

func (f *fakeWDK) createStep(w http.ResponseWriter, body []byte, user fakeUser) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		http.Error(w, "Malformed JSON", http.StatusBadRequest)
		return
	}
	for k := range raw {
		if !slices.Contains(allowedStepKeys, k) {
			http.Error(w, "JSON schema validation failed: extraneous key ["+k+"] is not permitted", http.StatusBadRequest)
			return
		}
	}
	var req struct {
		SearchName   string `json:"searchName"`
		CustomName   string `json:"customName"`
		SearchConfig struct {
			Parameters map[string]string `json:"parameters"`
			WDKWeight  int               `json:"wdkWeight"`
		} `json:"searchConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "Malformed JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	if _, ok := fakeSearches[req.SearchName]; !ok {
		http.Error(w, "Search not found: "+req.SearchName, http.StatusNotFound)
		return
	}
	ps := fakeParams(req.SearchName)
	for k := range req.SearchConfig.Parameters {
		if !slices.ContainsFunc(ps, func(p fakeParam) bool { return p.Name == k }) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprintf(w, "Parameter '%s' is not in container '%s'", k, req.SearchName)
			return
		}
	}
	byKey := map[string][]string{}
	for _, p := range ps {
		v, ok := req.SearchConfig.Parameters[p.Name]
		switch {
		case p.Type == "input-step":
			if !ok || v != "" {
				write422(w, []string{"Answer Params in new steps must have the null value (empty string)."}, nil)
				return
			}
		case !ok: // NO_FILL: a missing parameter is not defaulted
			if !p.AllowEmptyValue {
				byKey[p.Name] = append(byKey[p.Name], "Cannot be empty.")
			}
		case p.Type == "single-pick-vocabulary" && strings.HasPrefix(v, "[") && strings.Count(v, ",") > 0:
			w.Header().Set("X-Log-Marker", "marker-4242")
			http.Error(w, "Internal Error", http.StatusInternalServerError)
			return
		case p.Type == "multi-pick-vocabulary" && !strings.HasPrefix(v, "["):
			f.violate("multi-pick %s=%q sent as a bare string (the site splits it on commas)", p.Name, v)
		default:
			if msg := checkFakeValue(p, v); msg != "" {
				byKey[p.Name] = append(byKey[p.Name], msg)
			}
		}
	}
	if len(byKey) > 0 {
		write422(w, nil, byKey)
		return
	}
	f.nextStep++
	st := &fakeStep{id: f.nextStep, owner: user.id, search: req.SearchName, params: req.SearchConfig.Parameters,
		weight: req.SearchConfig.WDKWeight, customName: req.CustomName}
	f.steps[st.id] = st
	w.Header().Set("Location", fmt.Sprintf("/users/%d/steps/%d", user.id, st.id))
	writeJSON(w, http.StatusOK, map[string]any{"id": st.id})
}

func (f *fakeWDK) stepJSON(st *fakeStep) map[string]any {
	m := map[string]any{
		"id": st.id, "searchName": st.search, "recordClassName": fakeSearchRecordType[st.search],
		"customName": nilIfEmpty(st.customName), "displayName": st.search, "ownerId": st.owner,
		"searchConfig":            map[string]any{"parameters": st.params, "wdkWeight": st.weight, "filters": []any{}},
		"validation":              map[string]any{"level": "RUNNABLE", "isValid": true},
		"hasCompleteStepAnalyses": false, "isFiltered": false, "displayPreferences": map[string]any{},
	}
	if st.strategy != 0 {
		m["strategyId"] = st.strategy
		if res, err := f.eval(st.id); err == nil {
			m["estimatedSize"] = len(res)
		}
	} else {
		m["strategyId"] = nil
	}
	return m
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (f *fakeWDK) stepRoute(w http.ResponseWriter, r *http.Request, parts []string, body []byte, st *fakeStep) {
	switch {
	case len(parts) == 0 && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, f.stepJSON(st))
	case len(parts) == 0 && r.Method == http.MethodPatch:
		var req struct {
			CustomName *string `json:"customName"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, "Malformed JSON", http.StatusBadRequest)
			return
		}
		if req.CustomName != nil {
			st.customName = *req.CustomName
		}
		w.WriteHeader(http.StatusNoContent)
	case len(parts) == 0 && r.Method == http.MethodDelete:
		if st.strategy != 0 {
			http.Error(w, fmt.Sprintf("Step %d is part of strategy %d; remove it from the strategy first.", st.id, st.strategy), http.StatusConflict)
			return
		}
		st.deleted = true
		w.WriteHeader(http.StatusNoContent)
	case len(parts) == 1 && parts[0] == "search-config" && r.Method == http.MethodPut:
		var req struct {
			Parameters map[string]string `json:"parameters"`
			WDKWeight  int               `json:"wdkWeight"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, "Malformed JSON", http.StatusBadRequest)
			return
		}
		for _, p := range fakeParams(st.search) {
			if p.Type == "input-step" && req.Parameters[p.Name] != st.params[p.Name] {
				write422(w, []string{"Changes to answer param values are not allowed."}, nil)
				return
			}
		}
		st.params, st.weight = req.Parameters, req.WDKWeight
		w.WriteHeader(http.StatusNoContent)
	case len(parts) == 2 && parts[0] == "reports" && parts[1] == "standard" && r.Method == http.MethodPost:
		if st.strategy == 0 {
			write422(w, []string{fmt.Sprintf("Step %d is not part of a strategy, so cannot run.", st.id)}, nil)
			return
		}
		res, err := f.eval(st.id)
		if err != nil {
			http.Error(w, "Internal Error", http.StatusInternalServerError)
			return
		}
		f.writeReport(w, res, body)
	default:
		http.Error(w, "Not found", http.StatusNotFound)
	}
}

type fakeTree struct {
	StepID         int64     `json:"stepId"`
	PrimaryInput   *fakeTree `json:"primaryInput"`
	SecondaryInput *fakeTree `json:"secondaryInput"`
}

func inputParamNames(search string) []string {
	var out []string
	for _, p := range fakeParams(search) {
		if p.Type == "input-step" {
			out = append(out, p.Name)
		}
	}
	return out
}

// wire checks a step tree and points each step's input-step parameters at
// its inputs. A combine given one input is WDK's 500.
func (f *fakeWDK) wire(t *fakeTree, owner, strategy int64) (int, string) {
	st, ok := f.steps[t.StepID]
	if !ok || st.owner != owner || st.deleted {
		return http.StatusNotFound, fmt.Sprintf("Step %d not found", t.StepID)
	}
	if st.strategy != 0 && st.strategy != strategy {
		return http.StatusUnprocessableEntity, fmt.Sprintf("Step %d already belongs to strategy %d", st.id, st.strategy)
	}
	inputs := []*fakeTree{t.PrimaryInput, t.SecondaryInput}
	names := inputParamNames(st.search)
	given := 0
	for _, in := range inputs {
		if in != nil {
			given++
		}
	}
	if given != len(names) {
		if len(names) == 2 && given == 1 {
			return http.StatusInternalServerError, "Internal Error"
		}
		return http.StatusUnprocessableEntity, fmt.Sprintf("Step %d needs %d inputs, has %d", st.id, len(names), given)
	}
	for i, name := range names {
		if status, msg := f.wire(inputs[i], owner, strategy); status != 0 {
			return status, msg
		}
		st.params[name] = strconv.FormatInt(inputs[i].StepID, 10)
	}
	st.strategy = strategy
	return 0, ""
}

func (f *fakeWDK) createStrategy(w http.ResponseWriter, body []byte, user fakeUser) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		http.Error(w, "Malformed JSON", http.StatusBadRequest)
		return
	}
	for _, k := range []string{"name", "isSaved", "isPublic", "stepTree"} {
		if _, ok := raw[k]; !ok {
			http.Error(w, "JSON schema validation failed: missing required key "+k, http.StatusBadRequest)
			return
		}
	}
	for k := range raw {
		if !slices.Contains([]string{"name", "isSaved", "isPublic", "stepTree", "description", "savedName"}, k) {
			http.Error(w, "JSON schema validation failed: extraneous key ["+k+"] is not permitted", http.StatusBadRequest)
			return
		}
	}
	var tree fakeTree
	if err := json.Unmarshal(raw["stepTree"], &tree); err != nil {
		http.Error(w, "Malformed stepTree", http.StatusBadRequest)
		return
	}
	var name string
	json.Unmarshal(raw["name"], &name)
	f.nextStrat++
	id := f.nextStrat
	if status, msg := f.wire(&tree, user.id, id); status != 0 {
		f.nextStrat--
		if status == http.StatusUnprocessableEntity {
			write422(w, []string{msg}, nil)
			return
		}
		w.Header().Set("X-Log-Marker", "marker-5151")
		http.Error(w, msg, status)
		return
	}
	f.strategies[id] = &fakeStrategy{id: id, owner: user.id, name: name, tree: raw["stepTree"], root: tree.StepID}
	writeJSON(w, http.StatusOK, map[string]any{"id": id})
}

func (f *fakeWDK) strategyRoute(w http.ResponseWriter, r *http.Request, parts []string, body []byte, s *fakeStrategy) {
	switch {
	case len(parts) == 0 && r.Method == http.MethodGet:
		steps := map[string]any{}
		for id, st := range f.steps {
			if st.strategy == s.id {
				steps[strconv.FormatInt(id, 10)] = f.stepJSON(st)
			}
		}
		m := map[string]any{"strategyId": s.id, "name": s.name, "rootStepId": s.root, "recordClassName": "transcript",
			"signature": "sig" + strconv.FormatInt(s.id, 10), "isSaved": false, "isPublic": false, "isValid": true,
			"isDeleted": false, "author": "Ada Lovelace", "releaseVersion": "68",
			"stepTree": s.tree, "steps": steps, "leafAndTransformStepCount": len(steps)}
		if res, err := f.eval(s.root); err == nil {
			m["estimatedSize"] = len(res)
		}
		writeJSON(w, http.StatusOK, m)
	case len(parts) == 0 && r.Method == http.MethodDelete:
		s.deleted = true
		for _, st := range f.steps {
			if st.strategy == s.id {
				st.deleted = true
			}
		}
		w.WriteHeader(http.StatusNoContent)
	case len(parts) == 1 && parts[0] == "step-tree" && r.Method == http.MethodPut:
		var req struct {
			StepTree json.RawMessage `json:"stepTree"`
		}
		var tree fakeTree
		if json.Unmarshal(body, &req) != nil || json.Unmarshal(req.StepTree, &tree) != nil {
			http.Error(w, "Malformed JSON", http.StatusBadRequest)
			return
		}
		for _, st := range f.steps {
			if st.strategy == s.id {
				st.strategy = 0
				for _, n := range inputParamNames(st.search) {
					st.params[n] = ""
				}
			}
		}
		if status, msg := f.wire(&tree, s.owner, s.id); status != 0 {
			http.Error(w, msg, status)
			return
		}
		s.tree, s.root = req.StepTree, tree.StepID
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "Not found", http.StatusNotFound)
	}
}

// fakeResult maps gene index to weight.
type fakeResult map[int]int

// evalLeaf answers a search without inputs.
func evalLeaf(search string, params map[string]string, weight int) (fakeResult, error) {
	res := fakeResult{}
	pick := func(name string) []string {
		var terms []string
		if err := json.Unmarshal([]byte(params[name]), &terms); err != nil {
			terms = strings.Split(params[name], ",")
		}
		return terms
	}
	switch search {
	case "GenesByTaxon":
		// Like the live sites, a parent node counts nothing: only leaves.
		if slices.Contains(pick("organism"), "Plasmodium falciparum 3D7") {
			for i := range fakeGenes {
				res[i] = weight
			}
		}
	case "GenesByGoTerm":
		for _, term := range pick("go_typeahead") {
			for _, i := range fakeGOSets[term] {
				res[i] = weight
			}
		}
	case "GenesByText":
		for i, g := range fakeGenes {
			if strings.Contains(strings.ToLower(g.Product), strings.ToLower(params["text_expression"])) {
				res[i] = weight
			}
		}
	default:
		return nil, fmt.Errorf("fake cannot evaluate %s", search)
	}
	return res, nil
}

// eval answers a step (holding f.mu).
func (f *fakeWDK) eval(id int64) (fakeResult, error) {
	st := f.steps[id]
	names := inputParamNames(st.search)
	if len(names) == 0 {
		return evalLeaf(st.search, st.params, st.weight)
	}
	var ins []fakeResult
	for _, n := range names {
		in, err := strconv.ParseInt(st.params[n], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("step %d: input %s not wired", id, n)
		}
		r, err := f.eval(in)
		if err != nil {
			return nil, err
		}
		ins = append(ins, r)
	}
	res := fakeResult{}
	switch st.search {
	case "GenesByOrthologs":
		if strings.Contains(st.params["organism"], "Plasmodium falciparum 3D7") {
			maps.Copy(res, ins[0])
		}
	case "boolean_question_TranscriptRecordClasses_TranscriptRecordClass":
		l, r := ins[0], ins[1]
		switch st.params["bq_operator"] {
		case "INTERSECT":
			for g, w := range l {
				if rw, ok := r[g]; ok {
					res[g] = w + rw
				}
			}
		case "UNION":
			maps.Copy(res, l)
			for g, w := range r {
				res[g] += w
			}
		case "MINUS":
			for g, w := range l {
				if _, ok := r[g]; !ok {
					res[g] = w
				}
			}
		case "RMINUS":
			for g, w := range r {
				if _, ok := l[g]; !ok {
					res[g] = w
				}
			}
		case "LONLY":
			maps.Copy(res, l)
		case "RONLY":
			maps.Copy(res, r)
		}
	}
	return res, nil
}

func (f *fakeWDK) searchReport(w http.ResponseWriter, name string, body []byte) {
	var req struct {
		SearchConfig struct {
			Parameters map[string]string `json:"parameters"`
			WDKWeight  int               `json:"wdkWeight"`
		} `json:"searchConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "Malformed JSON", http.StatusBadRequest)
		return
	}
	if len(inputParamNames(name)) > 0 {
		write422(w, []string{"A search with input steps cannot be run without a strategy."}, nil)
		return
	}
	byKey := map[string][]string{}
	for _, p := range fakeParams(name) {
		v, ok := req.SearchConfig.Parameters[p.Name]
		if !ok {
			if !p.AllowEmptyValue && p.Initial == nil {
				byKey[p.Name] = []string{"Cannot be empty."}
			}
			continue
		}
		if msg := checkFakeValue(p, v); msg != "" {
			byKey[p.Name] = []string{msg}
		}
	}
	if len(byKey) > 0 {
		write422(w, nil, byKey)
		return
	}
	res, err := evalLeaf(name, req.SearchConfig.Parameters, req.SearchConfig.WDKWeight)
	if err != nil {
		http.Error(w, "Internal Error", http.StatusInternalServerError)
		return
	}
	f.writeReport(w, res, body)
}

// writeReport answers a standard report: one record per transcript, genes
// sorted by id, meta counting transcripts (totalCount) and genes
// (displayTotalCount).
func (f *fakeWDK) writeReport(w http.ResponseWriter, res fakeResult, body []byte) {
	var req struct {
		ReportConfig struct {
			Pagination struct {
				Offset     int `json:"offset"`
				NumRecords int `json:"numRecords"`
			} `json:"pagination"`
			Attributes []string `json:"attributes"`
		} `json:"reportConfig"`
	}
	json.Unmarshal(body, &req)
	genes := slices.Collect(maps.Keys(res))
	sort.Slice(genes, func(i, j int) bool { return fakeGenes[genes[i]].ID < fakeGenes[genes[j]].ID })
	type rec struct {
		g, t int
	}
	var all []rec
	for _, g := range genes {
		for t := 1; t <= fakeGenes[g].Transcripts; t++ {
			all = append(all, rec{g, t})
		}
	}
	pg := req.ReportConfig.Pagination
	records := []any{}
	for i := pg.Offset; i < len(all) && i < pg.Offset+pg.NumRecords; i++ {
		g := fakeGenes[all[i].g]
		attrs := map[string]any{"primary_key": g.ID}
		values := map[string]any{"gene_product": g.Product, "gene_type": g.Type, "gene_name": nil,
			"organism": "<i>Plasmodium falciparum 3D7</i>", "gene_location_text": g.Location,
			"wdk_weight": strconv.Itoa(res[all[i].g])}
		for _, a := range req.ReportConfig.Attributes {
			v, ok := values[a]
			if !ok {
				write422(w, []string{"Attribute '" + a + "' is not available for this record type"}, nil)
				return
			}
			attrs[a] = v
		}
		records = append(records, map[string]any{
			"id": []map[string]string{{"name": "gene_source_id", "value": g.ID},
				{"name": "source_id", "value": fmt.Sprintf("%s.%d", g.ID, all[i].t)}, {"name": "project_id", "value": "PlasmoDB"}},
			"displayName": g.ID, "recordClassName": "TranscriptRecordClasses.TranscriptRecordClass",
			"attributes": attrs, "tables": map[string]any{}, "tableErrors": []any{},
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"records": records, "meta": map[string]any{
		"totalCount": len(all), "displayTotalCount": len(genes), "viewTotalCount": len(all),
		"displayViewTotalCount": len(genes), "responseCount": len(records),
		"pagination":      map[string]any{"offset": pg.Offset, "numRecords": pg.NumRecords},
		"recordClassName": "transcript", "attributes": req.ReportConfig.Attributes, "tables": []any{},
		"sorting": []any{}, "cachePreviouslyExisted": true}})
}
