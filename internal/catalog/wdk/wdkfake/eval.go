package wdkfake

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"strategist/internal/catalog"
)

// The fake site's answers: a step tree becomes a catalog.Query, which the
// source's evaluator runs (the fixture genes, or a catalog).

// stepQuery is the query tree of a step and its inputs (holding f.mu).
func (f *Fake) stepQuery(id int64) (*catalog.Query, error) {
	st, ok := f.steps[id]
	if !ok {
		return nil, fmt.Errorf("step %d not found", id)
	}
	names := f.src.inputParams(st.search)
	q := &catalog.Query{Search: st.search, Params: map[string]string{}, Weight: st.weight}
	for k, v := range f.withDatasetIDs(st.search, st.params) {
		if !slices.Contains(names, k) {
			q.Params[k] = v
		}
	}
	for _, n := range names {
		in, err := strconv.ParseInt(st.params[n], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("step %d: input %s not wired", id, n)
		}
		iq, err := f.stepQuery(in)
		if err != nil {
			return nil, err
		}
		q.Inputs = append(q.Inputs, iq)
	}
	return q, nil
}

// evalStep answers a step (holding f.mu).
func (f *Fake) evalStep(ctx context.Context, id int64, offset, limit int) (*answer, error) {
	q, err := f.stepQuery(id)
	if err != nil {
		return nil, err
	}
	return f.src.eval.answer(ctx, q, offset, limit)
}

func (s *source) recordTypeOf(search string) string {
	if sr, ok := s.searches[search]; ok {
		return sr.recordType
	}
	return ""
}

