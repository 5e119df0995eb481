// Package catalogtool offers a VEuPathDB site's catalog to Strategist's
// agents as tools: list_sites, list_record_types, search_for_searches,
// get_search_parameters and lookup_genes. The planner, the executor and
// sub-agents all take them from here, so every role reads the catalog the
// same way.
//
// Results are small typed structs written for a model to read: a search's
// parameters come with how to encode each value, and a vocabulary too large
// to list (the 1,875 GO terms offline) is trimmed to a few examples and a way to
// search it, instead of flooding the context. Failures are *tool.ToolError
// values with stable codes (NOT_FOUND, VALIDATION_ERROR with byKey details,
// UNAVAILABLE), so a model can correct itself.
package catalogtool

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"strategist/internal/catalog"
	"strategist/internal/tool"
)

// Defaults and bounds of the tools.
const (
	// DefaultMaxListedTerms is the largest vocabulary listed whole.
	DefaultMaxListedTerms = 30
	// vocabularyExamples is how many terms of a larger vocabulary are shown
	// when no vocabulary query narrows it.
	vocabularyExamples = 5

	defaultSearchLimit = 10
	maxSearchLimit     = 50
	defaultGeneLimit   = 20
	maxGeneLimit       = 100
)

// GeneLookup is what lookup_genes needs from a catalog beyond
// catalog.Catalog; the offline catalog has it. A catalog without it makes
// lookup_genes answer UNAVAILABLE rather than guess.
type GeneLookup interface {
	LookupGenes(ctx context.Context, site, query string, limit int) (*catalog.GeneMatches, error)
}

// offlineNoter is the offline catalog's note on what its snapshot can
// answer for a search.
type offlineNoter interface {
	OfflineNote(name string) string
}

// siteNoter is the same note from a catalog serving several sites (the
// sites registry): "" for a site that is not offline.
type siteNoter interface {
	OfflineNoteFor(site, name string) string
}

// Config configures the tools of one site.
type Config struct {
	Catalog catalog.Catalog // required
	Site    string          // required: the conversation's site
	// MaxListedTerms is the largest vocabulary listed whole by
	// get_search_parameters (default DefaultMaxListedTerms).
	MaxListedTerms int
}

// Set is the catalog tools of one site. It holds no mutable state: one Set
// serves any number of concurrent runs.
type Set struct {
	cat      catalog.Catalog
	site     string
	maxTerms int
}

// New checks cfg and returns the tools of cfg.Site.
func New(cfg Config) (*Set, error) {
	if cfg.Catalog == nil || strings.TrimSpace(cfg.Site) == "" {
		return nil, errors.New("catalogtool: new: Catalog and Site are required")
	}
	if cfg.MaxListedTerms < 0 {
		return nil, errors.New("catalogtool: new: negative MaxListedTerms")
	}
	if cfg.MaxListedTerms == 0 {
		cfg.MaxListedTerms = DefaultMaxListedTerms
	}
	return &Set{cat: cfg.Catalog, site: cfg.Site, maxTerms: cfg.MaxListedTerms}, nil
}

