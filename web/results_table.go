package web

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"strategist/internal/catalog"
)

// The results table of a step is one for the bench: filtered by words,
// sorted by any column, paged by a size the researcher picks (or all
// rows). Filtering and sorting work on all of a step's genes, so the
// server reads them all (as a download does) when either is asked for;
// the catalog's own paging serves the plain table.

// GeneColumn is a column of the results table.
type GeneColumn struct {
	// Key names it in the table's address (sort=product).
	Key string
	// Heading is its header.
	Heading string
	// Hidden columns are off until the researcher turns them on in the
	// table's Columns menu (the page remembers the choice).
	Hidden bool
	value  func(catalog.Record) string
}

// GeneColumns are the results table's columns, in order.
var GeneColumns = []GeneColumn{
	{Key: "id", Heading: "Gene ID", value: func(r catalog.Record) string { return r.GeneID }},
	{Key: "symbol", Heading: "Symbol", value: func(r catalog.Record) string { return r.GeneName }},
	{Key: "product", Heading: "Product", value: func(r catalog.Record) string { return r.Product }},
	{Key: "type", Heading: "Type", value: func(r catalog.Record) string { return r.GeneType }},
	{Key: "chromosome", Heading: "Chromosome", value: func(r catalog.Record) string { return r.Chromosome }},
	{Key: "previous", Heading: "Previous ids", Hidden: true, value: func(r catalog.Record) string { return strings.Join(r.PreviousIDs, ", ") }},
}

// hiddenColumns is the results box's class list for the columns hidden
// until chosen: "hide-col-previous".
func hiddenColumns() string {
	var out []string
	for _, c := range GeneColumns {
		if c.Hidden {
			out = append(out, "hide-col-"+c.Key)
		}
	}
	return strings.Join(out, " ")
}

// columnKeys lists the columns' keys, for messages.
func columnKeys() string {
	keys := make([]string, len(GeneColumns))
	for i, c := range GeneColumns {
		keys[i] = c.Key
	}
	return strings.Join(keys, ", ")
}

// PageSizes are the page sizes the table offers; 0 is all rows.
var PageSizes = []int{20, 50, 100, 500, 0}

// DefaultPageSize is the table's page size until the researcher picks one.
const DefaultPageSize = 20

// MaxTableGenes bounds the genes a filter, a sort or "all rows" reads: a
// larger step is paged in the catalog's order only.
const MaxTableGenes = 20000

// GeneQuery is what the researcher asked of the table besides the page.
type GeneQuery struct {
	// Filter keeps the genes whose row holds every one of its words
	// (any case), previous ids included.
	Filter string
	// Sort is the Key of the column sorted by; "" keeps the catalog's order.
	Sort string
	// Desc sorts from the end.
	Desc bool
}

// ParseGeneTable reads the table's query from a request's values: q, sort,
// dir (asc or desc), offset, and limit (a number up to
// strategies' page bound, or "all", which ResultsView keeps as 0).
func ParseGeneTable(v url.Values) (GeneQuery, int, int, error) {
	q := GeneQuery{Filter: strings.Join(strings.Fields(v.Get("q")), " "), Sort: v.Get("sort")}
	if len([]rune(q.Filter)) > 200 {
		return GeneQuery{}, 0, 0, fmt.Errorf("q must be at most 200 characters")
	}
	if q.Sort != "" && !slices.ContainsFunc(GeneColumns, func(c GeneColumn) bool { return c.Key == q.Sort }) {
		return GeneQuery{}, 0, 0, fmt.Errorf("sort must be one of %s", columnKeys())
	}
	switch v.Get("dir") {
	case "", "asc":
	case "desc":
		q.Desc = true
	default:
		return GeneQuery{}, 0, 0, fmt.Errorf(`dir must be "asc" or "desc"`)
	}
	offset, limit := 0, DefaultPageSize
	if raw := v.Get("offset"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 || n > 1_000_000 {
			return GeneQuery{}, 0, 0, fmt.Errorf("offset must be a number from 0 to 1000000")
		}
		offset = n
	}
	switch raw := v.Get("limit"); raw {
	case "":
	case "all":
		limit = 0
	default:
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > 1000 {
			return GeneQuery{}, 0, 0, fmt.Errorf(`limit must be a number from 1 to 1000, or "all"`)
		}
		limit = n
	}
	return q, offset, limit, nil
}

