package offline

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"strategist/internal/catalog"
)

// searchesJSON describes the PlasmoDB gene searches: names, parameter names,
// types, defaults and fixed values from the VEuPathDB site model, in
// Strategist's own words. It is a string so it cannot be changed at run time.
//
//go:embed searches.json
var searchesJSON string

// siteOrganismsText lists the Plasmodium organisms of the live site, one
// per line after its comment lines (which name the source).
//
//go:embed site_organisms.txt
var siteOrganismsText string

// How well the offline snapshot can answer a search (searches.json "offline").
const (
	offlineEvaluable   = "evaluable"
	offlineApproximate = "approximate"
	offlinePartial     = "partial"
	offlineCatalogOnly = "catalog-only"
)

// Where a parameter's vocabulary comes from (searches.json "vocabulary").
const (
	vocabStatic      = "static"        // fixed terms listed in searches.json
	vocabOrganism    = "organism"      // the organism tree
	vocabSite        = "siteOrganisms" // the live site's organisms, for transforms
	vocabGeneTypes   = "geneTypes"     // from the gene data
	vocabChromosomes = "chromosomes"   // from the gene data
	vocabGOTerms     = "goTerms"       // from the GO gene sets and names
	vocabTextFields  = "textFields"    // the fields the offline text search covers
	vocabOpen        = "open"          // computed by the live site; not checked offline
)

// The organism vocabulary: the one organism of the snapshot under its genus
// and family, as a tree like the site's.
const (
	organismFamily = "Plasmodiidae"
	organismGenus  = "Plasmodium"
	organismPf3D7  = "Plasmodium falciparum 3D7"
)

// The text fields the offline text search covers.
const (
	textFieldID      = "primary_key"
	textFieldAlias   = "Alias"
	textFieldProduct = "product"
)

type specFile struct {
	Searches []specSearch `json:"searches"`
}

type specSearch struct {
	Name             string      `json:"name"`
	FullName         string      `json:"fullName"`
	DisplayName      string      `json:"displayName"`
	ShortDisplayName string      `json:"shortDisplayName"`
	Summary          string      `json:"summary"`
	Description      string      `json:"description"`
	Keywords         []string    `json:"keywords"`
	Offline          string      `json:"offline"`
	OfflineNote      string      `json:"offlineNote"`
	Params           []specParam `json:"params"`
}

type specParam struct {
	Name            string         `json:"name"`
	Type            string         `json:"type"`
	DisplayName     string         `json:"displayName"`
	Help            string         `json:"help"`
	DisplayType     string         `json:"displayType"`
	Hidden          bool           `json:"hidden"`
	ReadOnly        bool           `json:"readOnly"`
	AllowEmpty      bool           `json:"allowEmpty"`
	IsNumber        bool           `json:"isNumber"`
	Length          int            `json:"length"`
	Min             *float64       `json:"min"`
	Max             *float64       `json:"max"`
	MaxSelected     int            `json:"maxSelected"`
	DependentParams []string       `json:"dependentParams"`
	Default         *string        `json:"default"`
	SelectMode      string         `json:"selectMode"`
	Vocabulary      string         `json:"vocabulary"`
	Terms           []catalog.Term `json:"terms"`
}

// searchDef is one search as the catalog serves and checks it. It is built
// once by New and never changed.
type searchDef struct {
	search  catalog.Search
	offline string
	note    string
	keyword []string
	params  map[string]*paramDef
}

// paramDef is what validation needs about a parameter beyond catalog.Param.
type paramDef struct {
	param *catalog.Param // points into searchDef.search.Params
	vocab string
	// vocabulary checks terms; nil when they are not known here (open
	// vocabularies, or data vocabularies when the gene data is missing).
	vocabulary *catalog.Vocabulary
}

func parseSpec() ([]specSearch, error) {
	var f specFile
	if err := json.Unmarshal([]byte(searchesJSON), &f); err != nil {
		return nil, fmt.Errorf("offline: parse searches.json: %w", err)
	}
	return f.Searches, nil
}

