// Package catalog describes what Strategist's agents can search on a
// VEuPathDB site: record types, searches, their parameters, validation with
// WDK's rules, and answers (counts and records) for a search or a whole
// strategy tree.
//
// Two implementations exist: catalog/offline (an embedded PlasmoDB snapshot
// with an evaluator over real gene data) and catalog/wdk (the live WDK REST
// API). Both speak WDK's vocabulary (url segments, WDK parameter types, the
// string encoding of parameter values) so agents behave the same on either,
// and share its rules: values are checked and encoded here (CheckValues),
// searches ranked by package rank, and package catalogtest is the suite
// both pass.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Site is a VEuPathDB site Strategist can build strategies on.
type Site struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	ProjectID   string `json:"projectId"`
	// Offline is true when answers come from an embedded snapshot.
	Offline bool `json:"offline"`
}

// RecordType is a WDK record class ("transcript" is shown as "Gene").
type RecordType struct {
	Name              string `json:"name"` // url segment
	FullName          string `json:"fullName"`
	DisplayName       string `json:"displayName"`
	DisplayNamePlural string `json:"displayNamePlural"`
	SearchCount       int    `json:"searchCount"`
}

// SearchKind says how many input steps a search takes.
type SearchKind string

// The search kinds, from the number of input-step parameters.
const (
	KindLeaf      SearchKind = "leaf"      // no inputs
	KindTransform SearchKind = "transform" // one input
	KindCombine   SearchKind = "combine"   // two inputs
)

// SearchSummary is a search as listed or ranked.
type SearchSummary struct {
	Name             string     `json:"name"` // url segment, e.g. GenesByGoTerm
	FullName         string     `json:"fullName,omitempty"`
	DisplayName      string     `json:"displayName"`
	ShortDisplayName string     `json:"shortDisplayName,omitempty"`
	RecordType       string     `json:"recordType"`
	Summary          string     `json:"summary,omitempty"`
	Description      string     `json:"description,omitempty"`
	Kind             SearchKind `json:"kind"`
	// Evaluable is false for searches that validate and build but whose
	// answers this catalog cannot compute (offline snapshot limits).
	Evaluable bool `json:"evaluable"`
	// Score is the ranking score from SearchForSearches (0 elsewhere).
	Score float64 `json:"score,omitempty"`
}

// ParamType is a WDK JSON parameter type.
type ParamType string

// The WDK parameter types (WDK JsonKeys).
const (
	ParamString       ParamType = "string"
	ParamNumber       ParamType = "number"
	ParamNumberRange  ParamType = "number-range"
	ParamDate         ParamType = "date"
	ParamDateRange    ParamType = "date-range"
	ParamTimestamp    ParamType = "timestamp"
	ParamSinglePick   ParamType = "single-pick-vocabulary"
	ParamMultiPick    ParamType = "multi-pick-vocabulary"
	ParamFilter       ParamType = "filter"
	ParamInputDataset ParamType = "input-dataset"
	ParamInputStep    ParamType = "input-step"
)

// Term is one vocabulary entry: the value to send, what to show, and its
// parent in a tree vocabulary ("" for flat ones).
type Term struct {
	Term    string `json:"term"`
	Display string `json:"display"`
	Parent  string `json:"parent,omitempty"`
	// Synonyms are other names of the term a vocabulary query may use
	// (GO's own synonyms of a GO term, where the catalog has them). They
	// are for matching and are not sent with the vocabulary.
	Synonyms []string `json:"-"`
	// Definition defines the term (GO's definition of a GO term), where
	// the catalog has one; sent only with a term a query named exactly.
	Definition string `json:"-"`
}

// Param is one parameter of a search.
type Param struct {
	Name        string    `json:"name"`
	DisplayName string    `json:"displayName"`
	Help        string    `json:"help,omitempty"`
	Type        ParamType `json:"type"`
	DisplayType string    `json:"displayType,omitempty"` // select, checkBox, treeBox, typeAhead
	IsVisible   bool      `json:"isVisible"`
	IsReadOnly  bool      `json:"isReadOnly,omitempty"`
	AllowEmpty  bool      `json:"allowEmptyValue,omitempty"`
	// Default is WDK's initialDisplayValue, already in wire encoding; ""
	// with HasDefault false means there is none.
	Default    string `json:"default,omitempty"`
	HasDefault bool   `json:"hasDefault"`
	// SiteDefault is set when the default comes from a vocabulary only the
	// live site has (WDK's selectMode first or all over a vocabulary the
	// catalog cannot list): the parameter may be left out, and the site
	// picks its first or all terms.
	SiteDefault bool `json:"siteDefault,omitempty"`
	// MinSelected and MaxSelected bound vocabulary picks; MaxSelected -1 is
	// unlimited.
	MinSelected int    `json:"minSelectedCount,omitempty"`
	MaxSelected int    `json:"maxSelectedCount,omitempty"`
	Vocabulary  []Term `json:"vocabulary,omitempty"`
	// VocabularySize is the full size when Vocabulary was truncated for
	// display (large GO vocabularies).
	VocabularySize int `json:"vocabularySize,omitempty"`
	// DependentParams names the parameters whose vocabulary depends on this
	// one's value.
	DependentParams []string `json:"dependentParams,omitempty"`
	IsNumber        bool     `json:"isNumber,omitempty"`
	Min             *float64 `json:"min,omitempty"`
	Max             *float64 `json:"max,omitempty"`
}

