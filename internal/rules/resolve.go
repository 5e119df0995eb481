package rules

import (
	"strategist/internal/english"

	"fmt"
	"slices"
	"strings"
)

// pick is how a search was found.
type pick struct {
	found bool
	rank  int // 1 is the best hit
	score float64
	note  string // why it is not available
}

// leaf is a clause mapped to a search and parameter values.
type leaf struct {
	clause *english.Clause
	search string
	params map[string]string
	// label names the step ("DNA replication (GO:0006260)"); task is the
	// sub-agent's instruction.
	label, task string
	// how says how the value was chosen, for the planning artifact.
	how string
	// unmapped is set when the clause fell back to a text search
	// (approximate); notEvaluable when its search has no offline answer;
	// fail when nothing can be built for it.
	unmapped     bool
	notEvaluable bool
	fail         string
	// nearest are, for a clause that fell back to a text search, the
	// vocabulary terms nearest its words, mapped as steps: the readings a
	// question back offers.
	nearest []*leaf
	// step is set when the clause reuses a step of the strategy.
	step string
	// said are the parameters whose values the clause's words gave (the
	// others are defaults).
	said []string
	// other is another reading of an organelle named as a place: the
	// genes whose annotation names it (proteins the nucleus encodes for
	// it among them), a text search, beside the genes its genome encodes.
	other *leaf
}

// resolution is what the catalog said about every clause.
type resolution struct {
	leaves   map[*english.Clause]*leaf
	picks    [numNeeds]pick
	organism string
	orgNote  string
	// refusal says why the request cannot be planned at all (an organism
	// the catalog lacks).
	refusal string
	// finders are the searches search_for_searches offered for a term's
	// own words, by clause, with their parameters read.
	finders map[*english.Clause]*searchDetails
	// notes say what the resolution changed in the request (an aside
	// left out).
	notes []string
}

// resolver maps a parsed request through the catalog tools, asking for the
// calls it still lacks.
type resolver struct {
	a       *asks
	p       english.Parsed
	r       *resolution
	details map[string]*searchDetails // by search name (no vocabulary query)
	// readingNearest is set while the readings of an unmapped clause are
	// mapped (nearest), so their own fallbacks look for none.
	readingNearest bool
}

// resolve returns the resolution, or false with the calls it needs asked
// for in a (one response's worth of independent calls).
func resolve(a *asks, p english.Parsed) (*resolution, bool) {
	rv := &resolver{a: a, p: p, r: &resolution{leaves: map[*english.Clause]*leaf{}, finders: map[*english.Clause]*searchDetails{}},
		details: map[string]*searchDetails{}}
	clauses := p.Root.Leaves()
	needs := rv.needs(clauses)

	// 1. Which searches the catalog offers.
	ready := true
	for _, n := range needs {
		if !a.t.has("search_for_searches") {
			rv.r.picks[n] = pick{found: true}
			continue
		}
		d := a.get(searchCall(n))
		if d == nil {
			ready = false
			continue
		}
		rv.r.picks[n] = readPick(d, searchNeeds[n].search)
	}
	if a.t.has("search_for_searches") {
		for _, c := range clauses {
			if wantsFinder(c) && a.get(phraseSearchCall(c)) == nil {
				ready = false
			}
		}
	}
	if !ready {
		return nil, false
	}

	// 2. Their parameters, the vocabulary of each term, the genes named.
	for _, n := range needs {
		if !rv.r.picks[n].found || n == needGO {
			continue
		}
		if d := a.get(paramsCall(searchNeeds[n].search, "")); d != nil {
			var sd searchDetails
			if d.decode(&sd) {
				rv.details[searchNeeds[n].search] = &sd
			} else {
				rv.r.picks[n] = pick{note: fmt.Sprintf("get_search_parameters failed for %s: %s", searchNeeds[n].search, d.msg)}
			}
		}
	}
	for _, c := range clauses {
		switch {
		case (c.Kind == english.KindTerm || c.Kind == english.KindGOID) && rv.r.picks[needGO].found:
			for _, v := range c.Variants {
				a.get(paramsCall(searchNeeds[needGO].search, v))
			}
		case c.Kind == english.KindGeneIDs && a.t.has("lookup_genes"):
			a.get(lookupCall(c.IDs))
		case c.Kind == english.KindSearch:
			a.get(paramsCall(c.Search, ""))
		case c.Kind == english.KindList && a.t.has("find_gene_list"):
			a.get(listCall(c.Text))
		}
		if name := rv.finderName(c); name != "" {
			a.get(paramsCall(name, ""))
		}
	}
	if a.pending() {
		return nil, false
	}
	rv.r.organism, rv.r.orgNote, rv.r.refusal = rv.organism()
	for _, c := range clauses {
		if name := rv.finderName(c); name != "" {
			var sd searchDetails
			if rv.a.t.result(paramsCall(name, "")).decode(&sd) {
				rv.r.finders[c] = &sd
			}
		}
	}

	// 3. Terms with no exact match get a second, looser look-up.
	for _, c := range clauses {
		if !rv.unnamed(c) {
			continue
		}
		for _, q := range fuzzyQueries(c) {
			a.get(paramsCall(searchNeeds[needGO].search, q))
		}
		for _, sc := range suffixClauses(c) {
			for _, v := range sc.Variants[:min(len(sc.Variants), 2)] {
				a.get(paramsCall(searchNeeds[needGO].search, v))
			}
		}
		for _, w := range spanWords(c) {
			a.get(paramsCall(searchNeeds[needGO].search, w))
		}
		for _, w := range asideWords(c) {
			a.get(paramsCall(searchNeeds[needGO].search, w))
			if a.t.has("lookup_genes") {
				a.get(lookupCall([]string{w}))
			}
		}
	}
	if a.pending() {
		return nil, false
	}
	if a.t.has("lookup_genes") {
		rv.dropAsides(p.Root)
		clauses = p.Root.Leaves()
	}
	// 3b. The span of a phrase whose outer words the catalog does not know.
	for _, c := range clauses {
		if !rv.unnamed(c) {
			continue
		}
		if sc, _ := rv.spanClause(c); sc != nil {
			for _, v := range sc.Variants[:min(len(sc.Variants), 2)] {
				a.get(paramsCall(searchNeeds[needGO].search, v))
			}
		}
	}
	if a.pending() {
		return nil, false
	}

	// 4. Decide.
	for _, c := range clauses {
		rv.r.leaves[c] = rv.decide(c)
	}
	rv.mergeSameSearch(p.Root)
	return rv.r, true
}

