package offline

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"strategist/internal/catalog"
)

// result is an evaluated step: genes (indexes into Data.genes, ascending, so
// also in gene-id order) with their weights. Results are never modified after
// they are built, so they are shared through the cache.
type result struct {
	genes   []int32
	weights []int
	// approximate is true when an approximate search (text) contributed.
	approximate bool
	// notes say how steps were answered beyond their parameters (a GO id
	// answered with the sets it is listed under in the 2017 data).
	notes []string
}

// withNotes returns notes followed by those of more not already among them.
func withNotes(notes []string, more ...[]string) []string {
	out := slices.Clone(notes)
	for _, m := range more {
		for _, n := range m {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func (r *result) len() int { return len(r.genes) }

// uniform gives every gene of a sorted index list the same weight.
func uniform(genes []int32, weight int) *result {
	w := make([]int, len(genes))
	for i := range w {
		w[i] = weight
	}
	return &result{genes: genes, weights: w}
}

// Boolean operator terms (bq_operator).
const (
	opUnion     = "UNION"
	opIntersect = "INTERSECT"
	opMinus     = "MINUS"
	opRMinus    = "RMINUS"
	opLOnly     = "LONLY"
	opROnly     = "RONLY"
)

// combine applies a boolean operator with the site's weight rules:
// INTERSECT and UNION add the weights of the sides that have the gene;
// MINUS and LONLY keep the left weight, RMINUS and RONLY the right one.
// LONLY and RONLY return one input unchanged; they are not subtractions.
func combine(op string, l, r *result) (*result, error) {
	approx := l.approximate || r.approximate
	notes := withNotes(l.notes, r.notes)
	switch op {
	case opLOnly:
		return &result{genes: l.genes, weights: l.weights, approximate: l.approximate, notes: l.notes}, nil
	case opROnly:
		return &result{genes: r.genes, weights: r.weights, approximate: r.approximate, notes: r.notes}, nil
	case opMinus:
		out := subtract(l, r)
		out.approximate, out.notes = approx, notes
		return out, nil
	case opRMinus:
		out := subtract(r, l)
		out.approximate, out.notes = approx, notes
		return out, nil
	case opUnion, opIntersect:
	default:
		return nil, fmt.Errorf("offline: unknown boolean operator %q", op)
	}
	out := &result{approximate: approx, notes: notes}
	i, j := 0, 0
	for i < len(l.genes) || j < len(r.genes) {
		switch {
		case j == len(r.genes) || i < len(l.genes) && l.genes[i] < r.genes[j]:
			if op == opUnion {
				out.genes = append(out.genes, l.genes[i])
				out.weights = append(out.weights, l.weights[i])
			}
			i++
		case i == len(l.genes) || r.genes[j] < l.genes[i]:
			if op == opUnion {
				out.genes = append(out.genes, r.genes[j])
				out.weights = append(out.weights, r.weights[j])
			}
			j++
		default:
			out.genes = append(out.genes, l.genes[i])
			out.weights = append(out.weights, l.weights[i]+r.weights[j])
			i++
			j++
		}
	}
	return out, nil
}

// subtract keeps the genes of a not in b, with a's weights.
func subtract(a, b *result) *result {
	out := &result{}
	j := 0
	for i, g := range a.genes {
		for j < len(b.genes) && b.genes[j] < g {
			j++
		}
		if j < len(b.genes) && b.genes[j] == g {
			continue
		}
		out.genes = append(out.genes, g)
		out.weights = append(out.weights, a.weights[i])
	}
	return out
}

// queryGenes validates q and evaluates it over the gene data: the genes of a
// query, for Answer and Enrich alike.
func (c *Catalog) queryGenes(ctx context.Context, q *catalog.Query) (*result, error) {
	plan, err := c.prepare(q, 0)
	if err != nil {
		return nil, err
	}
	// A search the offline engine never answers is named before anything
	// is evaluated, and also without the data: loading it would not make
	// the step countable.
	if s := unanswerable(plan); s != nil {
		return nil, &catalog.NotEvaluableError{Search: s.def.search.Name, Reason: s.def.note}
	}
	if c.data == nil {
		return nil, &NoDataError{Cause: c.dataErr}
	}
	return c.evaluate(ctx, plan, map[string]*result{})
}

// unanswerable returns the first step of the tree, depth first, whose
// search the offline engine cannot evaluate whatever its parameters; nil
// when there is none.
func unanswerable(s *step) *step {
	if !s.def.search.Evaluable {
		return s
	}
	for _, in := range s.inputs {
		if u := unanswerable(in); u != nil {
			return u
		}
	}
	return nil
}

// Answer implements catalog.Catalog: it validates every step of the tree,
// evaluates it bottom-up (sub-trees memoised by their canonical key within
// the call and in the shared cache) and returns the count of distinct genes
// with the requested page of records, ordered by gene id.
func (c *Catalog) Answer(ctx context.Context, site string, q *catalog.Query, page catalog.Page) (*catalog.Answer, error) {
	if err := c.checkSite(site); err != nil {
		return nil, err
	}
	if q == nil {
		return nil, fmt.Errorf("offline: answer: %w", &catalog.ValidationError{General: []string{"no query given"}})
	}
	if page.Offset < 0 || page.Limit < 0 {
		return nil, fmt.Errorf("offline: answer: negative page offset or limit")
	}
	res, err := c.queryGenes(ctx, q)
	if err != nil {
		return nil, err
	}
	ans := &catalog.Answer{Count: res.len(), Records: []catalog.Record{}, Provenance: res.provenance()}
	end := min(page.Offset+page.Limit, res.len())
	for k := page.Offset; k < end; k++ {
		g := &c.data.genes[res.genes[k]]
		ans.Records = append(ans.Records, catalog.Record{
			GeneID:      g.ID,
			Product:     g.Product,
			GeneType:    g.Type,
			GeneName:    g.Symbol,
			Organism:    organismPf3D7,
			Chromosome:  g.Chromosome,
			PreviousIDs: slices.Clone(g.PreviousIDs),
			Weight:      res.weights[k],
		})
	}
	return ans, nil
}

// provenance is what an answer computed from r says about its source: the
// snapshot, whether a text search made it approximate, and the notes of
// its steps.
func (r *result) provenance() catalog.Provenance {
	prov := Provenance()
	if r.approximate {
		prov.Approximate = true
		prov.Note += " Text search is approximate: it matches gene ids, symbols, previous ids and product descriptions only."
	}
	for _, n := range r.notes {
		prov.Note += " " + n
	}
	return prov
}

// maxDepth bounds the query tree so a malformed (or cyclic-looking) tree
// cannot exhaust the stack.
const maxDepth = 64

// step is a validated query node: its definition, filled parameters, inputs
// and canonical key.
type step struct {
	def    *searchDef
	params map[string]string
	weight int
	inputs []*step
	key    string
}

// prepare validates the whole tree before anything is evaluated, so a bad
// parameter anywhere is reported even when the data is missing.
func (c *Catalog) prepare(q *catalog.Query, depth int) (*step, error) {
	if q == nil {
		return nil, &catalog.ValidationError{General: []string{"a step of the strategy is missing"}}
	}
	if depth > maxDepth {
		return nil, &catalog.ValidationError{Search: q.Search, General: []string{fmt.Sprintf("the strategy is deeper than %d steps", maxDepth)}}
	}
	def, ok := c.byName[q.Search]
	if !ok {
		return nil, fmt.Errorf("offline: search %q: %w", q.Search, catalog.ErrNotFound)
	}
	if want := len(def.search.InputParams); len(q.Inputs) != want {
		return nil, &catalog.ValidationError{Search: q.Search, General: []string{
			fmt.Sprintf("%s takes %d input step(s) (%s); got %d", q.Search, want, strings.Join(def.search.InputParams, ", "), len(q.Inputs)),
		}}
	}
	params, verr := c.validate(def, q.Params)
	if verr != nil {
		return nil, verr
	}
	s := &step{def: def, params: params, weight: q.Weight}
	for _, in := range q.Inputs {
		child, err := c.prepare(in, depth+1)
		if err != nil {
			return nil, err
		}
		s.inputs = append(s.inputs, child)
	}
	s.key = stepKey(s)
	return s, nil
}

// stepKey is the canonical identity of a validated sub-tree: defaults are
// filled and values normalised, so equivalent queries share a key. It is a
// SHA-256 over the search, parameters, weight and the inputs' keys, so keys
// stay small however deep the tree.
func stepKey(s *step) string {
	h := sha256.New()
	var buf []byte
	write := func(v string) {
		buf = strconv.AppendInt(buf[:0], int64(len(v)), 10)
		buf = append(buf, ':')
		buf = append(buf, v...)
		h.Write(buf)
	}
	write(s.def.search.Name)
	keys := make([]string, 0, len(s.params))
	for k := range s.params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		write(k)
		write(s.params[k])
	}
	write(strconv.Itoa(s.weight))
	for _, in := range s.inputs {
		write(in.key)
	}
	return string(h.Sum(nil))
}

// evaluate computes s over the gene data, bottom-up. queryGenes has made
// sure every search of the tree is one the engine evaluates.
func (c *Catalog) evaluate(ctx context.Context, s *step, memo map[string]*result) (*result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("offline: evaluate %s: %w", s.def.search.Name, err)
	}
	if r, ok := memo[s.key]; ok {
		return r, nil
	}
	if r, ok := c.cache.get(s.key); ok {
		memo[s.key] = r
		return r, nil
	}
	inputs := make([]*result, len(s.inputs))
	for i, in := range s.inputs {
		r, err := c.evaluate(ctx, in, memo)
		if err != nil {
			return nil, err
		}
		inputs[i] = r
	}
	r, err := c.run(s, inputs)
	if err != nil {
		return nil, err
	}
	memo[s.key] = r
	c.cache.put(s.key, r)
	return r, nil
}

// run computes one step from its evaluated inputs.
func (c *Catalog) run(s *step, inputs []*result) (*result, error) {
	name := s.def.search.Name
	switch s.def.search.Kind {
	case catalog.KindCombine:
		if !strings.HasPrefix(name, "boolean_question_") {
			break
		}
		r, err := combine(s.params["bq_operator"], inputs[0], inputs[1])
		if err != nil {
			return nil, fmt.Errorf("offline: evaluate %s: %w", name, err)
		}
		return r, nil
	case catalog.KindTransform:
		if name == "GenesByWeightFilter" {
			return weightFilter(s, inputs[0])
		}
	case catalog.KindLeaf:
		genes, approx, err := c.leaf(s)
		if err != nil {
			return nil, err
		}
		r := uniform(genes, s.weight)
		r.approximate, r.notes = approx, c.leafNotes(s)
		return r, nil
	}
	return nil, &catalog.NotEvaluableError{Search: name, Reason: s.def.note}
}

// weightFilter keeps the input genes whose weight is in [min_weight,
// max_weight].
func weightFilter(s *step, in *result) (*result, error) {
	lo, err1 := strconv.ParseFloat(s.params["min_weight"], 64)
	hi, err2 := strconv.ParseFloat(s.params["max_weight"], 64)
	if err1 != nil || err2 != nil {
		return nil, &catalog.ValidationError{Search: s.def.search.Name, General: []string{"min_weight and max_weight must be numbers"}}
	}
	out := &result{approximate: in.approximate, notes: in.notes}
	for i, g := range in.genes {
		if w := float64(in.weights[i]); w >= lo && w <= hi {
			out.genes = append(out.genes, g)
			out.weights = append(out.weights, in.weights[i])
		}
	}
	return out, nil
}
