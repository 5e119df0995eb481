package english

import (
	"regexp"
	"strings"
)

// A message often opens with a part about the researcher rather than the
// genes: "We study mosquito-stage transmission; I need …", "Our lab works
// on cytoadherence — could I get …", "Reanalysing an old 3D7 microarray
// dataset here. I need …", "My PI asked for this one: …". Such a part has
// a person or the work as its subject, and names no genes, no place, no
// id and asks for nothing; the request is what follows it.

// researcherLeads are the words such a part opens with.
var researcherLeads = WordSet(`i i'm im i've i'd we we're we've our my some background first new hi hello hey fyi
	writing using reanalysing reanalyzing reanalysing analysing analyzing prepping preparing working studying drafting
	revising reviewing teaching following continuing looking trying planning comparing investigating screening
	characterising characterizing running doing reading`)

// requestVerbs ask for something: a part holding one is a request, unless
// what it asks for is "this one" ("My PI asked for this one: …").
var requestVerbs = WordSet(`need needs want wants like asked asks asking requested request give find list show get
	fetch build make pull grab retrieve see`)

// partBreakRE finds where a part about the researcher may end: a full stop
// before a capital, a semicolon, a dash between spaces, a colon, or an
// "and" before the request's own subject ("I'm a rotation student in a
// lipid lab and my PI asked for …").
var partBreakRE = regexp.MustCompile(`[.!?]\s+[A-Z]|;\s*|,\s+so\s+|\s[—–-]\s+|:\s+|\s+and\s+(?:my|our|i|we)\s+(?:\w+\s+)?(?:need|needs|want|wants|asked|asks|requested|would)\b`)

// pointsOnRE reads a part that only points at what follows.
var pointsOnRE = regexp.MustCompile(`(?i)\b(?:this\s+one|this|the\s+following|these|what\s+follows)\s*$`)

// aboutResearcher reports whether a part is about the researcher: it opens
// with a researcher's word (or a verb's -ing form), and holds no genes,
// place, gene or GO id, and no request for anything but what follows.
func aboutResearcher(part string) bool {
	words := tokenize(part)
	if len(words) < 2 || leadingConnectiveRE.MatchString(part) {
		return false
	}
	first := words[0].low
	if !researcherLeads[first] {
		return false
	}
	if mentionsGenes(words) || placeRE.MatchString(part) || goIDInRE.MatchString(part) {
		return false
	}
	points := pointsOnRE.MatchString(part)
	for _, w := range words {
		if isGeneID(w.text) || isLocationWord(w.low) || requestVerbs[w.low] && !points {
			return false
		}
	}
	return true
}

// trailingResearchRE reads a last part that says what the request is for:
// "… — for Tuesday's lab meeting", "…; for my thesis".
var trailingResearchRE = regexp.MustCompile(`(?i)(?:[,;]|\s[—–-])\s*(?:for|as\s+part\s+of)\s+([^,;—–]+?)\s*[.!?]*\s*$`)

// withoutResearcherParts drops the parts about the researcher that open a
// message, and a last part that says what the request is for, while what
// is left holds a request of its own.
func withoutResearcherParts(text string) string {
	if loc := trailingResearchRE.FindStringSubmatchIndex(text); loc != nil && aboutResearch(tokenize(text[loc[2]:loc[3]])) &&
		hasContent(tokenize(text[:loc[0]])) {
		text = text[:loc[0]]
	}
	for {
		loc := partBreakRE.FindStringIndex(text)
		if loc == nil {
			return text
		}
		end, next := loc[0], loc[1]
		if text[next-1] >= 'A' && text[next-1] <= 'Z' {
			next-- // the capital starts the rest
		}
		if m := text[loc[0]:loc[1]]; strings.HasPrefix(strings.TrimSpace(m), "and") {
			next = loc[0] + strings.Index(m, "and") + len("and") // the request's subject stays
		}
		rest := strings.TrimSpace(text[next:])
		if !aboutResearcher(text[:end]) || !hasContent(tokenize(rest)) {
			return text
		}
		text = requestLeadRE.ReplaceAllString(rest, "")
	}
}

// requestLeadRE reads the words that open the request after such a part:
// "I need", "she wants", "my PI asked for", "could you fetch", "could we
// have".
var requestLeadRE = regexp.MustCompile(`(?i)^(?:(?:and|so)\s+)?(?:(?:i|we|she|he|they|(?:my|our)\s+\w+)\s+(?:really\s+)?(?:need|needs|want|wants|would\s+like|'d\s+like|asked\s+(?:me\s+)?for|asks\s+for|requested|is\s+asking\s+for)` +
	`|(?:could|can|would|may)\s+(?:you|i|we)\s+(?:please\s+)?(?:fetch|get|have|see|pull|grab|retrieve|find|list|show)(?:\s+(?:me|us))?)\s+`)
