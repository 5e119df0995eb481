package english

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// rankRE reads a rank asked of genes: "the top 10", "best 5".
var rankRE = regexp.MustCompile(`(?i)\b(?:the\s+)?(?:top|best)\s+\d{1,4}\s+`)

// Parse reads a request into a tree of clauses. It uses no catalog: what a
// clause maps to is decided later, from the catalog tools' answers.
//
// Precedence, loosest first (parentheses-free English):
//  1. Exclusions (but not, and not, excluding, except, minus, not on, not
//     in, without, other than, not) split the request into a base and the
//     parts taken away from it, left to right: "A or B, excluding C" is
//     MINUS(UNION(A, B), C); "A excluding B excluding C" is
//     MINUS(MINUS(A, B), C). An exclusion's right side runs to the next
//     exclusion, so "A excluding B or C" is MINUS(A, UNION(B, C)).
//  2. "or" (and "and/or"): "A and B or C" is UNION(INTERSECT(A, B), C).
//  3. "and" binds tightest of the connectives, except between two values
//     of an attribute a gene has only one of (two chromosomes, two gene
//     types), where "and" can only mean "or": "genes on chromosomes 5 and
//     7" is UNION.
//  4. Inside one clause, a qualifier intersects with the rest: "DNA repair
//     genes on chromosome 5" is INTERSECT(DNA repair, chromosome 5), and
//     "tRNA genes involved in translation" is INTERSECT(tRNA, translation).
//  5. A comma between two clauses with no connective is a list separator
//     and takes the connective that ends the list ("A, B or C" is
//     UNION(UNION(A, B), C)); with none it means "and".
//
// Gene ids joined by commas, "and" or "or" are one list (their union), not
// an intersection of single genes. The organism ("P. falciparum",
// "Plasmodium falciparum 3D7") qualifies every clause; a request that names
// only genes of an organism is every gene of it.
func Parse(text string) Parsed {
	var p Parsed
	if o, ok := orthologsOf(text); ok {
		p.Follow, p.Orthologs = FollowOrthologs, &o
		return p
	}
	text, p.Known = takeKnown(text)
	given := text
	var notes []string
	if m := rankRE.FindString(text); m != "" {
		// A search's genes have no rank: the number says nothing about
		// which genes, and the answer says so.
		text = rankRE.ReplaceAllString(text, "")
		p.Notes = append(p.Notes, "a search's genes have no rank, so I read "+Quote(strings.TrimSpace(m))+" as all of them")
	}
	text, notes = rewritten(text)
	p.Notes = append(p.Notes, notes...)
	toks := literalWords(tokenize(text))
	toks, p.Organism = takeOrganism(toks)
	toks, p.Evidence = takeEvidence(toks)
	toks, start, end := takeRegion(toks)
	defer func() { placeRegion(&p, start, end) }()
	var rest, replaced []token
	p.Follow, rest, replaced = followUpOf(toks)
	switch p.Follow {
	case FollowUndo, FollowEnrich, FollowControls:
		p.controlsGiven(given)
		return p
	case FollowNone:
	default:
		p.Part = parseTokens(rest, &p, nil)
		if replaced != nil {
			p.Replaced = parseTokens(replaced, &p, nil)
			pairLocations(&p)
		}
	}
	if p.Follow == FollowStartOver || p.Follow == FollowReplace || p.Follow == FollowAdd || p.Follow == FollowRestrict {
		toks = rest
	}
	p.Root = parseTokens(toks, &p, toks)
	if p.Follow == FollowReplace {
		p.Root = p.Part
	}
	if p.Follow == FollowExclude && p.Part != nil && (p.Root == nil || p.Root.Op != OpMinus) {
		// "chromosome 13 has to go": with nothing to refine, what is left
		// of every gene.
		p.Root = &Node{Op: OpMinus, Left: taxonNode(&p, true), Right: p.Part}
	}
	return p
}

