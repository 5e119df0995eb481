package offline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"strategist/internal/catalog"
)

// leaf evaluates a leaf search to sorted gene indexes; approx is true for
// approximate searches (text).
func (c *Catalog) leaf(s *step) (genes []int32, approx bool, err error) {
	name := s.def.search.Name
	switch name {
	case "GenesByTaxon":
		if err := requireOrganism(name, "organism", s.params["organism"]); err != nil {
			return nil, false, err
		}
		return c.allGenes(), false, nil
	case "GeneByLocusTag":
		genes, err := c.byIDs(name, s.params["ds_gene_ids"])
		return genes, false, err
	case "GenesByText":
		genes, err := c.byText(s)
		return genes, true, err
	case "GenesByGoTerm":
		genes, err := c.byGO(s)
		return genes, false, err
	case "GenesByGeneType":
		genes, err := c.byGeneType(s)
		return genes, false, err
	case "GenesByLocation":
		genes, err := c.byLocation(s)
		return genes, false, err
	}
	return nil, false, &catalog.NotEvaluableError{Search: name, Reason: s.def.note}
}

func (c *Catalog) allGenes() []int32 {
	out := make([]int32, len(c.data.genes))
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// requireOrganism checks that a (normalised) organism value selects the
// snapshot's organism by its leaf term. Group terms are valid on the site,
// which is reported to answer them with no genes, so offline they are not
// evaluated rather than guessed.
func requireOrganism(search, param, value string) error {
	terms, _ := catalog.DecodeTerms(value)
	if slices.Contains(terms, organismPf3D7) {
		return nil
	}
	return &catalog.NotEvaluableError{Search: search, Reason: fmt.Sprintf(
		"%s selects only organism groups (%s); offline, select the organism itself, %q", param, strings.Join(terms, ", "), organismPf3D7)}
}

// byIDs matches the ids of ds_gene_ids case-insensitively against gene ids,
// transcript ids and previous ids; * is a wildcard. Offline the value is the
// id list itself: a JSON-array string, or ids separated by newlines, commas,
// semicolons or spaces.
func (c *Catalog) byIDs(search, value string) ([]int32, error) {
	ids := catalog.DatasetIDs(value)
	if len(ids) == 1 && catalog.IsDatasetID(ids[0]) {
		return nil, &catalog.NotEvaluableError{Search: search, Reason: fmt.Sprintf(
			"ds_gene_ids %q looks like a dataset id of the live site; offline, give the gene ids themselves", ids[0])}
	}
	set := map[int32]bool{}
	for _, id := range ids {
		k := strings.ToLower(id)
		if !strings.Contains(k, "*") {
			for _, g := range c.data.ids[k] {
				set[g] = true
			}
			continue
		}
		for known, gs := range c.data.ids {
			if globMatch(k, known) {
				for _, g := range gs {
					set[g] = true
				}
			}
		}
	}
	out := make([]int32, 0, len(set))
	for g := range set {
		out = append(out, g)
	}
	slices.Sort(out)
	return out, nil
}

func (c *Catalog) byGO(s *step) ([]int32, error) {
	name := s.def.search.Name
	if err := requireOrganism(name, "organism", s.params["organism"]); err != nil {
		return nil, err
	}
	if err := requireDataDefault(s, "go_term_evidence", "the 2017 export has no evidence codes"); err != nil {
		return nil, err
	}
	if err := requireDataDefault(s, "go_term_slim", "the 2017 export does not mark GO slim terms"); err != nil {
		return nil, err
	}
	if w := strings.TrimSpace(s.params["go_term"]); w != "" && w != "N/A" {
		return nil, &catalog.NotEvaluableError{Search: name, Reason: fmt.Sprintf(
			"the GO wildcard text %q is not evaluated offline; leave go_term at N/A and choose GO ids in go_typeahead", w)}
	}
	ids, _ := catalog.DecodeTerms(s.params["go_typeahead"])
	var out []int32
	for _, id := range ids {
		for _, listed := range c.data.goSetIDs(id) {
			out = append(out, c.data.goSets[listed]...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// leafNotes says what a leaf's answer stands for beyond its parameters: the
// GO ids answered with the sets of the older ids the 2017 file lists them
// under.
func (c *Catalog) leafNotes(s *step) []string {
	if s.def.search.Name != "GenesByGoTerm" {
		return nil
	}
	ids, _ := catalog.DecodeTerms(s.params["go_typeahead"])
	var notes []string
	for _, id := range ids {
		if listed := c.data.goMerged[id]; len(listed) > 0 {
			notes = append(notes, goMergeNote(id, listed))
		}
	}
	return notes
}

// requireDataDefault answers only a parameter's default value, the one the
// snapshot's data stands for (GenesByGoTerm's evidence and GO slim
// settings: the 2017 file's own propagated annotations, unfiltered). Any
// other value is not evaluable offline, with why, rather than answered
// with the default's genes.
func requireDataDefault(s *step, param, why string) error {
	pd, ok := s.def.params[param]
	if !ok || !pd.param.HasDefault || sameTerms(s.params[param], pd.param.Default) {
		return nil
	}
	return notEvaluable(s.def.search.Name, "%s %s: %s, so only the default %s is evaluated offline",
		param, s.params[param], why, pd.param.Default)
}

// sameTerms reports whether two normalised values select the same terms:
// multi-pick arrays in any order, else equal strings.
func sameTerms(a, b string) bool {
	ta, okA := catalog.DecodeTerms(a)
	tb, okB := catalog.DecodeTerms(b)
	if !okA || !okB {
		return a == b
	}
	slices.Sort(ta)
	slices.Sort(tb)
	return slices.Equal(slices.Compact(ta), slices.Compact(tb))
}

func (c *Catalog) byGeneType(s *step) ([]int32, error) {
	name := s.def.search.Name
	if err := requireOrganism(name, "organism", s.params["organism"]); err != nil {
		return nil, err
	}
	if s.params["includePseudogenes"] == "Pseudogenes Only" {
		return nil, &catalog.NotEvaluableError{Search: name, Reason: "the offline gene export has no pseudogene flag, so Pseudogenes Only cannot be answered"}
	}
	types, _ := catalog.DecodeTerms(s.params["geneType"])
	var out []int32
	for i, g := range c.data.genes {
		if slices.Contains(types, g.Type) {
			out = append(out, int32(i))
		}
	}
	return out, nil
}

// exampleSequenceID is GenesByLocation's default sequenceId: a hint shown in
// the form, not a sequence.
const exampleSequenceID = "(Example: Pf3D7_04_v3)"

// byLocation answers whole-sequence locations. The sequence id, when one is
// typed, takes precedence over the chosen chromosome.
func (c *Catalog) byLocation(s *step) ([]int32, error) {
	name := s.def.search.Name
	if err := requireOrganism(name, "organismSinglePick", s.params["organismSinglePick"]); err != nil {
		return nil, err
	}
	seq := s.params["chromosomeOptional"]
	if id := strings.TrimSpace(s.params["sequenceId"]); id != "" && id != exampleSequenceID && id != "No Match" {
		seq = ""
		for _, ch := range c.data.chromosomes {
			if strings.EqualFold(ch, id) {
				seq = ch
			}
		}
		if seq == "" {
			return nil, &catalog.NotEvaluableError{Search: name, Reason: fmt.Sprintf(
				"sequence %q is not one of the %d P. falciparum 3D7 sequences of the offline snapshot", id, len(c.data.chromosomes))}
		}
	}
	start, _ := strconv.ParseFloat(s.params["start_point"], 64)
	end, _ := strconv.ParseFloat(s.params["end_point"], 64)
	if start > 1 || end != 0 {
		return nil, &catalog.NotEvaluableError{Search: name, Reason: fmt.Sprintf(
			"gene coordinates are not in the offline snapshot, so only whole sequences (start 1, end 0) are evaluated; got start %s, end %s",
			s.params["start_point"], s.params["end_point"])}
	}
	var out []int32
	for i, g := range c.data.genes {
		if g.Chromosome == seq {
			out = append(out, int32(i))
		}
	}
	return out, nil
}

// globMatch reports whether s matches pattern, where * matches any run of
// characters and everything else matches itself. It allocates nothing: text
// search calls it for every token of every gene.
func globMatch(pattern, s string) bool {
	first, rest, wild := strings.Cut(pattern, "*")
	if !wild {
		return pattern == s
	}
	if !strings.HasPrefix(s, first) {
		return false
	}
	s = s[len(first):]
	for {
		part, more, ok := strings.Cut(rest, "*")
		if !ok {
			return len(s) >= len(part) && strings.HasSuffix(s, part)
		}
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
		rest = more
	}
}

func notEvaluable(search, format string, args ...any) error {
	return &catalog.NotEvaluableError{Search: search, Reason: fmt.Sprintf(format, args...)}
}
