package english

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// formsSpelled writes ways of naming things that the grammar reads in
// another form only: hyphenated kinds and genomes ("tRNA-encoding",
// "mtDNA-encoded", "plastid-genome"), a strain "of" its species, "+"
// between parts, asides that say a union is meant ("(either kind)", "or
// to both", "or else"), "on none of", a GO name's ", via …", and a
// free-text search written with a colon.
func formsSpelled(text string) string {
	text = stepsSpelled(text)
	text = typesRestated(text)
	text = chromosomesNumbered(text)
	text = boundsSpelled(text)
	for _, r := range formRewrites {
		text = r.re.ReplaceAllString(text, r.with)
	}
	return alsoToo(text)
}

// restatedRE finds a part in brackets after a phrase: "ncRNA genes (non
// protein coding)".
var restatedRE = regexp.MustCompile(`((?:[\w-]+\s+){0,3}[\w-]+)\s*\(\s*(?:the\s+|i\.e\.\s+|aka\s+)?([^()]{2,40}?)(?:\s+(?:type|kind|genes))?\s*\)`)

// typesRestated drops a bracketed part that names again the gene type
// the words before it name ("ncRNA genes (non protein coding)", "non
// protein coding (ncRNA)", "non-coding RNA loci (the non protein coding
// type)"): it adds nothing, and read as a clause it would be asked about.
func typesRestated(text string) string {
	return restatedRE.ReplaceAllStringFunc(text, func(m string) string {
		g := restatedRE.FindStringSubmatch(m)
		inner, ok := GeneTypeName(g[2])
		if !ok {
			return m
		}
		words := strings.Fields(g[1])
		for i := range words {
			if t, ok := GeneTypeName(strings.Join(words[i:], " ")); ok && t == inner {
				return g[1]
			}
		}
		return m
	})
}

// chromosomeWordRE finds a chromosome numbered in words: "chromosome
// one", "chr eleven".
var chromosomeWordRE = regexp.MustCompile(`(?i)\b(chromosomes?|chrs?\.?)\s+(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen)\b`)

// chromosomesNumbered writes a chromosome numbered in words in digits
// ("chromosome one is not wanted"), as the readers of places want it.
func chromosomesNumbered(text string) string {
	return chromosomeWordRE.ReplaceAllStringFunc(text, func(m string) string {
		g := chromosomeWordRE.FindStringSubmatch(m)
		return g[1] + " " + strconv.Itoa(numberWords[strings.ToLower(g[2])])
	})
}

// boundRE finds a count bound written in words: "three or more", "at
// least two", "no more than four".
var boundRE = regexp.MustCompile(`(?i)(?:\b(at\s+least|at\s+most|no\s+more\s+than|no\s+fewer\s+than|more\s+than|fewer\s+than|less\s+than|over|under)\s+)?\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b(\s+or\s+(?:more|fewer|less|greater|above|below))?`)

// boundsSpelled writes a count bound's number in digits ("three or more
// transmembrane helices" is "3 or more …"), so the "or" of the bound is
// not read as joining two sets. A number word without a bound around it
// is left as it is ("step two").
func boundsSpelled(text string) string {
	return boundRE.ReplaceAllStringFunc(text, func(m string) string {
		g := boundRE.FindStringSubmatch(m)
		if g[1] == "" && g[3] == "" {
			return m
		}
		n := strconv.Itoa(numberWords[strings.ToLower(g[2])])
		if g[1] != "" {
			return g[1] + " " + n + g[3]
		}
		return n + g[3]
	})
}

// stepMarkRE finds the marks that number a request written in steps:
// "Step one: …", "Step 2 - …", "1) … 2) …", "(3) …"; beginRE the words
// that open the first step ("Begin with …", "Start from …").
var (
	stepMarkRE = regexp.MustCompile(`(?i)(?:^|[.;,]?\s+)(?:step\s+(?:\d|one|two|three|four|five)\s*[:.,)—–-]|\(?\d\)|\(?(?:[a-e]|i{1,3}|iv|vi?)\)(?:\s|$)|\d\.(?:\s|$))\s*`)
	// ordinalStepsRE reads steps numbered in words and joined by
	// semicolons: "first A; second, remove B from it; third, remove
	// chromosome 14 as well" is "A. Remove B from it. Remove chromosome
	// 14 as well."
	ordinalStepsRE = regexp.MustCompile(`(?i)^\s*first(?:ly)?\s*[,:]?\s+(.+?);\s*second(?:ly)?\s*[,:]?\s+(.+?)(?:;\s*(?:third(?:ly)?|finally|lastly)\s*[,:]?\s+(.+?))?\s*[.!]*\s*$`)
	beginRE        = regexp.MustCompile(`(?i)^\s*(?:begin|start|start\s+off|kick\s+off)\s+(?:with|from)\s+`)
)

// stepsSpelled writes each step of a request written in steps as a
// sentence of its own, so the sentences after the first qualify it as
// one request: "1) A 2) just chr 10 3) minus anything in B" is "A. Just
// chr 10. Minus anything in B."
func stepsSpelled(text string) string {
	if m := ordinalStepsRE.FindStringSubmatch(text); m != nil {
		text = m[1] + ". " + sentenceStart(m[2]) + "."
		if m[3] != "" {
			text += " " + sentenceStart(m[3]) + "."
		}
	}
	marks := slices.DeleteFunc(stepMarkRE.FindAllStringIndex(text, -1), func(m []int) bool {
		// "(… genes on chr 6) + (…)": a bracket closed after a number
		// marks no step.
		before := text[:m[0]]
		return strings.Count(before, "(") > strings.Count(before, ")") && !strings.Contains(text[m[0]:m[1]], "(")
	})
	if len(marks) >= 2 {
		var b strings.Builder
		prev := 0
		for i, m := range marks {
			b.WriteString(strings.TrimRight(text[prev:m[0]], " .;,"))
			if i > 0 || b.Len() > 0 {
				b.WriteString(". ")
			}
			prev = m[1]
			if prev < len(text) {
				text = text[:prev] + sentenceStart(text[prev:prev+1]) + text[prev+1:]
			}
		}
		b.WriteString(text[prev:])
		text = strings.TrimLeft(b.String(), " ")
	}
	if loc := beginRE.FindStringIndex(text); loc != nil && strings.Contains(text[loc[1]:], ". ") {
		text = sentenceStart(text[loc[1]:loc[1]+1]) + text[loc[1]+1:]
	}
	return text
}