// vocabularies builds the terms of every vocabulary kind. Data-backed kinds
// are absent when d is nil.
func vocabularies(d *Data) map[string][]catalog.Term {
	v := map[string][]catalog.Term{
		vocabOrganism: {
			{Term: organismFamily, Display: organismFamily},
			{Term: organismGenus, Display: organismGenus, Parent: organismFamily},
			{Term: organismPf3D7, Display: organismPf3D7, Parent: organismGenus},
		},
		vocabSite: siteOrganisms(),
		vocabTextFields: {
			{Term: textFieldID, Display: "Gene ID"},
			{Term: textFieldAlias, Display: "Gene name or symbol, and previous IDs"},
			{Term: textFieldProduct, Display: "Product description"},
		},
	}
	if d == nil {
		return v
	}
	for _, t := range d.geneTypes {
		v[vocabGeneTypes] = append(v[vocabGeneTypes], catalog.Term{Term: t, Display: t})
	}
	for _, c := range d.chromosomes {
		v[vocabChromosomes] = append(v[vocabChromosomes], catalog.Term{Term: c, Display: chromosomeDisplay(c)})
	}
	v[vocabGOTerms] = goVocabulary(d)
	return v
}

// siteOrganisms is the live site's organism tree: its organisms under
// the genus and family, like vocabOrganism's.
func siteOrganisms() []catalog.Term {
	terms := []catalog.Term{
		{Term: organismFamily, Display: organismFamily},
		{Term: organismGenus, Display: organismGenus, Parent: organismFamily},
	}
	for line := range strings.Lines(siteOrganismsText) {
		if name := strings.TrimSpace(line); name != "" && !strings.HasPrefix(name, "#") {
			terms = append(terms, catalog.Term{Term: name, Display: name, Parent: organismGenus})
		}
	}
	return terms
}

// goVocabulary lists the GO ids a search can use, sorted by label: every
// id with a gene set in the 2017 file, and the current ids GO has merged
// some of them into since, answered with the file's sets and labelled with
// both ids. Labels keep "name (id)" first, so the name reads off them.
func goVocabulary(d *Data) []catalog.Term {
	gos := make([]catalog.Term, 0, len(d.goOrder)+len(d.goMerged))
	for _, id := range d.goOrder {
		display := goLabel(d, id, id)
		if current, ok := d.goMergedInto[id]; ok {
			display += " – merged into " + current + " since 2017"
		}
		gos = append(gos, catalog.Term{Term: id, Display: display, Synonyms: d.goSynonyms[id], Definition: d.goDefinitions[id]})
	}
	for current, listed := range d.goMerged {
		// go_terms.tsv names a merged id by the term it is merged into.
		display := goLabel(d, listed[0], current) + " – listed in the 2017 data as " + andList(listed)
		gos = append(gos, catalog.Term{Term: current, Display: display, Synonyms: d.goSynonyms[current], Definition: d.goDefinitions[current]})
	}
	// Sorted by name for people scanning the list; keys lower-cased once.
	lower := make(map[string]string, len(gos))
	for _, g := range gos {
		lower[g.Term] = strings.ToLower(g.Display)
	}
	slices.SortStableFunc(gos, func(a, b catalog.Term) int {
		return strings.Compare(lower[a.Term], lower[b.Term])
	})
	return gos
}

// goLabel is "name (shown)" with the name go_terms.tsv gives named, or
// shown alone when it has none.
func goLabel(d *Data, named, shown string) string {
	if t, ok := d.goTerms[named]; ok && t.Name != "" {
		return t.Name + " (" + shown + ")"
	}
	return shown
}

// buildSearches turns the spec into search definitions with vocabularies and
// defaults resolved against d (which may be nil).
func buildSearches(specs []specSearch, d *Data) ([]*searchDef, error) {
	vocab := vocabularies(d)
	defs := make([]*searchDef, 0, len(specs))
	for _, s := range specs {
		def := &searchDef{
			offline: s.Offline,
			note:    s.OfflineNote,
			keyword: s.Keywords,
			params:  make(map[string]*paramDef, len(s.Params)),
		}
		switch s.Offline {
		case offlineEvaluable, offlineApproximate, offlinePartial, offlineCatalogOnly:
		default:
			return nil, fmt.Errorf("offline: search %s: unknown offline class %q", s.Name, s.Offline)
		}
		def.search.SearchSummary = catalog.SearchSummary{
			Name:             s.Name,
			FullName:         s.FullName,
			DisplayName:      s.DisplayName,
			ShortDisplayName: s.ShortDisplayName,
			RecordType:       RecordTypeTranscript,
			Summary:          s.Summary,
			Description:      s.Description,
			Evaluable:        s.Offline != offlineCatalogOnly,
		}
		def.search.Params = make([]catalog.Param, len(s.Params))
		for i, sp := range s.Params {
			p, err := buildParam(sp, vocab)
			if err != nil {
				return nil, fmt.Errorf("offline: search %s: %w", s.Name, err)
			}
			def.search.Params[i] = p
			if p.Type == catalog.ParamInputStep {
				def.search.InputParams = append(def.search.InputParams, p.Name)
			}
		}
		switch len(def.search.InputParams) {
		case 0:
			def.search.Kind = catalog.KindLeaf
		case 1:
			def.search.Kind = catalog.KindTransform
		default:
			def.search.Kind = catalog.KindCombine
		}
		for i := range def.search.Params {
			p := &def.search.Params[i]
			pd := &paramDef{param: p, vocab: s.Params[i].Vocabulary}
			if p.Vocabulary != nil {
				pd.vocabulary = catalog.NewVocabulary(p.Vocabulary)
			}
			def.params[p.Name] = pd
		}
		defs = append(defs, def)
	}
	return defs, nil
}

