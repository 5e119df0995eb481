package english

import (
	"slices"
	"strconv"
	"strings"
)

// Op is a boolean operator of a parsed request, named as the strategy
// graph names it.
type Op string

// The operators a request's connectives become.
const (
	OpIntersect Op = "INTERSECT"
	OpUnion     Op = "UNION"
	OpMinus     Op = "MINUS"
)

// word renders the operator as the connective a researcher would write.
func (o Op) word() string {
	switch o {
	case OpIntersect:
		return "and"
	case OpUnion:
		return "or"
	}
	return "excluding"
}

// Kind says what a clause names, as far as its words alone tell.
type Kind int

// The clause kinds. The zero value is unknown and no parsed clause has it.
const (
	KindUnknown Kind = iota
	// KindTerm is a phrase to look up as a GO term, a gene type, or else
	// to search as text.
	KindTerm
	// KindLocation is a chromosome, the apicoplast or the mitochondrion.
	KindLocation
	// KindGeneIDs is a list of gene ids or symbols.
	KindGeneIDs
	// KindGOID is one or more GO ids written as such (GO:0006260).
	KindGOID
	// KindTaxon is "all genes" of the organism.
	KindTaxon
)

// Clause is one leaf of a parsed request: the phrase as the researcher
// wrote it and what its words alone say about it.
type Clause struct {
	// Text is the phrase with filler words removed ("DNA replication").
	Text string
	Kind Kind
	// Location is the chromosome number ("14"), "apicoplast",
	// "mitochondrion", or a sequence id as written (KindLocation).
	Location string
	// IDs are the gene ids or symbols (KindGeneIDs) or GO ids (KindGOID).
	IDs []string
	// Variants are the phrasings to look up for a term, best first: the
	// phrase itself, then synonyms, singular forms and what an elliptic
	// phrase ("repair" after "DNA replication") stands for.
	Variants []string
	// Notes say how the parser read the clause, for the planning artifact.
	Notes []string
}

// Node is a node of a parsed request: a clause, or an operator over two
// nodes.
type Node struct {
	Op          Op
	Left, Right *Node
	Clause      *Clause
}

// Leaves returns the clauses of the tree in reading order.
func (n *Node) Leaves() []*Clause {
	if n == nil {
		return nil
	}
	if n.Clause != nil {
		return []*Clause{n.Clause}
	}
	return append(n.Left.Leaves(), n.Right.Leaves()...)
}

// String renders the tree compactly, for tests and logs:
// MINUS(UNION(term:DNA replication, term:DNA repair), location:14).
func (n *Node) String() string {
	if n == nil {
		return "<nil>"
	}
	if c := n.Clause; c != nil {
		switch c.Kind {
		case KindLocation:
			return "location:" + c.Location
		case KindGeneIDs:
			return "ids:" + strings.Join(c.IDs, ",")
		case KindGOID:
			return "go:" + strings.Join(c.IDs, ",")
		case KindTaxon:
			return "taxon"
		}
		return "term:" + c.Text
	}
	return string(n.Op) + "(" + n.Left.String() + ", " + n.Right.String() + ")"
}

// Parsed is a request read into a tree of clauses.
type Parsed struct {
	// Root is nil when the request names nothing to search for.
	Root *Node
	// Organism is the organism as the request names it ("P. falciparum"),
	// a qualifier of every clause rather than a clause of its own.
	Organism string
	// Notes say how connectives and odd words were read.
	Notes []string
}

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
	toks := tokenize(text)
	toks, p.Organism = takeOrganism(toks)
	segs, excls := splitExclusions(toks)
	var root *Node
	for i, seg := range segs {
		n := parseSegment(seg, &p)
		switch {
		case i == 0 && n == nil:
			if !hasContent(toks) && p.Organism == "" && !mentionsGenes(seg) {
				return p
			}
			n = taxonNode(&p, len(segs) > 1)
			root = n
		case i == 0:
			root = n
		case n == nil:
			p.Notes = append(p.Notes, Quote(excls[i-1])+" had nothing after it; I ignored it")
		default:
			root = &Node{Op: OpMinus, Left: root, Right: n}
		}
	}
	p.Root = root
	return p
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

// splitExclusions cuts the words at exclusion connectives: the base, then
// each part taken away, with the connective that introduced it.
func splitExclusions(toks []token) (segs [][]token, excls []string) {
	start := 0
	for i := 0; i < len(toks); i++ {
		c, ok := connectiveAt(toks, i)
		if !ok || c.op != OpMinus {
			continue
		}
		segs = append(segs, trimCommas(toks[start:i]))
		excls = append(excls, strings.Join(c.words, " "))
		i += len(c.words) - 1
		start = i + 1
	}
	return append(segs, trimCommas(toks[start:])), excls
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

// parseSegment parses words without exclusions: "or" over "and" over
// clauses. It returns nil when the segment names nothing.
func parseSegment(toks []token, p *Parsed) *Node {
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
	root := nodes[0]
	for _, n := range nodes[1:] {
		root = &Node{Op: op, Left: root, Right: n}
	}
	return root
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
		allType = allType && n.Clause.Kind == KindTerm && geneTypeCue(n.Clause.Text)
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

// geneTypeCue reports whether a phrase looks like a gene type by its words
// alone (an RNA, coding or non-coding).
func geneTypeCue(p string) bool {
	for _, w := range strings.Fields(Normalize(p)) {
		w = Singular(w)
		if strings.HasSuffix(w, "rna") || w == "coding" || w == "noncoding" || w == "pseudogene" {
			return true
		}
	}
	return false
}

// elide completes a clause that leans on the one before it: a bare number
// after a chromosome is another chromosome ("chromosome 5 or 7"), and a
// single word after a longer phrase may share its first words ("DNA
// replication or repair" also tries "DNA repair").
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
