package strategies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"strategist/internal/catalog"
	"strategist/internal/event"
	"strategist/internal/strategy"
)

// stepGeneSet is every gene of a step, in the catalog's order, with its
// record; why says why the genes cannot be computed ("" when they were).
type stepGeneSet struct {
	ids  []string
	recs map[string]catalog.Record
	why  string
}

func (g *stepGeneSet) has(id string) bool { _, ok := g.recs[id]; return ok }

// geneSet reads a step's genes once per check. A step the catalog cannot
// evaluate, or a catalog that cannot answer now, gives a set that says
// why; any other failure is an error.
func (c *checker) geneSet(ctx context.Context, id strategy.StepID) (*stepGeneSet, error) {
	if gs, ok := c.genes[id]; ok {
		return gs, nil
	}
	q, err := c.g.Query(id)
	if err != nil {
		return nil, err
	}
	gs, err := c.s.queryGenes(ctx, c.g.SiteID, q)
	if err != nil {
		return nil, fmt.Errorf("strategy: check requirements: genes of %s: %w", id, err)
	}
	c.genes[id] = gs
	return gs, nil
}

// queryGenes reads all of a query's genes, a page at a time.
func (s *Service) queryGenes(ctx context.Context, site string, q *catalog.Query) (*stepGeneSet, error) {
	gs := &stepGeneSet{recs: map[string]catalog.Record{}}
	page := catalog.Page{Limit: MaxPageSize}
	for {
		ans, err := s.cat.Answer(ctx, site, q, page)
		if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
			return &stepGeneSet{why: ne.Error()}, nil
		}
		if errors.Is(err, catalog.ErrUnavailable) {
			return &stepGeneSet{why: err.Error()}, nil
		}
		if err != nil {
			return nil, err
		}
		for _, r := range ans.Records {
			if _, dup := gs.recs[r.GeneID]; !dup {
				gs.ids = append(gs.ids, r.GeneID)
				gs.recs[r.GeneID] = r
			}
		}
		page.Offset += len(ans.Records)
		if len(ans.Records) == 0 || page.Offset >= ans.Count {
			return gs, nil
		}
	}
}

// evidence fills what r's step shows of the requirement: how many of its
// genes the result keeps (an exclusion: how many it removed) and a few
// genes with the attribute that qualified them.
func (c *checker) evidence(ctx context.Context, id strategy.StepID, r *event.Requirement) error {
	set, err := c.geneSet(ctx, id)
	if err != nil {
		return err
	}
	if set.why != "" {
		if r.Status == event.RequirementMet {
			r.Status = event.RequirementNotEvaluable
		}
		r.Note = joinNote(r.Note, "its genes cannot be computed here: "+set.why)
		return nil
	}
	var result *stepGeneSet
	if c.root != "" {
		if result, err = c.geneSet(ctx, c.root); err != nil {
			return err
		}
		if result.why != "" {
			result = nil
		}
	}
	if r.Kind == event.RequirementExclusion {
		return c.exclusion(ctx, id, set, r)
	}
	if result != nil {
		kept := 0
		for _, g := range set.ids {
			if result.has(g) {
				kept++
			}
		}
		r.InResult = &kept
	}
	// Genes the result keeps show the requirement best; else any.
	pick := func(from *stepGeneSet, n int, skip map[string]bool) []string {
		var out []string
		for _, inResult := range []bool{true, false} {
			for _, g := range from.ids {
				if len(out) == n {
					return out
				}
				if !skip[g] && (result == nil || result.has(g) == inResult) {
					out = append(out, g)
					skip[g] = true
				}
			}
		}
		return out
	}
	st, _ := c.g.Step(id)
	switch {
	case r.Kind == event.RequirementEither && len(st.Inputs) == 2:
		// Genes from each side, with the side's attribute.
		seen := map[string]bool{}
		for i, in := range st.Inputs {
			side, err := c.geneSet(ctx, in)
			if err != nil || side.why != "" {
				return err
			}
			want := maxExamples/2 + i*(maxExamples%2)
			if err := c.explain(ctx, in, pick(side, want, seen), set, r); err != nil {
				return err
			}
		}
	case r.Kind == event.RequirementRestriction && len(st.Inputs) == 2:
		// The restricting side says why each gene stayed.
		return c.explain(ctx, st.Inputs[1], pick(set, maxExamples, map[string]bool{}), set, r)
	default:
		return c.explain(ctx, id, pick(set, maxExamples, map[string]bool{}), set, r)
	}
	return nil
}

