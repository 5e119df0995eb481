package english

import (
	"regexp"
	"strings"
)

// knownREs read a clause that names genes the result should have, at the
// end of a request: "…, and make sure PF3D7_0100100 and PF3D7_1133400 are
// in it", "…; it should include PFA0005w", "…, with PF3D7_0100100 as
// positive controls". The first group is the genes.
var knownREs = []*regexp.Regexp{
	regexp.MustCompile(`(?i)[,;.]?\s*(?:and\s+)?(?:please\s+)?(?:make\s+sure|be\s+sure|check|ensure|verify)(?:\s+that)?\s+(.+?)\s+(?:is|are)\s+(?:in\s+(?:it|there|them|the\s+results?|the\s+strategy|the\s+list)|included|kept|found|among\s+(?:them|the\s+results?))\s*[.!]?\s*$`),
	regexp.MustCompile(`(?i)[,;.]?\s*(?:and\s+)?(?:it|the\s+results?|the\s+strategy)\s+(?:should|must)\s+(?:include|find|contain|keep)\s+(.+?)\s*[.!]?\s*$`),
	regexp.MustCompile(`(?i)[,;.]?\s*(?:and\s+)?(?:with|using|use)\s+(.+?)\s+as\s+(?:my\s+|the\s+)?(?:positive\s+)?controls?\s*[.!]?\s*$`),
}

// knownFiller are the words a list of known genes may have besides ids.
var knownFiller = WordSet("and or the genes gene known my ids id both")

// takeKnown takes a known-genes clause off the end of a request: the
// request without it, and the genes it names (none when it has no such
// clause, or the clause names anything but gene ids).
func takeKnown(text string) (string, []string) {
	for _, re := range knownREs {
		m := re.FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		part := text[m[2]:m[3]]
		ids := idsAsWritten(part)
		if len(ids) == 0 || !onlyIDs(part) {
			continue
		}
		return strings.TrimSpace(text[:m[0]]), ids
	}
	return text, nil
}

// onlyIDs reports whether s names gene ids and nothing else.
func onlyIDs(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == '(' || r == ')' }) {
		w = strings.TrimSuffix(strings.Trim(w, `"'“”`), ".")
		if !strongIDRE.MatchString(w) && !knownFiller[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// idsAsWritten lists the strong gene ids of a text as the researcher wrote
// them (a list reports how each was resolved, so its case is kept).
func idsAsWritten(text string) []string {
	var ids []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == ',' || r == '?' || r == '!' || r == ';' || r == ':' || r == '(' || r == ')'
	}) {
		w = strings.TrimSuffix(strings.Trim(w, `"'“”`), ".")
		if strongIDRE.MatchString(w) {
			ids = append(ids, w)
		}
	}
	return ids
}

// controlsGiven reads the ids a request to test against controls gives as
// the controls ("…against my controls: PF3D7_…, …").
func (p *Parsed) controlsGiven(text string) {
	if p.Follow == FollowControls && len(p.Known) == 0 {
		p.Known = idsAsWritten(text)
	}
}