func (f *Fake) searchReport(w http.ResponseWriter, r *http.Request, name string, body []byte, user User) {
	var req struct {
		SearchConfig struct {
			Parameters map[string]string `json:"parameters"`
			WDKWeight  int               `json:"wdkWeight"`
		} `json:"searchConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, "Malformed JSON", http.StatusBadRequest)
		return
	}
	if len(f.src.inputParams(name)) > 0 {
		write422(w, []string{"A search with input steps cannot be run without a strategy."}, nil)
		return
	}
	byKey := map[string][]string{}
	for _, p := range f.src.params(name) {
		v, ok := req.SearchConfig.Parameters[p.Name]
		if !ok {
			if !p.AllowEmptyValue && p.Initial == nil {
				byKey[p.Name] = []string{"Cannot be empty."}
			}
			continue
		}
		if msg := f.checkValue(p, v, user); msg != "" {
			byKey[p.Name] = []string{msg}
		}
	}
	if len(byKey) > 0 {
		write422(w, nil, byKey)
		return
	}
	f.mu.Lock()
	params := f.withDatasetIDs(name, req.SearchConfig.Parameters)
	f.mu.Unlock()
	f.writeReport(w, r, &catalog.Query{Search: name, Params: params, Weight: req.SearchConfig.WDKWeight}, body)
}

// writeReport answers a standard report: one record per transcript, genes
// sorted by id, meta counting transcripts (totalCount) and genes
// (displayTotalCount).
func (f *Fake) writeReport(w http.ResponseWriter, r *http.Request, q *catalog.Query, body []byte) {
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
		writeError(w, "Malformed report request", http.StatusBadRequest)
		return
	}
	pg := req.ReportConfig.Pagination
	a, err := f.src.eval.answer(r.Context(), q, pg.Offset, pg.NumRecords)
	if err != nil {
		w.Header().Set("X-Log-Marker", "marker-6262")
		writeError(w, "Internal Error", http.StatusInternalServerError)
		return
	}
	records := []any{}
	for _, rec := range a.records {
		attrs := map[string]any{"primary_key": rec.gene}
		values := map[string]any{"gene_product": rec.product, "gene_type": rec.geneType, "gene_name": nilIfEmpty(rec.name),
			"organism": "<i>" + rec.organism + "</i>", "gene_location_text": rec.where,
			"wdk_weight": strconv.Itoa(rec.weight)}
		for _, at := range req.ReportConfig.Attributes {
			v, ok := values[at]
			if !ok {
				write422(w, []string{"Attribute '" + at + "' is not available for this record type"}, nil)
				return
			}
			attrs[at] = v
		}
		records = append(records, map[string]any{
			"id": []map[string]string{{"name": "gene_source_id", "value": rec.gene},
				{"name": "source_id", "value": rec.transcript}, {"name": "project_id", "value": "PlasmoDB"}},
			"displayName": rec.gene, "recordClassName": "TranscriptRecordClasses.TranscriptRecordClass",
			"attributes": attrs, "tables": map[string]any{}, "tableErrors": []any{},
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"records": records, "meta": map[string]any{
		"totalCount": a.transcripts, "displayTotalCount": a.genes, "viewTotalCount": a.transcripts,
		"displayViewTotalCount": a.genes, "responseCount": len(records),
		"pagination":      map[string]any{"offset": pg.Offset, "numRecords": pg.NumRecords},
		"recordClassName": "transcript", "attributes": req.ReportConfig.Attributes, "tables": []any{},
		"sorting": []any{}, "cachePreviouslyExisted": true}})
}

// fixtureGene is one gene of the fixtures; Transcripts > 1 makes its
// records appear more than once in reports, as on the live site.
type fixtureGene struct {
	ID          string `json:"id"`
	Product     string `json:"product"`
	Type        string `json:"type"`
	Location    string `json:"location"`
	Transcripts int    `json:"transcripts"`
	// Previous are the gene's retired ids, which the gene ids search
	// also finds it by.
	Previous []string `json:"previous"`
}

// fixtureEval answers over the fixture genes (fixtures/genes.json) and
// their GO annotations (fixtures/go-sets.json).
type fixtureEval struct {
	genes  []fixtureGene
	goSets map[string][]string // GO term -> gene ids
}

func newFixtureEval() (*fixtureEval, error) {
	e := &fixtureEval{}
	for file, v := range map[string]any{"fixtures/genes.json": &e.genes, "fixtures/go-sets.json": &e.goSets} {
		b, err := fixtureFS.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	return e, nil
}

// result maps gene index to weight.
type result map[int]int

func (e *fixtureEval) answer(_ context.Context, q *catalog.Query, offset, limit int) (*answer, error) {
	res, err := e.eval(q)
	if err != nil {
		return nil, err
	}
	genes := slices.Collect(maps.Keys(res))
	sort.Slice(genes, func(i, j int) bool { return e.genes[genes[i]].ID < e.genes[genes[j]].ID })
	a := &answer{genes: len(genes)}
	for _, g := range genes {
		gene := e.genes[g]
		for t := 1; t <= gene.Transcripts; t++ {
			if a.transcripts >= offset && a.transcripts < offset+limit {
				a.records = append(a.records, record{gene: gene.ID, transcript: fmt.Sprintf("%s.%d", gene.ID, t),
					product: gene.Product, geneType: gene.Type, organism: "Plasmodium falciparum 3D7",
					where: gene.Location, weight: res[g]})
			}
			a.transcripts++
		}
	}
	return a, nil
}

func (e *fixtureEval) eval(q *catalog.Query) (result, error) {
	var ins []result
	for _, in := range q.Inputs {
		r, err := e.eval(in)
		if err != nil {
			return nil, err
		}
		ins = append(ins, r)
	}
	if len(ins) == 0 {
		return e.leaf(q.Search, q.Params, q.Weight)
	}
	res := result{}
	switch q.Search {
	case "GenesByOrthologs":
		if strings.Contains(q.Params["organism"], "Plasmodium falciparum 3D7") {
			maps.Copy(res, ins[0])
		}
	case "boolean_question_TranscriptRecordClasses_TranscriptRecordClass":
		if len(ins) != 2 {
			return nil, fmt.Errorf("a combine needs two inputs, has %d", len(ins))
		}
		l, r := ins[0], ins[1]
		switch q.Params["bq_operator"] {
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
	default:
		return nil, fmt.Errorf("fake cannot evaluate %s", q.Search)
	}
	return res, nil
}

// leaf answers a search without inputs.
func (e *fixtureEval) leaf(search string, params map[string]string, weight int) (result, error) {
	res := result{}
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
			for i := range e.genes {
				res[i] = weight
			}
		}
	case "GenesByGoTerm":
		for _, term := range pick("go_typeahead") {
			for _, id := range e.goSets[term] {
				if i := slices.IndexFunc(e.genes, func(g fixtureGene) bool { return g.ID == id }); i >= 0 {
					res[i] = weight
				}
			}
		}
	case "GeneByLocusTag":
		// The site matches ids in any case against gene, transcript and
		// previous ids; what matches nothing is left out.
		for _, id := range catalog.DatasetIDs(params["ds_gene_ids"]) {
			for i := range e.genes {
				if e.names(i, id) {
					res[i] = weight
				}
			}
		}
	case "GenesByText":
		for i, g := range e.genes {
			if strings.Contains(strings.ToLower(g.Product), strings.ToLower(params["text_expression"])) {
				res[i] = weight
			}
		}
	default:
		return nil, fmt.Errorf("fake cannot evaluate %s", search)
	}
	return res, nil
}

// names reports whether id names gene i: its id, one of its transcripts'
// or a previous id, in any case.
func (e *fixtureEval) names(i int, id string) bool {
	g := e.genes[i]
	if strings.EqualFold(g.ID, id) || slices.ContainsFunc(g.Previous, func(p string) bool { return strings.EqualFold(p, id) }) {
		return true
	}
	for t := 1; t <= g.Transcripts; t++ {
		if strings.EqualFold(fmt.Sprintf("%s.%d", g.ID, t), id) {
			return true
		}
	}
	return false
}

// catalogEval answers through a catalog (the offline snapshot in the fake
// process): one record per gene, its gene id as the transcript's.
type catalogEval struct {
	cat  catalog.Catalog
	site string
}

func (e catalogEval) answer(ctx context.Context, q *catalog.Query, offset, limit int) (*answer, error) {
	ans, err := e.cat.Answer(ctx, e.site, q, catalog.Page{Offset: offset, Limit: limit})
	if err != nil {
		return nil, err
	}
	a := &answer{genes: ans.Count, transcripts: ans.Count}
	for _, r := range ans.Records {
		where := r.Chromosome
		a.records = append(a.records, record{gene: r.GeneID, transcript: r.GeneID + ".1", product: r.Product,
			geneType: r.GeneType, name: r.GeneName, organism: orDefault(r.Organism, "Plasmodium falciparum 3D7"),
			where: where, weight: r.Weight})
	}
	return a, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