// tooRE reads a last part added with "too": "A genes, and the B genes
// too", "…, and also B as well".
var tooRE = regexp.MustCompile(`(?i),\s+and\s+(?:also\s+)?((?:the\s+)?[^,;.]+?)\s+(?:too|as\s+well)\s*[.!]*\s*$`)

// placeWordRE finds a place named in a request's words.
var placeWordRE = regexp.MustCompile(`(?i)\b(?:chromosomes?|chrs?|apicoplast|mitochondri\w*|genome)\b`)

// alsoToo writes "A genes, and the B genes too" as "A genes or the B
// genes": the "too" adds B's genes. When A names a place, which the
// grammar reads over a list, the words are left as they are.
func alsoToo(text string) string {
	loc := tooRE.FindStringSubmatchIndex(text)
	if loc == nil || placeWordRE.MatchString(text[:loc[0]]) {
		return text
	}
	return text[:loc[0]] + " or " + text[loc[2]:loc[3]]
}

// formRewrites are formsSpelled's rewrites, in order.
var formRewrites = []struct {
	re   *regexp.Regexp
	with string
}{
	// "go back to the whole genome": the chromosome restriction dropped.
	{regexp.MustCompile(`(?i)^\s*(?:(?:hmm|ok|okay|actually|now|please),?\s+)*(?:go\s+back|return|revert)\s+to\s+(?:the\s+)?(?:whole|entire|full)\s+genome\s*[.!]*\s*$`), "drop the chromosome restriction"},
	// "rRNA- and tRNA-encoding genes": the hyphen's word said once for
	// both.
	{regexp.MustCompile(`(?i)\b([\w]+)-\s+(and|or|&)\s+([\w]+)-([a-z]+)\b`), "$1-$4 $2 $3-$4"},
	// "spread over chromosomes 2, 5 and 8", "across chr 4, 6 and 12": on
	// them; "across the genome" says nothing more than the request.
	{regexp.MustCompile(`(?i)\b(?:(?:spread|distributed|scattered)\s+)?(?:across|over|spanning|throughout)\s+((?:the\s+)?(?:chromosomes?|chrs?\.?)\s*\d)`), "on $1"},
	{regexp.MustCompile(`(?i),?\s*\b(?:across|throughout|over)\s+the\s+(?:whole\s+|entire\s+)?genome\b`), ""},
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
	// "A and B genes (either term)": genes of either, their union.
	{regexp.MustCompile(`(?i)\s*\(\s*(?:either|any)(?:\s+(?:kind|one|type|term|process|of\s+them|of\s+the\s+two))?(?:\s+(?:is|will\s+do)\s+(?:enough|fine|ok|okay))?\s*\)`), " (a union)"},
	// "A, to B, or to both" is A or B.
	{regexp.MustCompile(`(?i),\s*((?:to|in|of)\s+[^,]+?),?\s+or\s+(?:to\s+|in\s+|of\s+)?both\b`), " or $1"},
	{regexp.MustCompile(`(?i),?\s+or\s+(?:to\s+|in\s+)?both\b`), ""},
	// "Merge two sets into a single list: A and B" is the union of A and B.
	{regexp.MustCompile(`(?i)^\s*(?:please\s+)?(merge|combine|pool|join|unite)\s+(?:the\s+)?(?:two|both|these|the\s+following)\s+(?:sets|lists|groups)(?:\s+(?:into|in)\s+(?:one|a\s+single|a)\s+(?:list|set))?\s*:\s*`), "$1 "},
	// "Two lists in one: A and B", "both sets as a single list: A and B".
	{regexp.MustCompile(`(?i)^\s*(?:please\s+)?(?:the\s+)?(?:two|both)\s+(?:sets|lists|groups)\s+(?:in|into|as)\s+(?:one|a\s+single)(?:\s+(?:list|set))?\s*:\s*`), "combine "},
	{regexp.MustCompile(`(?i)\bor\s+else\b`), "or"},
	{regexp.MustCompile(`(?i)\bon\s+none\s+of\s+(?:the\s+)?`), "not on "},
	// GO names a process "X, via Y": the comma separates nothing.
	{regexp.MustCompile(`(?i),\s+via\s+`), " via "},
	{regexp.MustCompile(`(?i)\b(?:free|full)[- ]?text\s+search\s*:\s*`), "text search for "},
	{regexp.MustCompile(`(?i)\bfree[- ]?text\s+search\b`), "text search"},
	// "Setting the apicoplast genome aside", "putting chromosome 3 to one
	// side": the connective split by its object.
	{regexp.MustCompile(`(?i)\b(setting|set|putting|put|leaving|leave)\s+((?:the\s+)?(?:chromosomes?|chrs?|apicoplast|mitochondri\w*|organell\w*|mtdna|plastid)\b[^;:.?!]*?)\s+(?:aside|apart|to\s+one\s+side)\b`), "$1 aside $2"},
	// "A, B, C — combine all three" asks for their union.
	{regexp.MustCompile(`(?i)\s*(?:[,;]|\s[—–-])\s*(?:then\s+|and\s+|please\s+)*(?:combine|merge|pool|unite)(?:d)?\s+(?:them|these|those|both|all(?:\s+of\s+them)?|(?:all\s+)?(?:the\s+)?(?:two|three|four|five)(?:\s+of\s+them)?)(?:\s+(?:together|into\s+one(?:\s+list)?))?\s*[.!]*\s*$`), " together"},
	// "… — please just make the strategy", "…. Just build it for me.": the
	// request needs no word to be built.
	{regexp.MustCompile(`(?i)(?:[,;.!?]|\s[—–-])\s*(?:please\s+)?(?:just\s+)?(?:make|build|run|create)\s+(?:(?:the|a|me\s+a|it|this|that)\s+)?(?:strategy|search|it|this|that)?(?:\s+for\s+(?:me|us))?(?:,?\s+please)?\s*[.!]*\s*$`), ""},
	// "taking part in X", "playing a role in X": the genes of X.
	{regexp.MustCompile(`(?i)\b(?:tak(?:e|es|ing)|play(?:s|ing)?\s+a)\s+(?:part|role)\s+in\b`), "involved in"},
	// "what's the number of X genes on chr 11?", "What is the size of the
	// X gene set?": a count asked.
	{regexp.MustCompile(`(?i)^\s*(?:what(?:'s|\s+is|\s+are)|tell\s+me|give\s+me)\s+the\s+(?:number|count|size|total)\s+of\s+`), "how many "},
	{regexp.MustCompile(`(?i)\bgene\s+set\s*\?\s*$`), "genes?"},
	// "Pf 3D7", "P. falciparum isolate 3D7", "Plasmodium falciparum (3D7
	// reference)", "Pf 3D7 reference genome": the organism's name.
	{regexp.MustCompile(`(?i)\bpf\s+3d7\b(?:\s+(?:reference|ref))?(?:\s+(?:genome|assembly|annotation))?` +
		`|\bp\.\s*f\.\s*3d7\b|\b(?:p\.\s*falciparum|plasmodium\s+falciparum)\s*,?\s*(?:\(\s*)?(?:(?:isolate|strain|line|clone)\s+3d7|\(\s*3d7(?:\s+(?:reference|ref))?\s*\)|3d7\s+(?:reference|ref)\b)(?:\s+(?:genome|assembly|annotation))?(?:\s*\))?`), "Plasmodium falciparum 3D7"},
	// "chr 4/5/6": a list; "A / B": either.
	{regexp.MustCompile(`(?i)\b(\d{1,2})/(\d{1,2})/(\d{1,2})\b`), "$1, $2 and $3"},
	{regexp.MustCompile(`(?i)\b((?:chromosomes?|chrs?\.?)\s*\d{1,2})/(\d{1,2})\b`), "$1 and $2"},
	{regexp.MustCompile(`\s+/\s+`), " or "},
	{regexp.MustCompile(`(?i)\b(GO:\d{7})-(?:annotated|associated|linked|tagged)\b`), "$1"},
	// Politeness after the request.
	{regexp.MustCompile(`(?i)[,;]?\s+if\s+you\s+(?:would\s+be\s+so\s+kind|don'?t\s+mind|wouldn'?t\s+mind|have\s+(?:a\s+)?(?:moment|time|a\s+sec))\s*[.!]*\s*$`), ""},
	// "X genes first", "… to start with": the first step of a conversation.
	{regexp.MustCompile(`(?i)\s+(?:first|to\s+start(?:\s+with)?|to\s+begin\s+with|for\s+a\s+start|for\s+starters)\s*[.!]*\s*$`), ""},
	// "broaden the location so chromosome 9 counts too": a place added.
	{regexp.MustCompile(`(?i)^\s*(?:(?:now|ok|okay|please|and|then),?\s+)*(?:broaden|widen|expand|extend|enlarge)\s+(?:the\s+)?(?:location|place|chromosomes?|region|restriction|range|selection)\s+(?:so\s+(?:that\s+)?|to\s+(?:include|cover)\s+|with\s+)(.+?)(?:\s+(?:counts|is\s+included|comes\s+in|is\s+in|gets\s+in))?(?:\s+(?:too|as\s+well))?\s*[.!]*\s*$`), "widen it to include $1"},
	// "on second thoughts use chromosome 11 in place of 9".
	{regexp.MustCompile(`(?i)\bin\s+place\s+of\b`), "instead of"},
	// "undo the narrowing; I want the genome-wide list again": the undo
	// says it all.
	{regexp.MustCompile(`(?i)[;,.]\s*(?:i\s+want|i'?d\s+like|give\s+me|back\s+to)\s+(?:the\s+)?(?:genome-wide|whole-genome|whole|full|unrestricted|unfiltered|original|previous|earlier|broader|wider)\s+(?:list|set|result|version|strategy)(?:\s+(?:again|back))?\s*[.!]*\s*$`), ""},
	// "chromosome 13's share of X": X's genes on it.
	{regexp.MustCompile(`(?i)^\s*(?:the\s+)?((?:chromosome|chr)\s*\d{1,2})(?:'s|’s)\s+(?:share|portion|part|subset|slice|fraction|members|genes|set)\s+(?:of|in)\s+(.+?)\s*[.!?]*\s*$`), "$2 on $1"},
	// "…, the whole set", "…, whole genome": every gene of the request.
	{regexp.MustCompile(`(?i)[,;]?\s+(?:the\s+)?(?:whole|entire|full|complete)\s+(?:set|list|genome|lot)\s*[.!]*\s*$|[,;]?\s+(?:genome[- ]?wide|every\s+(?:gene|one)|all\s+of\s+them)\s*[.!]*\s*$`), ""},
	// "I'm after the …", "we're hunting for …": the request.
	{regexp.MustCompile(`(?i)^\s*(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:after|looking\s+for|hunting\s+for|searching\s+for|chasing)\s+`), ""},
	// "throw chromosome 4's in too", "pop the snoRNAs in as well": added.
	{regexp.MustCompile(`(?i)^\s*(?:(?:and|now|ok|okay|also|then),?\s+)*(?:throw|chuck|toss|pop|stick|bring|fold)\s+(.+?)\s+in\s+(?:too|as\s+well|also)\s*[.!]*\s*$`), "add $1"},
	// "let chromosome 10 in as well, please broaden": the place widens.
	{regexp.MustCompile(`(?i)^\s*(?:(?:and|now|ok|okay|also|then|please),?\s+)*let\s+(.+?)\s+in\s+(?:too|as\s+well|also)\b.*$`), "widen it to include $1"},
	// "also add X into the mix".
	{regexp.MustCompile(`(?i)\s+(?:in)?to\s+the\s+mix\b`), ""},
	// "on reflection, use chromosome 10 rather than 13".
	{regexp.MustCompile(`(?i)^\s*on\s+(?:reflection|second\s+thoughts?)\s*,?\s+`), "actually, "},
	{regexp.MustCompile(`(?i)\brather\s+than\b`), "instead of"},
	// "oops — chromosome 11 is the one I wanted": a correction.
	{regexp.MustCompile(`(?i)^\s*(?:(?:hang\s+on|wait|no|sorry|oops|actually|my\s+mistake|my\s+bad|my\s+error)[\s,:;—–-]+)*(.+?)\s+(?:is|was|are|were)\s+the\s+ones?\s+i\s+(?:wanted|meant|want|need(?:ed)?)\s*[.!]*\s*$`), "sorry, I meant $1"},
	// "not tRNA — I wanted the rRNA ones, apologies".
	{regexp.MustCompile(`(?i)^\s*not\s+(\S+(?:\s+\S+){0,2}?)\s*[,;—–-]+\s*(?:i\s+(?:wanted|meant|want|need(?:ed)?)|it\s+should\s+be)\s+(?:the\s+)?(.+?)(?:\s+ones)?(?:,?\s+(?:apologies|sorry|thanks|please))?\s*[.!]*\s*$`), "sorry, $2, not $1"},
	// "A members that are also in B": the genes of both.
	{regexp.MustCompile(`(?i)\s+(?:members|genes|ones)?\s*(?:that|which)\s+are\s+also\s+(?:in|annotated\s+(?:to|with)|part\s+of|among)\s+`), " genes and also in "},
	// "A, and also B": both lists.
	{regexp.MustCompile(`(?i),\s+and\s+also\s+(?:the\s+)?`), ", plus "},
	// "from here on, keep only …": the follow-up itself.
	{regexp.MustCompile(`(?i)^\s*(?:from\s+here\s+on|from\s+now\s+on|going\s+forward|next)\s*,?\s+`), ""},
	// Lab-notebook sign-offs.
	{regexp.MustCompile(`(?i)[.,;]?\s+(?:thx|thanks|ty|cheers|ta|please|pls|plz)\s*[.!]*\s*$`), ""},
	// "keep chromosomes 1 and 2, lose the rest": the rest is what a
	// restriction drops anyway.
	{regexp.MustCompile(`(?i)[,;]?\s+(?:and\s+)?(?:lose|drop|discard|ditch|remove|bin|toss|forget)\s+(?:all\s+)?(?:of\s+)?(?:the\s+rest(?:\s+of\s+them)?|the\s+others|everything\s+else|the\s+remainder|the\s+other\s+(?:chromosomes|ones|places))\s*[.!]*\s*$`), ""},
	// "what chromosome 13 carries", "whatever chr 8 holds": the genes on it.
	{regexp.MustCompile(`(?i)\b(?:what(?:ever)?|those|the\s+ones|ones)\s+(?:that\s+)?((?:the\s+)?(?:chromosomes?|chrs?\.?)\s*\d{1,2}(?:\s*(?:,|and|or)\s*\d{1,2})*|the\s+apicoplast|the\s+mitochondri\w+)(?:'s)?\s+(?:carries|carry|holds|hold|has|have|contains|contain|encodes|encode|bears|bear|harbou?rs?)\b`), "the genes on $1"},
	// "chromosome 11 is unwanted too, take it away": an exclusion.
	{regexp.MustCompile(`(?i)^\s*([^;:.—–]+?)\s+(?:is|are)\s+(?:unwanted|not\s+wanted|not\s+needed|unneeded|superfluous|irrelevant|of\s+no\s+interest|not\s+of\s+interest)(?:\s+(?:too|as\s+well|also))?\s*(?:[,;.—–-]\s*(?:so\s+)?(?:please\s+)?(?:take|get|throw|drop|remove|cut|strip|chuck|bin|toss|lose)\s+(?:it|them|that|those|rid\s+of\s+(?:it|them))(?:\s+(?:away|out|off))?(?:\s+(?:too|as\s+well))?)?\s*[.!]*\s*$`), "exclude $1"},
	// "hang on, chromosome 12 is the one to remove, not 14", "remove
	// chromosome 12 instead and keep 13": a correction of the exclusion.
	{regexp.MustCompile(`(?i)^\s*(?:(?:hang\s+on|wait|no|sorry|oops|actually|my\s+mistake|my\s+bad|my\s+error)[\s,:;—–-]+)*(.+?)\s+(?:is|was)\s+the\s+one\s+(?:to\s+(?:remove|exclude|drop|take\s+out|leave\s+out|lose)|i\s+(?:want|meant)\s+(?:out|gone|removed|excluded))\s*[,;]\s*(?:not|keep)\s+`), "sorry, $1, not "},
	{regexp.MustCompile(`(?i)^\s*(?:(?:hang\s+on|wait|no|sorry|oops|actually|my\s+mistake|my\s+bad|my\s+error)[\s,:;—–-]+)*(?:remove|exclude|drop|discard|take\s+out|leave\s+out|lose)\s+(.+?)\s+(?:instead\s*)?(?:,|and|,\s*and|but)\s*(?:keep|leave|restore|put\s+back)\s+(?:the\s+)?(?:(?:chromosome|chr)\s*)?(\S+?)(?:\s+(?:in|alone))?\s*[.!]*\s*$`), "sorry, $1, not $2"},
	// "I want rRNA, not tRNA, sorry": the request corrected.
	{regexp.MustCompile(`(?i)^\s*(?:i\s+(?:want(?:ed)?|meant|need(?:ed)?)|it\s+should\s+be|make\s+it)\s+([^,]+?),?\s+not\s+((?:\S+\s*){1,3}?)(?:,?\s+(?:sorry|please|thanks))?\s*[.!]*\s*$`), "sorry, $1, not $2"},
	// "…, same chromosome", "…, keep the rest": what stays says nothing new.
	{regexp.MustCompile(`(?i)[,;]?\s+(?:(?:keep(?:ing)?|with)\s+)?(?:the\s+)?same\s+(?:chromosomes?|location|place|organism|gene\s+type|restriction|exclusion|rest)(?:\s+as\s+before)?\s*[.!]*\s*$|[,;]?\s+(?:keep(?:ing)?|leave|leaving)\s+(?:the\s+rest|everything\s+else)(?:\s+(?:as\s+it\s+is|the\s+same|unchanged|as\s+is))?\s*[.!]*\s*$|[,;]?\s+everything\s+else\s+(?:the\s+same|unchanged|as\s+is)\s*[.!]*\s*$`), ""},
	// "…, unfiltered", "…, all chromosomes": no restriction said.
	{regexp.MustCompile(`(?i)(?:[,;]|\s[—–-])?\s*\b(?:un(?:filtered|restricted)|(?:the\s+)?whole\s+genome|(?:(?:across|on|over|from)\s+)?(?:all|every|any)\s+(?:the\s+)?chromosomes?)\s*[.!]*\s*$|[,;]\s*un(?:filtered|restricted)\b`), ""},
	// "go back to no chromosome filter at all": that filter dropped.
	{regexp.MustCompile(`(?i)^\s*(?:(?:ok|okay|now|hmm|actually|please|no)[\s,]+)*(?:go\s+back|return|revert|back)\s+to\s+(?:having\s+)?(?:no|without\s+(?:a|the|any))\s+(chromosome|location|place|GO|gene\s+type|text)\s+(?:filters?|restrictions?|limits?)(?:\s+at\s+all)?\s*[.!]*\s*$`), "drop the $1 filter"},
	// "…, nothing filtered", "— the full gene set, nothing else", "with no
	// filters", "this time", "thanks in advance": no criterion.
	{regexp.MustCompile(`(?i)(?:[,;]|\s[—–-])?(?:\s+(?:and|but))?\s*(?:the\s+(?:full|whole|entire|complete)\s+(?:gene\s+)?(?:set|list),?\s*)?\b(?:nothing|none)\s+(?:else|filtered(?:\s+out)?|removed|excluded|dropped)\b|(?:[,;]\s*)?\b(?:with\s+)?no\s+(?:(?:chromosome|location|place)\s+)?(?:filters?|filtering|restrictions?)(?:\s+(?:at\s+all|applied|yet|for\s+now|so\s+far))?\b`), ""},
	{regexp.MustCompile(`(?i)\s*\b(?:(?:for\s+)?this\s+time|(?:thanks|thank\s+you)\s+in\s+advance)\b`), ""},
	// "quick favour —", "Kindly propose a workflow:", "Put together
	// something that returns the …", "assemble the …": the request's frame.
	{regexp.MustCompile(`(?i)^\s*(?:(?:a\s+)?quick\s+(?:favou?r|one|question)|(?:please|kindly)\s+(?:propose|suggest|draft|set\s+up)\s+(?:a|an|the)\s+(?:workflow|pipeline|strategy|plan|search))\s*(?::|[—–-]|,)\s*`), ""},
	{regexp.MustCompile(`(?i)\b(?:put\s+together|set\s+up|assemble|compose|draft|prepare|whip\s+up)\s+(?:(?:for\s+)?(?:me|us)\s+)?(?:(?:something|a\s+(?:strategy|search|query|workflow|list))\s+(?:that|which)\s+(?:returns|gives|finds|lists|pulls\s+(?:out|up)|gets|collects)\s+)?`), "find "},
	// "genes under regulation of X" are those of "regulation of X".
	{regexp.MustCompile(`(?i)\bunder\s+(?:the\s+)?(regulation\s+of)\b`), "$1"},
	// "which genes does GO list for X": X's genes.
	{regexp.MustCompile(`(?i)\b(?:does|do)\s+(?:the\s+)?(?:GO|gene\s+ontology)\s+(?:list|have|annotate|assign|give)\s+(?:for|to|under|in)\s+`), "in "},
	// "the overlap between A and B": the genes of both.
	{regexp.MustCompile(`(?i)\b(?:the\s+)?(?:overlap|intersection)\s+(?:between|of)\s+`), ""},
	// "which X members does chromosome 11 contribute?": X's genes on it.
	{regexp.MustCompile(`(?i)\b(?:does|do)\s+((?:the\s+)?` + placePattern + `)\s+(?:contribute|carry|hold|have|contain|host|harbou?r|supply|provide)\b`), "on $1"},
	// "chr 14 portion of X", "chromosome 11 subset of the X genes".
	{regexp.MustCompile(`(?i)^\s*(?:the\s+)?((?:chromosome|chr)\s*\d{1,2})\s+(?:share|portion|part|subset|slice|fraction|members)\s+(?:of|in)\s+(.+?)\s*[.!?]*\s*$`), "$2 on $1"},
	// ", what remains in X", "what's left of X": X, with what was taken.
	{regexp.MustCompile(`(?i)([,;:]\s*)what(?:'s|\s+is)?\s+(?:remains|left|remaining)\s+(?:in|of)\s+`), "$1"},
	{regexp.MustCompile(`(?i)\s+(?:that(?:'s|\s+is|\s+are)|which\s+(?:is|are))\s+(?:left|remaining|left\s+over)\b`), ""},
	// "less chr 14": minus it.
	{regexp.MustCompile(`(?i)\bless\s+((?:the\s+)?(?:chromosomes?|chrs?\.?)\s*\d)`), "minus $1"},
	// "solely chromosome 14", "exclusively on the apicoplast": only.
	{regexp.MustCompile(`(?i)\b(?:solely|exclusively|purely)\b`), "only"},
	// "A joined with B", "pooled with": their union; "tRNA genes pooled
	// from chromosomes 3, 6 and 11": from them.
	{regexp.MustCompile(`(?i)\b(?:joined|pooled|unioned|united|combined|lumped\s+in|lumped\s+together)\s+with\b`), "together with"},
	{regexp.MustCompile(`(?i)\b(?:pooled|gathered|collected|drawn)\s+from\b`), "from"},
	// "make a single set from A and from B", "union: A and B",
	// "combine, please: A with B": the union of A and B.
	{regexp.MustCompile(`(?i)^\s*(?:please\s+)?(?:make|build|create|form|give\s+me)\s+(?:a\s+single|one|a\s+combined|a\s+merged|a\s+pooled)\s+(?:set|list)\s+(?:from|of|out\s+of)\s+(.+?)\s+and\s+(?:from|of)\s+`), "merge $1 with "},
	{regexp.MustCompile(`(?i)^\s*(?:a\s+)?union\s*(?:of\s*)?:\s*(.+?)\s+(?:and|plus|with)\s+`), "merge $1 with "},
	// "my three genes PF3D7_…": the genes.
	{regexp.MustCompile(`(?i)\bmy\s+(?:\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\s+(genes|ids|identifiers)\b`), "my $1"},
	// "genes of type 'non protein coding'", "every gene typed ncRNA": the
	// gene type.
	{regexp.MustCompile(`(?i)\b(?:the\s+)?genes?\s+(?:of\s+(?:the\s+)?type|typed|with\s+(?:the\s+)?type)\s+['"‘“]?([\w -]+?)['"’”]?(\s*\([^()]*\))?(\s*(?:[,;.]|\s+(?:plus|or|and|on|in|from|minus|but|without)\b)|\s*$)`), "$1$2 genes$3"},
	{regexp.MustCompile(`(?i)^\s*(combine|merge|pool|unite|join)\s*,?\s*(?:please\s*)?:\s*`), "$1 "},
	// "drop chromosome 10 from the combined list", "confine the pair to
	// chromosome 14": the result so far, which a loose qualifier takes.
	{regexp.MustCompile(`(?i)\b(the|a)\s+(?:pair|two|couple|set)\s+(?:of\s+)?(chr\.?|chromosomes?)\b`), "$2"}, // "limited to the pair chromosome 11 / 12"
	{regexp.MustCompile(`(?i)\s+(?:from|of|to|on|in|off)\s+(?:(?:the|this|that)\s+(?:(?:combined|merged|pooled|joint|resulting|unified|whole|entire)\s+(?:list|set|result|results|lot|pair|union|pool|group)|pair|union|lot|pool|group)|all\s+of\s+(?:it|them)|everything)\b`), ""},
	// "…, keep those on chromosome 10": only those.
	{regexp.MustCompile(`(?i)\b(keep|retain)\s+((?:those|the\s+ones|ones|what(?:ever)?)\s+(?:that\s+(?:are|lie|sit)\s+)?(?:on|in|from)\b)`), "$1 only $2"},
	// "what number of X genes do chromosomes 11 and 14 carry between
	// them?": how many.
	{regexp.MustCompile(`(?i)^\s*what\s+(?:number|count|total)\s+of\s+`), "how many "},
	{regexp.MustCompile(`(?i)\s+(?:between|among)\s+(?:them|the\s+two|both)\b`), ""},
	// "as a first step, X", "to begin, X": X.
	{regexp.MustCompile(`(?i)^\s*(?:as\s+(?:a|the|our)\s+(?:first|starting)\s+(?:step|point)|to\s+begin(?:\s+with)?|first\s+of\s+all|to\s+start(?:\s+(?:with|off))?|for\s+starters)\s*[,:;—–-]\s*`), ""},
	// "which genes do A and B share?": the genes of both.
	{regexp.MustCompile(`(?i)^\s*(?:which|what)\s+genes\s+do\s+(.+?)\s+(?:share|have\s+in\s+common)\s*[?.!]*\s*$`), "$1"},
	// "but only where chromosome 11 is concerned": on it.
	{regexp.MustCompile(`(?i)\b(?:where|as\s+far\s+as)\s+((?:the\s+)?` + placePattern + `)\s+(?:is|are)\s+concerned\b`), "on $1"},
	// "make the GO term X instead, chromosome unchanged": X in the
	// term's place, the rest as it was.
	{regexp.MustCompile(`(?i)[,;]?\s+(?:the\s+|and\s+the\s+)?(?:chromosomes?|location|place|organism|rest|restriction|exclusion|filters?)\s+(?:unchanged|untouched|as\s+(?:is|it\s+was|before)|(?:stays?|remains?)(?:\s+(?:the\s+same|as\s+(?:is|it\s+was)))?)\s*[.!]*\s*$`), ""},
	{regexp.MustCompile(`(?i)^\s*make\s+the\s+(?:GO\s+)?term\s+(.+?)\s+instead\b`), "use $1 instead"},
	// "hold on to chromosomes 6 and 8": keep only them.
	{regexp.MustCompile(`(?i)\bhold\s+on\s+to\b`), "keep only"},
	// "genes that regulate Ras signalling": the genes of the regulation of
	// it, as GO names it.
	{regexp.MustCompile(`(?i)\b(?:genes?|proteins?|those|ones)\s+(?:that|which)\s+(positively\s+|negatively\s+)?regulates?\s+`), "${1}regulation of "},
	// "everything annotated to GO:0006446": the term's genes.
	{regexp.MustCompile(`(?i)\b(?:everything|anything|all(?:\s+(?:the\s+)?genes)?|every\s+gene)\s+(?:annotated|tagged|labell?ed)\s+(?:to|with|as)\s+(GO:\d{7})`), "$1"},
	// "…, all the rest of them": every one.
	{regexp.MustCompile(`(?i)[,;]?\s+(?:all\s+)?the\s+rest(?:\s+of\s+them)?\s*[.!]*\s*$`), ""},
	// Follow-ups in the words researchers use: "pare that to the chr 12
	// subset", "cut down to chr 3" (a restriction), "chromosome 13 may
	// join it", "chr 13's snoRNAs belong in there too", "chromosome 13
	// can return", "reinstate the chromosome 13 genes" (added back),
	// "take the X genes out of that" (an exclusion), "reverse the
	// chromosome filter I just asked for" (undone), "wrong RNA class,
	// sorry: …" (a correction),
	// "…, leaving chromosome 2 in place" (the rest kept).
	{regexp.MustCompile(`(?i)^\s*(?:(?:and|now|then|ok|okay|fine|hmm),?\s+)*(?:pare|cut|trim|whittle|slim)\s+(?:(?:that|it|this|them|those|these|the\s+(?:list|set|result))\s+)?(?:down\s+)?to\s+`), "limit it to "},
	{regexp.MustCompile(`(?i)\b((?:chromosomes?|chrs?\.?)\s*\d{1,2})(?:'s)?\s+(?:subset|portion|share|members|ones)\b`), "$1"},
	{regexp.MustCompile(`(?i)^\s*(?:(?:and|now|then|ok|okay|actually|hmm),?\s+)*(.+?)\s+(?:may|can|could|should)\s+(?:join|come\s+(?:in|back)|return|be\s+added)(?:\s+(?:to\s+)?(?:it|that|them|the\s+(?:list|set|result)))?(?:\s+(?:too|as\s+well|again))?\s*[.!]*\s*$`), "add $1"},
	{regexp.MustCompile(`(?i)^\s*(?:(?:and|now|then|ok|okay|actually|hmm),?\s+)*(.+?)\s+belongs?\s+in\s+(?:there|it|that|them|the\s+(?:list|set|result))(?:\s+(?:too|as\s+well|also))?\s*[.!]*\s*$`), "add $1"},
	{regexp.MustCompile(`(?i)^\s*(?:(?:and|now|then|ok|okay|actually|hmm),?\s+)*(?:reinstate|restore|bring\s+back|put\s+back)\s+(?:the\s+)?(` + placePattern + `)(?:'s)?(?:\s+genes)?\s*[.!]*\s*$`), "add $1"},
	{regexp.MustCompile(`(?i)\btake\s+(.+?)\s+out\s+of\s+(?:that|it|this|them|those|these|the\s+(?:list|set|result))\b`), "exclude $1"},
	{regexp.MustCompile(`(?i)^\s*(?:(?:hmm|ok|okay|actually|now|please),?\s+)*(?:reverse|undo|revert|cancel|take\s+back)\s+the\s+(?:chromosome\s+|location\s+|last\s+)?(?:filter|restriction|narrowing|exclusion|change|step)\s+(?:(?:that\s+)?(?:i|we)\s+(?:just\s+)?(?:asked\s+for|added|made|requested))?\s*[.!]*\s*$`), "undo that"},
	{regexp.MustCompile(`(?i)^\s*(?:wrong|not\s+the\s+right|incorrect)\s+[\w -]{1,30}?,?\s*(?:sorry|oops|apologies)?\s*[:;,—–-]\s*`), "sorry, "},
	{regexp.MustCompile(`(?i)[,;]?\s+(?:leaving|keeping|with)\s+(?:the\s+)?(?:(?:chromosomes?|chrs?\.?)\s*\d{1,2}|chromosome|location|restriction|exclusion|rest)\s+(?:in\s+place|as\s+(?:is|it\s+was)|untouched|unchanged|alone|where\s+it\s+is)\s*[.!]*\s*$`), ""},
	// A union said after its parts: "— vitamins either way", "either one
	// is fine", "— any of the three", "I'm not fussy which", "both kinds
	// in one result", "(one set)", "as one group".
	{regexp.MustCompile(`(?i)\s*(?:[,;]|\s[—–-])\s*(?:(?:[\w-]+\s+)?either\s+(?:way|one)(?:\s+(?:is|will\s+do)\s+(?:fine|ok(?:ay)?))?|any\s+(?:of\s+the\s+)?(?:two|three|four|five)|(?:a\s+gene\s+in\s+)?any\s+of\s+them(?:\s+(?:counts|will\s+do|is\s+fine))?|whichever\s+(?:applies|one)|i'?ll\s+take\s+(?:both|either|all\s+of\s+them|all)|either\s+is\s+fine|(?:i'?m\s+)?not\s+fussy(?:\s+which)?|both\s+(?:kinds|types|sets|lists|terms)\s+in\s+one\s+(?:result|list|set))\s*[.!]*\s*$`), " (a union)"},
	{regexp.MustCompile(`(?i)\s*\(\s*(?:one|a\s+single)\s+(?:set|list|group)\s*\)|\s+as\s+(?:one|a\s+single)\s+(?:group|set|list)\b`), " (a union)"},
	// "For the pool of A plus B, …": A plus B.
	{regexp.MustCompile(`(?i)^\s*(?:for|in|of|from)\s+the\s+(?:pool|union|combination|group)\s+of\s+`), ""},
	// "provided they sit on chromosome 12 — applies to both": on it, for
	// the whole list.
	{regexp.MustCompile(`(?i),?\s*provided\s+(?:that\s+)?(?:they|it|the\s+genes)\s+(?:sit|sits|lie|lies|are|is|reside)\s+(on|in)\b`), " $1"},
	{regexp.MustCompile(`(?i)\s*(?:[,;]|\s[—–-])\s*(?:this\s+|that\s+|it\s+)?applies\s+to\s+(?:both|all|each|the\s+(?:two|lot|whole))\s*[.!]*\s*$`), ""},
	// "sans chromosome 14", "everything bar chromosome 12", "knock
	// chromosome 7 off": without it.
	{regexp.MustCompile(`(?i)\bsans\b`), "without"},
	{regexp.MustCompile(`(?i)\b(?:everything|all|anything)\s+(?:bar|save|but)\s+`), "excluding "},
	{regexp.MustCompile(`(?i)\bknock\s+(.+?)\s+(?:off|out)\b`), "remove $1"},
	{regexp.MustCompile(`(?i)\bknock\s+(?:(?:out|off)\s+)?`), "remove "},
	{regexp.MustCompile(`(?i)\b(?:the\s+)?(?:whole|entire|complete)\s+(mitochondrial|mitochondrion|apicoplast|plastid)\s+genome\b`), "the $1 genome"},
	// "chromosome 14 is off limits", "… out of the picture": taken away.
	{regexp.MustCompile(`(?i)\b(?:is|are)?\s*(?:off[- ]limits|out\s+of\s+(?:the\s+picture|bounds|scope))\b`), " excluded"},
	// "then add the whole mitochondrial genome to them": plus it.
	{regexp.MustCompile(`(?i)(?:,\s*|\s+)(?:then\s+|and\s+)?add\s+(.+?)\s+to\s+(?:them|it|that|those|these|the\s+(?:list|set|result))\s*[.!]*\s*$`), " plus $1"},
	// "my candidates PF3D7_…": my genes; "GO:A genes that GO:B does not
	// cover": A's without B's.
	{regexp.MustCompile(`(?i)\bmy\s+(?:candidates?|hits|picks|shortlist|favou?rites)\b`), "my genes"},
	{regexp.MustCompile(`(?i)\s+(?:that|which)\s+(GO:\d{7})\s+(?:does\s+not|doesn'?t|fails\s+to)\s+(?:cover|include|contain|hold|annotate)\b`), " excluding $1"},
	// "A genes that don't belong to B": A's without B's.
	{regexp.MustCompile(`(?i)\s+(?:that|which)\s+(?:don'?t|do\s+not|doesn'?t|does\s+not|aren'?t|are\s+not)\s+(?:belong\s+to|fall\s+(?:in|under|into|within)|appear\s+in|sit\s+in|(?:also\s+)?in)\s+`), " excluding "},
	// "and chromosome 14 while you are at it" does the last change again.
	{regexp.MustCompile(`(?i)[,;]?\s+while\s+you(?:'re|\s+are)\s+(?:at\s+it|about\s+it)\s*[.!]*\s*$`), " too"},
}

