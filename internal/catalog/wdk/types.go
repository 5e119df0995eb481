package wdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"strategist/internal/catalog"
)

// ServiceInfo is a site's service root (GET /).
type ServiceInfo struct {
	ProjectID   string
	DisplayName string
	BuildNumber string
	ReleaseDate string
	// AuthMethod is how the site signs users in (e.g. OAUTH2).
	AuthMethod string
}

type wireServiceInfo struct {
	ProjectID      text `json:"projectId"`
	DisplayName    text `json:"displayName"`
	BuildNumber    text `json:"buildNumber"`
	ReleaseDate    text `json:"releaseDate"`
	Authentication struct {
		Method text `json:"method"`
	} `json:"authentication"`
}

// User is the VEuPathDB account a token belongs to (GET /users/current).
type User struct {
	ID         int64
	IsGuest    bool
	Email      string
	Properties map[string]string
}

type wireUser struct {
	ID         optInt  `json:"id"`
	IsGuest    flag    `json:"isGuest"`
	Email      text    `json:"email"`
	Properties textMap `json:"properties"`
}

// RecordTypeInfo is a WDK record class.
type RecordTypeInfo struct {
	Name              string // url segment, e.g. transcript
	FullName          string // e.g. TranscriptRecordClasses.TranscriptRecordClass
	DisplayName       string
	DisplayNamePlural string
	// RecordIDAttribute names the attribute that shows a record's id
	// (primary_key for genes).
	RecordIDAttribute string
	PrimaryKeyColumns []string
	// Attributes names the attributes a report may ask for.
	Attributes []string
	// SearchCount is the number of searches listed with the record type
	// (expanded form only; -1 when not listed).
	SearchCount int
}

type wireRecordType struct {
	URLSegment            text              `json:"urlSegment"`
	FullName              text              `json:"fullName"`
	DisplayName           text              `json:"displayName"`
	DisplayNamePlural     text              `json:"displayNamePlural"`
	RecordIDAttributeName text              `json:"recordIdAttributeName"`
	PrimaryKeyColumnRefs  texts             `json:"primaryKeyColumnRefs"`
	Attributes            names             `json:"attributes"`
	Searches              []json.RawMessage `json:"searches"`
}

func (w *wireRecordType) info() RecordTypeInfo {
	n := -1
	if w.Searches != nil {
		n = len(w.Searches)
	}
	return RecordTypeInfo{
		Name:              string(w.URLSegment),
		FullName:          string(w.FullName),
		DisplayName:       string(w.DisplayName),
		DisplayNamePlural: string(w.DisplayNamePlural),
		RecordIDAttribute: string(w.RecordIDAttributeName),
		PrimaryKeyColumns: w.PrimaryKeyColumnRefs,
		Attributes:        w.Attributes,
		SearchCount:       n,
	}
}

// SearchInfo is a search as WDK lists it (without parameters).
type SearchInfo struct {
	Name             string // url segment
	FullName         string
	DisplayName      string
	ShortDisplayName string
	Summary          string
	Description      string
	Help             string
	RecordType       string // url segment of the output record class
	// ParamNames lists the parameters in declaration order.
	ParamNames []string
	// AllowedPrimaryInputs and AllowedSecondaryInputs name the record types
	// a transform or combine accepts; WDK sends them only for searches with
	// input-step parameters.
	AllowedPrimaryInputs   []string
	AllowedSecondaryInputs []string
	DefaultAttributes      []string
	DynamicAttributes      []string
}

// Internal reports whether the search is one of WDK's internal ones (the
// boolean combine among them): WDK has no isInternal key, only the
// InternalQuestions. prefix of the full name.
func (s *SearchInfo) Internal() bool { return strings.HasPrefix(s.FullName, "InternalQuestions.") }

// IsBoolean reports whether the search is the record type's boolean combine.
func (s *SearchInfo) IsBoolean() bool { return strings.HasPrefix(s.Name, "boolean_question") }