func buildParam(sp specParam, vocab map[string][]catalog.Term) (catalog.Param, error) {
	p := catalog.Param{
		Name:            sp.Name,
		DisplayName:     sp.DisplayName,
		Help:            sp.Help,
		Type:            catalog.ParamType(sp.Type),
		DisplayType:     sp.DisplayType,
		IsVisible:       !sp.Hidden,
		IsReadOnly:      sp.ReadOnly,
		AllowEmpty:      sp.AllowEmpty,
		DependentParams: sp.DependentParams,
		IsNumber:        sp.IsNumber,
		Min:             sp.Min,
		Max:             sp.Max,
	}
	switch p.Type {
	case catalog.ParamString, catalog.ParamNumber, catalog.ParamNumberRange, catalog.ParamTimestamp,
		catalog.ParamInputDataset, catalog.ParamInputStep:
	case catalog.ParamSinglePick, catalog.ParamMultiPick:
		p.MaxSelected = -1
		if p.Type == catalog.ParamSinglePick {
			p.MaxSelected = 1
		}
		if sp.MaxSelected > 0 {
			p.MaxSelected = sp.MaxSelected
		}
		switch sp.Vocabulary {
		case vocabStatic:
			p.Vocabulary = slices.Clone(sp.Terms)
		case vocabOpen:
		case vocabOrganism, vocabSite, vocabGeneTypes, vocabChromosomes, vocabGOTerms, vocabTextFields:
			p.Vocabulary = slices.Clone(vocab[sp.Vocabulary])
		default:
			return p, fmt.Errorf("parameter %s: unknown vocabulary %q", sp.Name, sp.Vocabulary)
		}
	default:
		return p, fmt.Errorf("parameter %s: unsupported type %q", sp.Name, sp.Type)
	}
	if sp.Default != nil {
		p.Default, p.HasDefault = *sp.Default, true
		return p, nil
	}
	if p.Vocabulary == nil {
		// A type-ahead's first term is no choice at all (the first pathway,
		// the first EC number): only lists and check boxes have one.
		p.SiteDefault = sp.Vocabulary == vocabOpen && (sp.SelectMode == "first" || sp.SelectMode == "all") && sp.DisplayType != "typeAhead"
		return p, nil
	}
	var terms []string
	switch sp.SelectMode {
	case "all":
		for _, t := range p.Vocabulary {
			terms = append(terms, t.Term)
		}
	case "first":
		// The first root of the vocabulary with everything under it, as the
		// site's first-term rule picks; a single-pick takes only that term.
		terms = firstSubtree(p.Vocabulary)
		if p.Type == catalog.ParamSinglePick {
			terms = terms[:1]
		}
	}
	if len(terms) == 0 {
		return p, nil
	}
	if p.Type == catalog.ParamSinglePick {
		p.Default = terms[0]
	} else {
		p.Default = catalog.EncodeTerms(terms)
	}
	p.HasDefault = true
	return p, nil
}

// firstSubtree returns the first root term of a vocabulary and its
// descendants, in vocabulary order.
func firstSubtree(terms []catalog.Term) []string {
	if len(terms) == 0 {
		return nil
	}
	in := map[string]bool{terms[0].Term: true}
	out := []string{terms[0].Term}
	for _, t := range terms[1:] {
		if t.Parent != "" && in[t.Parent] {
			in[t.Term] = true
			out = append(out, t.Term)
		}
	}
	return out
}