// researchNouns name what a piece of research is for: a part of a
// message naming one, with a researcher or the work as its subject ("For
// my thesis on Plasmodium lipid metabolism", "We are drafting a grant on
// artemisinin resistance", "As part of an undergraduate practical",
// "Following up on a reviewer's comment"), says why, not which genes.
var researchNouns = WordSet(`thesis dissertation grant paper review manuscript preprint project practical class course
	report proposal comment comments reviewer reviewers referee referees talk poster presentation seminar lecture
	assignment homework module chapter meeting rotation`)

// ResearchNoun reports whether a word (lower case) names what a piece of
// research is for ("thesis", "grant", "talk").
func ResearchNoun(w string) bool { return researchNouns[w] }

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

// frameRE reads a request written as a request for a search, a strategy
// or a plan: "Suggest one site search for …", "could you build me a
// comprehensive strategy to find …". A text search keeps its frame: it
// names the search it wants.
var frameRE = regexp.MustCompile(`(?i)^\s*(?:(?:please|kindly|can\s+you|could\s+you|would\s+you|will\s+you|i'?d\s+like\s+(?:you\s+)?to|i\s+want\s+(?:you\s+)?to|help\s+me)\s+)*` +
	`(?:suggest|propose|recommend|design|draft|outline|plan|build|make|create|construct|put\s+together|set\s+up|assemble|write|give\s+me|find\s+me|show\s+me)\s+(?:me\s+|us\s+)?(?:a|an|one|the|some)\s+` +
	`(?:(?:comprehensive|complete|full|broad|exhaustive|thorough|simple|single|quick|good|sensible|new|basic|first)\s+)*(?:(?:site|plasmodb|veupathdb|wdk|gene|search)\s+)?` +
	`(?:search|strategy|strategies|query|queries|plan|list|set)(?:es|s)?\s+(?:for|of|to\s+(?:find|get|list|retrieve|pull\s+out)|that\s+(?:finds?|gets?|lists?|returns?))\s+`)