// Search is a search with its parameters.
type Search struct {
	SearchSummary
	Params []Param `json:"parameters"`
	// InputParams names the input-step parameters in declaration order
	// (primary first).
	InputParams []string `json:"inputParams,omitempty"`
}

// Param returns the named parameter.
func (s *Search) Param(name string) (*Param, bool) {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return &s.Params[i], true
		}
	}
	return nil, false
}

// Query is a search with its parameter values and inputs: a whole strategy
// tree when Inputs are set. Params use WDK's string encoding (multi-pick
// values are JSON-array strings); input-step parameters are left empty and
// wired by Inputs, in InputParams order.
type Query struct {
	Search string            `json:"searchName"`
	Params map[string]string `json:"parameters"`
	Weight int               `json:"wdkWeight,omitempty"`
	Inputs []*Query          `json:"inputs,omitempty"`
}

// Key returns a canonical identity of the query tree, usable as a cache key:
// equal trees give equal keys.
func (q *Query) Key() string {
	var b strings.Builder
	q.writeKey(&b)
	return b.String()
}

func (q *Query) writeKey(b *strings.Builder) {
	b.WriteString(q.Search)
	b.WriteByte('{')
	keys := make([]string, 0, len(q.Params))
	for k := range q.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "%q:%q,", k, q.Params[k])
	}
	fmt.Fprintf(b, "w=%d", q.Weight)
	for _, in := range q.Inputs {
		b.WriteByte(',')
		in.writeKey(b)
	}
	b.WriteByte('}')
}

// Page selects records of an answer, ordered by gene id.
type Page struct {
	Offset int
	Limit  int
}

// Record is one gene of an answer.
type Record struct {
	GeneID     string `json:"geneId"`
	Product    string `json:"product"`
	GeneType   string `json:"geneType"`
	GeneName   string `json:"geneName,omitempty"`
	Organism   string `json:"organism,omitempty"`
	Chromosome string `json:"chromosome,omitempty"`
	// PreviousIDs are the gene's retired ids, where the catalog holds them
	// (the offline snapshot does; the live client does not ask for them).
	PreviousIDs []string `json:"previousIds,omitempty"`
	Weight      int      `json:"weight"`
}

// Provenance says where an answer came from, so counts are never shown
// without their source.
type Provenance struct {
	Source  string `json:"source"` // "PlasmoDB export (offline snapshot)" or the live site
	Release string `json:"release,omitempty"`
	Year    int    `json:"year,omitempty"`
	Offline bool   `json:"offline"`
	// Approximate marks answers computed by an approximation of the live
	// search (offline text search).
	Approximate bool   `json:"approximate,omitempty"`
	Note        string `json:"note,omitempty"`
}

// Answer is the result of running a query: Count distinct genes and the
// requested page of records.
type Answer struct {
	Count      int        `json:"count"`
	Records    []Record   `json:"records"`
	Provenance Provenance `json:"provenance"`
}

// Catalog is one source of sites, searches and answers. Methods take the
// site id; an unknown site, record type or search is ErrNotFound.
type Catalog interface {
	Sites(ctx context.Context) ([]Site, error)
	RecordTypes(ctx context.Context, site string) ([]RecordType, error)
	Searches(ctx context.Context, site, recordType string) ([]SearchSummary, error)
	// Search returns one search with its parameters. Searches are unique by
	// name within a site; recordType may be "" to mean any.
	Search(ctx context.Context, site, recordType, name string) (*Search, error)
	// SearchForSearches ranks searches for a free-text need, best first,
	// at most limit of them (limit <= 0: all); an empty query lists them
	// all in catalog order. Both catalogs rank with package rank.
	SearchForSearches(ctx context.Context, site, query, recordType string, limit int) ([]SearchSummary, error)
	// Validate checks parameter values with WDK's rules and returns the
	// complete set (omitted parameters filled from defaults). Problems are a
	// *ValidationError.
	Validate(ctx context.Context, site, searchName string, params map[string]string) (map[string]string, error)
	// Answer runs a query tree. Searches this catalog cannot evaluate give a
	// *NotEvaluableError, never an invented count.
	Answer(ctx context.Context, site string, q *Query, page Page) (*Answer, error)
}

