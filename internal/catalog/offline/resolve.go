package offline

import (
	"context"
	"slices"
	"strings"

	"strategist/internal/catalog"
)

// ResolveGenes resolves a researcher's identifiers against the snapshot's
// genes, case-insensitively: a current gene id is kept (in the snapshot's
// spelling); a transcript id or a previous id is mapped to the current id
// of each gene it names, and reported; anything else is unknown. Symbols
// are not resolved: a symbol is not an identifier, and several genes share
// some.
func (c *Catalog) ResolveGenes(ctx context.Context, site string, ids []string) (*catalog.GeneResolution, error) {
	if err := c.checkSite(site); err != nil {
		return nil, err
	}
	if c.data == nil {
		return nil, &NoDataError{Cause: c.dataErr}
	}
	out := &catalog.GeneResolution{Genes: []string{}, Mapped: []catalog.IDMapping{}, Unknown: []string{}}
	kept := map[string]bool{}
	seen := map[string]bool{}
	keep := func(id string) {
		if !kept[id] {
			kept[id] = true
			out.Genes = append(out.Genes, id)
		}
	}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		key := strings.ToLower(id)
		if id == "" || seen[key] {
			continue
		}
		seen[key] = true
		genes := c.data.ids[key]
		if len(genes) == 0 {
			out.Unknown = append(out.Unknown, id)
			continue
		}
		if i := slices.IndexFunc(genes, func(g int32) bool { return strings.EqualFold(c.data.genes[g].ID, id) }); i >= 0 {
			keep(c.data.genes[genes[i]].ID)
			continue
		}
		for _, g := range genes {
			cur := c.data.genes[g].ID
			out.Mapped = append(out.Mapped, catalog.IDMapping{From: id, To: cur})
			keep(cur)
		}
	}
	return out, nil
}
