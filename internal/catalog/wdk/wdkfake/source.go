package wdkfake

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"strategist/internal/catalog"
)

// The fixtures are WDK-shaped documents with the quirks real sites show:
// 3-element vocabulary rows with null parents, a treeBox vocabulary under a
// synthetic "@@fake@@" root, maxSelectedCount -1, initialDisplayValue as
// the default, keys the client does not know, optional keys missing, and
// the boolean's parameter names embedding the record class's full name.
// fixtures/searches/{recordType}/{name}.json is a search's searchData;
// lists are derived from them without "parameters".
//
//go:embed fixtures
var fixtureFS embed.FS

// source is what the fake serves and how it answers, fixed at New.
type source struct {
	serviceInfo json.RawMessage
	recordTypes []recordType // in listing order
	searches    map[string]*search
	eval        evaluator
	// broken is a record type listed by name only, whose search list
	// fails with a 500, as jbrowse-gene's does on the live sites.
	broken string
}

type recordType struct {
	name string
	raw  json.RawMessage
}

type search struct {
	name       string
	recordType string
	raw        json.RawMessage // searchData, with parameters
	params     []param
}

// param is what the fake needs of a parameter.
type param struct {
	Name            string          `json:"name"`
	Type            string          `json:"type"`
	AllowEmptyValue bool            `json:"allowEmptyValue"`
	DependentParams []string        `json:"dependentParams"`
	Initial         *string         `json:"initialDisplayValue"`
	Vocabulary      json.RawMessage `json:"vocabulary"`
	raw             json.RawMessage
}

// evaluator answers a query tree: the genes it finds, one page of records.
type evaluator interface {
	answer(ctx context.Context, q *catalog.Query, offset, limit int) (*answer, error)
}

// answer is a page of a query's result. Records are transcripts: a gene
// with several appears once per transcript, as in WDK's transcript reports.
type answer struct {
	genes, transcripts int
	records            []record
}

type record struct {
	gene, transcript                         string
	product, geneType, name, organism, where string
	weight                                   int
}

func (s *source) params(name string) []param {
	if sr, ok := s.searches[name]; ok {
		return sr.params
	}
	return nil
}

func (s *source) inputParams(name string) []string {
	var out []string
	for _, p := range s.params(name) {
		if p.Type == "input-step" {
			out = append(out, p.Name)
		}
	}
	return out
}

func (s *source) addSearch(recordType string, raw json.RawMessage) error {
	var sd struct {
		URLSegment string            `json:"urlSegment"`
		Parameters []json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &sd); err != nil {
		return fmt.Errorf("search of %s: %w", recordType, err)
	}
	sr := &search{name: sd.URLSegment, recordType: recordType, raw: raw, params: make([]param, len(sd.Parameters))}
	for i, p := range sd.Parameters {
		if err := json.Unmarshal(p, &sr.params[i]); err != nil {
			return fmt.Errorf("search %s: %w", sd.URLSegment, err)
		}
		sr.params[i].raw = p
	}
	s.searches[sr.name] = sr
	return nil
}

// fixtureSource reads the embedded fixtures.
func fixtureSource() (*source, error) {
	s := &source{searches: map[string]*search{}, broken: "jbrowse-gene"}
	var err error
	if s.serviceInfo, err = fixtureFS.ReadFile("fixtures/service.json"); err != nil {
		return nil, err
	}
	// Transcript first, as sites list it.
	for _, name := range []string{"transcript", "pathway"} {
		raw, err := fixtureFS.ReadFile("fixtures/record-types/" + name + ".json")
		if err != nil {
			return nil, err
		}
		s.recordTypes = append(s.recordTypes, recordType{name: name, raw: raw})
	}
	err = fs.WalkDir(fixtureFS, "fixtures/searches", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fixtureFS.ReadFile(p)
		if err != nil {
			return err
		}
		return s.addSearch(path.Base(path.Dir(p)), raw)
	})
	if err != nil {
		return nil, err
	}
	ev, err := newFixtureEval()
	if err != nil {
		return nil, err
	}
	s.eval = ev
	return s, nil
}

