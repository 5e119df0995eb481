package wdkfake

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The fake site's user accounts: steps and strategies.

// fakeTime is every timestamp the fake reports: its state has no clock.
const fakeTime = "2024-05-02T09:30:00Z"

// allowedStepKeys are the keys of WDK's step post-request schema
// (additionalProperties: false; searchName and searchConfig required).
var allowedStepKeys = []string{"searchName", "searchConfig", "customName", "expanded", "expandedName", "viewFilters", "displayPreferences"}

func (f *Fake) userRoute(w http.ResponseWriter, r *http.Request, parts []string, body []byte, user User) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case parts[0] == "steps" && len(parts) == 1 && r.Method == http.MethodPost:
		f.createStep(w, body, user)
	case parts[0] == "steps" && len(parts) >= 2:
		id, _ := strconv.ParseInt(parts[1], 10, 64)
		st, ok := f.steps[id]
		if !ok || st.owner != user.ID || st.deleted {
			writeError(w, fmt.Sprintf("Step %d not found", id), http.StatusNotFound)
			return
		}
		f.stepRoute(w, r, parts[2:], body, st)
	case parts[0] == "strategies" && len(parts) == 1 && r.Method == http.MethodPost:
		f.createStrategy(w, body, user)
	case parts[0] == "strategies" && len(parts) == 1 && r.Method == http.MethodGet:
		f.listStrategies(w, user)
	case parts[0] == "datasets" && len(parts) == 1 && r.Method == http.MethodPost:
		f.createDataset(w, body, user)
	case parts[0] == "strategies" && len(parts) >= 2:
		id, _ := strconv.ParseInt(parts[1], 10, 64)
		s, ok := f.strategies[id]
		if !ok || s.owner != user.ID || s.deleted {
			writeError(w, fmt.Sprintf("Strategy %d not found", id), http.StatusNotFound)
			return
		}
		f.strategyRoute(w, r, parts[2:], body, s)
	default:
		writeError(w, "Not found", http.StatusNotFound)
	}
}