// ErrNotFound means an unknown site, record type or search.
var ErrNotFound = errors.New("catalog: not found")

// ErrUnavailable means the catalog cannot answer right now (the offline gene
// data is missing, or the live site is down); listing and validating
// searches may still work.
var ErrUnavailable = errors.New("catalog: answers unavailable")

// ValidationError lists parameter problems the way WDK reports them.
type ValidationError struct {
	Search  string              `json:"search,omitempty"`
	General []string            `json:"general,omitempty"`
	ByKey   map[string][]string `json:"byKey,omitempty"`
}

func (e *ValidationError) Error() string {
	var parts []string
	parts = append(parts, e.General...)
	keys := make([]string, 0, len(e.ByKey))
	for k := range e.ByKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+": "+strings.Join(e.ByKey[k], "; "))
	}
	return "invalid parameters for " + e.Search + ": " + strings.Join(parts, "; ")
}

// Add records a problem for a parameter ("" for a general problem).
func (e *ValidationError) Add(key, msg string) {
	if key == "" {
		e.General = append(e.General, msg)
		return
	}
	if e.ByKey == nil {
		e.ByKey = map[string][]string{}
	}
	e.ByKey[key] = append(e.ByKey[key], msg)
}

// Empty reports whether no problem was recorded.
func (e *ValidationError) Empty() bool { return len(e.General) == 0 && len(e.ByKey) == 0 }

// NotEvaluableError says a search builds but its answer cannot be computed
// here (the offline snapshot has no data for it).
type NotEvaluableError struct {
	Search string
	Reason string
}

func (e *NotEvaluableError) Error() string {
	msg := "catalog: " + e.Search + " is not evaluable offline"
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// GeneMatch is one gene found by a gene lookup (a gene id, a retired id, a
// symbol or words of its product) and what in the query found it, so an
// agent can tell an exact id hit from a loose product match.
type GeneMatch struct {
	GeneID      string   `json:"geneId"`
	Symbol      string   `json:"symbol,omitempty"`
	Product     string   `json:"product,omitempty"`
	GeneType    string   `json:"geneType,omitempty"`
	Chromosome  string   `json:"chromosome,omitempty"`
	PreviousIDs []string `json:"previousIds,omitempty"`
	// Processes are GO biological processes the gene is annotated to, the
	// most specific (smallest gene set) first and at most a few, where the
	// catalog holds annotations (the offline snapshot does).
	Processes []Term `json:"goProcesses,omitempty"`
	// MatchedOn is the field that matched: one of the MatchedOn constants.
	MatchedOn string `json:"matchedOn"`
	// Matched is the part of the query that matched.
	Matched string `json:"matched"`
}

// The fields a gene lookup matches on, best first.
const (
	MatchedGeneID       = "gene id"
	MatchedTranscriptID = "transcript id"
	MatchedPreviousID   = "previous id"
	MatchedSymbol       = "symbol"
	MatchedProduct      = "product"
)

// GeneMatches is the answer to a gene lookup: the best matches first, at
// most the limit asked for, with Total saying how many matched in all.
type GeneMatches struct {
	Query      string      `json:"query"`
	Genes      []GeneMatch `json:"genes"`
	Total      int         `json:"total"`
	Provenance Provenance  `json:"provenance"`
	// Unmatched lists the identifiers of the query that matched no gene.
	Unmatched []string `json:"unmatched,omitempty"`
}

// IDMapping is an identifier of a researcher's list that named a gene under
// another id (a previous id, a transcript id): From as given, To the gene's
// current id.
type IDMapping struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// GeneResolution is a list of identifiers resolved against a site's genes:
// Genes are the current gene ids, once each, in the order the list first
// named them; Mapped says which identifiers were not current ids and the
// gene each named (a retired id can name several); Unknown lists, once
// each and as given, the identifiers that name no gene. Every identifier
// of the list is in Genes, Mapped or Unknown: none is dropped.
type GeneResolution struct {
	Genes   []string    `json:"genes"`
	Mapped  []IDMapping `json:"mapped"`
	Unknown []string    `json:"unknown"`
}
