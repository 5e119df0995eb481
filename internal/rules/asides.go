package rules

import (
	"strategist/internal/english"

	"fmt"
	"slices"
	"strings"
)

// An aside is a part of a request that names nothing the catalog has, set
// beside what does: "Reviewer 2 asked for a gene list: establishment of
// protein localization to mitochondrion", "we're designing a knockout
// screen. cellular amide metabolic process genes". The grammar reads it as
// one side of an intersection; the catalog says it is an aside. It is left
// out, and the plan says so, when it has two content words or more and two
// small words (it reads as a sentence, not a name), every content word is
// unknown both to the GO vocabulary (known) and to the
// genes' product descriptions (a word a product holds is biology:
// "rhoptry neck" stays, and is asked about), and it holds no word that
// takes away, joins, asks or names a place. A phrase of one word is never
// an aside: it may be a term the catalog lacks.

// neutralWords name genes or sets in general; they say nothing about
// which, so an aside may hold them ("asked for a gene list").
var neutralWords = english.WordSet("gene genes protein proteins list lists set sets")

// asideWords are the content words of a clause that may be an aside, or
// nil when it cannot be one.
func asideWords(c *english.Clause) []string {
	if c.Kind != english.KindTerm || c.Literal {
		return nil
	}
	var out []string
	for _, w := range outerWords(c, false) {
		if !neutralWords[w] {
			out = append(out, w)
		}
	}
	// An aside reads as a sentence, with the small words one has ("asked
	// for a gene list"); made-up or unknown names ("florbix quantase
	// genes") are a term the catalog lacks, asked about.
	small := 0
	for _, w := range strings.Fields(c.Text) {
		if len(english.ContentWords(w)) == 0 && strings.Trim(w, ",;:.!?'\"()0123456789") != "" {
			small++
		}
	}
	if len(out) < 2 || small < 2 {
		return nil
	}
	return out
}

// productWord reports whether a gene's product description, id or symbol
// holds a word (or the look-up is missing: keep the word).
func (rv *resolver) productWord(w string) bool {
	var gm geneMatches
	if !rv.a.t.result(lookupCall([]string{w})).decode(&gm) {
		return true
	}
	return len(gm.Genes) > 0
}

// aside reports whether a clause is an aside (the catalog's answers for
// its words are in).
func (rv *resolver) aside(c *english.Clause) bool {
	words := asideWords(c)
	if len(words) == 0 || !rv.unnamed(c) || rv.r.finders[c] != nil {
		return false
	}
	return !slices.ContainsFunc(words, func(w string) bool { return rv.known(w) || rv.productWord(w) })
}

// dropAsides leaves out each aside that is one side of an intersection,
// in place, and notes it.
func (rv *resolver) dropAsides(n *english.Node) {
	if n == nil || n.Clause != nil {
		return
	}
	if n.Op == english.OpIntersect {
		for _, side := range [][2]*english.Node{{n.Left, n.Right}, {n.Right, n.Left}} {
			if side[0].Clause == nil || !rv.aside(side[0].Clause) {
				continue
			}
			rv.r.notes = append(rv.r.notes, fmt.Sprintf("I left out %s, whose words no GO term, GO synonym, gene type or gene product holds",
				english.Quote(side[0].Clause.Text)))
			*n = *side[1]
			rv.dropAsides(n)
			return
		}
	}
	rv.dropAsides(n.Left)
	rv.dropAsides(n.Right)
}
