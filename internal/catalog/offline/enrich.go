package offline

import (
	"context"
	"fmt"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
)

// enrichOntology names the one GO aspect the snapshot has gene lists for.
const enrichOntology = "biological process"

// enrichLimits says what the snapshot's GO data cannot offer an
// enrichment, in every result.
const enrichLimits = "The offline snapshot has Gene Ontology biological-process gene lists only (PlasmoDB's 2017 export of P. falciparum 3D7): " +
	"molecular function and cellular component cannot be tested, and there are no evidence codes, so computed and curated " +
	"annotations cannot be told apart or filtered. Term ids are the export's; names are from GO release 2022-07-01. " +
	"Live PlasmoDB's own GO Enrichment analysis uses current annotations and will differ."

// buildGOAnnotations lists the biological-process terms with their genes,
// in file order, for enrichment: every gene set of go_gene_lists.txt whose
// term go_terms.tsv does not name as another ontology. The background of
// an enrichment is every gene in at least one of them.
func (d *Data) buildGOAnnotations() {
	for _, id := range d.goOrder {
		t, named := d.goTerms[id]
		if named && t.Ontology != "" && t.Ontology != "BP" {
			continue
		}
		name := t.Name
		if name == "" {
			name = id
		}
		d.goBP = append(d.goBP, enrich.Annotation{ID: id, Name: name, Genes: d.goSets[id]})
	}
}

// Enrich tests the genes of a query tree for GO biological-process terms
// they are enriched in (package enrich: the one-sided hypergeometric test
// with Benjamini–Hochberg and Bonferroni adjustments), against every gene
// of the snapshot with at least one such annotation. Only the terms with
// p ≤ cutoff are returned; the result says what the data cannot offer and
// where it comes from. A tree the snapshot cannot evaluate is a
// *catalog.NotEvaluableError, as for Answer.
func (c *Catalog) Enrich(ctx context.Context, site string, q *catalog.Query, cutoff float64) (*enrich.Result, error) {
	if err := c.checkSite(site); err != nil {
		return nil, err
	}
	if err := enrich.CheckCutoff(cutoff); err != nil {
		return nil, err
	}
	if q == nil {
		return nil, fmt.Errorf("offline: enrich: %w", &catalog.ValidationError{General: []string{"no query given"}})
	}
	res, err := c.queryGenes(ctx, q)
	if err != nil {
		return nil, err
	}
	out, err := enrich.Analyze(c.data.goBP, res.genes, cutoff, func(g int32) string { return c.data.genes[g].ID })
	if err != nil {
		return nil, err
	}
	out.Ontology, out.Limits, out.Provenance = enrichOntology, enrichLimits, res.provenance()
	return out, nil
}
