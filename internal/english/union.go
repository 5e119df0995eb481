package english

import (
	"regexp"
	"strings"
)

// unionRE reads a union asked for in words rather than with "or": "the
// union of A and B", "combine A with B into one list", "merge A and B".
var unionRE = regexp.MustCompile(`(?i)^\s*(?:(?:please|can\s+you|could\s+you|i\s+want|i'd\s+like|give\s+me|show\s+me|get\s+me|list|find|show|get|give)\s+)*` +
	`(?:(?:the\s+)?union\s+of|(?:combine|merge|pool|join|unite)(?:\s+together)?\s+)\s*(.+?)\s*[.!?]*\s*$`)

// unionEndRE reads the words that say the parts become one list: "into
// one list", "in a single set", "together".
var unionEndRE = regexp.MustCompile(`(?i),?\s+(?:(?:into|in|as)\s+(?:one|a\s+single|a|the\s+same)\s+(?:list|set|result|strategy|table)|(?:(?:pooled|merged|combined|joined|put)\s+)?together|combined|merged|pooled|as\s+one)\s*$`)

// unionAnnouncedRE reads the words that announce a union before or after
// its parts: "a combined set please: …", "Two sets, one list: …", "I'd
// like a combined list of …", "…, one merged list", "… (a union,
// please)".
var unionAnnouncedRE = regexp.MustCompile(`(?i)^\s*(?:(?:i'?d\s+like|i\s+want|i\s+need|give\s+me|can\s+i\s+have|could\s+i\s+have|please)\s+)?(?:a|one)\s+(?:combined|merged|pooled|joint|single|unified)\s+(?:list|set)(?:\s+please)?\s*(?::|,|of)\s*` +
	`|^\s*(?:two|both|the\s+two)\s+(?:sets|lists),?\s+(?:one|a\s+single)\s+list\s*:\s*` +
	`|[,;]?\s*(?:(?:in|into|as)\s+)?(?:one|a\s+single)\s+(?:merged\s+|combined\s+)?(?:list|set)\s*[.!]*\s*$` +
	`|[,;]?\s*(?:merged|combined|pooled)\s+(?:into|in|as)\s+(?:one|a\s+single|a)\s+(?:list|set)\s*[.!]*\s*$` +
	`|` + unionAside)

// unionAside is a union announced in brackets: "(a union)", "(as a union,
// please)"; unionAsideRE finds it.
const unionAside = `\s*\(\s*(?:as\s+)?(?:a\s+)?union(?:,?\s+please)?\s*\)`

var unionAsideRE = regexp.MustCompile(`(?i)` + unionAside)

// unionAnnounced writes a union announced in words as one the grammar
// reads: its parts joined by "or" ("A ∪ B" too).
func unionAnnounced(text string) string {
	text = strings.ReplaceAll(text, "∪", " or ")
	loc := unionAnnouncedRE.FindStringIndex(text)
	if loc == nil || unionRE.MatchString(text) {
		return text
	}
	// A union announced twice ("a merged list, A along with B, either
	// one") needs it once.
	body := strings.TrimSpace(unionAsideRE.ReplaceAllString(text[:loc[0]]+" "+text[loc[1]:], ""))
	body = strings.TrimRight(body, " .!?")
	if orRE.MatchString(body) || !andRE.MatchString(body) {
		return body // "tRNA genes (either kind)": one part
	}
	return "the union of " + body
}

// orRE finds an "or" that joins two parts; andRE a word that joins parts
// a union announced in words may mean.
var (
	orRE  = regexp.MustCompile(`(?i)\sor\s`)
	andRE = regexp.MustCompile(`(?i)\s(?:and|with|plus)\s`)
)

// qualifierEndRE reads a qualifier a rewrite put at the end of a request.
var qualifierEndRE = regexp.MustCompile(`, (?:limited to|excluding) [^,]+(?:, \d{1,2})*(?:,? (?:and|or) \d{1,2})?$`)