// parseTokens parses words into a tree: the parts between loose
// connectives, joined left to right. With all set (the whole request), a
// request that names no genes but an organism, or that starts with an
// exclusion, starts from every gene of the organism.
func parseTokens(toks []token, p *Parsed, all []token) *Node {
	segs, joins := splitLoose(toks)
	var root *Node
	for i, seg := range segs {
		n := parseSegment(seg, p)
		switch {
		case i == 0 && n == nil:
			// "genes not on chromosome 5" takes genes from all of them;
			// "show me the genes" alone names none ("all genes", "how
			// many genes", an organism's genes do).
			if all == nil || !hasContent(all) && p.Organism == "" && (!mentionsGenes(seg) || len(segs) == 1 && !asksAll(seg)) {
				if len(segs) == 1 {
					return nil
				}
				continue
			}
			root = taxonNode(p, len(segs) > 1)
		case i == 0:
			root = n
		case n == nil && joins[i-1].op == OpMinus && root != nil && strings.Trim(join(seg), " ,;.") != "":
			// What is taken away is only words that say nothing by
			// themselves ("genes with no known function"): they stay a
			// phrase to map or ask about, never dropped to leave every
			// gene.
			root = &Node{Op: OpMinus, Left: root, Right: &Node{Clause: TermClause(strings.Trim(join(seg), " ,;."))}}
		case n == nil:
			p.Notes = append(p.Notes, Quote(strings.Join(joins[i-1].words, " "))+" had nothing after it; I ignored it")
		case root == nil:
			root = n
		default:
			root = &Node{Op: joins[i-1].op, Left: root, Right: n}
		}
	}
	unionPlaces(root)
	return root
}

// takeRegion removes a region of a sequence ("between 100,000 and
// 200,000 bp", "from 1 to 50 kb", "from 100 kb to 200 kb") from the words
// and returns its bounds in base pairs.
func takeRegion(toks []token) ([]token, string, string) {
	unitAt := func(k int) string {
		if k < len(toks) && unitScale[toks[k].low] > 0 {
			return toks[k].low
		}
		return ""
	}
	for i := 0; i+3 < len(toks); i++ {
		if toks[i].quoted || (toks[i].low != "between" && toks[i].low != "from") {
			continue
		}
		if _, ok := basePairs(toks[i+1].low, ""); !ok {
			continue
		}
		k := i + 2
		firstUnit := unitAt(k)
		if firstUnit != "" {
			k++
		}
		if k+1 >= len(toks) || (toks[k].low != "and" && toks[k].low != "to" && toks[k].low != "-") {
			continue
		}
		if _, ok := basePairs(toks[k+1].low, ""); !ok {
			continue
		}
		unit, end := unitAt(k+2), k+2
		if unit != "" {
			end++
		} else {
			unit = firstUnit
		}
		if firstUnit == "" {
			firstUnit = unit
		}
		a, _ := basePairs(toks[i+1].low, firstUnit)
		b, _ := basePairs(toks[k+1].low, unit)
		if unit == "" && a < 1000 && b < 1000 {
			continue // "between 10 and 50" without a unit is no region
		}
		return append(slices.Clip(toks[:i]), toks[end:]...), strconv.Itoa(a), strconv.Itoa(b)
	}
	return toks, "", ""
}

// unitScale is base pairs per unit.
var unitScale = map[string]int{"bp": 1, "nt": 1, "bases": 1, "kb": 1000, "kbp": 1000, "mb": 1000000, "mbp": 1000000}

// basePairs reads "100,000" or "1.5" (in unit) as base pairs.
func basePairs(w, unit string) (int, bool) {
	f, err := strconv.ParseFloat(strings.ReplaceAll(w, ",", ""), 64)
	if err != nil || f < 0 {
		return 0, false
	}
	if scale := unitScale[unit]; scale > 0 {
		f *= float64(scale)
	}
	return int(f), true
}

