package english

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// isJoin reports whether a word joins two parts (a connective or a comma),
// so what follows it is a part of a list, not a qualifier of it.
func isJoin(t token) bool {
	if t.comma {
		return true
	}
	_, ok := connectiveAt([]token{t}, 0)
	return ok
}

// locationList reads words that are only locations: "on chromosomes 5 and
// 6", "chromosome 3 or on the apicoplast", "chromosomes 1 through 3". It
// returns their union (a gene lies in one place, so "and" between places
// can only mean "or", and a note says so), or nil when any part is not a
// location.
func locationList(toks []token, p *Parsed) *Node {
	type part struct {
		words   []token
		rangeTo bool // after "through", "to" or "-"
	}
	var parts []part
	cur := part{}
	ands := false
	flush := func(rangeNext bool) {
		parts = append(parts, cur)
		cur = part{rangeTo: rangeNext}
	}
	for _, t := range toks {
		switch {
		case t.quoted:
			return nil
		case t.comma || t.low == "or" || t.low == "and/or" || t.low == "either":
			flush(false)
		case t.low == "and" || t.low == "&":
			ands = true
			flush(false)
		case t.low == "through" || t.low == "thru" || t.low == "to" || t.low == "-":
			flush(true)
		default:
			cur.words = append(cur.words, t)
		}
	}
	flush(false)
	var clauses []*Clause
	for _, pt := range parts {
		w := strip(pt.words)
		if len(w) == 0 {
			if pt.rangeTo {
				return nil
			}
			continue
		}
		var prev *Clause
		if len(clauses) > 0 {
			prev = clauses[len(clauses)-1]
		}
		if m := numberRangeRE.FindStringSubmatch(w[0].low); len(w) == 1 && m != nil && prev != nil && !isSequenceID(prev.Location) {
			from, _ := strconv.Atoi(m[1])
			to, _ := strconv.Atoi(m[2])
			clauses = append(clauses, chromosomeRange(from, to)...)
			continue
		}
		c := locationClause(w)
		if c == nil && len(w) == 1 && isNumberWord(w[0].low) && prev != nil && prev.Kind == KindLocation && !isSequenceID(prev.Location) {
			n, _ := chromosomeNumber(w[0].low)
			c = &Clause{Text: w[0].text, Kind: KindLocation, Location: strconv.Itoa(n)}
		}
		if c == nil {
			return nil
		}
		if pt.rangeTo {
			if prev == nil {
				return nil
			}
			from, errFrom := strconv.Atoi(prev.Location)
			to, errTo := strconv.Atoi(c.Location)
			if errFrom != nil || errTo != nil || to <= from {
				return nil
			}
			clauses = append(clauses, chromosomeRange(from+1, to)...)
			continue
		}
		clauses = append(clauses, c)
	}
	if len(clauses) == 0 {
		return nil
	}
	nodes := make([]*Node, len(clauses))
	for i, c := range clauses {
		nodes[i] = &Node{Clause: c}
	}
	op := OpUnion
	if ands {
		op = OpIntersect // chain reads it as "or", and says so
	}
	return chain(nodes, op, p)
}

var numberRangeRE = regexp.MustCompile(`^(\d{1,2})-(\d{1,2})$`)

// chromosomeRange lists chromosomes from..to.
func chromosomeRange(from, to int) []*Clause {
	var out []*Clause
	for n := from; n <= to && n-from < 20; n++ {
		out = append(out, &Clause{Text: strconv.Itoa(n), Kind: KindLocation, Location: strconv.Itoa(n)})
	}
	return out
}

// parseList parses "or" over "and" over clauses.
func parseList(toks []token, p *Parsed) *Node {
	items := segmentItems(toks)
	items = joinIDLists(items)
	// OR parts, each a list of AND clauses.
	var parts [][][]token
	cur := [][]token{nil}
	for _, it := range items {
		switch {
		case it.op == OpUnion:
			parts = append(parts, cur)
			cur = [][]token{nil}
		case it.op == OpIntersect:
			cur = append(cur, nil)
		default:
			cur[len(cur)-1] = append(cur[len(cur)-1], it.words...)
		}
	}
	parts = append(parts, cur)

	var prev *Clause
	var ors []*Node
	for _, part := range parts {
		var ands []*Node
		for _, words := range part {
			n := parseClause(words)
			if n == nil {
				continue
			}
			for _, c := range n.Leaves() {
				elide(prev, c)
				prev = c
			}
			ands = append(ands, n)
		}
		if n := chain(ands, OpIntersect, p); n != nil {
			ors = append(ors, n)
		}
	}
	return chain(ors, OpUnion, p)
}