// ReadsAll reports whether the table needs all of the step's genes rather
// than one page of the catalog's: to filter, to sort, or to show all rows.
func (q GeneQuery) ReadsAll(limit int) bool { return q.Filter != "" || q.Sort != "" || limit == 0 }

// Apply filters and sorts all of a step's records and cuts the page of
// offset and limit (0: all); matched is how many passed the filter.
func (q GeneQuery) Apply(recs []catalog.Record, offset, limit int) (page []catalog.Record, matched int) {
	kept := recs
	if q.Filter != "" {
		words := strings.Fields(strings.ToLower(q.Filter))
		kept = nil
		for _, r := range recs {
			row := strings.ToLower(strings.Join(append([]string{r.GeneID, r.GeneName, r.Product, r.GeneType, r.Chromosome}, r.PreviousIDs...), "\t"))
			if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(row, w) }) {
				kept = append(kept, r)
			}
		}
	} else {
		kept = slices.Clone(recs)
	}
	if i := slices.IndexFunc(GeneColumns, func(c GeneColumn) bool { return c.Key == q.Sort }); i >= 0 {
		value := GeneColumns[i].value
		slices.SortStableFunc(kept, func(a, b catalog.Record) int {
			// Empty cells last either way; ties in the catalog's order.
			va, vb := value(a), value(b)
			if (va == "") != (vb == "") {
				return cmp.Compare(boolInt(va == ""), boolInt(vb == ""))
			}
			c := cmp.Compare(strings.ToLower(va), strings.ToLower(vb))
			if q.Desc {
				c = -c
			}
			return c
		})
	}
	matched = len(kept)
	if offset >= len(kept) {
		return nil, matched
	}
	kept = kept[offset:]
	if limit > 0 && limit < len(kept) {
		kept = kept[:limit]
	}
	return kept, matched
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// values is the table's query as an address's values (defaults left out).
func (v ResultsView) values(offset int) url.Values {
	out := url.Values{}
	if offset > 0 {
		out.Set("offset", strconv.Itoa(offset))
	}
	switch {
	case v.Limit == 0:
		out.Set("limit", "all")
	case v.Limit != DefaultPageSize:
		out.Set("limit", strconv.Itoa(v.Limit))
	}
	if v.Filter != "" {
		out.Set("q", v.Filter)
	}
	if v.Sort != "" {
		out.Set("sort", v.Sort)
		if v.Desc {
			out.Set("dir", "desc")
		}
	}
	return out
}

// resultsURL is the table at offset, as it is filtered, sorted and paged.
func resultsURL(v ResultsView, offset int) string {
	u := v.stepURL("results")
	if q := v.values(offset).Encode(); q != "" {
		u += "?" + q
	}
	return u
}

// sortURL is the table sorted by col: ascending, or descending when it is
// sorted by col ascending already; back at its first page.
func sortURL(v ResultsView, col string) string {
	w := v
	w.Sort, w.Desc = col, v.Sort == col && !v.Desc
	return resultsURL(w, 0)
}

// ariaSort is a column header's aria-sort.
func ariaSort(v ResultsView, col string) string {
	switch {
	case v.Sort != col:
		return "none"
	case v.Desc:
		return "descending"
	}
	return "ascending"
}

// sortLabel says what clicking a column header does.
func sortLabel(v ResultsView, c GeneColumn) string {
	if v.Sort == c.Key && !v.Desc {
		return "Sort by " + strings.ToLower(c.Heading) + ", last first"
	}
	return "Sort by " + strings.ToLower(c.Heading)
}

// sortMark is the arrow of the sorted column.
func sortMark(v ResultsView, col string) string {
	switch {
	case v.Sort != col:
		return ""
	case v.Desc:
		return " ▼"
	}
	return " ▲"
}

// pageSizeText names a page size in the table's select.
func pageSizeText(n int) string {
	if n == 0 {
		return "all"
	}
	return strconv.Itoa(n)
}

// cell is a record's value in a column.
func cell(r catalog.Record, c GeneColumn) string { return c.value(r) }

// genesID is the element id of the step's table (resultsGenes).
func (v ResultsView) genesID() string { return "results-genes-" + v.StepID }

// shownTotal is how many genes the table pages through: those the filter
// kept, or all of the step's.
func (v ResultsView) shownTotal() int {
	if v.Filter != "" {
		return v.Matched
	}
	return v.Answer.Count
}

// dirValue is the table's sort direction as its address says it.
func dirValue(v ResultsView) string {
	if v.Desc {
		return "desc"
	}
	return ""
}
