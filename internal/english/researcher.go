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
	text = withoutWrappers(text)
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

// requestWrappers are the words around a request that ask for it without
// saying which genes: a greeting or a thanks, "any chance you could", "when
// convenient", "put … into a strategy for me", "a search returning …",
// "build me a strategy around …", a colleague who asked for it, an
// occasion it is for ("For tomorrow's lab meeting on … I need"). What is
// left is the request.
var requestWrappers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?i)^\s*(?:yo|hey|hi|hello|hiya|morning|ok|okay)\s*[,!]\s*|[,;]\s*(?:ta|cheers|thx|ty|thanks)\s*[.!]*\s*$`), ""},
	{regexp.MustCompile(`(?i)^\s*(?:(?:is\s+there\s+)?any\s+chance\s+(?:you\s+(?:could|can)|of)|when(?:ever)?\s+(?:convenient|you\s+(?:can|get\s+a\s+(?:chance|moment)))|at\s+your\s+convenience|no\s+rush|no\s+hurry)\s*[,:]?\s+`), ""},
	{regexp.MustCompile(`(?i)^\s*(?:(?:could|can|would)\s+you\s+)?(?:kindly\s+|please\s+)?put\s+(.+?)\s+into\s+(?:a|one|the)\s+(?:strategy|search|list)(?:\s+for\s+(?:me|us))?\s*([?.!]*)\s*$`), "find $1$2"},
	{regexp.MustCompile(`(?i)\b(?:find|run|do|build|make|create|design|set\s+up)\s+(?:me\s+|us\s+)?(?:a|one)\s+(?:search|strategy|query)\s+(?:returning|giving|listing|finding|that\s+(?:returns|gives|finds|lists)|around|on|about|based\s+on|for)\s+`), "find "},
	{regexp.MustCompile(`(?i)^\s*(?:my|our)\s+(?:collaborator|colleague|supervisor|pi|advisor|adviser|boss|student|postdoc|reviewer|co-author)s?(?:\s+(?:in|at|from)\s+\w+)?\s+(?:asked|asks|wants|wanted|needs|requested|would\s+like)\s+(?:me\s+|us\s+)?(?:for\s+|to\s+(?:find|get|see|pull|have)\s+)?(?:(?:this\s+one|the\s+following|this|these)\s*:\s*)?`), ""},
	{regexp.MustCompile(`(?i)^\s*for\s+(?:tomorrow's|today's|next\s+week's|this\s+week's|friday's|monday's|my|our|the|a|an)\s+[^,.;:]*?\s+(?:i|we)\s+(?:need|want|would\s+like|'d\s+like)\s+`), ""},
	// A plan asked for without a build: in plan mode nothing is built
	// until the researcher clicks Build, so the words only frame the
	// request ("Plan only, no build: …", "Don't build yet — what would you
	// do for …?", "Sketch the plan for … before building", "I'd like a
	// preview of the plan for …", "Can you describe the strategy you'd
	// use for …, without running it?").
	{regexp.MustCompile(`(?i)^\s*(?:(?:plan\s+only|just\s+(?:the\s+)?plan|(?:don'?t|do\s+not)\s+build(?:\s+(?:it|anything))?(?:\s+yet)?|no\s+build(?:ing)?(?:\s+yet)?)\s*(?:[,;:]|\s[—–-])\s*)+`), ""},
	{regexp.MustCompile(`(?i)^\s*before\s+(?:building|you\s+build|running|you\s+run)(?:\s+(?:anything|it))?\s*[,:]\s*`), ""},
	{regexp.MustCompile(`(?i)^\s*(?:tell|show|give)\s+me\s+your\s+(?:plan|strategy|approach)\s+(?:for|to\s+find)\s+|^\s*what'?s\s+your\s+(?:plan|strategy|approach)\s+for\s+`), ""},
	{regexp.MustCompile(`(?i)^\s*(?:(?:can|could|would)\s+you\s+|please\s+|i'?d\s+like\s+(?:a|to\s+see\s+(?:a|the))\s+)?(?:what\s+would\s+you\s+do|how\s+would\s+you\s+(?:build|plan|approach|search)(?:\s+(?:it|this))?|(?:sketch|outline|draft|show|describe|preview|propose)\s+(?:me\s+)?(?:the|a|your)\s+(?:plan|strategy|approach)(?:\s+you'?d\s+use)?|preview\s+of\s+the\s+(?:plan|strategy))\s+(?:for|of)\s+`), ""},
	{regexp.MustCompile(`(?i),?\s+(?:before\s+building(?:\s+it)?|without\s+(?:running|building|executing)\s+it|but\s+don'?t\s+build(?:\s+it)?(?:\s+yet)?)\s*([?.!]*)\s*$`), "$1"},
	// "what does GO:A share with GO:B?": the genes of both.
	{regexp.MustCompile(`(?i)^\s*what\s+(?:does|do)\s+(.+?)\s+(?:share|have\s+in\s+common)\s+with\s+(.+?)\s*[?.!]*\s*$`), "genes in both $1 and $2"},
	// A count asked as a noun, a text search asked as a word search, a
	// part thrown in, a step list's end, the words around gene ids.
	{regexp.MustCompile(`(?i)^\s*(?:the\s+)?(?:count|number|total)\s+of\s+genes\s+(?:in|for|annotated\s+(?:with|to)|under)\s+`), "how many genes are in "},
	{regexp.MustCompile(`(?i)\b(?:look|search)\s+for\s+the\s+(?:word|term|string|keyword)\s+("?[\w-]+"?)\s+in\s+(?:the\s+)?(?:gene\s+)?(?:descriptions?|products?|annotations?|product\s+names?)\b`), "text search for $1"},
	{regexp.MustCompile(`(?i)^\s*(?:a\s+)?(?:word|text|keyword)\s+search\s+(?:on|of|in|over)\s+(?:the\s+)?(?:gene\s+)?(?:products?|descriptions?|annotations?)\s*:\s*`), "text search for "},
	{regexp.MustCompile(`(?i),?\s+with\s+(.+?)\s+(?:thrown|tossed|added|chucked|mixed)\s+in\s*([.!]*)\s*$`), " plus $1$2"},
	{regexp.MustCompile(`(?i)(?:[.;,]\s*|\s+)(?:\(\w\)\s*)?(?:that'?s\s+(?:all|it)|done|nothing\s+more)\s*[.!]*\s*$`), ""},
	{regexp.MustCompile(`(?i)\bless\s+(chr\b|chromosomes?\b)`), "minus $1"},
	{regexp.MustCompile(`(?i)\bgenes?\(s\)`), "genes"},
	{regexp.MustCompile(`(?i)\(\s*(?:the\s+)?(?:reference\s+)?(?:clone|strain|isolate|line)\s+(3D7)\s*\)`), "$1"},
	{regexp.MustCompile(`(?i)\b(?:my|our|the)\s+(?:(?:two|three|four|five|\d+)\s+)?(?:own\s+)?(?:picks|favou?rites|choices)\s*,?\s*`), ""},
	{regexp.MustCompile(`(?i)(\w)\s+set\s*[.!]*\s*$`), "$1"},
	// An exclusion or restriction said first in a clause of its own:
	// "Restricting myself to chromosome 13 from the start: …", "Once
	// chromosomes 12 and 14 are gone, …", "Chromosome 5 is to be ignored
	// throughout. …"; "in play", "the chromosome 13 copies".
	{regexp.MustCompile(`(?i)^\s*(?:restricting|limiting|confining)\s+(?:myself|ourselves|it|this|things|the\s+search|the\s+list)\s+to\s+(.+?)(?:\s+from\s+the\s+(?:start|outset))?\s*:\s*(.+?)\s*[.!]*\s*$`), "$2, limited to $1"},
	{regexp.MustCompile(`(?i)^\s*once\s+(.+?)\s+(?:are|is)\s+(?:gone|removed|out|excluded|dropped)\s*,\s*(.+?)\s*[.!]*\s*$`), "$2, excluding $1"},
	{regexp.MustCompile(`(?i)^\s*(.+?)\s+(?:is|are)\s+to\s+be\s+(?:ignored|excluded|left\s+out|dropped|skipped)(?:\s+throughout)?\s*[.;:]\s*(.+?)\s*[.!]*\s*$`), "$2, excluding $1"},
	{regexp.MustCompile(`(?i)\s+in\s+play\b`), ""},
	{regexp.MustCompile(`(?i)\b((?:chromosomes?|chr)\s*\d+)\s+(?:copies|copy|members|entries)\b`), "$1"},
	// "chromosome 12's snoRNA genes": those genes on chromosome 12, so a
	// set added after them is its own.
	{regexp.MustCompile(`(?i)\b((?:chromosome|chr)\s*\d{1,2})'s\s+((?:[\w-]+\s+){0,4}?(?:genes?|loci|locus|members))\b`), "$2 on $1"},
	// "the genes that chromosome 1 carries": those on chromosome 1.
	{regexp.MustCompile(`(?i)\b(?:that|which)\s+((?:chromosomes?|chr)\s*\d+(?:(?:\s*,\s*|\s+(?:and|or)\s+)\d+)*)\s+(?:carries|carry|holds|hold|contains|contain|has|have|encodes|encode|hosts|host)\b`), "on $1"},
}

// asPartRE is an opening "As a postdoc new to PlasmoDB," part.
var asPartRE = regexp.MustCompile(`(?i)^\s*as\s+an?\s+([^,]{3,60}),\s*`)

// withoutWrappers drops a request's wrappers (requestWrappers, and an
// "As a …," part that names no genes or place).
func withoutWrappers(text string) string {
	for _, w := range requestWrappers {
		text = w.re.ReplaceAllString(text, w.with)
	}
	if m := asPartRE.FindStringSubmatchIndex(text); m != nil {
		part := text[m[2]:m[3]]
		if rest := text[m[1]:]; !mentionsGenes(tokenize(part)) && !placeRE.MatchString(part) && hasContent(tokenize(rest)) {
			text = requestLeadRE.ReplaceAllString(rest, "")
		}
	}
	return text
}
