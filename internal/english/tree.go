package english

import (
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
	// KindStep is a step of the strategy a conversation already has,
	// reused by a follow-up (Location holds its id). Parse never makes
	// one: the planner puts it in the tree when it plans a change.
	KindStep
	// KindList is one of the researcher's gene lists, by the name the
	// request gives it ("my list 'kinase screen'"; Text is the name).
	KindList
	// KindSearch is a search with its parameter values already chosen
	// (Search and Params): the planner puts it in the tree when a change
	// sets a parameter of a step ("relax the minimum to 15"). Parse never
	// makes one.
	KindSearch
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
	// Start and End bound a location to a region, in base pairs ("between
	// 100,000 and 200,000 bp"); empty for the whole sequence.
	Start, End string
	// Notes say how the parser read the clause, for the planning artifact.
	Notes []string
	// Literal is set on a term the researcher asked to find in the
	// annotation text as written ("text search for kinases"): it is a text
	// search, not a word to look up in a vocabulary.
	Literal bool
	// Search and Params are a KindSearch clause's search and values.
	Search string
	Params map[string]string
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
		case KindStep:
			return "step:" + c.Location
		case KindList:
			return "list:" + c.Text
		case KindSearch:
			return "search:" + c.Search
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
	// Evidence is the kind of GO evidence the request asks for:
	// "Curated" ("with curated GO evidence", "manually curated
	// annotations") or "Computed"; empty when it names none.
	Evidence string
	// Follow says how a message refines the strategy already built, for a
	// message that reads as a follow-up ("now also exclude chromosome 5").
	// Root is still the message read on its own, for a conversation with no
	// strategy yet.
	Follow FollowUp
	// Orthologs is what a FollowOrthologs message asks for.
	Orthologs *Orthologs
	// Part is what a follow-up adds, removes, keeps or puts in place of
	// Replaced (nil when the message does not name what it replaces).
	Part, Replaced *Node
	// Notes say how connectives and odd words were read.
	Notes []string
	// Known are gene ids the request says its result should have ("make
	// sure PF3D7_0100100 is in it"), or, for a request to test against
	// controls, the ids it gives as the controls: positive controls, not
	// a search.
	Known []string
}

// unionPlaces reads places intersected with each other as their union: a
// gene lies on one sequence, so genes on chromosome 2 and on chromosome 5
// are none, and "spread over chromosomes 2, 5 and 8" means any of them.
// Of an intersection's operands (its nested intersections flattened), two
// or more whole chromosomes or organelle genomes (no region) become one
// union, intersected last with what they qualify.
func unionPlaces(n *Node) {
	if n == nil || n.Clause != nil {
		return
	}
	unionPlaces(n.Left)
	unionPlaces(n.Right)
	if n.Op != OpIntersect {
		return
	}
	var operands []*Node
	var flatten func(m *Node)
	flatten = func(m *Node) {
		if m.Clause == nil && m.Op == OpIntersect {
			flatten(m.Left)
			flatten(m.Right)
			return
		}
		operands = append(operands, m)
	}
	flatten(n)
	var places, rest []*Node
	for _, o := range operands {
		if wholePlaces(o) {
			places = append(places, o)
		} else {
			rest = append(rest, o)
		}
	}
	if len(places) < 2 {
		return
	}
	union := places[0]
	for _, p := range places[1:] {
		union = &Node{Op: OpUnion, Left: union, Right: p}
	}
	root := union
	if len(rest) > 0 {
		// What the places qualify comes first, as written.
		root = rest[0]
		for _, o := range rest[1:] {
			root = &Node{Op: OpIntersect, Left: root, Right: o}
		}
		root = &Node{Op: OpIntersect, Left: root, Right: union}
	}
	*n = *root
}

// wholePlaces reports whether a tree is only whole places joined by unions.
func wholePlaces(n *Node) bool {
	if n.Clause != nil {
		return n.Clause.Kind == KindLocation && n.Clause.Start == "" && n.Clause.End == ""
	}
	return n.Op == OpUnion && wholePlaces(n.Left) && wholePlaces(n.Right)
}