// exclusion counts the genes an exclusion removed from the side it keeps
// and shows a few of them with the attribute of the side that removed
// them.
func (c *checker) exclusion(ctx context.Context, id strategy.StepID, set *stepGeneSet, r *event.Requirement) error {
	st, _ := c.g.Step(id)
	if len(st.Inputs) != 2 {
		return nil
	}
	keep, by := st.Inputs[0], st.Inputs[1]
	if st.Operator == strategy.RMinus {
		keep, by = by, keep
	}
	from, err := c.geneSet(ctx, keep)
	if err != nil || from.why != "" {
		return err
	}
	var removed []string
	for _, g := range from.ids {
		if !set.has(g) {
			removed = append(removed, g)
		}
	}
	nRemoved := len(removed)
	r.InResult = &nRemoved
	return c.explain(ctx, by, removed[:min(len(removed), maxExamples)], from, r)
}

// explain adds genes to r's examples, each with the attribute that
// qualified it for step id; recs has their records.
func (c *checker) explain(ctx context.Context, id strategy.StepID, genes []string, recs *stepGeneSet, r *event.Requirement) error {
	if len(genes) == 0 {
		return nil
	}
	attrs, err := c.attributes(ctx, id, genes, recs)
	if err != nil {
		return err
	}
	for _, g := range genes {
		rec := recs.recs[g]
		r.Examples = append(r.Examples, event.GeneEvidence{GeneID: g, Product: rec.Product, Chromosome: rec.Chromosome, Attribute: attrs[g]})
	}
	return nil
}

// maxTermQueries bounds the one-term queries an attribute asks for.
const maxTermQueries = 10

// attributes says, for each gene, what qualified it for a step: for a
// search, each stated value, read from the gene's own record where the
// record carries it (its chromosome, gene type, organism), and for a
// value of several terms the terms whose own search finds the gene; for
// a combine or transform, the step it is in.
func (c *checker) attributes(ctx context.Context, id strategy.StepID, genes []string, recs *stepGeneSet) (map[string]string, error) {
	st, _ := c.g.Step(id)
	out := map[string]string{}
	if st.Kind != strategy.KindSearch {
		for _, g := range genes {
			out[g] = "in " + st.DisplayName
		}
		return out, nil
	}
	search, err := c.s.cat.Search(ctx, c.g.SiteID, c.g.RecordType, st.SearchName)
	if err != nil {
		return nil, fmt.Errorf("strategy: check requirements: search %s: %w", st.SearchName, err)
	}
	parts, organism := map[string][]string{}, map[string]string{}
	for _, sp := range strategy.Stated(search, st.Parameters) {
		label := cmp.Or(sp.Param.DisplayName, sp.Param.Name)
		terms, _ := catalog.DecodeTerms(sp.Value)
		if len(terms) > 1 && len(terms) <= maxTermQueries {
			byTerm, err := c.termsOf(ctx, st, sp, terms)
			if err != nil {
				return nil, err
			}
			for _, g := range genes {
				var found []string
				for _, t := range terms {
					if byTerm[t] != nil && byTerm[t].has(g) {
						found = append(found, strategy.TermLabel(sp.Param, t))
					}
				}
				if len(found) > 0 {
					parts[g] = append(parts[g], label+": "+strings.Join(found, ", "))
				}
			}
			continue
		}
		for _, g := range genes {
			rec := recs.recs[g]
			v := recordValue(rec, sp.Value)
			if v != "" && v == rec.Organism {
				// Every gene of a search on the organism has it: it
				// qualifies a gene only when nothing else does.
				organism[g] = label + ": " + v
				continue
			}
			parts[g] = append(parts[g], label+": "+cmp.Or(v, sp.Label))
		}
	}
	for _, g := range genes {
		out[g] = cmp.Or(strings.Join(parts[g], "; "), organism[g], cmp.Or(search.DisplayName, search.Name))
	}
	return out, nil
}

// termsOf runs a step's search once per term of one of its values.
func (c *checker) termsOf(ctx context.Context, st strategy.Step, sp strategy.StatedParam, terms []string) (map[string]*stepGeneSet, error) {
	out := map[string]*stepGeneSet{}
	for _, t := range terms {
		params := maps.Clone(st.Parameters)
		params[sp.Param.Name] = catalog.EncodeTerms([]string{t})
		gs, err := c.s.queryGenes(ctx, c.g.SiteID, &catalog.Query{Search: st.SearchName, Params: params, Weight: st.Weight})
		if err != nil {
			return nil, fmt.Errorf("strategy: check requirements: %s with %s only: %w", st.SearchName, t, err)
		}
		if gs.why == "" {
			out[t] = gs
		}
	}
	return out, nil
}

// recordValue is the gene's own chromosome, gene type or organism when
// the stated value names it (any case): the gene data confirming the
// value, not the value repeated.
func recordValue(rec catalog.Record, value string) string {
	terms, ok := catalog.DecodeTerms(value)
	if !ok {
		terms = []string{value}
	}
	for _, field := range []string{rec.Chromosome, rec.GeneType, rec.Organism} {
		for _, t := range terms {
			if field != "" && strings.EqualFold(strings.TrimSpace(t), field) {
				return field
			}
		}
	}
	return ""
}
