package english

import (
	"regexp"
	"slices"
	"strings"
)

// JoinedSpans are the spans of a request where two words meet across a
// connective ("metabolites and energy", "nucleobase, nucleoside",
// "polymerization or depolymerization"): where a name that holds the
// connective may have been split by the grammar. Each is the word before
// and the word after, without the connective, for a vocabulary look-up.
func JoinedSpans(text string) []string {
	toks := tokenize(text)
	var out []string
	for i := 1; i+1 < len(toks); i++ {
		t := toks[i]
		if t.quoted || !(t.comma || t.low == "and" || t.low == "or" || t.low == "and/or") {
			continue
		}
		before, after := toks[i-1], toks[i+1]
		if !nameWord(before) || !nameWord(after) {
			continue
		}
		span := before.text + " " + after.text
		if !contains(out, span) {
			out = append(out, span)
		}
	}
	// "regulation of molecular function", "biological process involved in
	// interaction with host": a name that holds a word the grammar drops
	// or splits at.
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		if t.quoted || !droppedInName(t) || !nameWord(toks[i-1]) {
			continue
		}
		if span := toks[i-1].text + " " + t.text; !contains(out, span) {
			out = append(out, span)
		}
	}
	return out
}

// droppedInName reports whether a word is one the grammar drops or splits
// at that GO names hold ("function", "involved", "with"): the fillers and
// relation words that are content in a name, not the prepositions every
// request uses.
func droppedInName(t token) bool { return !t.comma && nameFillers[t.low] }

var nameFillers = WordSet("function functions involved participating participate part role roles related associated activity with")

// nameWord reports whether a word can be part of a GO name on either side
// of a connective: not a comma, filler, connective, number, location or id.
func nameWord(t token) bool {
	return !t.comma && !t.quoted && !fillers[t.low] && !connectiveWords[t.low] && !isNumeric(t.low) &&
		!isLocationWord(t.low) && !isNumberWord(t.low) && !isGeneID(t.text) && !goIDRE.MatchString(t.text)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// KeepWhole puts double quotes around the first place a name is written
// in text across a connective or a list comma ("generation of precursor
// metabolites and energy"), so the grammar reads it as one term and does
// not split it; hyphens, case and spacing may differ from the name. It
// returns the text unchanged and false when the name is not written so,
// or only without a connective inside it.
func KeepWhole(text, name string) (string, bool) {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == ' ' || r == '-' || r == ',' })
	if len(words) < 2 {
		return text, false
	}
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = regexp.QuoteMeta(w)
	}
	re, err := regexp.Compile(`(?i)\b` + strings.Join(parts, `[\s,\-]+`) + `\b`)
	if err != nil {
		return text, false
	}
	for _, loc := range re.FindAllStringIndex(text, -1) {
		span := text[loc[0]:loc[1]]
		if !connectiveInside(span) && !droppedInside(span) || strings.Count(text[:loc[0]], `"`)%2 == 1 {
			continue
		}
		return text[:loc[0]] + `"` + span + `"` + text[loc[1]:], true
	}
	return text, false
}

// droppedInside reports whether a span holds a word the grammar drops or
// splits at.
func droppedInside(span string) bool {
	return slices.ContainsFunc(tokenize(span), droppedInName)
}

// connectiveInside reports whether a span holds a connective or a list
// comma between its words.
func connectiveInside(span string) bool {
	for _, t := range tokenize(span) {
		if t.comma || t.low == "and" || t.low == "or" || t.low == "and/or" {
			return true
		}
	}
	return false
}

// literalWords marks the words a researcher asks to find as written
// ("text search for apicoplast", "full-text search for rhoptry neck") as
// quoted, up to a comma, a connective or a location that qualifies them,
// so no reader takes them for a place or splits them: they are a text
// search's phrase.
func literalWords(toks []token) []token {
	for i := 0; i+1 < len(toks); i++ {
		lead := toks[i].low == "text" || toks[i].low == "full-text" || toks[i].low == "fulltext"
		if toks[i].quoted || !lead || toks[i+1].low != "search" && toks[i+1].low != "searches" {
			continue
		}
		j := i + 2
		if j < len(toks) && (toks[j].low == "for" || toks[j].low == "of" || toks[j].low == "on" || toks[j].low == "with") {
			j++
		}
		for j < len(toks) && (toks[j].low == "the" || toks[j].low == "a" || toks[j].low == "an") {
			j++
		}
		for k := j; k < len(toks); k++ {
			t := toks[k]
			if t.comma || isJoin(t) || locationPrepositions[t.low] && k+1 < len(toks) && isLocationWord(toks[k+1].low) {
				break
			}
			toks[k].quoted = true
		}
	}
	return toks
}
