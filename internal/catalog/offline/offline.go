// Package offline is Strategist's PlasmoDB catalog without a network: the
// site's gene searches described in embedded JSON, and an evaluator that
// answers them from a real P. falciparum 3D7 gene export (2017) read at start.
//
// Searches whose data the snapshot lacks still validate and build, so plans
// can be made offline, but answering them gives *catalog.NotEvaluableError,
// never an invented count. Every answer carries its provenance. Without the
// gene data the catalog still lists and validates searches; Answer then says
// to run `make data`.
package offline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"strategist/internal/catalog"
	"strategist/internal/catalog/rank"
)

// SiteID is the one site of the offline catalog.
const SiteID = "plasmodb"

// RecordTypeTranscript is the record type of gene searches ("Gene" on the
// site; genes are searched through their transcripts).
const RecordTypeTranscript = "transcript"

// defaultCacheEntries bounds the shared result cache; a result is at most a
// few tens of kilobytes (5.7k genes).
const defaultCacheEntries = 256

// Config configures New.
type Config struct {
	// Data is the gene snapshot; nil builds a catalog that lists and
	// validates searches but cannot answer.
	Data *Data
	// DataErr says why Data is nil (usually a *MissingDataError); Answer
	// reports it.
	DataErr error
	// CacheEntries bounds the shared cache of evaluated sub-trees (default
	// 256; negative disables it).
	CacheEntries int
}

// Catalog is the offline catalog.Catalog. It is immutable after New apart
// from its result cache, which has its own lock, so one Catalog serves all
// requests concurrently.
type Catalog struct {
	data        *Data
	dataErr     error
	site        catalog.Site
	recordTypes []catalog.RecordType
	searches    []*searchDef
	byName      map[string]*searchDef
	ranker      *rank.Index
	text        *textIndex
	cache       *resultCache
}

var _ catalog.Catalog = (*Catalog)(nil)

// NoDataError says answers are impossible because the gene data was not
// loaded. It matches catalog.ErrUnavailable and unwraps to the load error.
type NoDataError struct {
	Cause error
}