// Tools returns the five catalog tools, in the order they are declared to
// the model. A role composes them with its own tools in tool.NewToolset.
func (s *Set) Tools() []tool.Tool {
	return []tool.Tool{
		tool.NewTool("list_sites", "List the VEuPathDB sites Strategist can search, marking the one this conversation uses.", s.ListSites),
		tool.NewTool("list_record_types",
			"List the record types of this conversation's site with how many searches each has. Gene searches use record type \"transcript\" (shown as Gene).",
			s.ListRecordTypes),
		tool.NewTool("search_for_searches",
			"Find the searches of this site that fit a need, best first. Describe what the genes should have in a few specific words (\"GO term\", \"chromosome location\", \"gene type\", \"molecular weight\"). "+
				"Each result gives the search name to use, its kind (leaf: a search step; transform: applied to one step) and whether its counts can be computed here.",
			s.SearchForSearches, tool.WithSchema(func(sc *jsonschema.Schema) {
				sc.Properties["query"].MinLength = ptr(1)
				sc.Properties["limit"].Minimum, sc.Properties["limit"].Maximum = ptr(1.0), ptr(float64(maxSearchLimit))
			})),
		tool.NewTool("get_search_parameters",
			"Describe one search's parameters: type, whether required, default, allowed values and how to encode each value. "+
				"Every value is a string: multi-pick values are JSON-array strings such as \"[\\\"GO:0006260\\\"]\". "+
				"A vocabulary too large to list shows a few examples; call again with vocabulary_query (words of the value you need, or its id) to see the matching terms.",
			s.GetSearchParameters, tool.WithSchema(func(sc *jsonschema.Schema) {
				sc.Properties["search_name"].MinLength = ptr(1)
			})),
		tool.NewTool("lookup_genes",
			"Find genes by gene id, previous id, transcript id, symbol (\"AMA1\") or words of their product description (\"apical membrane antigen\"). "+
				"Several ids may be given at once, separated by spaces or commas; * is a wildcard. Use the geneId values in GeneByLocusTag to build a step from them.",
			s.LookupGenes, tool.WithSchema(func(sc *jsonschema.Schema) {
				sc.Properties["query"].MinLength = ptr(1)
				sc.Properties["limit"].Minimum, sc.Properties["limit"].Maximum = ptr(1.0), ptr(float64(maxGeneLimit))
			})),
	}
}

func ptr[T any](v T) *T { return &v }

// NoArgs are the arguments of a tool that takes none.
type NoArgs struct{}

// SiteInfo is one site as list_sites shows it.
type SiteInfo struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
	// Offline is true when answers come from an embedded snapshot.
	Offline bool `json:"offline"`
	// Current marks the site of this conversation.
	Current bool `json:"current,omitempty"`
}

// SitesResult is the result of list_sites.
type SitesResult struct {
	CurrentSite string     `json:"currentSite"`
	Sites       []SiteInfo `json:"sites"`
}

// ListSites is the list_sites tool.
func (s *Set) ListSites(ctx context.Context, _ NoArgs) (*SitesResult, error) {
	sites, err := s.cat.Sites(ctx)
	if err != nil {
		return nil, ToolError("list sites", err)
	}
	out := &SitesResult{CurrentSite: s.site, Sites: make([]SiteInfo, len(sites))}
	for i, site := range sites {
		out.Sites[i] = SiteInfo{ID: site.ID, DisplayName: site.DisplayName, Offline: site.Offline, Current: site.ID == s.site}
	}
	return out, nil
}

// RecordTypeInfo is one record type as list_record_types shows it.
type RecordTypeInfo struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	SearchCount int    `json:"searchCount"`
}

// RecordTypesResult is the result of list_record_types.
type RecordTypesResult struct {
	Site        string           `json:"site"`
	RecordTypes []RecordTypeInfo `json:"recordTypes"`
}

// ListRecordTypes is the list_record_types tool.
func (s *Set) ListRecordTypes(ctx context.Context, _ NoArgs) (*RecordTypesResult, error) {
	rts, err := s.cat.RecordTypes(ctx, s.site)
	if err != nil {
		return nil, ToolError("list record types", err)
	}
	out := &RecordTypesResult{Site: s.site, RecordTypes: make([]RecordTypeInfo, len(rts))}
	for i, rt := range rts {
		out.RecordTypes[i] = RecordTypeInfo{Name: rt.Name, DisplayName: rt.DisplayName, SearchCount: rt.SearchCount}
	}
	return out, nil
}

// SearchArgs are the arguments of search_for_searches.
type SearchArgs struct {
	Query      string `json:"query" jsonschema:"what the genes should have, in a few specific words"`
	RecordType string `json:"record_type,omitempty" jsonschema:"limit to one record type, e.g. transcript; empty for all"`
	Limit      int    `json:"limit,omitempty" jsonschema:"how many searches to return (default 10)"`
}

