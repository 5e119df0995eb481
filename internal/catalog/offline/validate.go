package offline

import (
	"fmt"

	"strategist/internal/catalog"
)

// validate checks params against d with the rules every catalog shares
// (catalog.CheckValues): the complete, normalised set, or every problem in
// one *catalog.ValidationError. What the offline catalog adds is its
// vocabularies, built from the gene data, and what it can say about a GO
// term the snapshot lacks.
func (c *Catalog) validate(d *searchDef, params map[string]string) (map[string]string, *catalog.ValidationError) {
	return catalog.CheckValues(&d.search, params, func(p *catalog.Param) catalog.ValueRules {
		pd := d.params[p.Name]
		r := catalog.ValueRules{Vocabulary: pd.vocabulary}
		if pd.vocab == vocabGOTerms {
			r.Normalize = normalizeGOID
			r.Explain = func(term string) string { return c.explainGOTerm(pd, term) }
		}
		return r
	})
}

// normalizeGOID writes a GO id as the vocabulary does ("go:0006281" is
// GO:0006281); other terms stay as given.
func normalizeGOID(term string) string {
	if id, ok := canonicalGOID(term); ok {
		return id
	}
	return term
}

// explainGOTerm says why a GO term is not in the snapshot's vocabulary
// when more can be said than that it is not: another ontology than
// biological process, the id inside a display label, or a process without
// a gene set. "" leaves the shared message.
func (c *Catalog) explainGOTerm(pd *paramDef, term string) string {
	msg := catalog.InvalidTermMessage(term)
	id := goIDIn(term)
	if c.data != nil && id != "" {
		if t, ok := c.data.goTerms[id]; ok && t.Ontology != "BP" {
			return fmt.Sprintf("Invalid value '%s': %s (%s) is a %s term; the offline snapshot has biological-process gene sets only.",
				term, id, t.Name, ontologyName(t.Ontology))
		}
	}
	if id != "" && id != term && pd.vocabulary.Has(id) {
		return msg + fmt.Sprintf(" Use the term '%s', not its display label.", id)
	}
	if id == term {
		return msg + " The offline snapshot has no biological-process gene set for this GO id."
	}
	return ""
}

// goIDIn finds the first GO:nnnnnnn id in s, in any case.
func goIDIn(s string) string {
	for i := 0; i+len("GO:0000000") <= len(s); i++ {
		if id, ok := canonicalGOID(s[i : i+len("GO:0000000")]); ok {
			return id
		}
	}
	return ""
}

func ontologyName(o string) string {
	switch o {
	case "MF":
		return "molecular-function"
	case "CC":
		return "cellular-component"
	case "BP":
		return "biological-process"
	}
	return o
}