// unnamed reports whether a clause is a term that names no GO term or
// gene type exactly, so looser look-ups are worth making.
func (rv *resolver) unnamed(c *english.Clause) bool {
	if c.Kind != english.KindTerm || c.Literal || !rv.r.picks[needGO].found {
		return false
	}
	if _, ok := rv.geneTypeExact(c); ok {
		return false
	}
	ids, _, _ := rv.goNamed(c)
	return len(ids) == 0
}

// wantsFinder reports whether a clause's own words are worth a
// search_for_searches of their own: terms that are not gene types.
func wantsFinder(c *english.Clause) bool {
	_, typ := english.GeneTypeName(c.Text)
	return c.Kind == english.KindTerm && !typ && len(english.ContentWords(finderQuery(c))) > 0
}

// needs lists the searches the clauses may need; the text search is always
// among them, as the fallback.
func (rv *resolver) needs(clauses []*english.Clause) []need {
	want := [numNeeds]bool{needText: true}
	for _, c := range clauses {
		switch c.Kind {
		case english.KindTerm:
			want[needGO], want[needGeneType] = true, true
		case english.KindGOID:
			want[needGO] = true
		case english.KindLocation:
			want[needLocation] = true
		case english.KindGeneIDs, english.KindList:
			want[needIDs] = true
		case english.KindTaxon:
			want[needTaxon] = true
		}
	}
	var out []need
	for n := range numNeeds {
		if want[n] {
			out = append(out, n)
		}
	}
	return out
}

func readPick(d *done, search string) pick {
	var hits searchHits
	if !d.decode(&hits) {
		return pick{note: "search_for_searches failed: " + d.msg}
	}
	for i, h := range hits.Searches {
		if h.Name == search {
			return pick{found: true, rank: i + 1, score: h.Score}
		}
	}
	return pick{note: fmt.Sprintf("search_for_searches did not offer %s", search)}
}

// geneTypeForms are the ways a researcher names a gene type term.
func geneTypeForms(term string) []string {
	t := english.Normalize(term)
	forms := []string{t}
	if base, ok := strings.CutSuffix(t, " encoding"); ok {
		forms = append(forms, base, base+" coding", base+" gene")
		// "ribosomal rna" is rRNA too, and "ribsomal RNA" a typo of it.
		for _, ph := range english.GeneTypePhrases(base) {
			if !slices.Contains(forms, ph) {
				forms = append(forms, ph)
			}
		}
	}
	switch t {
	case "non protein coding":
		forms = append(forms, "non coding", "noncoding", "non coding rna", "noncoding rna", "ncrna", "non protein coding rna")
	case "protein coding":
		forms = append(forms, "coding", "protein coding gene")
	}
	return forms
}

