package wdk

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"strategist/internal/catalog"
)

// maxTreeDepth bounds a query tree (strategies are far shallower).
const maxTreeDepth = 64

// maxPageSize bounds the records asked for in one answer.
const maxPageSize = 1000

// cleanupTimeout bounds deleting temporary steps and strategies, which
// runs even when the caller's context has ended.
const cleanupTimeout = 30 * time.Second

// node is one step of a query tree being answered.
type node struct {
	q      *catalog.Query
	d      *SearchDetails
	params map[string]string
	inputs []*node
}

// Answer runs a query tree on the live site. A single leaf runs as a
// stateless report (nothing is created in the user's account). A tree
// creates every step (concurrently, input-step parameters "", wdkWeight
// set), one temporary strategy whose step tree wires them (input order =
// the search's input-step parameter order), reads the root's count and
// page from its standard report, and deletes the strategy, also when the
// caller gives up. Count is the display count (genes for gene searches).
// Page offsets count WDK's records, which for gene searches are
// transcripts: a gene's further transcripts on the page fold into one
// Record, so a page may hold fewer records than its limit.
func (c *Client) Answer(ctx context.Context, site string, q *catalog.Query, page catalog.Page) (*catalog.Answer, error) {
	if q == nil {
		return nil, &catalog.ValidationError{General: []string{"no query"}}
	}
	root, err := c.prepare(ctx, site, q, 0)
	if err != nil {
		return nil, err
	}
	rc := c.reportConfig(ctx, site, root.d, page)
	var rep *Report
	if len(root.inputs) == 0 {
		w := q.Weight
		rep, err = c.SearchReport(ctx, site, root.d.RecordType, root.d.Name, SearchConfig{Parameters: root.params, WDKWeight: &w}, rc)
	} else {
		rep, err = c.answerTree(ctx, site, root, rc)
	}
	if err != nil {
		return nil, err
	}
	return c.toAnswer(ctx, site, rep), nil
}

// prepare loads the searches of a tree, checks its shape and fills every
// step's parameters.
func (c *Client) prepare(ctx context.Context, site string, q *catalog.Query, depth int) (*node, error) {
	if depth > maxTreeDepth {
		return nil, &catalog.ValidationError{Search: q.Search, General: []string{fmt.Sprintf("query tree deeper than %d", maxTreeDepth)}}
	}
	d, err := c.details(ctx, site, "", q.Search)
	if err != nil {
		return nil, err
	}
	if len(q.Inputs) != len(d.InputParams) {
		return nil, &catalog.ValidationError{Search: d.Name, General: []string{
			fmt.Sprintf("%s takes %d input step(s) (%s), the query gives %d", d.Name, len(d.InputParams), strings.Join(d.InputParams, ", "), len(q.Inputs))}}
	}
	n := &node{q: q, d: d}
	for i, in := range q.Inputs {
		if in == nil {
			return nil, &catalog.ValidationError{Search: d.Name, General: []string{fmt.Sprintf("input %d of %s is empty", i+1, d.Name)}}
		}
		child, err := c.prepare(ctx, site, in, depth+1)
		if err != nil {
			return nil, err
		}
		allowed := d.AllowedPrimaryInputs
		if i == 1 {
			allowed = d.AllowedSecondaryInputs
		}
		if len(allowed) > 0 && !slices.Contains(allowed, child.d.RecordType) {
			return nil, &catalog.ValidationError{Search: d.Name, ByKey: map[string][]string{d.InputParams[i]: {
				fmt.Sprintf("%s gives %s records; %s accepts %s", child.d.Name, child.d.RecordType, d.InputParams[i], strings.Join(allowed, ", "))}}}
		}
		n.inputs = append(n.inputs, child)
	}
	params, err := c.fill(ctx, site, d, q.Params, false)
	if err != nil {
		return nil, err
	}
	for name, v := range params {
		if p, ok := d.Param(name); ok {
			params[name] = expandLeaves(d, p, v)
		}
	}
	if params, err = c.withDatasets(ctx, site, d, params); err != nil {
		return nil, err
	}
	n.params = params
	return n, nil
}

// answerTree builds the temporary strategy and reads the root's report.
func (c *Client) answerTree(ctx context.Context, site string, root *node, rc ReportConfig) (*Report, error) {
	stratID, tree, err := c.BuildStrategy(ctx, site, NewStrategy{
		Name:     c.tempPrefix + root.d.Name + " " + strconv.FormatInt(time.Now().UnixMilli(), 10),
		IsSaved:  false,
		IsPublic: false,
	}, root.plan())
	if err != nil {
		return nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if err := c.DeleteStrategy(cctx, site, stratID); err != nil {
			c.log.LogAttrs(ctx, slog.LevelWarn, "wdk: temporary strategy not deleted",
				slog.String("site", site), slog.Int64("strategy_id", stratID), slog.Any("error", err))
		}
	}()
	return c.StepReport(ctx, site, tree.StepID, rc)
}