// placeRegion bounds the request's one location to the region.
func placeRegion(p *Parsed, start, end string) {
	if start == "" {
		return
	}
	var locs []*Clause
	for _, c := range p.Root.Leaves() {
		if c.Kind == KindLocation {
			locs = append(locs, c)
		}
	}
	if len(locs) != 1 {
		p.Notes = append(p.Notes, "I could not tell which sequence the region "+start+"–"+end+" bp is on, so I left it out")
		return
	}
	locs[0].Start, locs[0].End = start, end
}

// asksAll reports whether words with nothing else in them ask for every
// gene: "all genes", "every gene", "the whole genome", "how many genes".
func asksAll(toks []token) bool {
	for i, t := range toks {
		switch t.low {
		case "all", "every", "everything", "whole", "entire", "total", "complete":
			return true
		case "many":
			if i > 0 && toks[i-1].low == "how" {
				return true
			}
		}
	}
	return false
}

// taxonNode is "all genes" of the organism: the whole request, or the base
// an exclusion takes genes from.
func taxonNode(p *Parsed, excluding bool) *Node {
	note := "you asked for genes without narrowing them, so I start from every gene of the organism"
	if excluding {
		note = "nothing came before the exclusion, so I take genes away from every gene of the organism"
	}
	return &Node{Clause: &Clause{Text: "all genes", Kind: KindTaxon, Notes: []string{note}}}
}

// splitLoose cuts the words at loose connectives (exclusions, and the
// words that restrict: "keep only", "limited to"): the base, then each
// part, with the connective that introduced it. The words that merely
// lead up to a connective ("…, and then remove") go with it.
func splitLoose(toks []token) (segs [][]token, joins []connective) {
	start := 0
	for i := 0; i < len(toks); i++ {
		c, ok := connectiveAt(toks, i)
		if !ok || !c.loose {
			continue
		}
		segs = append(segs, trimJoiners(toks[start:i]))
		joins = append(joins, c)
		i += len(c.words) - 1
		start = i + 1
	}
	segs = append(segs, trimJoiners(toks[start:]))
	carryQualifiers(segs, joins)
	return segs, joins
}

// carryQualifiers gives back to the request what follows the place an
// exclusion names: in "genes outside chromosome 14 involved in
// proteolysis" the exclusion is chromosome 14, and "involved in
// proteolysis" qualifies the genes.
func carryQualifiers(segs [][]token, joins []connective) {
	for i := 1; i < len(segs); i++ {
		if joins[i-1].op != OpMinus {
			continue
		}
		seg := segs[i]
		for k := len(seg) - 1; k > 0; k-- {
			if seg[k].quoted || !qualifierLeads[seg[k].low] || slices.ContainsFunc(seg[:k], isJoin) || locationClause(strip(seg[:k])) == nil {
				continue
			}
			segs[0] = append(slices.Clip(segs[0]), seg[k:]...)
			segs[i] = seg[:k]
			break
		}
	}
}

// joiners are the words that only lead from one part of a request to the
// next: "…, and then remove …", "… but exclude …".
var joiners = WordSet("and then but so now also that which who , ;")

// trimJoiners takes commas and joiners off both ends of a part.
func trimJoiners(toks []token) []token {
	for len(toks) > 0 && !toks[0].quoted && (toks[0].comma || joiners[toks[0].low] && toks[0].low != "and") {
		toks = toks[1:]
	}
	for len(toks) > 0 && !toks[len(toks)-1].quoted && (toks[len(toks)-1].comma || joiners[toks[len(toks)-1].low]) {
		toks = toks[:len(toks)-1]
	}
	return toks
}

func trimCommas(toks []token) []token {
	for len(toks) > 0 && toks[0].comma {
		toks = toks[1:]
	}
	for len(toks) > 0 && toks[len(toks)-1].comma {
		toks = toks[:len(toks)-1]
	}
	return toks
}

