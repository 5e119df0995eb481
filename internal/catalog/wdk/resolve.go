package wdk

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"strategist/internal/catalog"
)

// GeneIDsSearch is the gene ids search, whose input-dataset parameter
// takes a list of gene identifiers; the site matches them against current,
// transcript and previous ids.
const GeneIDsSearch = "GeneByLocusTag"

// maxAttributionLookups bounds the look-ups ResolveGenes makes to tell
// which previous ids name which genes.
const maxAttributionLookups = 256

// ResolveGenes resolves a researcher's identifiers against the live site's
// genes with the site's own gene ids search (GeneByLocusTag over a dataset
// of the identifiers), so they are read as the site reads them today. An
// identifier that is a gene id of the answer is kept (in the site's
// spelling), a transcript id of it is mapped to its gene; the rest are
// previous ids or unknown, and are looked up again, in halves down to
// single ones, a set that finds nothing being unknown whole: a previous id
// is mapped to the genes it alone finds (a retired id can name several)
// and an unknown id is listed. A list of current ids costs one
// dataset and one report per 1000 records; each previous id about two
// look-ups per halving. More than maxAttributionLookups look-ups is an
// error saying so, never a guess.
func (c *Client) ResolveGenes(ctx context.Context, site string, ids []string) (*catalog.GeneResolution, error) {
	d, err := c.details(ctx, site, geneRecordType, GeneIDsSearch)
	if err != nil {
		return nil, opErr(site, "resolve gene ids", err)
	}
	param := datasetParam(d)
	if param == "" {
		return nil, opErr(site, "resolve gene ids", fmt.Errorf("%s has no input-dataset parameter: %w", GeneIDsSearch, catalog.ErrUnavailable))
	}
	var given []string // distinct, trimmed, in order
	seen := map[string]bool{}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if k := strings.ToLower(id); id != "" && !seen[k] {
			seen[k] = true
			given = append(given, id)
		}
	}
	out := &catalog.GeneResolution{Genes: []string{}, Mapped: []catalog.IDMapping{}, Unknown: []string{}}
	if len(given) == 0 {
		return out, nil
	}
	r := &resolver{c: c, site: site, d: d, param: param, names: map[string][]string{}}
	recs, err := r.lookup(ctx, given)
	if err != nil {
		return nil, opErr(site, "resolve gene ids", err)
	}
	gene, transcript := map[string]string{}, map[string]string{} // lower-cased id -> gene
	for _, rec := range recs {
		gene[strings.ToLower(rec.gene)] = rec.gene
		if rec.transcript != "" {
			transcript[strings.ToLower(rec.transcript)] = rec.gene
		}
	}
	var rest []string
	for _, id := range given {
		if k := strings.ToLower(id); gene[k] == "" && transcript[k] == "" {
			rest = append(rest, id)
		}
	}
	// The rest may be previous ids, even of genes a current id named.
	if err := r.attribute(ctx, rest); err != nil {
		return nil, opErr(site, "resolve gene ids", err)
	}
	kept := map[string]bool{}
	keep := func(g string) {
		if !kept[g] {
			kept[g] = true
			out.Genes = append(out.Genes, g)
		}
	}
	for _, id := range given {
		k := strings.ToLower(id)
		switch {
		case gene[k] != "":
			keep(gene[k])
		case transcript[k] != "":
			out.Mapped = append(out.Mapped, catalog.IDMapping{From: id, To: transcript[k]})
			keep(transcript[k])
		case len(r.names[k]) > 0:
			for _, g := range r.names[k] {
				out.Mapped = append(out.Mapped, catalog.IDMapping{From: id, To: g})
				keep(g)
			}
		default:
			out.Unknown = append(out.Unknown, id)
		}
	}
	return out, nil
}

// geneRecord is one record of a gene ids answer: a gene and one of its
// transcripts.
type geneRecord struct{ gene, transcript string }

// resolver looks identifiers up with the gene ids search. names collects,
// under mu, the genes each attributed identifier (lower-cased) finds.
type resolver struct {
	c     *Client
	site  string
	d     *SearchDetails
	param string

	mu      sync.Mutex
	lookups int
	names   map[string][]string
}

// lookup runs the gene ids search over ids (a dataset of them, a
// stateless report read whole) and returns its records.
func (r *resolver) lookup(ctx context.Context, ids []string) ([]geneRecord, error) {
	r.mu.Lock()
	r.lookups++
	n := r.lookups
	r.mu.Unlock()
	if n > maxAttributionLookups+1 {
		return nil, fmt.Errorf("the list holds more previous ids than Strategist attributes on a live site (%d look-ups); give current gene ids, or split the list", maxAttributionLookups)
	}
	ds, err := r.c.CreateDataset(ctx, r.site, ids)
	if err != nil {
		return nil, err
	}
	params, err := r.c.fill(ctx, r.site, r.d, map[string]string{r.param: fmt.Sprint(ds)}, false)
	if err != nil {
		return nil, err
	}
	var out []geneRecord
	for offset := 0; ; {
		rep, err := r.c.SearchReport(ctx, r.site, r.d.RecordType, r.d.Name, SearchConfig{Parameters: params},
			ReportConfig{Pagination: Pagination{Offset: offset, NumRecords: maxPageSize}})
		if err != nil {
			return nil, err
		}
		for i := range rep.Records {
			rec := &rep.Records[i]
			g := toRecord(rec).GeneID
			t, _ := rec.Key("source_id")
			if g != "" {
				out = append(out, geneRecord{gene: g, transcript: t})
			}
		}
		offset += len(rep.Records)
		if len(rep.Records) == 0 || int64(offset) >= rep.TotalCount {
			return out, nil
		}
	}
}

// attribute finds which of ids, none of them a current or transcript id,
// name genes: a set that finds nothing is unknown whole, a single
// identifier names what it finds, and a larger set is split in halves,
// looked up concurrently.
func (r *resolver) attribute(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	recs, err := r.lookup(ctx, ids)
	if err != nil || len(recs) == 0 {
		return err
	}
	if len(ids) == 1 {
		var genes []string
		for _, rec := range recs {
			genes = append(genes, rec.gene)
		}
		slices.Sort(genes)
		r.mu.Lock()
		r.names[strings.ToLower(ids[0])] = slices.Compact(genes)
		r.mu.Unlock()
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	half := len(ids) / 2
	g.Go(func() error { return r.attribute(gctx, ids[:half]) })
	g.Go(func() error { return r.attribute(gctx, ids[half:]) })
	return g.Wait()
}