// Kind guesses the search kind from the accepted input record types; Search
// details give the exact kind from the input-step parameters.
func (s *SearchInfo) Kind() catalog.SearchKind {
	switch {
	case len(s.AllowedSecondaryInputs) > 0:
		return catalog.KindCombine
	case len(s.AllowedPrimaryInputs) > 0:
		return catalog.KindTransform
	}
	return catalog.KindLeaf
}

// Summary converts the search to the catalog's summary.
func (s *SearchInfo) summary(kind catalog.SearchKind) catalog.SearchSummary {
	return catalog.SearchSummary{
		Name:             s.Name,
		FullName:         s.FullName,
		DisplayName:      s.DisplayName,
		ShortDisplayName: s.ShortDisplayName,
		RecordType:       s.RecordType,
		Summary:          s.Summary,
		Description:      s.Description,
		Kind:             kind,
		Evaluable:        true,
	}
}

type wireSearch struct {
	URLSegment                            text        `json:"urlSegment"`
	FullName                              text        `json:"fullName"`
	DisplayName                           text        `json:"displayName"`
	ShortDisplayName                      text        `json:"shortDisplayName"`
	Summary                               text        `json:"summary"`
	Description                           text        `json:"description"`
	Help                                  text        `json:"help"`
	OutputRecordClassName                 text        `json:"outputRecordClassName"`
	ParamNames                            texts       `json:"paramNames"`
	AllowedPrimaryInputRecordClassNames   texts       `json:"allowedPrimaryInputRecordClassNames"`
	AllowedSecondaryInputRecordClassNames texts       `json:"allowedSecondaryInputRecordClassNames"`
	DefaultAttributes                     names       `json:"defaultAttributes"`
	DynamicAttributes                     names       `json:"dynamicAttributes"`
	Parameters                            []wireParam `json:"parameters"`
}

func (w *wireSearch) info(recordType string) SearchInfo {
	rt := string(w.OutputRecordClassName)
	if rt == "" || strings.Contains(rt, ".") {
		// Some deployments give the full class name; the url segment we
		// asked under is what the rest of the API takes.
		rt = recordType
	}
	return SearchInfo{
		Name:                   string(w.URLSegment),
		FullName:               string(w.FullName),
		DisplayName:            string(w.DisplayName),
		ShortDisplayName:       string(w.ShortDisplayName),
		Summary:                string(w.Summary),
		Description:            string(w.Description),
		Help:                   string(w.Help),
		RecordType:             rt,
		ParamNames:             w.ParamNames,
		AllowedPrimaryInputs:   w.AllowedPrimaryInputRecordClassNames,
		AllowedSecondaryInputs: w.AllowedSecondaryInputRecordClassNames,
		DefaultAttributes:      w.DefaultAttributes,
		DynamicAttributes:      w.DynamicAttributes,
	}
}

// Param is a search parameter with what the catalog contract shows plus
// the WDK details the client needs to send values.
type Param struct {
	catalog.Param
	Group string `json:"group,omitempty"`
	// TreeVocabulary is true for treeBox vocabularies: a parent term stands
	// for the leaves below it.
	TreeVocabulary bool `json:"treeVocabulary,omitempty"`
	// CountOnlyLeaves is WDK's flag on tree vocabularies; selected parents
	// are sent as their leaves, because the sites may answer 0 records for
	// a parent node.
	CountOnlyLeaves bool `json:"countOnlyLeaves,omitempty"`
}