// noBuildRE reads a request's last words that ask to plan without
// building ("…, but don't build anything yet", "Don't run it yet.", "just
// plan it"): a plan is never built before the researcher accepts it, so
// they say nothing about the genes.
var noBuildRE = regexp.MustCompile(`(?i)(?:[,;]\s*|\s+[-–—]\s*|[.?!]\s+|\s+)(?:(?:but|and|though)\s+)?(?:please\s+)?` +
	`(?:(?:don'?t|do\s+not)\s+(?:build|run|execute|start|make|create)(?:\s+(?:anything|it|them|this|that|the\s+(?:search|strategy|plan)))?|without\s+building(?:\s+(?:anything|it))?|(?:just|only)\s+plan(?:\s+(?:it|this|that))?` +
	`|hold\s+off(?:\s+on)?(?:\s+(?:building|running)(?:\s+it)?)?|(?:let\s+me\s+see|show\s+me)\s+the\s+plan(?:\s+first)?` +
	`|plan\s+it(?:\s+out)?(?:\s+for\s+(?:me|us))?(?:\s+first)?)` +
	`(?:\s+(?:(?:just\s+)?yet|for\s+now|at\s+the\s+moment|right\s+now))?\s*[.!]?\s*$`)

// planOnlyLeadRE reads plan-only words written first or in brackets:
// "outline only, nothing built yet: …", "could you plan (not run) …".
var planOnlyLeadRE = regexp.MustCompile(`(?i)^\s*(?:an?\s+)?(?:outline|plan)\s+only\s*[,;]?\s*(?:(?:nothing|don'?t)\s+(?:built|build|run)(?:\s+(?:anything|it))?(?:\s+yet)?)?\s*[:;,.—–-]\s*` +
	`|^\s*(?:just\s+)?(?:the\s+)?plan\s+(?:only\s+)?(?:for\s+now)?\s*[,;]?\s*(?:(?:nothing|don'?t)\s+(?:built|build|run)(?:\s+(?:anything|it))?(?:\s+yet)?)?\s*[:;—–-]\s*` +
	`|,\s*but\s+(?:don'?t|do\s+not)\s+(?:run|build)(?:\s+(?:it|anything))?(?:\s+yet)?\s*,` +
	`|^\s*(?:i'?m\s+)?(?:thinking|wondering)\s+(?:of|about)\s+` +
	`|\s*(?:[,;]|\s[—–-])\s*what\s+would\s+(?:the|your|a|my)\s+(?:plan|strategy)\s+(?:be|look\s+like)\s*\??\s*$` +
	`|\s*\(\s*(?:not|don'?t)\s+(?:run|build)(?:\s+(?:it|anything))?(?:\s+yet)?\s*\)`)

