package english

import (
	"regexp"
	"strings"
)

// formsSpelled writes ways of naming things that the grammar reads in
// another form only: hyphenated kinds and genomes ("tRNA-encoding",
// "mtDNA-encoded", "plastid-genome"), a strain "of" its species, "+"
// between parts, asides that say a union is meant ("(either kind)", "or
// to both", "or else"), "on none of", a GO name's ", via …", and a
// free-text search written with a colon.
func formsSpelled(text string) string {
	for _, r := range formRewrites {
		text = r.re.ReplaceAllString(text, r.with)
	}
	return text
}

// formRewrites are formsSpelled's rewrites, in order.
var formRewrites = []struct {
	re   *regexp.Regexp
	with string
}{
	// "tRNA-encoding genes" are "tRNA encoding genes", a gene type's name.
	{regexp.MustCompile(`(?i)\b(\w+)-encoding\b`), "$1 encoding"},
	// "mtDNA-encoded genes" are the mtDNA's genes.
	{regexp.MustCompile(`(?i)\b(mtdna|plastid)[- ]encoded\b`), "$1"},
	{regexp.MustCompile(`(?i)\b(plastid|apicoplast|mitochondrial|mitochondrion|mtdna)-genome\b`), "$1 genome"},
	// "the 3D7 isolate of P. falciparum" is P. falciparum 3D7.
	{regexp.MustCompile(`(?i)\b(?:the\s+)?(3d7|dd2|hb3|7g8|nf54|k1|w2)\s+(?:isolate|strain|line|clone|parasites?)\s+of\s+((?:p\.\s*|plasmodium\s+)falciparum)\b`), "$2 $1"},
	{regexp.MustCompile(`\s+\+\s+`), " and "},
	// "it's chromosome 11 I want out, not 14": the correction's words.
	{regexp.MustCompile(`(?i)\bit'?s\s+(.+?)\s+(?:that\s+)?i\s+(?:want|meant|need|wanted)(?:\s+(?:out|excluded|removed|gone|in))?\s*,\s*not\s+`), "$1, not "},
	// "same but for chromosome 9" corrects the request before it.
	{regexp.MustCompile(`(?i)^\s*(?:the\s+)?same(?:\s+thing)?,?\s+but\s+(?:for|on|with|using)\s+`), "I meant "},
	// "protein folding-related genes", "DNA repair–associated genes".
	{regexp.MustCompile(`(?i)[-–](?:related|associated|linked)\s+(genes?|proteins?)\b`), " $1"},
	// "the 14th chromosome" is chromosome 14.
	{regexp.MustCompile(`(?i)\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\s+chromosome\b`), "chromosome $1"},
	// "organellar tRNA genes" are those of both organelle genomes.
	{regexp.MustCompile(`(?i)\borganell(?:ar|e)[- ](?:encoded\s+)?(trna|rrna|snorna|snrna|protein[- ]coding)\s+genes\b`), "$1 genes on the apicoplast and mitochondrion genomes"},
	{regexp.MustCompile(`(?i)\s*\(\s*(?:either|any)(?:\s+(?:kind|one|type|of\s+them|of\s+the\s+two))?(?:\s+(?:is|will\s+do)\s+(?:enough|fine|ok|okay))?\s*\)`), ""},
	// "A, to B, or to both" is A or B.
	{regexp.MustCompile(`(?i),\s*((?:to|in|of)\s+[^,]+?),?\s+or\s+(?:to\s+|in\s+|of\s+)?both\b`), " or $1"},
	{regexp.MustCompile(`(?i),?\s+or\s+(?:to\s+|in\s+)?both\b`), ""},
	// "Merge two sets into a single list: A and B" is the union of A and B.
	{regexp.MustCompile(`(?i)^\s*(?:please\s+)?(merge|combine|pool|join|unite)\s+(?:the\s+)?(?:two|both|these|the\s+following)\s+(?:sets|lists|groups)(?:\s+(?:into|in)\s+(?:one|a\s+single|a)\s+(?:list|set))?\s*:\s*`), "$1 "},
	{regexp.MustCompile(`(?i)\bor\s+else\b`), "or"},
	{regexp.MustCompile(`(?i)\bon\s+none\s+of\s+(?:the\s+)?`), "not on "},
	// GO names a process "X, via Y": the comma separates nothing.
	{regexp.MustCompile(`(?i),\s+via\s+`), " via "},
	{regexp.MustCompile(`(?i)\b(?:free|full)[- ]?text\s+search\s*:\s*`), "text search for "},
	{regexp.MustCompile(`(?i)\bfree[- ]?text\s+search\b`), "text search"},
	// "Setting the apicoplast genome aside", "putting chromosome 3 to one
	// side": the connective split by its object.
	{regexp.MustCompile(`(?i)\b(setting|set|putting|put|leaving|leave)\s+((?:the\s+)?(?:chromosomes?|chrs?|apicoplast|mitochondri\w*|organell\w*)\b[^,;:.?!]*?)\s+(?:aside|to\s+one\s+side)\b`), "$1 aside $2"},
	// "A, B, C — combine all three" asks for their union.
	{regexp.MustCompile(`(?i)\s*(?:[,;]|\s[—–-])\s*(?:then\s+|and\s+|please\s+)*(?:combine|merge|pool|unite)(?:d)?\s+(?:them|these|those|both|all(?:\s+of\s+them)?|(?:all\s+)?(?:the\s+)?(?:two|three|four|five)(?:\s+of\s+them)?)(?:\s+(?:together|into\s+one(?:\s+list)?))?\s*[.!]*\s*$`), " together"},
	// Lab-notebook sign-offs.
	{regexp.MustCompile(`(?i)[.,;]?\s+(?:thx|thanks|ty|cheers|ta)\s*[.!]*\s*$`), ""},
}

// researchNouns name what a piece of research is for: a part of a
// message naming one, with a researcher or the work as its subject ("For
// my thesis on Plasmodium lipid metabolism", "We are drafting a grant on
// artemisinin resistance", "As part of an undergraduate practical",
// "Following up on a reviewer's comment"), says why, not which genes.
var researchNouns = WordSet(`thesis dissertation grant paper review manuscript preprint project practical class course
	report proposal comment comments reviewer reviewers referee referees talk poster presentation seminar lecture
	assignment homework module chapter meeting rotation`)

// researchLeadRE reads the words such a part starts with.
var researchLeadRE = regexp.MustCompile(`(?i)^\s*(?:for|in|as\s+part\s+of|following\s+up\s+on|after|because\s+of|i'?m|i\s+am|we'?re|we\s+are|my|our|i|we)\b`)

// aboutResearch reports whether a part names what the research is for
// (a research noun), whatever its topic words, and no place, id or genes.
func aboutResearch(words []token) bool {
	noun := false
	for _, w := range words {
		switch {
		case researchNouns[w.low] || researchNouns[strings.TrimSuffix(w.low, "'s")]:
			noun = true
		case w.low == "genes" || w.low == "gene" || isLocationWord(w.low) || isGeneID(w.text) || goIDRE.MatchString(w.text):
			return false
		}
	}
	return noun
}