type wireParam struct {
	Name                text            `json:"name"`
	DisplayName         text            `json:"displayName"`
	Help                text            `json:"help"`
	Type                text            `json:"type"`
	DisplayType         text            `json:"displayType"`
	IsVisible           *flag           `json:"isVisible"`
	IsReadOnly          flag            `json:"isReadOnly"`
	AllowEmptyValue     flag            `json:"allowEmptyValue"`
	Group               text            `json:"group"`
	DependentParams     texts           `json:"dependentParams"`
	InitialDisplayValue json.RawMessage `json:"initialDisplayValue"`
	MinSelectedCount    optInt          `json:"minSelectedCount"`
	MaxSelectedCount    optInt          `json:"maxSelectedCount"`
	Vocabulary          json.RawMessage `json:"vocabulary"`
	CountOnlyLeaves     flag            `json:"countOnlyLeaves"`
	IsNumber            flag            `json:"isNumber"`
	Min                 optFloat        `json:"min"`
	Max                 optFloat        `json:"max"`
}

func (w *wireParam) param() (Param, error) {
	p := Param{
		Param: catalog.Param{
			Name:            string(w.Name),
			DisplayName:     string(w.DisplayName),
			Help:            string(w.Help),
			Type:            catalog.ParamType(w.Type),
			DisplayType:     string(w.DisplayType),
			IsVisible:       w.IsVisible == nil || bool(*w.IsVisible),
			IsReadOnly:      bool(w.IsReadOnly),
			AllowEmpty:      bool(w.AllowEmptyValue),
			DependentParams: w.DependentParams,
			IsNumber:        bool(w.IsNumber),
			Min:             w.Min.ptr(),
			Max:             w.Max.ptr(),
		},
		Group:           string(w.Group),
		CountOnlyLeaves: bool(w.CountOnlyLeaves),
	}
	if p.DisplayName == "" {
		p.DisplayName = p.Name
	}
	if def, ok := initialValue(w.InitialDisplayValue); ok && (def != "" || p.AllowEmpty) {
		p.Default, p.HasDefault = def, true
	}
	if p.Type == catalog.ParamSinglePick || p.Type == catalog.ParamMultiPick {
		p.MinSelected = int(w.MinSelectedCount.V)
		switch {
		case p.Type == catalog.ParamSinglePick:
			p.MaxSelected = 1
		case w.MaxSelectedCount.OK && w.MaxSelectedCount.V > 0:
			p.MaxSelected = int(w.MaxSelectedCount.V)
		default:
			p.MaxSelected = -1 // WDK's "unlimited", also when absent or 0
		}
		terms, tree, err := decodeVocabulary(w.Vocabulary)
		if err != nil {
			return p, fmt.Errorf("parameter %s: %w", p.Name, err)
		}
		p.Vocabulary, p.TreeVocabulary = terms, tree
	}
	return p, nil
}

// initialValue reads initialDisplayValue: WDK's external stable value, a
// string; other JSON kinds are kept as their compact JSON text.
func initialValue(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var t text
	if t.UnmarshalJSON(raw) != nil {
		return "", false
	}
	return string(t), true
}

// SearchDetails is a search with its parameters and the validation WDK
// attached to the answer.
type SearchDetails struct {
	SearchInfo
	Params []Param
	// InputParams names the input-step parameters in declaration order:
	// the step tree's primaryInput fills the first, secondaryInput the
	// second.
	InputParams []string
	Validation  Validation

	// vocabs indexes the parameters' vocabularies by parameter name, built
	// on first use: the details are cached and shared between calls, and
	// an organism tree of thousands of terms took milliseconds to index
	// for every step checked or answered. The index is never modified
	// once built.
	vocabsOnce sync.Once
	vocabs     map[string]*catalog.Vocabulary
}

// vocabulary returns the index of a parameter's vocabulary (nil when it
// has none).
func (d *SearchDetails) vocabulary(name string) *catalog.Vocabulary {
	d.vocabsOnce.Do(func() {
		d.vocabs = map[string]*catalog.Vocabulary{}
		for _, p := range d.Params {
			if len(p.Vocabulary) > 0 {
				d.vocabs[p.Name] = catalog.NewVocabulary(p.Vocabulary)
			}
		}
	})
	return d.vocabs[name]
}

