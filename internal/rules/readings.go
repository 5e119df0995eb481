package rules

import (
	"fmt"
	"regexp"
	"strings"

	"strategist/internal/english"
)

// organelleStem is the word stem an organelle's annotation is found by
// ("mitochondri" for mitochondrial and mitochondrion), for an organelle
// with a genome of its own; "" for a chromosome.
func organelleStem(location string) string {
	switch location {
	case "apicoplast":
		return "apicoplast"
	case "mitochondrion":
		return "mitochondri"
	}
	return ""
}

// organelleRE finds where a request names an organelle, with the words
// around it that say the genome is meant: "on the apicoplast",
// "apicoplast genome", "mitochondrially encoded", "from the mtDNA", and
// the RNA genes an organelle genome encodes ("apicoplast rRNA genes": no
// protein the nucleus encodes for it is one).
var organelleRE = regexp.MustCompile(`(?i)(\b(?:on|from|encoded\s+(?:on|in|by))\s+(?:the\s+)?)?\b(?:the\s+)?(apicoplast|mitochondri\w*|plastid)\b((?:[\s-]+(?:genomes?|dna|chromosomes?|encoded|sequences?|rrnas?|trnas?|snornas?|snrnas?|ncrnas?)\b)?)(\s+(?:ones|genes|proteins)\b)?`)

// genomeMeant reports whether every place a request names the organelle
// it says the genome is meant (a gene lies "on" or comes "from" it, or
// the words are its genome, DNA or chromosome), or names it by its
// sequence ("API", "MIT", "M76611"); false when the request names it as
// proteins or a place in the cell might be ("apicoplast genes",
// "excluding the apicoplast", "in the mitochondrion").
func genomeMeant(user, location string) bool {
	stem := organelleStem(location)
	placed := placedRE.FindAllStringSubmatchIndex(user, -1)
	for _, m := range organelleRE.FindAllStringSubmatchIndex(user, -1) {
		word := strings.ToLower(user[m[4]:m[5]])
		if !strings.HasPrefix(word, stem) && !(stem == "apicoplast" && word == "plastid") {
			continue
		}
		if m[2] >= 0 || strings.TrimSpace(user[m[6]:m[7]]) != "" {
			continue // "on the apicoplast", "apicoplast genome"
		}
		// "on chromosome 14 or the mitochondrion": the preposition of a
		// list of places is each place's.
		// "…, and apicoplast proteins" names proteins, not a place.
		inList := false
		for _, pm := range placed {
			if m[8] >= 0 {
				break
			}
			if pm[2] == m[4] {
				inList = true
			}
		}
		if !inList {
			return false
		}
	}
	return true
}

// placedRE finds an organelle at the end of a list of places after "on"
// or "from": "on chromosome 14 or the mitochondrion", "from chromosomes
// 1, 2 and the apicoplast", "on the apicoplast and the mitochondrion".
var placedRE = regexp.MustCompile(`(?i)\b(?:on|from)\s+(?:(?:the\s+)?(?:chromosomes?\s+|chr\s*)?(?:\d{1,2}|[ivx]+|api|mit|apicoplast|mitochondri\w*|plastid)(?:\s+genomes?)?\s*(?:,\s*(?:or\s+|and\s+)?|or\s+|and\s+|and/or\s+))+(?:the\s+)?(apicoplast|mitochondri\w*|plastid)`)

// otherReading is the first organelle the request names without saying
// its genome is meant, whose other reading (its annotation) has a leaf.
func otherReading(m *mapped, user string) *english.Clause {
	for _, c := range m.p.Root.Leaves() {
		if l := m.res.leaves[c]; l != nil && l.other != nil && l.other.fail == "" && !genomeMeant(user, c.Location) {
			return c
		}
	}
	return nil
}

// withLeaf is the mapping with one clause read another way.
func (m *mapped) withLeaf(c *english.Clause, l *leaf) *mapped {
	leaves := make(map[*english.Clause]*leaf, len(m.res.leaves))
	for k, v := range m.res.leaves {
		leaves[k] = v
	}
	leaves[c] = l
	res := *m.res
	res.leaves = leaves
	alt := newMapped(m.p, &res)
	alt.followNote = m.followNote
	return alt
}

// readingsAsk is the question asked when an organelle's two readings give
// different counts: the genes its genome encodes, or the genes whose
// annotation names it (a text search, approximate). Each option's message
// is the request with the organelle named so that it has one reading.
func readingsAsk(m *mapped, c *english.Clause, genome, annotated *int, user string) call {
	name := strings.TrimPrefix(english.DescribeClause(c), "the ")
	stem := organelleStem(c.Location)
	word := c.Location
	if word == "mitochondrion" {
		word = "mitochondrial"
	}
	count := func(n *int, approx bool) string {
		switch {
		case n == nil:
			return "no count"
		case approx:
			return fmt.Sprintf("≈ %d gene%s", *n, plural(*n))
		}
		return fmt.Sprintf("%d gene%s", *n, plural(*n))
	}
	question := fmt.Sprintf("By %s, do you mean the genes its own genome encodes, or the genes whose annotation names it "+
		"(the proteins the nucleus encodes for it among them)? The two give different counts.", english.Quote(c.Text))
	opts := []askOption{
		{Label: fmt.Sprintf("the genes of the %s: %s (%s)", name, m.p.Root.Describe(), count(genome, false)),
			Message: renamed(user, stem, "the "+name)},
		{Label: fmt.Sprintf("genes whose annotation mentions %s (a text search: approximate): %s", english.Quote(word), count(annotated, true)),
			Message: renamed(user, stem, "text search for "+word), Approximate: true},
	}
	return newCall("ask_researcher", map[string]any{"question": question, "options": opts, "free_text": true})
}

// renamed is the request with each naming of an organelle (and the words
// around it: "the", "genome", "ones") put as with.
func renamed(user, stem, with string) string {
	return organelleRE.ReplaceAllStringFunc(strings.Join(strings.Fields(user), " "), func(s string) string {
		sub := organelleRE.FindStringSubmatch(s)
		if !strings.HasPrefix(strings.ToLower(sub[2]), stem) {
			return s
		}
		return sub[1] + with
	})
}