// unionSpelled writes a union asked for in words with "or": "the union of
// chromosome segregation genes and DNA replication genes" is
// "chromosome segregation genes or DNA replication genes". The parts are
// split where a part ends with "genes" (so "and" inside a GO name stays),
// else at the first "and" or "with". A union of "it" or "that" is a
// follow-up's, not this.
func unionSpelled(text string) string {
	text = unionAnnounced(unionsGrouped(unionCovered(text)))
	// "A and B combined, limited to chromosome 10": the union is the
	// words before the qualifier.
	if loc := qualifierEndRE.FindStringIndex(text); loc != nil && loc[0] > 0 {
		if head := unionSpelled(text[:loc[0]]); head != text[:loc[0]] {
			return "(" + head + ")" + text[loc[0]:]
		}
		return text
	}
	m := unionRE.FindStringSubmatch(text)
	if m == nil {
		// "snoRNAs and snRNAs together", "tRNA and rRNA genes in one
		// list": the words at the end ask for the union of the two.
		body := strings.TrimRight(text, " .!?")
		loc := unionEndRE.FindStringIndex(body)
		if loc == nil {
			return text
		}
		switch strings.Count(strings.ToLower(body[:loc[0]]), " and ") {
		case 0: // "A, B, C together"; "A or B, pooled together"
			if orRE.MatchString(body[:loc[0]]) {
				return body[:loc[0]]
			}
			if !strings.Contains(body[:loc[0]], ",") {
				return text
			}
			return strings.ReplaceAll(body[:loc[0]], ",", " or")
		case 1:
			m = []string{text, body[:loc[0]]}
		default:
			return text
		}
	}
	body := unionEndRE.ReplaceAllString(m[1], "")
	first := strings.ToLower(strings.Fields(body + " x")[0])
	if first == "it" || first == "that" || first == "this" || first == "them" || first == "those" || first == "these" {
		return text
	}
	lower := strings.ToLower(body)
	for _, sep := range []string{" genes and ", " genes together with ", " genes along with ", " genes with ", " ones and ", " ones with ",
		" together with ", " along with ", " and ", " with "} {
		if i := strings.Index(lower, sep); i > 0 {
			left := body[:i]
			if w := strings.Fields(sep)[0]; w == "genes" || w == "ones" {
				left += " " + w
			}
			return left + " or " + body[i+len(sep):]
		}
	}
	return text
}

var (
	// bracketPlaceRE is a bracketed part whose comma puts it on a place:
	// "[thiamine metabolic process, chr 6]" is those genes on chromosome 6.
	bracketPlaceRE = regexp.MustCompile(`(?i)\[\s*([^\[\],]+?)\s*,\s*((?:chr\.?|chromosomes?)\s*\w+)\s*\]`)
	// wholeSetRE is a union whose second part is a whole set of its own
	// ("… plus everything in GO:0008616"): what qualifies the first part
	// stays with it.
	wholeSetRE = regexp.MustCompile(`(?i)^(.+?)[,;]?\s+(?:plus|together\s+with|as\s+well\s+as|along\s+with|in\s+addition\s+to|or)\s+(?:separately\s+)?` +
		`(?:everything|anything|all(?:\s+the)?\s+genes|every\s+gene|all)\s+(?:in|of|from|annotated\s+(?:with|to)|under)\s+(.+?)\s*[.!]*\s*$`)
	// mergedRE joins two bracketed parts in a union.
	mergedRE = regexp.MustCompile(`(?i)\)\s+(?:merged|joined|pooled|combined)\s+with\s+\(`)
	// placedRE is a part placed on a chromosome, whose place is its own.
	placedRE = regexp.MustCompile(`(?i)\b(?:on|of|in|from)\s+(?:chr\b|chromosome)`)
	// inAdditionRE is "in addition to", a union.
	inAdditionRE = regexp.MustCompile(`(?i)\bin\s+addition\s+to\b`)
)

// unionsGrouped brackets the parts of a union its words group: a part on
// a place written "[A, chr 6]", a second part that is a whole set.
func unionsGrouped(text string) string {
	if t := bracketPlaceRE.ReplaceAllString(text, "($1 on $2)"); t != text {
		text = mergedRE.ReplaceAllString(t, ") plus (")
	}
	if m := wholeSetRE.FindStringSubmatch(text); m != nil && placedRE.MatchString(m[1]) {
		text = "(" + m[1] + ") plus (" + m[2] + ")"
	}
	return inAdditionRE.ReplaceAllString(text, "plus")
}