// Param returns the named parameter.
func (d *SearchDetails) Param(name string) (*Param, bool) {
	for i := range d.Params {
		if d.Params[i].Name == name {
			return &d.Params[i], true
		}
	}
	return nil, false
}

// Kind is the search kind from the number of input-step parameters.
func (d *SearchDetails) Kind() catalog.SearchKind {
	switch len(d.InputParams) {
	case 0:
		return catalog.KindLeaf
	case 1:
		return catalog.KindTransform
	}
	return catalog.KindCombine
}

// Catalog converts the details to the catalog contract's Search.
func (d *SearchDetails) Catalog() *catalog.Search {
	s := &catalog.Search{
		SearchSummary: d.summary(d.Kind()),
		Params:        make([]catalog.Param, len(d.Params)),
		InputParams:   append([]string(nil), d.InputParams...),
	}
	for i, p := range d.Params {
		s.Params[i] = p.Param
	}
	return s
}

type wireSearchResponse struct {
	SearchData wireSearch     `json:"searchData"`
	Validation wireValidation `json:"validation"`
}

func (w *wireSearchResponse) details(recordType string) (*SearchDetails, error) {
	d := &SearchDetails{SearchInfo: w.SearchData.info(recordType), Validation: w.Validation.validation()}
	for i := range w.SearchData.Parameters {
		p, err := w.SearchData.Parameters[i].param()
		if err != nil {
			return nil, err
		}
		d.Params = append(d.Params, p)
	}
	d.Params = orderParams(d.Params, d.ParamNames)
	for _, p := range d.Params {
		if p.Type == catalog.ParamInputStep {
			d.InputParams = append(d.InputParams, p.Name)
		}
	}
	if len(d.ParamNames) == 0 {
		for _, p := range d.Params {
			d.ParamNames = append(d.ParamNames, p.Name)
		}
	}
	return d, nil
}

// orderParams puts parameters in paramNames order (the declaration order
// that decides which input is primary); parameters not named keep their
// place after the named ones.
func orderParams(ps []Param, order []string) []Param {
	if len(order) == 0 {
		return ps
	}
	pos := make(map[string]int, len(order))
	for i, n := range order {
		pos[n] = i
	}
	sort.SliceStable(ps, func(i, j int) bool {
		pi, oki := pos[ps[i].Name]
		pj, okj := pos[ps[j].Name]
		switch {
		case oki && okj:
			return pi < pj
		case oki != okj:
			return oki
		}
		return false
	})
	return ps
}

// Validation is WDK's validation bundle.
type Validation struct {
	Level   string
	IsValid bool
	General []string
	ByKey   map[string][]string
}

// Err returns the problems as a *catalog.ValidationError, nil when valid.
func (v Validation) Err(search string) error {
	if v.IsValid {
		return nil
	}
	e := &catalog.ValidationError{Search: search}
	for _, g := range v.General {
		e.Add("", g)
	}
	for k, msgs := range v.ByKey {
		for _, m := range msgs {
			e.Add(k, m)
		}
	}
	if e.Empty() {
		e.Add("", "WDK reported the parameter values invalid without saying why")
	}
	return e
}

type wireValidation struct {
	Level   text  `json:"level"`
	IsValid *flag `json:"isValid"`
	Errors  struct {
		General texts            `json:"general"`
		ByKey   map[string]texts `json:"byKey"`
	} `json:"errors"`
}

func (w *wireValidation) validation() Validation {
	v := Validation{
		Level:   string(w.Level),
		IsValid: w.IsValid == nil || bool(*w.IsValid),
		General: w.Errors.General,
	}
	if len(w.Errors.ByKey) > 0 {
		v.ByKey = make(map[string][]string, len(w.Errors.ByKey))
		for k, msgs := range w.Errors.ByKey {
			v.ByKey[k] = msgs
		}
	}
	if v.IsValid && (len(v.General) > 0 || len(v.ByKey) > 0) {
		v.IsValid = false
	}
	return v
}
