package offline

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
)

// Bounds of LookupGenes.
const (
	defaultGeneLookupLimit = 20
	maxGeneLookupLimit     = 200
)

// LookupGenes finds genes of the snapshot for a free-text query, so agents
// can turn what a researcher names ("PF3D7_1133400", "AMA1", "apical
// membrane antigen") into gene ids before building a step. Identifiers in
// the query (separated by spaces, commas, semicolons or new lines; * is a
// wildcard) are matched case-insensitively against gene ids, transcript ids,
// previous ids and gene symbols; when none of them matches, the whole query
// is read as words that must all occur in a gene's product description.
// Exact identifier matches come first, in query order; product matches are
// ranked by how closely the product reads as the query.
func (c *Catalog) LookupGenes(ctx context.Context, site, query string, limit int) (*catalog.GeneMatches, error) {
	if err := c.checkSite(site); err != nil {
		return nil, err
	}
	if c.data == nil {
		return nil, &NoDataError{Cause: c.dataErr}
	}
	query = strings.TrimSpace(query)
	if query == "" {
		ve := &catalog.ValidationError{Search: "gene lookup"}
		ve.Add("query", catalog.MsgEmpty)
		return nil, ve
	}
	if limit <= 0 {
		limit = defaultGeneLookupLimit
	}
	limit = min(limit, maxGeneLookupLimit)

	l := geneLookup{d: c.data, seen: map[int32]bool{}}
	var unmatched []string
	for _, item := range catalog.DatasetIDs(query) {
		if !l.byIdentifier(item) && looksLikeID(item) {
			unmatched = append(unmatched, item)
		}
	}
	if len(l.found) == 0 {
		unmatched = nil
		l.byProduct(query, c.text.fields[textFieldProduct])
	}
	out := &catalog.GeneMatches{Query: query, Total: len(l.found), Provenance: Provenance(), Unmatched: unmatched}
	out.Genes = make([]catalog.GeneMatch, 0, min(limit, len(l.found)))
	for _, f := range l.found[:min(limit, len(l.found))] {
		g := c.data.genes[f.gene]
		out.Genes = append(out.Genes, catalog.GeneMatch{
			GeneID: g.ID, Symbol: g.Symbol, Product: g.Product, GeneType: g.Type, Chromosome: g.Chromosome,
			PreviousIDs: slices.Clone(g.PreviousIDs), Processes: c.data.processes(f.gene, geneProcesses), MatchedOn: f.on, Matched: f.matched,
		})
	}
	return out, nil
}

// geneProcesses is how many GO processes a gene look-up names per gene.
const geneProcesses = 5

// processes returns up to n GO biological processes annotated to a gene,
// the most specific first: the smallest gene sets (a gene's set also
// counts the genes of the terms beneath it), ties in the file's order;
// obsolete terms and GO's secondary ids are left out.
func (d *Data) processes(gene int32, n int) []catalog.Term {
	var in []enrich.Annotation
	for _, a := range d.goBP {
		if st := d.goTerms[a.ID].Status; st != "" && st != "current" {
			continue // obsolete, or a secondary id of a term listed too
		}
		if _, ok := slices.BinarySearch(a.Genes, gene); ok {
			in = append(in, a)
		}
	}
	slices.SortStableFunc(in, func(a, b enrich.Annotation) int { return len(a.Genes) - len(b.Genes) })
	var out []catalog.Term
	for _, a := range in {
		if len(out) == n {
			break
		}
		if !slices.ContainsFunc(out, func(t catalog.Term) bool { return t.Display == a.Name }) {
			out = append(out, catalog.Term{Term: a.ID, Display: a.Name})
		}
	}
	return out
}

// geneLookup collects matches in rank order, each gene once.
type geneLookup struct {
	d     *Data
	seen  map[int32]bool
	found []geneFound
}

type geneFound struct {
	gene    int32
	on      string
	matched string
}

func (l *geneLookup) add(g int32, on, matched string) {
	if l.seen[g] {
		return
	}
	l.seen[g] = true
	l.found = append(l.found, geneFound{gene: g, on: on, matched: matched})
}

// byIdentifier matches one query item against ids and symbols and reports
// whether anything matched.
func (l *geneLookup) byIdentifier(item string) bool {
	key := strings.ToLower(item)
	var hits []int32
	if strings.Contains(key, "*") {
		for known, gs := range l.d.ids {
			if globMatch(key, known) {
				hits = append(hits, gs...)
			}
		}
		slices.Sort(hits)
		hits = slices.Compact(hits)
	} else {
		hits = slices.Clone(l.d.ids[key])
	}
	for _, g := range hits {
		l.add(g, l.idField(g, key), item)
	}
	matched := len(hits) > 0
	for i, g := range l.d.genes {
		if g.Symbol != "" && (strings.EqualFold(g.Symbol, item) || strings.Contains(key, "*") && globMatch(key, strings.ToLower(g.Symbol))) {
			l.add(int32(i), catalog.MatchedSymbol, item)
			matched = true
		}
	}
	return matched
}

// idField says which identifier of gene g the lower-cased key (or pattern)
// named.
func (l *geneLookup) idField(g int32, key string) string {
	gene := l.d.genes[g]
	match := func(id string) bool { return globMatch(key, strings.ToLower(id)) }
	switch {
	case match(gene.ID):
		return catalog.MatchedGeneID
	case slices.ContainsFunc(gene.TranscriptIDs, match):
		return catalog.MatchedTranscriptID
	}
	return catalog.MatchedPreviousID
}

// byProduct adds genes whose product description has every word of query,
// closest readings first: the product reads as the query, then has the
// query's words in a row, then merely has them all; within each, shorter
// products (more specific to the query) first. products are the text
// index's product tokens, so nothing is tokenised per gene per call.
func (l *geneLookup) byProduct(query string, products [][]string) {
	words := tokenize(query, false)
	for i, w := range words {
		words[i] = singular(w)
	}
	if len(words) == 0 {
		return
	}
	type ranked struct {
		gene, rank, length int
	}
	var hits []ranked
	for i, have := range products {
		if !allWords(words, have) {
			continue
		}
		rank := 2
		switch {
		case len(have) == len(words) && inRow(words, have):
			rank = 0
		case inRow(words, have):
			rank = 1
		}
		hits = append(hits, ranked{gene: i, rank: rank, length: len(have)})
	}
	slices.SortStableFunc(hits, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.length, b.length))
	})
	for _, h := range hits {
		l.add(int32(h.gene), catalog.MatchedProduct, query)
	}
}

// singular drops a plural s so "kinases" meets "kinase"; it slices, never
// allocates.
func singular(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// allWords reports whether every (singular) word of want is among have.
func allWords(want, have []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return singular(h) == w }) {
			return false
		}
	}
	return true
}

// inRow reports whether want occurs in have as consecutive words.
func inRow(want, have []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		row := true
		for k, w := range want {
			if singular(have[i+k]) != w {
				row = false
				break
			}
		}
		if row {
			return true
		}
	}
	return false
}

// looksLikeID reports whether a query item is meant as an identifier (it
// has a digit or an underscore), so an unmatched one is worth reporting.
func looksLikeID(item string) bool {
	return strings.ContainsFunc(item, func(r rune) bool { return unicode.IsDigit(r) || r == '_' })
}
