package rules

import (
	"strategist/internal/english"

	"fmt"
	"strings"
)

// decide maps one clause to a search and parameters from what the catalog
// tools answered; a clause nothing fits becomes a text search, and says so.
func (rv *resolver) decide(c *english.Clause) *leaf {
	switch c.Kind {
	case english.KindTaxon:
		return rv.taxonLeaf(c)
	case english.KindLocation:
		return rv.locationLeaf(c)
	case english.KindGeneIDs:
		return rv.idsLeaf(c)
	case english.KindList:
		return rv.listLeaf(c)
	case english.KindGOID:
		return rv.goIDLeaf(c)
	case english.KindStep:
		return &leaf{clause: c, step: c.Location, label: c.Text}
	case english.KindSearch:
		return rv.searchLeaf(c)
	}
	return rv.termLeaf(c)
}

// searchLeaf is a search whose values a change chose (a step with a new
// parameter value), checked against the search's parameters.
func (rv *resolver) searchLeaf(c *english.Clause) *leaf {
	var sd searchDetails
	if d := rv.a.t.result(paramsCall(c.Search, "")); !d.decode(&sd) {
		return &leaf{clause: c, fail: fmt.Sprintf("I could not read the parameters of %s: %s", c.Search, d.msg)}
	}
	params := make(map[string]string, len(c.Params))
	for k, v := range c.Params {
		params[k] = v
	}
	l := rv.build(c, &sd, params, leaf{label: sd.DisplayName, task: "Find genes with " + sd.DisplayName + " (" + sd.Name + ")",
		how: "the step's search " + sd.Name + " with " + paramList(params)})
	if l.search == sd.Name && !sd.Evaluable {
		l.notEvaluable = true
	}
	return l
}

func (rv *resolver) termLeaf(c *english.Clause) *leaf {
	if cue := expressionCue(c.Text); cue != "" {
		return &leaf{clause: c, fail: fmt.Sprintf("%s asks about expression (%s), and this catalog has no expression search (RNA-seq or microarray); "+
			"a live VEuPathDB site has them", english.Quote(c.Text), english.Quote(cue))}
	}
	if c.Literal {
		return rv.textLeaf(c, c.Text, "")
	}
	if t, ok := rv.geneTypeExact(c); ok {
		return rv.geneTypeLeaf(c, t, "the gene type "+english.Quote(t))
	}
	if !rv.r.picks[needGO].found {
		return rv.textLeaf(c, c.Text, rv.r.picks[needGO].note)
	}
	if hits, variant, syn := rv.goNamed(c); len(hits) > 0 {
		switch names := distinctNames(hits); {
		case syn == "" && strings.EqualFold(variant, c.Text):
			return rv.goLeaf(c, hits, "the GO term named "+english.Quote(goName(hits[0])))
		case syn == "":
			return rv.goLeaf(c, hits, "I read "+english.Quote(c.Text)+" as the GO term "+english.Quote(goName(hits[0])))
		case len(names) > 1:
			// One synonym of several terms is two readings: a question.
			return rv.textLeaf(c, c.Text, fmt.Sprintf("GO lists %s as a synonym of %d terms, %s", english.Quote(syn), len(names),
				strings.Join(quoteAll(names), " and ")))
		default:
			return rv.goLeaf(c, hits, fmt.Sprintf("I read %s as the GO term %s, of which GO lists %s as a synonym",
				english.Quote(c.Text), english.Quote(goName(hits[0])), english.Quote(syn)))
		}
	}
	if t, ok := rv.geneTypeFuzzy(c); ok {
		return rv.geneTypeLeaf(c, t, "I read "+english.Quote(c.Text)+" as the gene type "+english.Quote(t)+" (a typo)")
	}
	if hits, d, names := rv.goFuzzy(c); len(names) == 1 {
		return rv.goLeaf(c, hits, fmt.Sprintf("I read %s as the GO term %s (a typo, %d edit%s away)",
			english.Quote(c.Text), english.Quote(goName(hits[0])), d, plural(d)))
	} else if len(names) > 1 {
		return rv.textLeaf(c, c.Text, "it is as close to the GO term "+strings.Join(quoteAll(names), " as to "))
	}
	if g := rv.unknownOrganism(c); g != "" {
		// A genus and species the catalog has never heard of: answering
		// for the catalog's organism instead would read as a result.
		reads := " reads as a genus and species, and "
		if !strings.Contains(g, " ") {
			reads = " reads as a genus, and "
		}
		return &leaf{clause: c, fail: english.Quote(g) + reads + noOrganism(g, rv.organismLeaves())}
	}
	if strings.Contains(strings.ToLower(c.Text), "ortholog") {
		return &leaf{clause: c, fail: fmt.Sprintf("%s asks about orthology, which needs OrthoMCL data the offline snapshot does not have "+
			"(GenesByOrthologs turns a result into its orthologs on a live VEuPathDB site)", english.Quote(c.Text))}
	}
	if sd := rv.r.finders[c]; sd != nil {
		return rv.finderLeaf(c, sd)
	}
	for _, sc := range suffixClauses(c) {
		dropped := "leaving out " + english.Quote(strings.TrimSpace(strings.TrimSuffix(c.Text, sc.Text)))
		if l := rv.cutLeaf(c, sc, dropped, dropped+", which no GO term is named with"); l != nil {
			return l
		}
	}
	if sc, cut := rv.spanClause(c); sc != nil {
		left := fmt.Sprintf("leaving out %s, whose words no GO term, GO synonym or gene type holds", english.Quote(cut))
		if l := rv.cutLeaf(c, sc, left, left); l != nil {
			return l
		}
	}
	why := "no GO biological process or gene type of the catalog is named so"
	if partial := rv.goTerms(c, false); len(partial) > 0 {
		var names []string
		for _, t := range partial[:min(len(partial), 3)] {
			names = append(names, english.Quote(goName(t)))
		}
		why = fmt.Sprintf("%d GO terms contain these words, such as %s, but none is named so", len(partial), strings.Join(names, ", "))
	}
	return rv.textLeaf(c, c.Text, why)
}

