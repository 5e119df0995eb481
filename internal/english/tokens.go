package english

import (
	"regexp"
	"strings"
)

// token is one word of a request, or a list comma.
type token struct {
	text  string // as written
	low   string
	comma bool
	// quoted words come from a phrase in double quotes: never a
	// connective, never a filler, so "actin polymerization or
	// depolymerization" stays one clause.
	quoted bool
}

// tokenize splits a request into words and commas. Brackets are dropped;
// a phrase in double quotes keeps its words together; sentence
// punctuation is taken off words but kept inside ids (GO:0006260,
// MAL1P4.01) and in abbreviations ("P.").
func tokenize(s string) []token {
	s = strings.NewReplacer("(", " ", ")", " ", "[", " ", "]", " ", "“", "\"", "”", "\"", "'s ", " ").Replace(s)
	var out []token
	for i, part := range strings.Split(s, "\"") {
		quoted := i%2 == 1
		for _, t := range splitWords(part) {
			t.quoted = quoted && !t.comma
			out = append(out, t)
		}
	}
	return out
}

// splitWords splits text into words and commas.
func splitWords(s string) []token {
	var out []token
	for _, f := range strings.Fields(s) {
		trail := 0
		for len(f) > 0 && strings.ContainsAny(f[len(f)-1:], ",;") {
			f = f[:len(f)-1]
			trail++
		}
		f = strings.TrimLeft(f, ",;:!?")
		if !abbrevRE.MatchString(f) {
			f = strings.TrimRight(f, ".:!?")
		}
		for len(f) > 0 && strings.ContainsAny(f[len(f)-1:], ",;") {
			f = f[:len(f)-1]
			trail++
		}
		if f != "" {
			out = append(out, token{text: f, low: strings.ToLower(f)})
		}
		if trail > 0 {
			out = append(out, token{text: ",", low: ",", comma: true})
		}
	}
	return out
}

// abbrevRE matches abbreviations whose dot belongs to them: "P.", "T.".
var abbrevRE = regexp.MustCompile(`^[A-Za-z]\.$`)

// takeOrganism removes the organism's name from the words and returns it
// as written. "P. falciparum", "P.falciparum", "Plasmodium falciparum
// 3D7", "falciparum", "Pf3D7" and any other "<Genus initial>. <species>"
// count.
func takeOrganism(toks []token) ([]token, string) {
	var out []token
	var found []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		n := 0
		switch {
		case t.quoted:
		case (t.low == "p." || t.low == "t." || t.low == "plasmodium") && i+1 < len(toks) && isSpecies(toks[i+1].low):
			n = 2
		case t.low == "plasmodium":
			n = 1
		case strings.HasPrefix(t.low, "p.") && len(t.low) > 3 && isSpecies(t.low[2:]):
			n = 1
		case t.low == "falciparum" || t.low == "pf3d7" || t.low == "pfalciparum":
			n = 1
		}
		if n == 0 {
			out = append(out, t)
			continue
		}
		words := []string{}
		for _, w := range toks[i : i+n] {
			words = append(words, w.text)
		}
		if i+n < len(toks) && (toks[i+n].low == "3d7" || toks[i+n].low == "strain") {
			words = append(words, toks[i+n].text)
			n++
		}
		found = append(found, strings.Join(words, " "))
		i += n - 1
	}
	if len(found) == 0 {
		return toks, ""
	}
	return out, found[0]
}

// isSpecies reports whether w can be a species epithet after a genus
// initial: a lower-case word that is not a filler ("P. genes" is not one).
func isSpecies(w string) bool {
	if len(w) < 4 || fillers[w] || connectiveWords[w] {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// connective is a phrase that joins clauses.
type connective struct {
	words []string
	op    Op
}

// connectives, longest first within each operator so "but not" wins over
// "not" and "and/or" over "and".
var connectives = []connective{
	{[]string{"and/or"}, OpUnion},
	{[]string{"but", "not", "located", "on"}, OpMinus},
	{[]string{"not", "located", "on"}, OpMinus},
	{[]string{"but", "not"}, OpMinus},
	{[]string{"and", "not"}, OpMinus},
	{[]string{"but", "excluding"}, OpMinus},
	{[]string{"but", "without"}, OpMinus},
	{[]string{"except", "for"}, OpMinus},
	{[]string{"other", "than"}, OpMinus},
	{[]string{"not", "on"}, OpMinus},
	{[]string{"not", "in"}, OpMinus},
	{[]string{"excluding"}, OpMinus},
	{[]string{"exclude"}, OpMinus},
	{[]string{"excludes"}, OpMinus},
	{[]string{"except"}, OpMinus},
	{[]string{"minus"}, OpMinus},
	{[]string{"without"}, OpMinus},
	{[]string{"not"}, OpMinus},
	{[]string{"but", "also"}, OpIntersect},
	{[]string{"and", "also"}, OpIntersect},
	{[]string{"or"}, OpUnion},
	{[]string{"and"}, OpIntersect},
	{[]string{"&"}, OpIntersect},
}

// connectiveWords are the words connectives are made of, which are never
// species names or content. Read-only after initialisation.
var connectiveWords = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range connectives {
		for _, w := range c.words {
			m[w] = true
		}
	}
	return m
}()

// connectiveAt returns the connective starting at toks[i], if any.
func connectiveAt(toks []token, i int) (connective, bool) {
	if toks[i].quoted {
		return connective{}, false
	}
	for _, c := range connectives {
		if i+len(c.words) > len(toks) {
			continue
		}
		ok := true
		for j, w := range c.words {
			if toks[i+j].low != w || toks[i+j].quoted {
				ok = false
				break
			}
		}
		if ok {
			return c, true
		}
	}
	return connective{}, false
}

// fillers are words that say nothing about which genes: request verbs,
// articles, "genes", and the prepositions around a clause. They are only
// taken off the ends of a clause, never out of its middle. Read-only.
var fillers = WordSet(`find show me list get give return retrieve search look looking for i i'm im we want
		need would like to please can could you which what who whose that those these them they all any every
		everything each the a an some genes gene ones one ids id identifiers is are be were was being
		involved involvement participating participate participates playing play role roles part
		related relating associated annotated annotation annotations as with having have has
		functioning function functions located lying found sitting on in from of within at
		both either also only just too encoded by whose products there here`)

// trailingFillers are the fillers also taken off a clause's end. Read-only.
var trailingFillers = WordSet(`genes gene ones please only too also ids id identifiers there here as well
	of in on the a an that which are is with for`)

func WordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// strip takes filler words off both ends of a clause.
func strip(words []token) []token {
	for len(words) > 0 && !words[0].quoted && (fillers[words[0].low] || words[0].comma) {
		words = words[1:]
	}
	for len(words) > 0 && !words[len(words)-1].quoted && (trailingFillers[words[len(words)-1].low] || words[len(words)-1].comma) {
		words = words[:len(words)-1]
	}
	return words
}

// hasContent reports whether any word of the request is not a filler.
func hasContent(toks []token) bool {
	for _, t := range toks {
		if !t.comma && !fillers[t.low] && !connectiveWords[t.low] {
			return true
		}
	}
	return false
}

func mentionsGenes(toks []token) bool {
	for _, t := range toks {
		if t.low == "genes" || t.low == "gene" || t.low == "all" || t.low == "everything" {
			return true
		}
	}
	return false
}

func join(words []token) string {
	s := make([]string, len(words))
	for i, w := range words {
		s[i] = w.text
	}
	return strings.Join(s, " ")
}