// item is a clause's words or the connective between two clauses.
type item struct {
	words []token
	op    Op // set for a connective
	list  bool
}

// parseSegment parses words without loose connectives. A qualifier
// applies to the whole list it follows or precedes, so qualifiers are
// taken off first: a location list before a comma ("On chromosome 14, A
// or B"), "X encode Y", "X genes involved in / on / with Y", and a trailing
// location list ("A or B on chromosome 5 or 6"). What is left is "or" over
// "and" over clauses. It returns nil when the segment names nothing.
func parseSegment(toks []token, p *Parsed) *Node {
	toks = trimCommas(toks)
	if len(toks) == 0 {
		return nil
	}
	if n := commaList(toks, p); n != nil {
		return n
	}
	if loc := locationList(toks, p); loc != nil {
		return loc
	}
	if n := placeItem(toks, p); n != nil {
		return n
	}
	if n := qualifiedList(toks, p); n != nil {
		return n
	}
	if n := splitQualifier(toks, p); n != nil {
		return n
	}
	return parseList(toks, p)
}

// qualifiedList reads a list of gene sets that each carry their own
// qualifier: "DNA repair genes on chromosome 5 or tRNA genes on chromosome
// 7" is the union of two intersections, not one qualifier over the rest.
// It splits at the first connective or list comma whose two sides are each
// qualified (the right side may be a longer such list). Between two sets described
// apart, "and" lists them ("kinases on chromosome 3 and proteases on
// chromosome 9" asks for both), so it means "or" there, and a note says so.
// It returns nil when no connective has a qualified set on both sides.
func qualifiedList(toks []token, p *Parsed) *Node {
	qualified := func(part []token) bool {
		scratch := Parsed{Organism: p.Organism}
		return hasContent(part) && splitQualifier(part, &scratch) != nil
	}
	for i := 1; i < len(toks)-1; i++ {
		c, ok := connectiveAt(toks, i)
		if toks[i].comma {
			// A list comma: the list's sets are all wanted.
			c, ok = connective{words: []string{","}, op: OpUnion}, true
		}
		if !ok || (c.op != OpUnion && c.op != OpIntersect) {
			continue
		}
		head, tail := trimCommas(toks[:i]), trimCommas(toks[i+len(c.words):])
		// "tRNA genes on chromosome 7 plus GO:0008616": a set added to a
		// qualified one is a set of its own, unless it is only a place
		// ("… on chromosome 7 plus 8").
		added := addsSet(c) && qualified(head) && hasContent(tail) && !hasPlace(tail) && !isNumeric(tail[0].low)
		if !added && (!qualified(head) || !qualified(tail)) {
			continue
		}
		h, t := parseSegment(head, p), parseSegment(tail, p)
		if h == nil || t == nil {
			return nil
		}
		if c.op == OpIntersect {
			p.Notes = append(p.Notes, "I read "+Quote(strings.Join(c.words, " "))+
				" between two separately described gene sets as \"or\" (genes of either set); say \"that are also\" for genes in both")
		}
		return &Node{Op: OpUnion, Left: h, Right: t}
	}
	return nil
}

// addsSet reports whether a connective adds a set to another ("plus",
// "together with"), as "or" and "and" do not say.
func addsSet(c connective) bool {
	return c.op == OpUnion && len(c.words) > 0 && c.words[0] != "or" && c.words[0] != "and/or" && c.words[0] != ","
}