// geneTypeVocab is the gene types the catalog offers.
func (rv *resolver) geneTypeVocab() []wireTerm {
	sd := rv.details[searchNeeds[needGeneType].search]
	if sd == nil {
		return nil
	}
	p, ok := sd.param(paramGeneType)
	if !ok {
		return nil
	}
	return p.Values
}

// clausePhrases are the normalised phrasings of a clause: as written, its
// singular, and its variants (a gene type's short name among them).
func clausePhrases(c *english.Clause) []string {
	out := []string{english.Normalize(c.Text), english.Normalize(english.SingularPhrase(c.Text))}
	for _, v := range c.Variants {
		if n := english.Normalize(v); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// geneTypeExact finds the gene type a clause names exactly (plural and
// "encoding" aside).
func (rv *resolver) geneTypeExact(c *english.Clause) (string, bool) {
	for _, t := range rv.geneTypeVocab() {
		for _, f := range geneTypeForms(t.Term) {
			for _, ph := range clausePhrases(c) {
				if ph == f {
					return t.Term, true
				}
			}
		}
	}
	return "", false
}

// geneTypeFuzzy finds the one gene type a short clause is a typo of.
func (rv *resolver) geneTypeFuzzy(c *english.Clause) (string, bool) {
	if len(strings.Fields(c.Text)) > 3 {
		return "", false
	}
	best, found, ambiguous := -1, "", false
	for _, t := range rv.geneTypeVocab() {
		d := -1
		for _, f := range geneTypeForms(t.Term) {
			for _, ph := range clausePhrases(c) {
				if dd, ok := english.Near(ph, f, english.TypoTolerance(len(f))); ok && (d < 0 || dd < d) {
					d = dd
				}
			}
		}
		switch {
		case d < 0:
		case best < 0 || d < best:
			best, found, ambiguous = d, t.Term, false
		case d == best && t.Term != found:
			ambiguous = true
		}
	}
	return found, best >= 0 && !ambiguous
}

// allDetails lists every parameter listing read so far, in search order.
func (rv *resolver) allDetails() []*searchDetails {
	var out []*searchDetails
	for n := range numNeeds {
		if sd := rv.details[searchNeeds[n].search]; sd != nil {
			out = append(out, sd)
		}
	}
	for _, c := range rv.p.Root.Leaves() {
		for _, v := range c.Variants {
			if sd := rv.goDetails(v); sd != nil {
				out = append(out, sd)
			}
		}
	}
	return out
}

// leafTerms are the terms of a tree vocabulary that are no term's parent.
func leafTerms(values []wireTerm) []string {
	parents := map[string]bool{}
	for _, v := range values {
		if v.Parent != "" {
			parents[v.Parent] = true
		}
	}
	var out []string
	for _, v := range values {
		if !parents[v.Term] {
			out = append(out, v.Term)
		}
	}
	return out
}

// suffixClauses are a term's phrase without its first one, two or three
// words, when those words name nothing a GO term or gene type is made of:
// "am interested in tRNA" is tRNA, "take part in cell adhesion" is cell
// adhesion. Words that change a term's meaning ("regulation of",
// "mitochondrial") are never dropped.
func suffixClauses(c *english.Clause) []*english.Clause {
	words := strings.Fields(c.Text)
	var out []*english.Clause
	for k := 1; k <= 3 && k < len(words); k++ {
		last := strings.ToLower(words[k-1])
		if keepWords[english.Singular(last)] {
			break
		}
		// Only words that lead up to what follows are left out: a
		// preposition ("keen on") or a verb ("doing"); "heat shock
		// proteins" keeps every word.
		if !leadUpWords[last] && !strings.HasSuffix(last, "ing") {
			continue
		}
		rest := strings.Join(words[k:], " ")
		if t, _ := english.GeneTypeName(rest); t == "protein coding" {
			continue // "... proteins" is no gene type
		}
		out = append(out, english.TermClause(rest))
	}
	return out
}

// leadUpWords end a phrase that only leads up to what a request is about.
var leadUpWords = english.WordSet("on in with for about into at by towards like regarding concerning")

// keepWords are words that are part of what a GO term or gene type names.
var keepWords = english.WordSet(`regulation negative positive of to cellular mitochondrial nuclear cytoplasmic
	apicoplast plastid response establishment maintenance organization assembly biosynthesis biosynthetic metabolic
	metabolism catabolic catabolism transport localization import export protein rna dna mrna trna rrna
	modification processing repair replication translation transcription signaling signalling cell host
	small large ribosomal transfer nucleolar non coding`)
