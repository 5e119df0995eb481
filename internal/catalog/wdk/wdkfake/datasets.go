package wdkfake

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The fake site's datasets: lists of identifiers in a user's account, the
// values of input-dataset parameters (the gene ids search's ds_gene_ids),
// and the copy of a shared strategy by its signature.

// dataset is an uploaded list of identifiers, as given.
type dataset struct {
	id    int64
	owner int64
	ids   []string
}

// createDataset answers POST /users/{id}/datasets (WDK's DatasetService):
// only the schema's keys, an idList's ids, at least one of them. Like WDK's
// createOrGetDataset, the same ids uploaded again by the same user give
// the same dataset (holding f.mu).
func (f *Fake) createDataset(w http.ResponseWriter, body []byte, user User) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		writeError(w, "Malformed JSON", http.StatusBadRequest)
		return
	}
	for k := range raw {
		if k != "sourceType" && k != "sourceContent" {
			writeError(w, "JSON schema validation failed: extraneous key ["+k+"] is not permitted", http.StatusBadRequest)
			return
		}
	}
	var req struct {
		SourceType    string                     `json:"sourceType"`
		SourceContent map[string]json.RawMessage `json:"sourceContent"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.SourceContent == nil {
		writeError(w, "JSON schema validation failed: sourceType and sourceContent are required", http.StatusBadRequest)
		return
	}
	if req.SourceType != "idList" {
		// basket, strategy, file and url exist on WDK; the fake has none.
		writeError(w, "JSON schema validation failed: the fake serves sourceType idList only, not "+strconv.Quote(req.SourceType), http.StatusBadRequest)
		return
	}
	var ids []string
	if len(req.SourceContent) != 1 || json.Unmarshal(req.SourceContent["ids"], &ids) != nil {
		writeError(w, "JSON schema validation failed: sourceContent of an idList is {\"ids\": [string, ...]}", http.StatusBadRequest)
		return
	}
	if len(ids) == 0 {
		write422(w, []string{"At least 1 ID must be submitted"}, nil)
		return
	}
	for _, d := range f.datasets {
		if d.owner == user.ID && slices.Equal(d.ids, ids) {
			writeJSON(w, http.StatusOK, map[string]any{"id": d.id})
			return
		}
	}
	f.nextData++
	f.datasets[f.nextData] = &dataset{id: f.nextData, owner: user.ID, ids: ids}
	writeJSON(w, http.StatusOK, map[string]any{"id": f.nextData})
}

// datasetProblem is what WDK says of an input-dataset value that is not
// one of the user's datasets ("" when it is one), holding f.mu. A list of
// identifiers in its place is the mistake a client makes.
func (f *Fake) datasetProblem(v string, owner int64) string {
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return fmt.Sprintf("'%s' is not a dataset id: upload the identifiers as a dataset (POST /users/{id}/datasets) and give its id", v)
	}
	if d, ok := f.datasets[id]; !ok || d.owner != owner {
		return fmt.Sprintf("Dataset %d does not exist for user %d", id, owner)
	}
	return ""
}

// withDatasetIDs returns params with each input-dataset value (a dataset
// id) replaced by its identifiers as a JSON array, which the evaluators
// read (holding f.mu).
func (f *Fake) withDatasetIDs(search string, params map[string]string) map[string]string {
	out := make(map[string]string, len(params))
	for k, v := range params {
		out[k] = v
	}
	for _, p := range f.src.params(search) {
		if p.Type != "input-dataset" {
			continue
		}
		id, err := strconv.ParseInt(strings.TrimSpace(params[p.Name]), 10, 64)
		if d, ok := f.datasets[id]; err == nil && ok {
			b, _ := json.Marshal(d.ids)
			out[p.Name] = string(b)
		}
	}
	return out
}

// signature is a strategy's share signature: 16 hex digits standing for
// WDK's digest of project, user and strategy.
func signature(owner, strategy int64) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("PlasmoDB/%d/%d", owner, strategy)))
	return hex.EncodeToString(sum[:8])
}

// copyStrategy answers POST /users/{id}/strategies with
// {"sourceStrategySignature": sig} (WDK's copyStrategy): a strategy of any
// user, found by its signature, is copied into the caller's account: new
// steps (their datasets copied too), a new unsaved strategy of the same
// name. An unknown signature is WDK's 422 (holding f.mu).
func (f *Fake) copyStrategy(w http.ResponseWriter, raw map[string]json.RawMessage, user User) {
	if len(raw) != 1 {
		writeError(w, "JSON schema validation failed: a copy takes sourceStrategySignature alone", http.StatusBadRequest)
		return
	}
	var sig string
	if err := json.Unmarshal(raw["sourceStrategySignature"], &sig); err != nil {
		writeError(w, "JSON schema validation failed: sourceStrategySignature is a string", http.StatusBadRequest)
		return
	}
	var src *strategy
	for _, s := range f.strategies {
		if s.signature == sig && !s.deleted {
			src = s
		}
	}
	if src == nil {
		write422(w, []string{"No strategy exists with signature " + sig}, nil)
		return
	}
	var tree stepTree
	if err := json.Unmarshal(src.tree, &tree); err != nil {
		writeError(w, "Internal Error", http.StatusInternalServerError)
		return
	}
	f.nextStrat++
	id := f.nextStrat
	copied := f.copyTree(&tree, user.ID, id)
	b, _ := json.Marshal(copied)
	f.strategies[id] = &strategy{id: id, owner: user.ID, name: src.name, tree: b, root: copied.StepID, signature: signature(user.ID, id)}
	writeJSON(w, http.StatusOK, map[string]any{"id": id})
}

// copyTree copies the steps of a tree into owner's strategy, their inputs
// wired to the copies (holding f.mu).
func (f *Fake) copyTree(t *stepTree, owner, strategyID int64) *stepTree {
	old := f.steps[t.StepID]
	f.nextStep++
	st := &step{id: f.nextStep, owner: owner, search: old.search, params: map[string]string{}, weight: old.weight,
		customName: old.customName, strategy: strategyID}
	f.steps[st.id] = st
	for k, v := range old.params {
		st.params[k] = v
	}
	for _, p := range f.src.params(old.search) {
		if p.Type != "input-dataset" {
			continue
		}
		id, _ := strconv.ParseInt(old.params[p.Name], 10, 64)
		if d, ok := f.datasets[id]; ok && d.owner != owner {
			f.nextData++
			f.datasets[f.nextData] = &dataset{id: f.nextData, owner: owner, ids: d.ids}
			st.params[p.Name] = strconv.FormatInt(f.nextData, 10)
		}
	}
	out := &stepTree{StepID: st.id}
	names := f.src.inputParams(old.search)
	for i, in := range []*stepTree{t.PrimaryInput, t.SecondaryInput} {
		if in == nil || i >= len(names) {
			continue
		}
		c := f.copyTree(in, owner, strategyID)
		st.params[names[i]] = strconv.FormatInt(c.StepID, 10)
		if i == 0 {
			out.PrimaryInput = c
		} else {
			out.SecondaryInput = c
		}
	}
	return out
}

// StrategyBySignature returns the strategy a share link's signature names.
func (f *Fake) StrategyBySignature(sig string) (StrategyState, bool) {
	f.mu.Lock()
	var id int64
	for _, s := range f.strategies {
		if s.signature == sig && !s.deleted {
			id = s.id
		}
	}
	f.mu.Unlock()
	return f.Strategy(id)
}

// Dataset returns the identifiers of a dataset and its owner.
func (f *Fake) Dataset(id int64) (ids []string, owner int64, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.datasets[id]
	if !ok {
		return nil, 0, false
	}
	return append([]string(nil), d.ids...), d.owner, true
}