// catalogSource serves cat's searches of site in WDK's shapes and answers
// through cat.
func catalogSource(cat catalog.Catalog, site string) (*source, error) {
	ctx := context.Background()
	sites, err := cat.Sites(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(sites, func(s catalog.Site) bool { return s.ID == site })
	if i < 0 {
		return nil, fmt.Errorf("the catalog has no site %q", site)
	}
	s := &source{searches: map[string]*search{}, eval: catalogEval{cat: cat, site: site}}
	s.serviceInfo, _ = json.Marshal(map[string]any{
		"projectId": sites[i].ProjectID, "displayName": sites[i].DisplayName + " (WDK fake)",
		"buildNumber": "68", "releaseDate": "01 May 2024 12:00", "startupTime": 1719000000000,
		"categoriesOntologyName": "Categories",
		"description":            "Strategist's WDK fake: a test double answering from an offline snapshot, not VEuPathDB.",
		"authentication":         map[string]any{"method": "OAUTH2", "oauthUrl": "http://127.0.0.1/oauth", "oauthClientId": "apiComponentSite"},
	})
	rts, err := cat.RecordTypes(ctx, site)
	if err != nil {
		return nil, err
	}
	for _, rt := range rts {
		list, err := cat.Searches(ctx, site, rt.Name)
		if err != nil {
			return nil, err
		}
		refs := make([]map[string]string, 0, len(list))
		for _, sum := range list {
			full, err := cat.Search(ctx, site, rt.Name, sum.Name)
			if err != nil {
				return nil, err
			}
			raw, err := json.Marshal(searchData(rt, full))
			if err != nil {
				return nil, err
			}
			if err := s.addSearch(rt.Name, raw); err != nil {
				return nil, err
			}
			refs = append(refs, map[string]string{"urlSegment": sum.Name})
		}
		raw, err := json.Marshal(map[string]any{
			"urlSegment": rt.Name, "fullName": rt.FullName, "displayName": rt.DisplayName,
			"displayNamePlural": rt.DisplayNamePlural, "shortDisplayName": rt.DisplayName,
			"recordIdAttributeName": "primary_key", "useBasket": true,
			"primaryKeyColumnRefs": []string{"gene_source_id", "source_id", "project_id"},
			"attributes":           recordAttributes, "tables": []any{}, "searches": refs,
			"formats": []any{}, "properties": map[string]any{}, "hasAllRecordsQuery": true,
		})
		if err != nil {
			return nil, err
		}
		s.recordTypes = append(s.recordTypes, recordType{name: rt.Name, raw: raw})
	}
	return s, nil
}

// recordAttributes are the transcript attributes reports can ask for.
var recordAttributes = []map[string]any{
	{"name": "primary_key", "displayName": "Gene ID", "isSortable": true},
	{"name": "gene_product", "displayName": "Product Description"},
	{"name": "gene_type", "displayName": "Gene Type"},
	{"name": "gene_name", "displayName": "Gene Name or Symbol"},
	{"name": "organism", "displayName": "Organism"},
	{"name": "gene_location_text", "displayName": "Genomic Location (Gene)"},
}

// searchData is a catalog search in WDK's search-details shape.
func searchData(rt catalog.RecordType, s *catalog.Search) map[string]any {
	names := make([]string, len(s.Params))
	params := make([]map[string]any, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
		params[i] = paramJSON(p)
	}
	m := map[string]any{
		"urlSegment": s.Name, "fullName": s.FullName, "displayName": s.DisplayName,
		"shortDisplayName": s.ShortDisplayName, "summary": s.Summary, "description": s.Description,
		"outputRecordClassName": rt.Name, "isAnalyzable": true, "isCacheable": true,
		"defaultAttributes": []string{"primary_key", "gene_product"}, "dynamicAttributes": []any{},
		"defaultSorting":     []map[string]string{{"attributeName": "primary_key", "direction": "ASC"}},
		"defaultSummaryView": "_default", "noSummaryOnSingleRecord": false, "summaryViewPlugins": []any{},
		"filters": []any{}, "properties": map[string]any{}, "iconName": nil,
		"groups": []map[string]any{{"name": "empty", "displayName": "", "description": "", "isVisible": true,
			"displayType": "empty", "parameters": names}},
		"paramNames": names, "parameters": params,
	}
	if s.Kind != catalog.KindLeaf {
		m["allowedPrimaryInputRecordClassNames"] = []string{rt.Name}
		if s.Kind == catalog.KindCombine {
			m["allowedSecondaryInputRecordClassNames"] = []string{rt.Name}
		}
	}
	return m
}

func paramJSON(p catalog.Param) map[string]any {
	m := map[string]any{
		"name": p.Name, "displayName": p.DisplayName, "help": p.Help, "type": string(p.Type),
		"isVisible": p.IsVisible, "isReadOnly": p.IsReadOnly, "allowEmptyValue": p.AllowEmpty,
		"group": "empty", "dependentParams": orEmpty(p.DependentParams), "properties": map[string]any{},
	}
	if p.HasDefault {
		m["initialDisplayValue"] = p.Default
	}
	if p.DisplayType != "" {
		m["displayType"] = p.DisplayType
	}
	switch p.Type {
	case catalog.ParamSinglePick, catalog.ParamMultiPick:
		m["minSelectedCount"] = max(p.MinSelected, 1)
		if p.AllowEmpty {
			m["minSelectedCount"] = 0
		}
		m["maxSelectedCount"] = p.MaxSelected
		m["countOnlyLeaves"] = p.DisplayType == "treeBox"
		m["vocabulary"] = vocabularyJSON(p)
	case catalog.ParamString:
		m["length"] = 0
		m["isMultiLine"] = false
		m["isNumber"] = p.IsNumber
	case catalog.ParamNumber, catalog.ParamNumberRange:
		m["increment"] = 1
		if p.Min != nil {
			m["min"] = *p.Min
		}
		if p.Max != nil {
			m["max"] = *p.Max
		}
	}
	return m
}

// vocabularyJSON is a vocabulary as WDK sends it: a tree under a synthetic
// root for a treeBox, else rows [term, display, null].
func vocabularyJSON(p catalog.Param) any {
	if p.DisplayType != "treeBox" {
		rows := make([][]any, len(p.Vocabulary))
		for i, t := range p.Vocabulary {
			rows[i] = []any{t.Term, t.Display, nil}
		}
		return rows
	}
	type node struct {
		Data     map[string]string `json:"data"`
		Children []*node           `json:"children"`
	}
	root := &node{Data: map[string]string{"term": "@@fake@@", "display": "@@fake@@"}, Children: []*node{}}
	byTerm := map[string]*node{}
	for _, t := range p.Vocabulary {
		n := &node{Data: map[string]string{"term": t.Term, "display": t.Display}, Children: []*node{}}
		byTerm[t.Term] = n
		parent := root
		if pn, ok := byTerm[t.Parent]; ok && t.Parent != "" {
			parent = pn
		}
		parent.Children = append(parent.Children, n)
	}
	return root
}

// terms lists a parameter's vocabulary terms, tree or rows.
func (p *param) terms() []string {
	var rows [][]any
	if json.Unmarshal(p.Vocabulary, &rows) == nil {
		out := make([]string, 0, len(rows))
		for _, r := range rows {
			if len(r) > 0 {
				if t, ok := r[0].(string); ok {
					out = append(out, t)
				}
			}
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
		if !strings.HasPrefix(n.Data.Term, "@@") {
			out = append(out, n.Data.Term)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	if json.Unmarshal(p.Vocabulary, &root) == nil {
		walk(root)
	}
	return out
}

// openVocabulary reports whether the parameter lists no terms (the site
// computes them): the fake then takes any value.
func (p *param) openVocabulary() bool {
	v := strings.TrimSpace(string(p.Vocabulary))
	return v == "" || v == "null" || v == "[]"
}
