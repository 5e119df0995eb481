package rules

import (
	"strategist/internal/english"

	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// A term's phrase often carries words of the sentence around it that name
// nothing: "belong to guanosine-containing compound catabolic process",
// "pulling up the cellular chemical homeostasis", "snoRNA genes together".
// Whether a word names something is the catalog's to say, not a list's:
// a word is known when the GO vocabulary matches it (a term's name or one
// of GO's synonyms holds it, or a term's is a near spelling of it) or a
// gene type's name holds it. The span of a phrase is its words from the
// first known word to the last; the words outside it may be left out
// when every one is unknown or too short to mean anything on its own, and
// none takes something away or joins ("no", "forget", "combined").

// joinWords are the words that remove, negate, join or ask: a phrase
// holding one (or a word that names a place) is never cut, since leaving
// it out would change how its parts combine ("a combined list of A and B"
// is a union) or what is asked ("explain the GO term …" is a question).
var joinWords = english.WordSet(`no not non nor none never without lack lacks lacking devoid except excepted excepting
	excluding exclude excluded excludes minus remove removed removing drop dropped dropping omit omitted omitting skip
	skipping forget forgetting gone off lose losing strip stripped outside apart aside besides barring ignore ignoring
	disregarding subtract rid aren't isn't don't doesn't
	combined combine combining merged merge merging together pooled pool union either joint joined plus along alongside
	what what's whats explain explaining define defining definition meaning mean means describe tell`)

// spanWords are the content words of a phrase, each once, in order: each is
// looked up in the GO vocabulary before the span is cut. Nothing is
// returned for a phrase with a word that takes away, joins, asks or names a
// place.
func spanWords(c *english.Clause) []string { return outerWords(c, true) }

// outerWords are spanWords, with numbers allowed when numbered is false.
func outerWords(c *english.Clause, numbered bool) []string {
	var out []string
	for _, w := range strings.Fields(c.Text) {
		low := strings.ToLower(strings.Trim(w, ",;:.!?'\"()"))
		if joinWords[low] || english.NamesPlace(low, numbered) {
			return nil
		}
		for _, cw := range english.ContentWords(w) {
			if !slices.Contains(out, cw) {
				out = append(out, cw)
			}
		}
	}
	return out
}

// known reports whether the catalog knows a content word: a GO term's
// name or synonym the vocabulary matched holds it as a word (matches only
// within words, "put" in "putrescine", do not count), more terms matched
// than were shown (for a word of four letters or more), GO offers a near
// spelling of it (five letters or more: it may be a typo), or a gene
// type's name holds it.
func (rv *resolver) known(w string) bool {
	for _, t := range rv.geneTypeVocab() {
		for _, f := range geneTypeForms(t.Term) {
			if slices.Contains(strings.Fields(f), w) {
				return true
			}
		}
	}
	sd := rv.goDetails(w)
	if sd == nil {
		return true // not looked up: keep the word
	}
	p, ok := sd.param(paramGO)
	// A short word matches inside many names ("era" in "generation"), so
	// for it only a name holding it as a word counts.
	long := len([]rune(w)) > 3
	if !ok || long && p.Matches > len(p.Values) || len([]rune(w)) >= 5 && len(p.Suggestions) > 0 {
		return true
	}
	for _, t := range p.Values {
		if slices.Contains(english.ContentWords(goName(t)+" "+t.Synonym), w) {
			return true
		}
	}
	return false
}

// spanClause is a term's phrase cut to its span, with the words left out,
// or nil when there is nothing to cut: every word is known, none is, or a
// word that takes away lies outside the span.
func (rv *resolver) spanClause(c *english.Clause) (*english.Clause, string) {
	words := spanWords(c)
	if len(words) == 0 {
		return nil, ""
	}
	raw := strings.Fields(c.Text)
	first, last := -1, -1
	for i, w := range raw {
		cw := english.ContentWords(w)
		if len(cw) > 0 && rv.known(cw[0]) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || first == 0 && last == len(raw)-1 {
		return nil, ""
	}
	// Words before the span that name what the research is for ("writing
	// a grant about nucleotide salvage") make the rest its topic, not the
	// request: never cut.
	if slices.ContainsFunc(raw[:first], func(w string) bool { return english.ResearchNoun(strings.ToLower(w)) }) {
		return nil, ""
	}
	// "Chromera velia cytokinesis": a capitalized word and a lower-case
	// one before the span, neither known, are how an organism is named
	// (genus and species), and leaving them out would answer for
	// another organism: never cut.
	if binomial(raw[:first]) != "" {
		return nil, ""
	}
	span := strings.Join(raw[first:last+1], " ")
	if t, _ := english.GeneTypeName(span); t == "protein coding" && !strings.Contains(strings.ToLower(span), "coding") {
		return nil, "" // "rhoptry proteins" are no gene type
	}
	var cut []string
	for _, part := range [][]string{raw[:first], raw[last+1:]} {
		if len(part) > 0 {
			cut = append(cut, strings.Join(part, " "))
		}
	}
	return english.TermClause(span), strings.Join(cut, " … ")
}

// cutLeaf is the leaf of a term read by a shorter phrase sc (its words
// cut, which typeLeft or goLeft says): the gene type or the one GO term sc
// names, or nil.
func (rv *resolver) cutLeaf(c, sc *english.Clause, typeLeft, goLeft string) *leaf {
	if t, ok := rv.geneTypeExact(sc); ok {
		return rv.geneTypeLeaf(c, t, fmt.Sprintf("I read %s as the gene type %s, %s", english.Quote(c.Text), english.Quote(t), typeLeft))
	}
	hits, _, syn := rv.goNamed(sc)
	if len(distinctNames(hits)) != 1 {
		return nil
	}
	how := fmt.Sprintf("I read %s as the GO term %s, %s", english.Quote(c.Text), english.Quote(goName(hits[0])), goLeft)
	if syn != "" {
		how += fmt.Sprintf("; GO lists %s as its synonym", english.Quote(syn))
	}
	return rv.goLeaf(c, hits, how)
}

// binomial is the genus and species words hold, or "": a word with a
// capital first letter followed by a lower-case word with a Latin ending
// ("velia", "suis", "gondii", "vivax"), each of four letters or more;
// "Maurer's cleft" is none.
func binomial(words []string) string {
	for i := 0; i+1 < len(words); i++ {
		g, sp := []rune(words[i]), []rune(words[i+1])
		if len(g) >= 4 && len(sp) >= 4 && unicode.IsUpper(g[0]) && isLowerWord(g[1:]) && isLowerWord(sp) && latinEndingRE.MatchString(words[i+1]) {
			return words[i] + " " + words[i+1]
		}
	}
	return ""
}

// unknownOrganism is the genus and species a term's phrase opens with when
// the catalog knows neither word ("Chromera velia cytokinesis") and has no
// such organism, or a genus alone written as one ("Leucocytozoon snoRNA
// genes"), or "".
func (rv *resolver) unknownOrganism(c *english.Clause) string {
	words := strings.Fields(c.Text)
	g := binomial(words[:min(2, len(words))])
	if g == "" && len(words) > 1 && genusAlone(words[0]) {
		g = words[0] // "Leucocytozoon snoRNA genes"
	}
	if leaves := rv.organismLeaves(); g == "" || len(leaves) == 0 {
		return ""
	} else if _, ok := matchOrganism(strings.ToLower(g), leaves); ok {
		return ""
	}
	for _, w := range strings.Fields(g) {
		if cw := english.ContentWords(w); len(cw) == 0 || rv.known(cw[0]) {
			return ""
		}
	}
	return g
}

// genusEndingRE finds endings of the genera of parasites and their
// relatives ("Leucocytozoon", "Hepatocystis", "Haemoproteus", "Babesia",
// "Theileria", "Cryptosporidium", "Toxoplasma", "Trypanosoma").
var genusEndingRE = regexp.MustCompile(`(?:zoon|cystis|proteus|eria|esia|idium|plasma|soma|monas|ella|coccus|myces|spora)$`)

// genusAlone reports whether a word is written as a genus is: a capital,
// then six or more lower-case letters, with a genus's ending.
func genusAlone(w string) bool {
	rs := []rune(w)
	return len(rs) >= 7 && unicode.IsUpper(rs[0]) && isLowerWord(rs[1:]) && genusEndingRE.MatchString(w)
}

// latinEndingRE finds the endings species epithets have.
var latinEndingRE = regexp.MustCompile(`(?:a|ae|e|i|is|us|um|ax|ex|ix|or|es|ys)$`)

func isLowerWord(rs []rune) bool {
	for _, r := range rs {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
}