func (rv *resolver) goIDLeaf(c *english.Clause) *leaf {
	if !rv.r.picks[needGO].found {
		return rv.textLeaf(c, strings.Join(c.IDs, " "), rv.r.picks[needGO].note)
	}
	var hits []wireTerm
	var missing []string
	for _, id := range c.IDs {
		found := false
		if sd := rv.goDetails(id); sd != nil {
			if p, ok := sd.param(paramGO); ok {
				for _, t := range p.Values {
					if strings.EqualFold(t.Term, id) {
						hits, found = append(hits, t), true
						break
					}
				}
			}
		}
		if !found {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return rv.textLeaf(c, strings.Join(c.IDs, " "), "the catalog's GO biological-process terms do not include "+strings.Join(missing, ", "))
	}
	names := make([]string, len(hits))
	for i, t := range hits {
		names[i] = t.Term + " is " + english.Quote(goName(t))
		if _, mapped, ok := strings.Cut(t.Display, "listed in the 2017 data as "); ok {
			names[i] += " (the 2017 data lists its genes under " + mapped + ", the id GO has since merged into it)"
		}
	}
	return rv.goLeaf(c, hits, "the GO id "+strings.Join(names, "; "))
}

func (rv *resolver) goLeaf(c *english.Clause, hits []wireTerm, how string) *leaf {
	ids := make([]string, len(hits))
	for i, t := range hits {
		ids[i] = t.Term
	}
	name := goName(hits[0])
	if len(hits) > 1 {
		how += fmt.Sprintf("; %d GO ids carry this name (replaced terms keep it), so I used all of them", len(hits))
	}
	var sd *searchDetails
	for _, v := range c.Variants {
		if sd = rv.goDetails(v); sd != nil {
			break
		}
	}
	if sd == nil {
		return rv.textLeaf(c, c.Text, "I could not read the parameters of GenesByGoTerm")
	}
	label := fmt.Sprintf("%s (%s)", name, strings.Join(ids, ", "))
	params := map[string]string{paramGO: jsonList(ids...)}
	evidence := rv.p.Evidence
	if _, ok := sd.param(paramEvidence); !ok {
		evidence = ""
	}
	if evidence != "" {
		params[paramEvidence] = jsonList(evidence)
		label += ", " + strings.ToLower(evidence) + " evidence"
		how += "; you asked for " + strings.ToLower(evidence) + " evidence only, which the offline data cannot tell apart (it has no evidence codes), " +
			"so this step is not evaluable offline"
	}
	l := rv.build(c, sd, params, leaf{
		label: label, how: how,
		task: "Find genes annotated with the GO biological process " + label,
	})
	l.notEvaluable = evidence != "" && l.search == sd.Name
	return l
}

func (rv *resolver) geneTypeLeaf(c *english.Clause, term, how string) *leaf {
	sd := rv.details[searchNeeds[needGeneType].search]
	if sd == nil || !rv.r.picks[needGeneType].found {
		return rv.textLeaf(c, c.Text, rv.r.picks[needGeneType].note)
	}
	return rv.build(c, sd, map[string]string{paramGeneType: jsonList(term)}, leaf{
		label: term + " genes", how: how, task: "Find genes of the gene type " + term,
	})
}

func (rv *resolver) locationLeaf(c *english.Clause) *leaf {
	sd := rv.details[searchNeeds[needLocation].search]
	if sd == nil || !rv.r.picks[needLocation].found {
		return rv.textLeaf(c, english.DescribeClause(c), rv.r.picks[needLocation].note)
	}
	p, ok := sd.param(paramChromosome)
	if !ok {
		return rv.textLeaf(c, english.DescribeClause(c), sd.Name+" has no chromosome parameter")
	}
	var found *wireTerm
	for i, t := range p.Values {
		disp := english.Normalize(t.Display)
		switch {
		case strings.EqualFold(t.Term, c.Location),
			c.Location == "apicoplast" && strings.Contains(disp, "apicoplast"),
			c.Location == "mitochondrion" && strings.Contains(disp, "mitochondri"),
			disp == "chromosome "+c.Location:
			found = &p.Values[i]
		}
		if found != nil {
			break
		}
	}
	if found == nil {
		var names []string
		for _, t := range p.Values {
			names = append(names, displayOr(t))
		}
		return &leaf{clause: c, fail: fmt.Sprintf("this catalog has no %s: its sequences are %s", english.DescribeClause(c), strings.Join(names, ", "))}
	}
	label := fmt.Sprintf("%s (%s)", displayOr(*found), found.Term)
	params := map[string]string{paramChromosome: found.Term}
	how := fmt.Sprintf("%s is %s in the catalog's list of sequences", english.Quote(c.Text), found.Term)
	region := c.Start != ""
	if region {
		params["start_point"], params["end_point"] = c.Start, c.End
		label += fmt.Sprintf(", %s–%s bp", c.Start, c.End)
		how += "; the offline snapshot has no gene coordinates, so a region of it is not evaluable offline"
	}
	l := rv.build(c, sd, params, leaf{label: label, how: how, task: "Find genes on " + label})
	l.notEvaluable = region && l.search == sd.Name
	if stem := organelleStem(c.Location); stem != "" && !region && !rv.readingNearest {
		rv.readingNearest = true
		l.other = rv.textLeaf(c, stem, "the genes whose annotation names the "+c.Location+", another reading of it than its genome")
		rv.readingNearest = false
	}
	return l
}

func (rv *resolver) idsLeaf(c *english.Clause) *leaf {
	sd := rv.details[searchNeeds[needIDs].search]
	if sd == nil || !rv.r.picks[needIDs].found || !rv.a.t.has("lookup_genes") {
		return rv.textLeaf(c, strings.Join(c.IDs, " "), "I could not look the genes up: "+rv.r.picks[needIDs].note)
	}
	var gm geneMatches
	d := rv.a.t.result(lookupCall(c.IDs))
	if !d.decode(&gm) {
		return rv.textLeaf(c, strings.Join(c.IDs, " "), "lookup_genes failed: "+d.msg)
	}
	var genes, found, unmatched []string
	for _, id := range c.IDs {
		hit := ""
		for _, g := range gm.Genes {
			if g.MatchedOn != "product" && strings.EqualFold(g.Matched, id) {
				hit = g.GeneID
				break
			}
		}
		if hit == "" {
			unmatched = append(unmatched, id)
			continue
		}
		if !containsFold(genes, hit) {
			genes = append(genes, hit)
		}
		if strings.EqualFold(hit, id) {
			found = append(found, hit)
		} else {
			found = append(found, id+" is "+hit)
		}
	}
	if len(genes) == 0 {
		return rv.textLeaf(c, strings.Join(c.IDs, " "), "lookup_genes found no gene by these ids or symbols")
	}
	how := "lookup_genes found " + strings.Join(found, ", ")
	if len(unmatched) > 0 {
		how += "; I could not map " + strings.Join(quoteAll(unmatched), ", ") + " to any gene and left them out"
	}
	label := "genes " + strings.Join(genes[:min(len(genes), 4)], ", ")
	if len(genes) > 4 {
		label += fmt.Sprintf(" and %d more", len(genes)-4)
	}
	return rv.build(c, sd, map[string]string{paramIDs: jsonList(genes...)}, leaf{
		label: label, how: how, task: "Find the " + label + " by their ids",
	})
}

// listLeaf is the gene ids search over one of the researcher's lists,
// found by name with find_gene_list. A list that cannot be found is said
// plainly: its name is never searched as text.
func (rv *resolver) listLeaf(c *english.Clause) *leaf {
	name := english.Quote(c.Text)
	if !rv.a.t.has("find_gene_list") {
		return &leaf{clause: c, fail: "I cannot read your gene lists here, so I cannot use your list " + name}
	}
	var gl struct {
		Name  string   `json:"name"`
		Genes []string `json:"genes"`
	}
	if d := rv.a.t.result(listCall(c.Text)); !d.decode(&gl) {
		return &leaf{clause: c, fail: "I could not use your list " + name + ": " + d.msg}
	}
	if len(gl.Genes) == 0 {
		return &leaf{clause: c, fail: "your list " + name + " has no genes"}
	}
	sd := rv.details[searchNeeds[needIDs].search]
	if sd == nil || !rv.r.picks[needIDs].found {
		return &leaf{clause: c, fail: "I could not start a step from your list " + name + ": " + rv.r.picks[needIDs].note}
	}
	label := "List: " + gl.Name
	return rv.build(c, sd, map[string]string{paramIDs: jsonList(gl.Genes...)}, leaf{
		label: label, task: "Find the genes of the list " + english.Quote(gl.Name) + " by their ids",
		how: fmt.Sprintf("find_gene_list found your list %s with %d genes", english.Quote(gl.Name), len(gl.Genes)),
	})
}

func (rv *resolver) taxonLeaf(c *english.Clause) *leaf {
	sd := rv.details[searchNeeds[needTaxon].search]
	if sd == nil || !rv.r.picks[needTaxon].found || rv.r.organism == "" {
		return &leaf{clause: c, fail: "I could not find a search for all genes of an organism: " + rv.r.picks[needTaxon].note}
	}
	return rv.build(c, sd, map[string]string{}, leaf{
		label: "all " + rv.r.organism + " genes", how: rv.r.orgNote,
		task: "Find all genes of " + rv.r.organism,
	})
}

// textLeaf is the fallback: a text search for the phrase, marked as not
// mapped, saying why in the words the planning artifact uses.
func (rv *resolver) textLeaf(c *english.Clause, phrase, why string) *leaf {
	sd := rv.details[searchNeeds[needText].search]
	if sd == nil || !rv.r.picks[needText].found {
		return &leaf{clause: c, fail: fmt.Sprintf("I could not map %s (%s), and the catalog offers no text search to fall back on", english.Quote(c.Text), why)}
	}
	expr := textExpression(phrase)
	how := fmt.Sprintf("I could not map %s; I used a text search for it (%s): %s", english.Quote(c.Text), expr, why)
	if c.Literal {
		how = fmt.Sprintf("you asked for a text search for %s (%s)", english.Quote(c.Text), expr)
	}
	l := rv.build(c, sd, map[string]string{paramText: expr}, leaf{
		label: "text " + expr, task: "Find genes whose annotation mentions " + expr + " (text search)", how: how,
	})
	l.unmapped = true
	if c.Kind == english.KindTerm && !c.Literal && rv.r.picks[needGO].found && !rv.readingNearest {
		l.nearest = rv.nearest(c)
	}
	return l
}

// maxNearest is how many vocabulary terms a question about an unmapped
// phrase offers, beside the text search.
const maxNearest = 3

// nearest are the GO terms the catalog's own look-ups for a phrase
// returned (its words, their stems and short forms, matched against GO
// names and GO's synonyms, and near spellings), nearest first
// (nearestTerms), each mapped as a step would be: the readings a question
// about the phrase offers.
func (rv *resolver) nearest(c *english.Clause) []*leaf {
	// A reading the catalog refuses falls back to a text search, which
	// must not look for readings of its own.
	rv.readingNearest = true
	defer func() { rv.readingNearest = false }()
	var out []*leaf
	for _, t := range nearestTerms(c, rv.goTerms(c, true)) {
		if len(out) == maxNearest {
			break
		}
		how := "the GO term " + english.Quote(goName(t)) + " (" + t.Term + ")"
		if t.Synonym != "" {
			how += ", whose GO synonym is " + english.Quote(t.Synonym)
		}
		if l := rv.goLeaf(c, []wireTerm{t}, how); !l.unmapped && l.fail == "" {
			out = append(out, l)
		}
	}
	return out
}

// textExpression writes a phrase for the text search: one word with a
// wildcard for its plural, several words as a quoted phrase.
func textExpression(phrase string) string {
	words := strings.Fields(phrase)
	if len(words) == 1 {
		w := english.Singular(words[0])
		if len([]rune(w)) >= 4 && !strings.Contains(w, "*") {
			w += "*"
		}
		return w
	}
	return `"` + strings.Join(words, " ") + `"`
}

// build completes a leaf: the values chosen, plus every required organism
// parameter set to the organism. A required parameter the engine cannot
// fill makes the clause a text search, unless it already is one.
func (rv *resolver) build(c *english.Clause, sd *searchDetails, params map[string]string, l leaf) *leaf {
	l.clause, l.search, l.params = c, sd.Name, params
	for name := range params {
		if _, ok := sd.param(name); !ok {
			return rv.refill(c, l, fmt.Sprintf("%s has no parameter %s", sd.Name, name))
		}
	}
	for _, p := range sd.Parameters {
		if _, set := params[p.Name]; set || !p.Required {
			continue
		}
		if rv.r.organism != "" && containsTerm(p.Values, rv.r.organism) {
			if p.Type == "single-pick-vocabulary" {
				params[p.Name] = rv.r.organism
			} else {
				params[p.Name] = jsonList(rv.r.organism)
			}
			continue
		}
		return rv.refill(c, l, fmt.Sprintf("%s needs a value for %s, which I cannot choose", sd.Name, p.Name))
	}
	if len(c.Notes) > 0 {
		l.how = strings.Join(c.Notes, "; ") + "; " + l.how
	}
	return &l
}

// refill turns a leaf that cannot be built as planned into a text search,
// or a failure when it already was one.
func (rv *resolver) refill(c *english.Clause, l leaf, why string) *leaf {
	if l.search == searchNeeds[needText].search {
		return &leaf{clause: c, fail: l.how + "; " + why}
	}
	return rv.textLeaf(c, c.Text, why)
}

func containsTerm(values []wireTerm, term string) bool {
	for _, v := range values {
		if v.Term == term {
			return true
		}
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func displayOr(t wireTerm) string {
	if t.Display != "" {
		return t.Display
	}
	return t.Term
}

// jsonList encodes values as the catalog's multi-pick string encoding.
func jsonList(values ...string) string {
	b, err := marshal(values)
	if err != nil {
		return "[]" // a []string always encodes
	}
	return string(b)
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = english.Quote(x)
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