// planVerbRE reads "plan" asked for first: "could you plan the … genes".
var planVerbRE = regexp.MustCompile(`(?i)^\s*(?:(?:please|kindly|can\s+you|could\s+you|would\s+you|will\s+you)\s+)*plan(?:\s+out)?\s+(?:for\s+(?:me|us)\s+)?`)

// withoutFrame takes off a request's frame and its plan-only words, so
// "Suggest one site search for genes with high gametocyte expression, but
// don't build anything yet." asks for genes with high gametocyte
// expression.
func withoutFrame(text string) string {
	// "…, don't build yet, show me the plan first": each plan-only part.
	for range 3 {
		loc := noBuildRE.FindStringIndex(text)
		if loc == nil || loc[0] == 0 {
			break
		}
		text = text[:loc[0]]
	}
	text = planVerbRE.ReplaceAllString(planOnlyLeadRE.ReplaceAllString(text, ""), "")
	if loc := frameRE.FindStringIndex(text); loc != nil && loc[1] < len(text) {
		text = text[loc[1]:]
	}
	return text
}

// barePlaceRE reads a bare number where a place goes: "the ones on 12",
// "not on 3 or 4", "excluding 7".
var barePlaceRE = regexp.MustCompile(`(?i)\b(on|off|not\s+on|outside(?:\s+of)?|apart\s+from|except(?:\s+for)?|excluding|minus)\s+(\d{1,2})\b(\s*(?:[a-z%]+)?)`)

// barePlaces writes such a number as the chromosome it names ("on
// chromosome 12") when it is one of the 14 and no unit or noun follows
// it ("on 12 kDa", "on 2 transmembrane domains" are not places).
func barePlaces(text string) string {
	return barePlaceRE.ReplaceAllStringFunc(text, func(m string) string {
		g := barePlaceRE.FindStringSubmatch(m)
		n, err := strconv.Atoi(g[2])
		next := strings.ToLower(strings.TrimSpace(g[3]))
		if err != nil || n < 1 || n > 14 || next != "" && next != "or" && next != "and" && next != "to" && next != "through" {
			return m
		}
		return g[1] + " chromosome " + g[2] + g[3]
	})
}