// SearchHit is one ranked search.
type SearchHit struct {
	Name        string             `json:"name"`
	DisplayName string             `json:"displayName"`
	RecordType  string             `json:"recordType"`
	Kind        catalog.SearchKind `json:"kind"`
	Summary     string             `json:"summary,omitempty"`
	// Evaluable is false when counts of this search cannot be computed
	// here (it still validates and builds).
	Evaluable bool    `json:"evaluable"`
	Score     float64 `json:"score"`
}

// SearchesResult is the result of search_for_searches.
type SearchesResult struct {
	Query      string      `json:"query"`
	RecordType string      `json:"recordType,omitempty"`
	Searches   []SearchHit `json:"searches"`
	Hint       string      `json:"hint,omitempty"`
}

// SearchForSearches is the search_for_searches tool.
func (s *Set) SearchForSearches(ctx context.Context, a SearchArgs) (*SearchesResult, error) {
	limit := a.Limit
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxSearchLimit)
	query := strings.TrimSpace(a.Query)
	found, err := s.cat.SearchForSearches(ctx, s.site, query, a.RecordType, limit)
	if errors.Is(err, catalog.ErrNotFound) && a.RecordType != "" {
		return nil, s.unknownRecordType(ctx, a.RecordType, err)
	}
	if err != nil {
		return nil, ToolError("search for searches", err)
	}
	out := &SearchesResult{Query: query, RecordType: a.RecordType, Searches: make([]SearchHit, len(found))}
	for i, f := range found {
		out.Searches[i] = SearchHit{Name: f.Name, DisplayName: f.DisplayName, RecordType: f.RecordType, Kind: f.Kind,
			Summary: f.Summary, Evaluable: f.Evaluable, Score: math.Round(f.Score*100) / 100}
	}
	if len(found) == 0 {
		out.Hint = "no search matched; try other or fewer words, or a broader term (\"text\", \"location\", \"ontology\")"
	}
	return out, nil
}

// unknownRecordType is NOT_FOUND naming the record types that exist.
func (s *Set) unknownRecordType(ctx context.Context, recordType string, cause error) error {
	details := map[string]any{"recordType": recordType}
	if rts, err := s.cat.RecordTypes(ctx, s.site); err == nil {
		var names []string
		for _, rt := range rts {
			if rt.SearchCount > 0 {
				names = append(names, rt.Name)
			}
		}
		details["recordTypesWithSearches"] = names
	}
	return &tool.ToolError{Code: CodeNotFound, Details: details, Err: cause,
		Message: fmt.Sprintf("site %s has no record type %q with searches", s.site, recordType)}
}

// GenesArgs are the arguments of lookup_genes.
type GenesArgs struct {
	Query string `json:"query" jsonschema:"gene ids, previous ids or symbols (separated by spaces or commas), or words of a product description"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many genes to return (default 20)"`
}

// GenesResult is the result of lookup_genes.
type GenesResult struct {
	catalog.GeneMatches
	// Truncated is true when more genes matched than are listed.
	Truncated bool `json:"truncated,omitempty"`
}

// LookupGenes is the lookup_genes tool.
func (s *Set) LookupGenes(ctx context.Context, a GenesArgs) (*GenesResult, error) {
	gl, ok := s.cat.(GeneLookup)
	if !ok {
		return nil, &tool.ToolError{Code: CodeUnavailable,
			Message: fmt.Sprintf("gene lookup is not available for site %s; search genes with a text search instead", s.site)}
	}
	limit := a.Limit
	if limit <= 0 {
		limit = defaultGeneLimit
	}
	limit = min(limit, maxGeneLimit)
	m, err := gl.LookupGenes(ctx, s.site, a.Query, limit)
	if err != nil {
		return nil, ToolError("lookup genes", err)
	}
	return &GenesResult{GeneMatches: *m, Truncated: m.Total > len(m.Genes)}, nil
}
