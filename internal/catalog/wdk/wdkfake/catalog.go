package wdkfake

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The fake site's catalog: record types, searches, validation of values.

func (f *Fake) recordTypes(w http.ResponseWriter, r *http.Request, parts []string, body []byte, user User) {
	switch {
	case len(parts) == 0 && r.Method == http.MethodGet:
		expanded := r.URL.Query().Get("format") == "expanded"
		list := []json.RawMessage{}
		for _, rt := range f.src.recordTypes {
			if expanded {
				list = append(list, rt.raw)
			} else {
				list = append(list, json.RawMessage(strconv.Quote(rt.name)))
			}
		}
		if !expanded && f.src.broken != "" {
			list = append(list, json.RawMessage(strconv.Quote(f.src.broken)))
		}
		writeJSON(w, http.StatusOK, list)
	case len(parts) == 1 && r.Method == http.MethodGet:
		i := slices.IndexFunc(f.src.recordTypes, func(rt recordType) bool { return rt.name == parts[0] })
		if i < 0 {
			writeError(w, "Record type not found", http.StatusNotFound)
			return
		}
		writeRaw(w, http.StatusOK, string(f.src.recordTypes[i].raw))
	case len(parts) == 2 && parts[1] == "searches" && r.Method == http.MethodGet:
		if parts[0] == f.src.broken {
			writeError(w, "Internal Error", http.StatusInternalServerError)
			return
		}
		var list []json.RawMessage
		for _, name := range slices.Sorted(maps.Keys(f.src.searches)) {
			if f.src.searches[name].recordType != parts[0] || f.isHidden(name) {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal(f.src.searches[name].raw, &m); err != nil {
				writeError(w, "fixture "+name+": "+err.Error(), http.StatusInternalServerError)
				return
			}
			delete(m, "parameters")
			b, _ := json.Marshal(m)
			list = append(list, b)
		}
		writeJSON(w, http.StatusOK, orEmptyRaw(list))
	case len(parts) >= 3 && parts[1] == "searches":
		name := parts[2]
		sr, ok := f.src.searches[name]
		if !ok || sr.recordType != parts[0] || f.isHidden(name) {
			writeError(w, "Search not found: "+name, http.StatusNotFound)
			return
		}
		sd := string(sr.raw)
		switch {
		case len(parts) == 3 && r.Method == http.MethodGet:
			writeRaw(w, http.StatusOK, `{"searchData":`+sd+`,"validation":{"level":"DISPLAYABLE","isValid":true}}`)
		case len(parts) == 3 && r.Method == http.MethodPost:
			f.revise(w, name, sd, body, user)
		case len(parts) == 4 && parts[3] == "refreshed-dependent-params" && r.Method == http.MethodPost:
			f.refreshed(w, name, body)
		case len(parts) == 5 && parts[3] == "reports" && parts[4] == "standard" && r.Method == http.MethodPost:
			f.searchReport(w, r, name, body, user)
		default:
			writeError(w, "Not found", http.StatusNotFound)
		}
	default:
		writeError(w, "Not found", http.StatusNotFound)
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
func (f *Fake) revise(w http.ResponseWriter, name, sd string, body []byte, user User) {
	var req struct {
		ContextParamValues map[string]string `json:"contextParamValues"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, "Malformed JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	ps := f.src.params(name)
	for k := range req.ContextParamValues {
		if !slices.ContainsFunc(ps, func(p param) bool { return p.Name == k }) {
			// WDK wraps a plain 422 message as the bundle's general error.
			write422(w, []string{fmt.Sprintf("Parameter '%s' is not in container '%s'", k, name)}, nil)
			return
		}
	}
	byKey := map[string][]string{}
	for _, p := range ps {
		v, ok := req.ContextParamValues[p.Name]
		if !ok {
			continue
		}
		if msg := f.checkValue(p, v, user); msg != "" {
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

// checkValue applies WDK's value rules for one parameter of a request
// outside the user's account (which holds f.mu already): an input-dataset
// value must be one of the user's datasets.
func (f *Fake) checkValue(p param, v string, user User) string {
	if p.Type == "input-dataset" {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.datasetProblem(v, user.ID)
	}
	return checkFakeValue(p, v)
}

// checkFakeValue applies WDK's value rules for one parameter.
func checkFakeValue(p param, v string) string {
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
			if !p.openVocabulary() && !slices.Contains(p.terms(), t) {
				return fmt.Sprintf("'%s' is not in the vocabulary", t)
			}
		}
	case "single-pick-vocabulary":
		if v == "" {
			return "Cannot be empty."
		}
		if !p.openVocabulary() && !slices.Contains(p.terms(), v) {
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

func (f *Fake) refreshed(w http.ResponseWriter, name string, body []byte) {
	var req struct {
		ChangedParam struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"changedParam"`
		ContextParamValues map[string]string `json:"contextParamValues"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, "Malformed JSON: value must be a string", http.StatusBadRequest)
		return
	}
	ps := f.src.params(name)
	i := slices.IndexFunc(ps, func(p param) bool { return p.Name == req.ChangedParam.Name })
	if i < 0 {
		writeError(w, "Parameter not found", http.StatusNotFound)
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