// plan is the step bodies of a prepared tree: every parameter filled,
// input-step parameters "", the query's weight.
func (n *node) plan() *StepPlan {
	w := n.q.Weight
	p := &StepPlan{Step: NewStep{SearchName: n.d.Name, SearchConfig: SearchConfig{Parameters: n.params, WDKWeight: &w}}}
	for _, in := range n.inputs {
		p.Inputs = append(p.Inputs, in.plan())
	}
	return p
}

// recordAttributes are the attributes a catalog.Record is made of, asked
// for when the record type has them.
var recordAttributes = []string{"gene_product", "gene_type", "gene_name", "organism", "chromosome", "gene_location_text", "wdk_weight"}

// reportConfig asks for the page and the attributes the record type has,
// ordered by record id. Without the record type's attribute list it asks
// for none (WDK's defaults) rather than risk a rejected report.
func (c *Client) reportConfig(ctx context.Context, site string, d *SearchDetails, page catalog.Page) ReportConfig {
	rc := ReportConfig{Pagination: Pagination{Offset: max(page.Offset, 0), NumRecords: min(max(page.Limit, 0), maxPageSize)}}
	if rc.Pagination.NumRecords == 0 {
		return rc
	}
	info, err := c.recordTypeInfo(ctx, site, d.RecordType)
	if err != nil {
		c.log.LogAttrs(ctx, slog.LevelWarn, "wdk: record type attributes unavailable; reporting default attributes",
			slog.String("site", site), slog.String("record_type", d.RecordType), slog.Any("error", err))
		return rc
	}
	have := map[string]bool{}
	for _, a := range info.Attributes {
		have[a] = true
	}
	for _, a := range d.DynamicAttributes {
		have[a] = true
	}
	for _, a := range recordAttributes {
		if have[a] {
			rc.Attributes = append(rc.Attributes, a)
		}
	}
	if info.RecordIDAttribute != "" {
		rc.Sorting = []Sort{{AttributeName: info.RecordIDAttribute, Direction: "ASC"}}
	}
	return rc
}

// toAnswer maps a report onto the catalog's answer.
func (c *Client) toAnswer(ctx context.Context, site string, rep *Report) *catalog.Answer {
	s := c.sites[site]
	a := &catalog.Answer{Records: []catalog.Record{}}
	a.Provenance = catalog.Provenance{Source: s.DisplayName + " (live VEuPathDB WDK service)", Offline: false}
	if rep.DisplayTotalCount != nil {
		a.Count = int(*rep.DisplayTotalCount)
	} else {
		a.Count = int(rep.TotalCount)
		a.Provenance.Note = "count is of records (transcripts for gene searches): the site sent no display count"
	}
	if info, err := c.serviceInfo(ctx, site); err == nil {
		a.Provenance.Release = info.BuildNumber
		a.Provenance.Year = yearOf(info.ReleaseDate)
	} else {
		c.log.LogAttrs(ctx, slog.LevelDebug, "wdk: service info unavailable for provenance", slog.String("site", site), slog.Any("error", err))
	}
	seen := map[string]bool{}
	for i := range rep.Records {
		r := toRecord(&rep.Records[i])
		if r.GeneID == "" || seen[r.GeneID] {
			continue // a gene's other transcripts
		}
		seen[r.GeneID] = true
		a.Records = append(a.Records, r)
	}
	return a
}

var yearRE = regexp.MustCompile(`\b(19|20)\d\d\b`)

func yearOf(date string) int {
	y, _ := strconv.Atoi(yearRE.FindString(date))
	return y
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// toRecord maps a report record onto a gene record.
func toRecord(r *ReportRecord) catalog.Record {
	attr := func(names ...string) string {
		for _, n := range names {
			if v := strings.TrimSpace(r.Attributes[n]); v != "" {
				return strings.TrimSpace(tagRE.ReplaceAllString(v, ""))
			}
		}
		return ""
	}
	id, ok := r.Key("gene_source_id")
	if !ok {
		id = attr("gene_source_id")
	}
	if id == "" && len(r.ID) > 0 {
		id = r.ID[0].Value
	}
	if id == "" {
		id = attr("primary_key")
	}
	rec := catalog.Record{
		GeneID:     id,
		Product:    attr("gene_product", "product"),
		GeneType:   attr("gene_type"),
		GeneName:   attr("gene_name"),
		Organism:   attr("organism"),
		Chromosome: attr("chromosome"),
	}
	if rec.Chromosome == "" {
		if loc := attr("gene_location_text"); loc != "" {
			if i := strings.Index(loc, ":"); i > 0 {
				rec.Chromosome = strings.TrimSpace(loc[:i])
			}
		}
	}
	if w := attr("wdk_weight"); w != "" {
		rec.Weight, _ = strconv.Atoi(w)
	}
	return rec
}