// segmentItems turns words into clauses and connectives, resolving list
// commas to the connective that ends their list.
func segmentItems(toks []token) []item {
	var items []item
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.comma {
			if i+1 < len(toks) {
				if _, ok := connectiveAt(toks, i+1); ok {
					continue // ", or": the connective says it
				}
			}
			op := OpIntersect
			for j := i + 1; j < len(toks); j++ {
				if c, ok := connectiveAt(toks, j); ok {
					op = c.op
					break
				}
			}
			items = append(items, item{op: op, list: true})
			continue
		}
		if c, ok := connectiveAt(toks, i); ok {
			items = append(items, item{op: c.op})
			i += len(c.words) - 1
			continue
		}
		if len(items) > 0 && items[len(items)-1].op == "" {
			items[len(items)-1].words = append(items[len(items)-1].words, t)
		} else {
			items = append(items, item{words: []token{t}})
		}
	}
	return items
}

// joinIDLists merges gene ids joined by connectives into one clause: "AMA1
// and MSP1" is a list of two genes, not their intersection.
func joinIDLists(items []item) []item {
	var out []item
	for i := 0; i < len(items); i++ {
		it := items[i]
		if it.op != "" && len(out) > 0 && i+1 < len(items) && out[len(out)-1].op == "" && items[i+1].op == "" {
			l, r := out[len(out)-1].words, items[i+1].words
			if len(l) > 0 && len(r) > 0 && isGeneID(l[len(l)-1].text) && isGeneID(r[0].text) {
				out[len(out)-1].words = append(slices.Clip(l), r...)
				i++
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// chain joins nodes with op, left-deep. An "and" between values of an
// attribute a gene has one of (chromosome, gene type) is read as "or".
func chain(nodes []*Node, op Op, p *Parsed) *Node {
	if len(nodes) == 0 {
		return nil
	}
	if op == OpIntersect && len(nodes) > 1 && singleValued(nodes) {
		op = OpUnion
		p.Notes = append(p.Notes, "a gene lies on one chromosome and has one gene type, so I read 'and' between "+
			describeList(nodes)+" as 'or'")
	}
	if len(nodes) > maxChain && (op == OpUnion || op == OpIntersect) {
		return balanced(nodes, op)
	}
	root := nodes[0]
	for _, n := range nodes[1:] {
		root = &Node{Op: op, Left: root, Right: n}
	}
	return root
}

// maxChain is the longest list chained left to right ("A or B or C" is
// UNION(UNION(A, B), C), as it reads); a longer one is a balanced tree, so
// a list of every chromosome nests no deeper than a plan may.
const maxChain = 4

// balanced joins nodes with an associative operator into a tree whose
// depth grows with the logarithm of their number.
func balanced(nodes []*Node, op Op) *Node {
	if len(nodes) == 1 {
		return nodes[0]
	}
	mid := (len(nodes) + 1) / 2
	return &Node{Op: op, Left: balanced(nodes[:mid], op), Right: balanced(nodes[mid:], op)}
}

// singleValued reports whether every node is a location, or every node is
// a gene type named plainly.
func singleValued(nodes []*Node) bool {
	allLoc, allType := true, true
	for _, n := range nodes {
		if n.Clause == nil {
			return false
		}
		allLoc = allLoc && n.Clause.Kind == KindLocation
		_, typ := GeneTypeName(n.Clause.Text)
		allType = allType && n.Clause.Kind == KindTerm && typ
	}
	return allLoc || allType
}

func describeList(nodes []*Node) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = Quote(DescribeClause(n.Clause))
	}
	return strings.Join(names, ", ")
}

// elide completes a clause that leans on the one before it: a bare number
// after a chromosome is another chromosome ("chromosome 5 or 7"), and a
// single word after a longer phrase may share its first words ("DNA
// replication or repair" also tries "DNA repair"), and a single word
// before a longer phrase may share its last words ("transfer or
// ribosomal RNA" also tries "transfer RNA").
func elide(prev, c *Clause) {
	if prev == nil {
		return
	}
	if c.Kind == KindTerm && prev.Kind == KindLocation && isNumberWord(c.Text) && !isSequenceID(prev.Location) {
		n, _ := chromosomeNumber(c.Text)
		c.Kind, c.Location, c.Variants = KindLocation, strconv.Itoa(n), nil
		c.Notes = append(c.Notes, "I read "+Quote(c.Text)+" as chromosome "+c.Location+", like the chromosome before it")
		return
	}
	// "transfer or ribosomal RNA genes": a single word before a longer
	// phrase may share its last words ("transfer RNA genes").
	if c.Kind == KindTerm && prev.Kind == KindTerm && !strings.Contains(prev.Text, " ") && !prev.Literal {
		if cw := strings.Fields(c.Text); len(cw) >= 2 {
			for _, v := range termVariants(prev.Text + " " + strings.Join(cw[1:], " ")) {
				if !slices.Contains(prev.Variants, v) {
					prev.Variants = append(prev.Variants, v)
				}
			}
		}
	}
	if c.Kind == KindTerm && prev.Kind == KindTerm && !strings.Contains(c.Text, " ") {
		pw := strings.Fields(prev.Text)
		if len(pw) >= 2 {
			full := strings.Join(pw[:len(pw)-1], " ") + " " + c.Text
			if !slices.Contains(c.Variants, full) {
				c.Variants = append(c.Variants, full)
			}
		}
	}
}

// pairLocations reads a bare number on one side of a replacement as a
// chromosome when the other side is one ("replace chromosome 14 with 13",
// "chromosome 5 instead of 14"), and "the chromosome" as no step in
// particular ("change the chromosome to 9").
func pairLocations(p *Parsed) {
	if p.Part == nil || p.Replaced == nil || p.Part.Clause == nil || p.Replaced.Clause == nil {
		return
	}
	part, old := p.Part.Clause, p.Replaced.Clause
	switch {
	case old.Kind == KindLocation:
		elide(old, part)
	case part.Kind == KindLocation:
		elide(part, old)
	case old.Kind == KindTerm && endsWithChromosome(old.Text) && part.Kind == KindTerm && isNumberWord(part.Text):
		// "change the chromosome to 7", "set the excluded chromosome to 7".
		n, _ := chromosomeNumber(strings.ToLower(part.Text))
		part.Kind, part.Location, part.Variants = KindLocation, strconv.Itoa(n), nil
		p.Replaced = nil
	}
}

// joinsAt reports whether a connective starts at toks[i] ("…, plus
// anything in …"): what follows is another part, not the request a place
// before the comma qualifies.
func joinsAt(toks []token, i int) bool {
	if i >= len(toks) {
		return false
	}
	_, ok := connectiveAt(toks, i)
	return ok
}

// newItem reports whether words hold a join followed by a set word of its
// own ("genes on chromosome 1 or genes …"): what follows is a new item of
// a list, not more about the genes before the join.
func newItem(toks []token) bool {
	for i := 0; i+1 < len(toks); i++ {
		if c, ok := connectiveAt(toks, i); ok && c.op == OpUnion && len(c.words) > 1 {
			i += len(c.words) - 1 // "along with", "together with", "as well as"
		} else if !isJoin(toks[i]) {
			continue
		}
		if i+1 < len(toks) && (toks[i+1].low == "genes" || toks[i+1].low == "gene" || toks[i+1].low == "ones" || toks[i+1].low == "those" ||
			toks[i+1].low == "anything" || toks[i+1].low == "everything" || toks[i+1].low == "any" || toks[i+1].low == "all" ||
			toks[i+1].low == "proteins" || toks[i+1].low == "the" && i+2 < len(toks) && toks[i+2].low == "genes") {
			return true
		}
	}
	return false
}

// endsWithChromosome reports whether a phrase names a chromosome step by
// its kind: "chromosome", "excluded chromosome", "the second chr".
func endsWithChromosome(text string) bool {
	f := strings.Fields(strings.ToLower(text))
	return len(f) > 0 && len(f) <= 3 && chromosomeWords[f[len(f)-1]]
}

// relationWords start what a gene is or does after "genes": "genes
// involved in", "genes on", "genes with".
var relationWords = WordSet(`involved participating that which with for in on from located lying annotated
	associated related encoding whose of functioning playing having lie lies sit sits sitting reside resides are is
	mapped mapping assigned`)

// locationPrepositions introduce a location.
var locationPrepositions = WordSet("on in from located lying")

// commaList reads a list whose parts are cut by commas and whose last
// part follows a comma and a connective ("A or B, C or D, and E"): the
// commas cut it first, and that connective joins the parts, each read on
// its own with the connectives inside it. "expressed in schizonts or
// merozoites, with a signal peptide or a GPI anchor, and …" is the
// intersection of its three parts, not a chain of "or"s. It returns nil
// when no part holds a connective of its own (the list reader reads those)
// or a part names nothing.
func commaList(toks []token, p *Parsed) *Node {
	var cuts []int
	for i, t := range toks {
		if t.comma && !t.quoted {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) < 2 {
		return nil
	}
	last := cuts[len(cuts)-1]
	if last+1 >= len(toks) {
		return nil
	}
	c, ok := connectiveAt(toks, last+1)
	if !ok || c.loose || c.op != OpUnion && c.op != OpIntersect {
		return nil
	}
	var parts [][]token
	start := 0
	for _, k := range cuts {
		parts = append(parts, toks[start:k])
		start = k + 1
	}
	parts = append(parts, toks[last+1+len(c.words):])
	if !slices.ContainsFunc(parts, func(part []token) bool { return slices.ContainsFunc(part, isJoin) }) {
		return nil
	}
	nodes := make([]*Node, 0, len(parts))
	for _, part := range parts {
		n := parseSegment(part, p)
		if n == nil {
			return nil
		}
		nodes = append(nodes, n)
	}
	return chain(nodes, c.op, p)
}

// placeItem reads a union whose first item is a place's genes:
// "chromosome 1 genes or translation genes" is chromosome 1's genes and
// translation's, not translation's on chromosome 1. Nil for any other
// words.
func placeItem(toks []token, p *Parsed) *Node {
	for k := 1; k <= 3 && k+2 < len(toks); k++ {
		if w := toks[k].low; w != "genes" && w != "gene" && w != "ones" && w != "proteins" {
			continue
		}
		c, ok := connectiveAt(toks, k+1)
		if !ok || c.op != OpUnion {
			continue
		}
		loc := locationClause(toks[:k])
		if loc == nil {
			continue
		}
		rest := parseSegment(toks[k+1+len(c.words):], p)
		if rest == nil {
			return nil
		}
		return &Node{Op: OpUnion, Left: &Node{Clause: loc}, Right: rest}
	}
	return nil
}

// hasPlace reports whether words name a place: a part of a list that has
// its own place is not qualified by another.
func hasPlace(toks []token) bool {
	return slices.ContainsFunc(toks, func(t token) bool { return !t.quoted && isLocationWord(t.low) })
}

// joinsSets reports whether words hold a connective that adds one set to
// another ("or", "plus", "together with").
func joinsSets(toks []token) bool {
	for k := range toks {
		if c, ok := connectiveAt(toks, k); ok && c.op == OpUnion {
			return true
		}
	}
	return false
}

// ownsLocation reports whether the words before a location end in a new
// item of a list that only names genes or says where they lie ("… or
// genes on the apicoplast", "…, or any gene on chromosome 2", "… or lying
// on chromosome 2", "… or those found on chromosome 3"): the location is
// that item's own, and the list is a union with it, not qualified by it.
func ownsLocation(head []token) bool {
	i := len(head) - 1
	skipped := false
	for i >= 0 && !head[i].quoted && (setWords[head[i].low] || placementWords[head[i].low]) {
		i--
		skipped = true
	}
	return skipped && i >= 0 && isJoin(head[i])
}

// placementWords say where a gene lies, between a list's connective and a
// location of the new item: "or lying on", "or genes that sit on", "or
// ones residing on".
var placementWords = WordSet(`located lying lie lies sitting sit sits situated found residing reside resides positioned placed
	mapped mapping mapping encoded that which are is ones one`)