// coverREs read a qualifier said of a union's whole pool, after its parts:
// "A or B, the combined set trimmed to chromosome 12", "A plus B, with
// both lists held to chromosome 13", "A and B: pool them, then confine
// the pool to chromosomes 3 and 6", "A and B pooled, then minus whatever
// chromosome 14 contributes to either", "A alongside B — everything in
// that pair, excluding chromosome 14", "For A and B alike, limited to
// chromosome 14". Each gives the parts and the qualifier.
var coverREs = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^(.+?),\s*(?:the\s+(?:combined|merged|pooled|joint|whole)\s+(?:set|list|lot)|(?:with\s+)?both\s+(?:lists|sets))\s+(?:trimmed|held|limited|restricted|confined|narrowed|kept|cut\s+down)\s+(to)\s+(.+?)\s*[.!]*$`),
	regexp.MustCompile(`(?i)^(.+?)\s*[:;,]\s*(?:pool|merge|combine|join)\s+them(?:\s+together)?\s*,?\s*(?:then\s+|and\s+(?:then\s+)?)?(?:confine|limit|restrict|trim|narrow)\s+(?:the\s+(?:pool|pair|lot|union|result)|it|them)\s+(to)\s+(.+?)\s*[.!]*$`),
	regexp.MustCompile(`(?i)^(.+?)\s*[:;,]\s*(?:pool|merge|combine|join)\s+them(?:\s+together)?\s*,\s*(limited\s+to|excluding)\s+(.+?)\s*[.!]*$`),
	regexp.MustCompile(`(?i)^(.+?)\s+(?:pooled|merged|combined|together),?\s*(?:then\s+)?(minus|without|excluding)\s+(?:whatever|everything|anything)\s+(.+?)\s+(?:contributes|holds|carries|has)(?:\s+to\s+(?:either|both|any))?\s*[.!]*$`),
	regexp.MustCompile(`(?i)^(.+?)\s*(?:[—–]|\s-)\s*everything(?:\s+in\s+(?:that|the)\s+(?:pair|pool|lot|union))?,\s*(excluding|limited\s+to)\s+(.+?)\s*[.!]*$`),
	regexp.MustCompile(`(?i)^(?:pool|merge|combine|join|unite)\s+(.+?\s+(?:with|and)\s+.+?)\s*,?\s+(?:and|then)\s+(keep|retain|leave)\s+(?:only\s+|just\s+)?(.+?)(?:\s+(?:from|of|in)\s+(?:that|the|this)\s+(?:pool|union|lot|list|set|result))?\s*[.!]*$`),
	regexp.MustCompile(`(?i)^for\s+(.+?)\s+alike,\s*(?:i\s+only\s+want\s+|only\s+)?(excluding|limited\s+to|)\s*(.+?)\s*[.!]*$`),
}

// unionCovered writes such a request as the union of its parts with the
// qualifier after it, which the grammar applies to the whole union.
func unionCovered(text string) string {
	for _, re := range coverREs {
		m := re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		qualifier := "limited to"
		if w := strings.ToLower(m[2]); w == "minus" || w == "without" || w == "excluding" {
			qualifier = "excluding"
		}
		parts := coverJoinRE.ReplaceAllString(m[1], " and ")
		if w := strings.ToLower(m[2]); w == "keep" || w == "retain" || w == "leave" {
			// "pool A with B and keep …": the first "with" joins the parts.
			parts = withRE.ReplaceAllString(parts, "$1 and ")
		}
		if orRE.MatchString(parts) {
			return parts + ", " + qualifier + " " + m[3]
		}
		return "the union of " + parts + ", " + qualifier + " " + m[3]
	}
	return text
}

// withRE is the first "with" of "pool A with B".
var withRE = regexp.MustCompile(`(?i)^(.+?)\s+with\s+`)

// coverJoinRE joins the parts of a covered union in words.
var coverJoinRE = regexp.MustCompile(`(?i)\s+(?:plus|alongside|along\s+with|together\s+with|as\s+well\s+as|&)\s+`)