func (e *NoDataError) Error() string {
	msg := "offline answers are unavailable because the gene data is missing; run `make data` (or set STRATEGIST_DATA_DIR)"
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

func (e *NoDataError) Unwrap() []error { return []error{catalog.ErrUnavailable, e.Cause} }

// New builds the catalog from the embedded search definitions and cfg.Data.
func New(cfg Config) (*Catalog, error) {
	specs, err := parseSpec()
	if err != nil {
		return nil, err
	}
	defs, err := buildSearches(specs, cfg.Data)
	if err != nil {
		return nil, err
	}
	c := &Catalog{
		data:     cfg.Data,
		dataErr:  cfg.DataErr,
		site:     catalog.Site{ID: SiteID, DisplayName: "PlasmoDB", ProjectID: "PlasmoDB", Offline: true},
		searches: defs,
		byName:   make(map[string]*searchDef, len(defs)),
	}
	if c.data == nil && c.dataErr == nil {
		c.dataErr = errors.New("no gene data was given")
	}
	if c.data != nil {
		c.dataErr = nil
		c.text = newTextIndex(c.data)
	}
	for _, d := range defs {
		if _, dup := c.byName[d.search.Name]; dup {
			return nil, fmt.Errorf("offline: search %s defined twice", d.search.Name)
		}
		c.byName[d.search.Name] = d
	}
	c.recordTypes = recordTypes(len(defs))
	docs := make([]rank.Doc, len(defs))
	for i, d := range defs {
		docs[i] = rank.Doc{Search: d.search.SearchSummary, Keywords: d.keyword, Params: d.search.Params}
	}
	c.ranker = rank.New(docs)
	entries := cfg.CacheEntries
	if entries == 0 {
		entries = defaultCacheEntries
	}
	c.cache = newResultCache(entries)
	return c, nil
}

// Open loads the gene data from dir and builds the catalog. Missing data is
// not an error: the catalog is built without it and DataErr says why, so the
// server starts and can tell the user to run `make data`. Malformed data is
// an error.
func Open(dir string) (*Catalog, error) {
	d, err := Load(dir)
	var missing *MissingDataError
	if errors.As(err, &missing) {
		return New(Config{DataErr: err})
	}
	if err != nil {
		return nil, err
	}
	return New(Config{Data: d})
}

// FindDataDir picks the gene data directory by the one rule the server,
// the scripts and the tests share: explicit when set (from
// STRATEGIST_DATA_DIR), else ./data, where `make data` puts it (`make run`
// serves from the repository root). It does not check that the data is
// there: Open says what is missing.
func FindDataDir(explicit string) string {
	if explicit != "" {
		return explicit
	}
	return "data"
}

// DataErr is nil when the gene data is loaded, else why answers are
// unavailable.
func (c *Catalog) DataErr() error { return c.dataErr }

// Data is the loaded gene snapshot, or nil.
func (c *Catalog) Data() *Data { return c.data }

// Provenance is what every offline answer says about its source.
func Provenance() catalog.Provenance {
	return catalog.Provenance{
		Source:  "PlasmoDB export (offline snapshot)",
		Release: "P. falciparum 3D7 gene tables exported from PlasmoDB in 2016-2017; GO names from GO release 2022-07-01",
		Year:    2017,
		Offline: true,
		Note:    "Offline snapshot: counts are real for the 2017 export and differ from live PlasmoDB.",
	}
}

// Sites implements catalog.Catalog.
func (c *Catalog) Sites(ctx context.Context) ([]catalog.Site, error) {
	return []catalog.Site{c.site}, nil
}

func (c *Catalog) checkSite(site string) error {
	if site != SiteID {
		return fmt.Errorf("offline: site %q: %w", site, catalog.ErrNotFound)
	}
	return nil
}

// RecordTypes implements catalog.Catalog.
func (c *Catalog) RecordTypes(ctx context.Context, site string) ([]catalog.RecordType, error) {
	if err := c.checkSite(site); err != nil {
		return nil, err
	}
	return slices.Clone(c.recordTypes), nil
}

func (c *Catalog) checkRecordType(recordType string) error {
	if recordType == "" {
		return nil
	}
	for _, rt := range c.recordTypes {
		if rt.Name == recordType {
			return nil
		}
	}
	return fmt.Errorf("offline: record type %q: %w", recordType, catalog.ErrNotFound)
}

// Searches implements catalog.Catalog: the searches of a record type in
// catalog order ("" lists all).
func (c *Catalog) Searches(ctx context.Context, site, recordType string) ([]catalog.SearchSummary, error) {
	if err := c.checkSite(site); err != nil {
		return nil, err
	}
	if err := c.checkRecordType(recordType); err != nil {
		return nil, err
	}
	var out []catalog.SearchSummary
	for _, d := range c.searches {
		if recordType == "" || d.search.RecordType == recordType {
			out = append(out, d.search.SearchSummary)
		}
	}
	return out, nil
}

// Search implements catalog.Catalog. The result is the caller's own copy.
func (c *Catalog) Search(ctx context.Context, site, recordType, name string) (*catalog.Search, error) {
	d, err := c.lookup(site, name)
	if err != nil {
		return nil, err
	}
	if recordType != "" && d.search.RecordType != recordType {
		return nil, fmt.Errorf("offline: search %s of record type %q: %w", name, recordType, catalog.ErrNotFound)
	}
	s := d.search
	s.Params = make([]catalog.Param, len(d.search.Params))
	for i, p := range d.search.Params {
		p.Vocabulary = slices.Clone(p.Vocabulary)
		p.DependentParams = slices.Clone(p.DependentParams)
		s.Params[i] = p
	}
	s.InputParams = slices.Clone(d.search.InputParams)
	return &s, nil
}

// OfflineNote says what the offline snapshot can answer for a search.
func (c *Catalog) OfflineNote(name string) string {
	if d, ok := c.byName[name]; ok {
		return d.note
	}
	return ""
}

func (c *Catalog) lookup(site, name string) (*searchDef, error) {
	if err := c.checkSite(site); err != nil {
		return nil, err
	}
	d, ok := c.byName[name]
	if !ok {
		return nil, fmt.Errorf("offline: search %q: %w", name, catalog.ErrNotFound)
	}
	return d, nil
}

// Validate implements catalog.Catalog.
func (c *Catalog) Validate(ctx context.Context, site, searchName string, params map[string]string) (map[string]string, error) {
	d, err := c.lookup(site, searchName)
	if err != nil {
		return nil, err
	}
	filled, verr := c.validate(d, params)
	if verr != nil {
		return nil, verr
	}
	return filled, nil
}

// SearchForSearches implements catalog.Catalog.
func (c *Catalog) SearchForSearches(ctx context.Context, site, query, recordType string, limit int) ([]catalog.SearchSummary, error) {
	if err := c.checkSite(site); err != nil {
		return nil, err
	}
	if err := c.checkRecordType(recordType); err != nil {
		return nil, err
	}
	return c.ranker.Rank(query, recordType, limit), nil
}

// recordTypes lists PlasmoDB's record types (url segments as the live site
// lists them); only transcript has searches offline.
func recordTypes(transcriptSearches int) []catalog.RecordType {
	names := []struct{ name, display string }{
		{"transcript", "Gene"},
		{"gene", "Gene (gene-level record)"},
		{"organism", "Organism"},
		{"genomic-sequence", "Genomic Sequence"},
		{"genomic-segment", "Genomic Segment"},
		{"strain-genomic-segment", "Strain Genomic Segment"},
		{"variation", "SNP"},
		{"est", "EST"},
		{"pathway", "Metabolic Pathway"},
		{"compound", "Compound"},
		{"blast-est-ontology", "BLAST EST Ontology"},
		{"blast-orf-ontology", "BLAST ORF Ontology"},
		{"file", "File"},
		{"build", "Build"},
		{"junction", "Intron Junction"},
		{"dfile", "Download File"},
		{"metrics", "Metrics"},
		{"jbrowse-gene", "JBrowse Gene"},
		{"dataset-release-notes", "Data Set Release Notes"},
		{"legacy-dataset", "Legacy Data Set"},
		{"dataset", "Data Set"},
		{"datasource", "Data Source"},
		{"userdataset", "User Data Set"},
	}
	out := make([]catalog.RecordType, len(names))
	for i, n := range names {
		out[i] = catalog.RecordType{Name: n.name, DisplayName: n.display, DisplayNamePlural: plural(n.display)}
	}
	out[0].FullName = "TranscriptRecordClasses.TranscriptRecordClass"
	out[0].DisplayNamePlural = "Genes"
	out[0].SearchCount = transcriptSearches
	return out
}

func plural(s string) string {
	if strings.HasSuffix(s, ")") || strings.HasSuffix(s, "Metrics") || strings.HasSuffix(s, "Notes") {
		return s
	}
	return s + "s"
}