func (f *Fake) createStep(w http.ResponseWriter, body []byte, user User) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		writeError(w, "Malformed JSON", http.StatusBadRequest)
		return
	}
	for k := range raw {
		if !slices.Contains(allowedStepKeys, k) {
			writeError(w, "JSON schema validation failed: extraneous key ["+k+"] is not permitted", http.StatusBadRequest)
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
		writeError(w, "Malformed JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	if _, ok := f.src.searches[req.SearchName]; !ok {
		writeError(w, "Search not found: "+req.SearchName, http.StatusNotFound)
		return
	}
	ps := f.src.params(req.SearchName)
	for k := range req.SearchConfig.Parameters {
		if !slices.ContainsFunc(ps, func(p param) bool { return p.Name == k }) {
			// WDK wraps a plain 422 message as the bundle's general error.
			write422(w, []string{fmt.Sprintf("Parameter '%s' is not in container '%s'", k, req.SearchName)}, nil)
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
			writeError(w, "Internal Error", http.StatusInternalServerError)
			return
		case p.Type == "multi-pick-vocabulary" && !strings.HasPrefix(v, "["):
			f.violate("multi-pick %s=%q sent as a bare string (the site splits it on commas)", p.Name, v)
		case p.Type == "input-dataset":
			if msg := f.datasetProblem(v, user.ID); msg != "" {
				byKey[p.Name] = append(byKey[p.Name], msg)
			}
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
	st := &step{id: f.nextStep, owner: user.ID, search: req.SearchName, params: req.SearchConfig.Parameters,
		weight: req.SearchConfig.WDKWeight, customName: req.CustomName}
	f.steps[st.id] = st
	w.Header().Set("Location", fmt.Sprintf("/users/%d/steps/%d", user.ID, st.id))
	writeJSON(w, http.StatusOK, map[string]any{"id": st.id})
}

func (f *Fake) stepJSON(st *step) map[string]any {
	m := map[string]any{
		"id": st.id, "searchName": st.search, "recordClassName": f.src.recordTypeOf(st.search),
		"customName": nilIfEmpty(st.customName), "displayName": st.search, "ownerId": st.owner,
		"searchConfig":            map[string]any{"parameters": st.params, "wdkWeight": st.weight, "filters": []any{}},
		"validation":              map[string]any{"level": "RUNNABLE", "isValid": true},
		"hasCompleteStepAnalyses": false, "isFiltered": false, "displayPreferences": map[string]any{},
		"expanded": false, "shortDisplayName": st.search, "baseCustomName": nilIfEmpty(st.customName),
		"createdTime": fakeTime, "lastRunTime": fakeTime,
	}
	if st.strategy != 0 {
		m["strategyId"] = st.strategy
		if a, err := f.evalStep(context.Background(), st.id, 0, 0); err == nil {
			m["estimatedSize"] = a.genes
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

func (f *Fake) stepRoute(w http.ResponseWriter, r *http.Request, parts []string, body []byte, st *step) {
	switch {
	case len(parts) == 0 && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, f.stepJSON(st))
	case len(parts) == 0 && r.Method == http.MethodPatch:
		var req struct {
			CustomName *string `json:"customName"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			writeError(w, "Malformed JSON", http.StatusBadRequest)
			return
		}
		if req.CustomName != nil {
			st.customName = *req.CustomName
		}
		w.WriteHeader(http.StatusNoContent)
	case len(parts) == 0 && r.Method == http.MethodDelete:
		if st.strategy != 0 {
			writeError(w, fmt.Sprintf("Step %d is part of strategy %d; remove it from the strategy first.", st.id, st.strategy), http.StatusConflict)
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
			writeError(w, "Malformed JSON", http.StatusBadRequest)
			return
		}
		for _, p := range f.src.params(st.search) {
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
		q, err := f.stepQuery(st.id)
		if err != nil {
			writeError(w, "Internal Error", http.StatusInternalServerError)
			return
		}
		f.writeReport(w, r, q, body)
	default:
		writeError(w, "Not found", http.StatusNotFound)
	}
}

type stepTree struct {
	StepID         int64     `json:"stepId"`
	PrimaryInput   *stepTree `json:"primaryInput,omitempty"`
	SecondaryInput *stepTree `json:"secondaryInput,omitempty"`
}

// wire checks a step tree and points each step's input-step parameters at
// its inputs. A combine given one input is WDK's 500.
func (f *Fake) wire(t *stepTree, owner, strategy int64) (int, string) {
	st, ok := f.steps[t.StepID]
	if !ok || st.owner != owner || st.deleted {
		return http.StatusNotFound, fmt.Sprintf("Step %d not found", t.StepID)
	}
	if st.strategy != 0 && st.strategy != strategy {
		return http.StatusUnprocessableEntity, fmt.Sprintf("Step %d already belongs to strategy %d", st.id, st.strategy)
	}
	inputs := []*stepTree{t.PrimaryInput, t.SecondaryInput}
	names := f.src.inputParams(st.search)
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

func (f *Fake) createStrategy(w http.ResponseWriter, body []byte, user User) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		writeError(w, "Malformed JSON", http.StatusBadRequest)
		return
	}
	if _, ok := raw["sourceStrategySignature"]; ok {
		f.copyStrategy(w, raw, user)
		return
	}
	for _, k := range []string{"name", "isSaved", "isPublic", "stepTree"} {
		if _, ok := raw[k]; !ok {
			writeError(w, "JSON schema validation failed: missing required key "+k, http.StatusBadRequest)
			return
		}
	}
	for k := range raw {
		if !slices.Contains([]string{"name", "isSaved", "isPublic", "stepTree", "description", "savedName"}, k) {
			writeError(w, "JSON schema validation failed: extraneous key ["+k+"] is not permitted", http.StatusBadRequest)
			return
		}
	}
	var tree stepTree
	if err := json.Unmarshal(raw["stepTree"], &tree); err != nil {
		writeError(w, "Malformed stepTree", http.StatusBadRequest)
		return
	}
	var name string
	_ = json.Unmarshal(raw["name"], &name) // optional: no name is ""
	f.nextStrat++
	id := f.nextStrat
	if status, msg := f.wire(&tree, user.ID, id); status != 0 {
		f.nextStrat--
		if status == http.StatusUnprocessableEntity {
			write422(w, []string{msg}, nil)
			return
		}
		w.Header().Set("X-Log-Marker", "marker-5151")
		writeError(w, msg, status)
		return
	}
	f.strategies[id] = &strategy{id: id, owner: user.ID, name: name, tree: raw["stepTree"], root: tree.StepID, signature: signature(user.ID, id)}
	writeJSON(w, http.StatusOK, map[string]any{"id": id})
}

// listStrategies answers GET /users/{id}/strategies: the user's strategies
// as WDK lists them, without their steps (holding f.mu).
func (f *Fake) listStrategies(w http.ResponseWriter, user User) {
	out := []map[string]any{}
	for _, id := range slices.Sorted(maps.Keys(f.strategies)) {
		s := f.strategies[id]
		if s.owner != user.ID || s.deleted {
			continue
		}
		m := map[string]any{"strategyId": s.id, "name": s.name, "rootStepId": s.root, "recordClassName": "transcript",
			"signature": s.signature, "isSaved": false, "isPublic": false, "isValid": true, "isDeleted": false,
			"author": "Ada Lovelace", "createdTime": fakeTime, "lastModified": fakeTime, "lastViewed": fakeTime}
		if a, err := f.evalStep(context.Background(), s.root, 0, 0); err == nil {
			m["estimatedSize"] = a.genes
		}
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *Fake) strategyRoute(w http.ResponseWriter, r *http.Request, parts []string, body []byte, s *strategy) {
	switch {
	case len(parts) == 0 && r.Method == http.MethodGet:
		steps := map[string]any{}
		for id, st := range f.steps {
			if st.strategy == s.id {
				steps[strconv.FormatInt(id, 10)] = f.stepJSON(st)
			}
		}
		m := map[string]any{"strategyId": s.id, "name": s.name, "rootStepId": s.root, "recordClassName": "transcript",
			"signature": s.signature, "isSaved": false, "isPublic": false, "isValid": true,
			"isDeleted": false, "isExample": false, "author": "Ada Lovelace", "organization": "Analytical Engines",
			"releaseVersion": "68", "createdTime": fakeTime, "lastModified": fakeTime, "lastViewed": fakeTime,
			"stepTree": s.tree, "steps": steps, "leafAndTransformStepCount": len(steps)}
		if a, err := f.evalStep(context.Background(), s.root, 0, 0); err == nil {
			m["estimatedSize"] = a.genes
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
		var tree stepTree
		if json.Unmarshal(body, &req) != nil || json.Unmarshal(req.StepTree, &tree) != nil {
			writeError(w, "Malformed JSON", http.StatusBadRequest)
			return
		}
		for _, st := range f.steps {
			if st.strategy == s.id {
				st.strategy = 0
				for _, n := range f.src.inputParams(st.search) {
					st.params[n] = ""
				}
			}
		}
		if status, msg := f.wire(&tree, s.owner, s.id); status != 0 {
			writeError(w, msg, status)
			return
		}
		s.tree, s.root = req.StepTree, tree.StepID
		w.WriteHeader(http.StatusNoContent)
	default:
		writeError(w, "Not found", http.StatusNotFound)
	}
}