// splitQualifier finds a qualifier that applies to a whole list and returns
// the intersection of the two sides, or nil when there is none.
func splitQualifier(toks []token, p *Parsed) *Node {
	both := func(head, tail []token) *Node {
		if !hasContent(head) || !hasContent(tail) {
			return nil
		}
		h, t := parseSegment(head, p), parseSegment(tail, p)
		if h == nil || t == nil {
			return nil
		}
		return &Node{Op: OpIntersect, Left: h, Right: t}
	}
	// "On chromosome 14, A or B".
	if i := slices.IndexFunc(toks, func(t token) bool { return t.comma }); i > 0 && !joinsAt(toks, i+1) {
		if loc := locationList(toks[:i], p); loc != nil && hasContent(toks[i+1:]) {
			if rest := parseSegment(toks[i+1:], p); rest != nil {
				return &Node{Op: OpIntersect, Left: rest, Right: loc}
			}
		}
	}
	// "Genes on chromosome 8 involved in A or B": a location first, then
	// what the genes do.
	for k := 2; k < len(toks); k++ {
		if toks[k].quoted || !relationWords[toks[k].low] || locationPrepositions[toks[k].low] || isJoin(toks[k-1]) || newItem(toks[:k]) {
			continue
		}
		if loc := locationList(toks[:k], p); loc != nil && hasContent(toks[k:]) {
			if rest := parseSegment(toks[k:], p); rest != nil {
				return &Node{Op: OpIntersect, Left: loc, Right: rest}
			}
		}
	}
	// "Genes on the apicoplast that encode rRNA".
	for i := 1; i+1 < len(toks); i++ {
		if !toks[i].quoted && (toks[i].low == "encode" || toks[i].low == "encodes") && !isJoin(toks[i-1]) {
			if n := both(toks[:i], toks[i+1:]); n != nil {
				return n
			}
		}
	}
	// "X genes involved in Y", "X genes on chromosome 5": X qualifies Y.
	for i := 1; i+1 < len(toks); i++ {
		if toks[i].quoted || (toks[i].low != "genes" && toks[i].low != "gene") || !relationWords[toks[i+1].low] || isJoin(toks[i-1]) ||
			ownsLocation(toks[:i+1]) || newItem(toks[:i+1]) || hasPlace(toks[:i]) && joinsSets(toks[:i]) {
			continue
		}
		if n := both(toks[:i], toks[i+1:]); n != nil {
			return n
		}
	}
	// "A or B on chromosome 5 or 6", "A or B, on chromosome 5".
	for k := 1; k < len(toks); k++ {
		if toks[k].quoted || !locationPrepositions[toks[k].low] || !hasContent(toks[:k]) {
			continue
		}
		head := toks[:k]
		if hasPlace(head) {
			continue // "the apicoplast rRNA genes, plus GO:… genes on chromosome 1": the last part's own place
		}
		if toks[k-1].comma {
			head = toks[:k-1]
		} else if isJoin(toks[k-1]) || ownsLocation(toks[:k]) {
			continue
		}
		if loc := locationList(toks[k:], p); loc != nil {
			if h := parseSegment(head, p); h != nil {
				return &Node{Op: OpIntersect, Left: h, Right: loc}
			}
		}
	}
	// "chr5 tRNA or rRNA genes", "apicoplast tRNA and rRNA genes": a
	// location first qualifies the whole list (an organelle only a list of
	// gene types, since GO names processes "mitochondrial ...").
	for k := 1; k <= 2 && k < len(toks); k++ {
		loc := locationClause(toks[:k])
		rest := toks[k:]
		if loc == nil || !slices.ContainsFunc(rest, isJoin) {
			continue
		}
		if loc.Location == "apicoplast" || loc.Location == "mitochondrion" {
			if !allGeneTypes(rest) {
				continue
			}
		}
		if r := parseSegment(rest, p); r != nil {
			return &Node{Op: OpIntersect, Left: &Node{Clause: loc}, Right: r}
		}
	}
	return nil
}

// setWords name a set of genes without saying more: "genes", "any gene",
// "those".
var setWords = WordSet("genes gene any all those the ones every anything everything whatever")

// allGeneTypes reports whether every item of a list names a gene type.
func allGeneTypes(toks []token) bool {
	for _, it := range segmentItems(toks) {
		if it.op != "" {
			continue
		}
		if _, ok := GeneTypeName(join(strip(it.words))); !ok {
			return false
		}
	}
	return true
}
