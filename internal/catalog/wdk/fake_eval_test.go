package wdk

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The fake site's answers: evaluating step trees over fakeGenes.

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
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "Malformed report request", http.StatusBadRequest)
		return
	}
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
