package english

import (
	"regexp"
	"strings"
)

// rewritten is a request with the ways of writing that the grammar reads
// in one form only put in that form, before it is cut into words: context
// (a sentence about the research, a database or a release, a source of
// knowledge) taken out, ranges and regions spelled in words, a question's
// frame dropped, and an exclusion or restriction written first or after
// what it takes away moved to the end, where it qualifies the whole
// request.
func rewritten(text string) (string, []string) {
	text = mixedGOIDRE.ReplaceAllString(text, "GO:$1")
	text = formsSpelled(text)
	text = withoutFrame(text)
	text = barePlaces(text)
	text = withoutResearcherParts(text)
	text = withoutContextSentences(text)
	text = withoutContext(text)
	text = withoutContextParts(text)
	text = trailingQualifiers(text)
	text = withoutTrailingContext(text)
	text = regionsSpelled(text)
	text = rangesSpelled(text)
	text = chrListed(text)
	text = placePartsLast(text)
	text = everyOneOn(text)
	text = placesOnly(text)
	text = listsSpaced(text)
	text = separatedOut(text)
	text = organellesSpelled(text)
	text = unionSpelled(text)
	text = descriptionSearch(text)
	text = leadingPostfixRE.ReplaceAllString(text, "excluding $1,")
	text = placesLast(text)
	text = postfixExclusions(text)
	text = bareListRE.ReplaceAllString(text, " on $1")
	text = possessionAsked(text)
	text = qualifierLast(text)
	return withoutHeading(text)
}

// mixedGOIDRE is a GO id however its prefix is cased ("Go:0015718").
var mixedGOIDRE = regexp.MustCompile(`(?i)\bgo:(\d{7})\b`)

// headingRE reads a heading before a colon and the list after it: "…
// candidate vaccine antigens: expressed in …, with a signal peptide …,
// and …". A colon inside an id ("GO:0006281", "Pf3D7_05_v3:1000") has no
// space after it.
var headingRE = regexp.MustCompile(`^([^:]{3,}?):\s+(.+)$`)

// withoutHeading reads a heading that names a list of criteria after a
// colon as a name for the genes the list describes, not as a criterion of
// its own: the criteria are the list (of three parts or more), and an
// organism the heading names still applies. A heading that is a location
// ("On the apicoplast: …") qualifies what follows, and is kept, as is a
// heading that names a kind of gene or is followed by places only ("tRNA
// genes: chromosomes 1, 2, 3 and 4").
func withoutHeading(text string) (string, []string) {
	m := headingRE.FindStringSubmatch(text)
	if m == nil {
		return text, nil
	}
	// "tRNA genes: chromosomes 1, 2, 3 and 4": places after the colon say
	// where the heading's genes lie; they describe no genes themselves.
	if hasContent(tokenize(m[1])) && locationList(strip(tokenize(m[2])), &Parsed{}) != nil {
		return m[1] + " on " + m[2], nil
	}
	if strings.Count(m[2], ",") < 2 {
		return text, nil
	}
	head := tokenize(m[1])
	rest, org := takeOrganism(head)
	scratch := Parsed{}
	if locationList(rest, &scratch) != nil || !hasContent(rest) {
		return text, nil
	}
	if _, ok := GeneTypeName(join(strip(rest))); ok {
		return text, nil // "snoRNA genes: …" is a kind of gene
	}
	if l := rest[len(rest)-1].low; l == "genes" || l == "gene" {
		return text, nil // "DNA repair genes: …" names a criterion
	}
	words := strip(rest)
	if len(words) == 0 {
		return text, nil
	}
	out := m[2]
	if org != "" {
		out += " in " + org
	}
	return out, []string{"I read " + Quote(join(words)) + " as a name for the genes the list after the colon describes, not as a search of its own"}
}

// dashRangeRE reads a range of chromosomes written with a hyphen or a
// dash: "chromosomes 3-5", "chr 12–14", "chromosomes 1 — 2".
var dashRangeRE = regexp.MustCompile(`(?i)\b(chromosomes?|chrs?)\s*(\d{1,2})\s*[-‐‑–—]\s*(\d{1,2})(?:\s+inclusive)?\b`)

// fromToRangeRE reads a range written "from chr 11 up to chr 14".
var fromToRangeRE = regexp.MustCompile(`(?i)\bfrom\s+(chromosomes?|chrs?)\s*(\d{1,2})\s+(?:up\s+)?(?:to|through|till|until)\s+(?:(?:chromosomes?|chrs?)\s*)?(\d{1,2})(?:\s+inclusive)?\b`)

// rangesSpelled writes a range of chromosomes in the words the grammar
// reads: "chromosomes 3-5" and "from chr 3 up to chr 5" are "chromosomes 3
// through 5".
func rangesSpelled(text string) string {
	text = fromToRangeRE.ReplaceAllString(text, "on $1 $2 through $3")
	return dashRangeRE.ReplaceAllString(text, "$1 $2 through $3")
}

// regionRE reads a region written as a sequence and coordinates:
// "Pf3D7_05_v3:100000-200000", "chr5:100,000–200,000",
// "chromosome 5: 1.2-1.5 Mb".
var regionRE = regexp.MustCompile(`(?i)\b(pf3d7_\d\d_v3|chr(?:om(?:osome)?)?\s*\d{1,2})\s*:\s*([\d][\d,.]*)\s*(bp|kb|kbp|mb|mbp)?\s*[-‐‑–—]\s*([\d][\d,.]*)\s*(bp|kb|kbp|mb|mbp)?\b`)

// regionsSpelled writes a region in coordinates as the grammar reads one:
// "Pf3D7_05_v3:100000-200000" is "Pf3D7_05_v3 between 100000 and 200000
// bp".
func regionsSpelled(text string) string {
	return regionRE.ReplaceAllStringFunc(text, func(s string) string {
		m := regionRE.FindStringSubmatch(s)
		unit := m[5]
		if unit == "" {
			unit = m[3]
		}
		if unit == "" {
			unit = "bp"
		}
		return m[1] + " between " + m[2] + " " + unit + " and " + m[4] + " " + unit
	})
}

// contextRE reads a context phrase before a request, up to its colon or
// comma: the database, release or genome the researcher works with ("in
// the 3D7 reference genome"), what the genes are for ("for a grant
// report"), or a lead-in that announces the request.
var contextRE = regexp.MustCompile(`(?i)^\s*(?:(?:using|with|on|in|from|for)\s+(?:the\s+)?(?:plasmodb|veupathdb|plasmo\s*db)(?:\s+(?:release|version|build|v\.?)\s*[\d.]+)?|(?:in|on|using|from|within)\s+(?:the\s+)?(?:(?:p\.?|plasmodium|falciparum|pf|3d7|pf3d7|reference|current|latest|official|annotated|published)\s+)+(?:genome|assembly|annotation|genome\s+annotation)|(?:for|in)\s+(?:my|our|a|an|the)\s+(?:[\w'-]+\s+){0,2}(?:thesis|dissertation|paper|project|lab|study|research|analysis|review|grant|class|course|report|talk|poster|manuscript|proposal|meeting|presentation|seminar|lecture|assignment|experiment|screen|collaborator|collaboration|supervisor|figure|slides?|notebook|pipeline|journal\s+club)|(?:one|two|three|a\s+couple\s+of)\s+things|quick\s+question|a\s+question)\s*[,:;.]\s*`)

// withoutContext takes context phrases off the start of a request: "using
// PlasmoDB release 68, DNA repair genes" asks for DNA repair genes.
func withoutContext(text string) string {
	for {
		loc := contextRE.FindStringIndex(text)
		if loc == nil || loc[1] >= len(text) {
			return text
		}
		text = text[loc[1]:]
	}
}

// trailingContextRE reads a context phrase after a request: where the
// researcher's knowledge comes from or which data they mean ("…, using
// what the literature says about the invasion machinery", "…, based on
// PlasmoDB release 68", "… according to the literature").
var trailingContextRE = regexp.MustCompile(`(?i)[,;]?\s+(?:using|based\s+on|according\s+to|drawing\s+on|as\s+described\s+in|going\s+by|in\s+light\s+of|per)\s+[^,;.?!]*?\b(?:literature|papers?|publications?|reviews?|studies|knowledge|plasmodb|veupathdb|database|release|version)\b[^,;.?!]*`)

// withoutTrailingContext takes context phrases out of a request.
func withoutTrailingContext(text string) string {
	return trailingContextRE.ReplaceAllString(text, "")
}

// sentenceRE ends a sentence: a full stop, question or exclamation mark
// before a space and a capital letter (or a word such as "tRNA", whose
// capitals follow a short prefix), or at the end.
var sentenceRE = regexp.MustCompile(`([.?!])\s+([A-Z"“]|[a-z]{1,4}[A-Z])`)

// contextSentenceRE reads a sentence about the research rather than a
// request: "I'm studying translation.", "We work on gametocytes.", "My
// lab investigates invasion."
var contextSentenceRE = regexp.MustCompile(`(?i)^\s*(?:i'?m|i\s+am|we'?re|we\s+are|i|we|my\s+(?:lab|group|team|project|thesis)|our\s+(?:lab|group|team|project))\s+(?:(?:currently|mostly|mainly|now)\s+)?` +
	`(?:study|studying|studies|work|working|works|research|researching|researches|investigate|investigating|investigates|focus|focusing|focuses|look\s+at|looking\s+at|am\s+looking\s+at|writing|write|interested\s+in|curious\s+about|` +
	`putting\s+together|preparing|prepare|drafting|planning|applying\s+for|submitting|revising|teaching|presenting|giving)\b` +
	// "Reviewer 1 asked us to justify the list.", "My supervisor wants a figure."
	`|^\s*(?:(?:my|our|the)\s+)?(?:reviewer|referee|editor|collaborator|supervisor|advisor|adviser|pi|boss|student)s?\s*\d*\s+(?:asked|asks|wants|wanted|requested|suggested|needs)\b`)

// withoutContextSentences drops the sentences of a message that say what
// the researcher works on, when another sentence holds the request: "I'm
// studying translation. Which genes are on chromosome 9?" asks which
// genes are on chromosome 9.
func withoutContextSentences(text string) string {
	for _, re := range []*regexp.Regexp{ordinalLeadRE, labelRE} {
		text = re.ReplaceAllStringFunc(text, func(s string) string {
			m := re.FindStringSubmatch(s)
			return m[1] + sentenceStart(m[2])
		})
	}
	sentences := splitSentences(text)
	if len(sentences) < 2 {
		return text
	}
	var keep []string
	for _, s := range sentences {
		if announceRE.MatchString(s) || backgroundRE.MatchString(s) {
			continue
		}
		if !contextSentenceRE.MatchString(s) || mentionsGenes(tokenize(s)) {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 || len(keep) == len(sentences) {
		return text
	}
	return strings.Join(keep, " ")
}

// ordinalLeadRE reads the word that numbers a sentence of a request
// written in steps: "First, DNA repair genes. Second, only on chromosome
// 11."
var ordinalLeadRE = regexp.MustCompile(`(?i)(^|[.!?;]\s+)(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|then|next|finally|lastly|after\s+that)\s*[,:]?\s+(\w+)`)

// sentenceStart writes a word as a sentence starts, so that the sentence
// stays one: a lower-case word gets a capital, a word with capitals of
// its own ("tRNA") is kept.
func sentenceStart(w string) string {
	if w == "" || strings.ToLower(w) != w {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// labelRE reads a label before the request: "Request: …", "Query: …".
var labelRE = regexp.MustCompile(`(?i)(^|[.!?]\s+)(?:request|query|question|task|ask|search|goal)\s*:\s*(\w+)`)

// announceRE reads a sentence that only announces what follows: "Two
// things.", "Quick question."
var announceRE = regexp.MustCompile(`(?i)^\s*(?:(?:one|two|three|a\s+few|a\s+couple\s+of)\s+(?:things|steps|parts)|(?:a\s+)?quick\s+(?:question|one|request))\s*[.:!]?\s*$`)

// backgroundRE reads a sentence labelled as background to the request:
// "Background: we are screening for drug targets."
var backgroundRE = regexp.MustCompile(`(?i)^\s*(?:background|context|note|fyi|for\s+context)\s*:`)

// splitSentences cuts a message into its sentences, each with its final
// punctuation.
func splitSentences(text string) []string {
	marked := sentenceRE.ReplaceAllString(text, "$1\x00$2")
	var out []string
	for _, s := range strings.Split(marked, "\x00") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// postfixRE reads an exclusion written after what it takes away: "…,
// chromosome 1 through 3 excluded", "…, the apicoplast left out", or
// first: "Chromosome 13 excluded, …".
var postfixRE = regexp.MustCompile(`(?i)([,;]\s*|:\s+)([^,;:.?!]+?)\s+(?:excluded|excepted|removed|omitted|left\s+out|taken\s+out|not\s+included)\b`)

// leadingPostfixRE reads such an exclusion opening the request, up to
// the separator after it: "Chromosome 13 excluded, …".
var leadingPostfixRE = regexp.MustCompile(`(?i)^\s*([^,;:.?!—–]+?)\s+(?:excluded|excepted|removed|omitted|left\s+out|taken\s+out|not\s+included|aside|out)\s*[,;:—–.]`)

// postfixExclusions writes an exclusion written after what it takes away
// as the grammar reads one: "…, chromosome 3 excluded" is "…, excluding
// chromosome 3".
func postfixExclusions(text string) string {
	text = leadingPostfixRE.ReplaceAllString(text, "excluding $1,")
	return postfixRE.ReplaceAllString(text, "${1}excluding $2")
}

// possessionRE reads "does 3D7 have", "do P. falciparum parasites
// contain", "does the genome encode": a question's frame around the genes
// asked for, with the organism it may name.
var possessionRE = regexp.MustCompile(`(?i)\b(?:does|do)\s+(?:(the\s+)?(?:parasites?|genomes?|organisms?)|it|they|(3d7|pf3d7|p\.\s*falciparum(?:\s+3d7)?|plasmodium\s+falciparum(?:\s+3d7)?)(?:\s+parasites?)?)\s+(?:have|has|contain|carry|encode|possess)\b`)

// possessionAsked drops the frame of "How many tRNA genes does 3D7 have?",
// keeping an organism it names: "How many tRNA genes 3D7?".
func possessionAsked(text string) string {
	text = chromosomeHasRE.ReplaceAllString(text, "on chromosome $1")
	text = organelleHasRE.ReplaceAllString(text, "on the $1 genome")
	return possessionRE.ReplaceAllString(text, "$2")
}

// organelleHasRE reads an organelle genome as the subject of such a
// question: "How many tRNA genes does the apicoplast genome carry?".
var organelleHasRE = regexp.MustCompile(`(?i)\b(?:does|do)\s+(?:the\s+)?(apicoplast|mitochondrial|mitochondrion|plastid)(?:\s+genome)?\s+(?:have|has|contain|carry|encode|hold|harbou?r|bear)\b`)

// chromosomeHasRE reads a chromosome as the subject of such a question:
// "How many snoRNA genes does chromosome 13 have?" asks for the snoRNA
// genes on chromosome 13.
var chromosomeHasRE = regexp.MustCompile(`(?i)\b(?:does|do)\s+(?:the\s+)?(?:chromosome|chr)\s*(\d{1,2})\s+(?:have|has|contain|carry|encode|hold|harbou?r|bear)\b`)

// organellesRE reads the two organelle genomes named together: "both
// organelle genomes", "the organellar genomes", "the two organelle
// genomes".
var organellesRE = regexp.MustCompile(`(?i)\b(?:both(?:\s+of\s+the)?|the\s+two|the|two)?\s*organell(?:e|ar)[\s-]+(?:genomes|dnas|chromosomes)\b`)

// nuclearRE reads genes the nucleus encodes: "nuclear-encoded rRNA
// genes", "nucleus-encoded".
var nuclearRE = regexp.MustCompile(`(?i)\bnucle(?:ar|us)[\s-]+encoded\s+`)

// onNuclearRE reads the nuclear genome as a place: "on the nuclear
// genome", "in the nuclear chromosomes" (the genes of neither organelle
// genome).
var onNuclearRE = regexp.MustCompile(`(?i)\s*\b(?:on|in|from|within)\s+(?:the\s+)?nucle(?:ar|us)\s+(?:genome|chromosomes|dna)\b`)

// offNuclearRE reads genes away from the nuclear genome, which are the
// organelle genomes' genes: "outside the nuclear genome", "not on the
// nuclear chromosomes".
var offNuclearRE = regexp.MustCompile(`(?i)\b(?:outside(?:\s+of)?|not\s+(?:on|in|from)|off|away\s+from|excluding|except(?:\s+for)?|apart\s+from|other\s+than)\s+(?:the\s+)?nucle(?:ar|us)(?:\s+(?:genome|chromosomes|dna))?\b`)

// organellesSpelled names the organelle genomes one by one, as the
// grammar reads places: "excluding both organelle genomes" is "excluding
// the apicoplast and mitochondrion genomes", and "nuclear-encoded rRNA
// genes" the rRNA genes of neither.
func organellesSpelled(text string) string {
	text = organellesRE.ReplaceAllString(text, "the apicoplast and mitochondrion genomes")
	text = offNuclearRE.ReplaceAllString(text, "on the apicoplast and mitochondrion genomes")
	loc := nuclearRE.FindStringIndex(text)
	if loc == nil {
		loc = onNuclearRE.FindStringIndex(text)
	}
	if loc != nil {
		text = strings.TrimRight(text[:loc[0]]+text[loc[1]:], ".?! ") + ", excluding the apicoplast and mitochondrion genomes"
	}
	return text
}

// descriptionSearchRE reads a search of the genes' descriptions asked for
// in words: "search the product descriptions for ABC transporter",
// "look in the annotations for …".
var descriptionSearchRE = regexp.MustCompile(`(?i)\b(?:search|look|check)\s+(?:in\s+|through\s+)?(?:the\s+)?(?:genes?'?\s+)?(?:product\s+descriptions?|descriptions?|annotations?|gene\s+names?|product\s+names?)\s+(?:for|with|containing|mentioning)\s+(?:the\s+(?:word|term|phrase)\s+)?`)

// keywordSearchRE reads a text search named by its kind: "keyword
// 'helicase'", "full-text lookup of \"falcipain\"", "free-text: ookinete",
// "description keyword aminopeptidase".
var keywordSearchRE = regexp.MustCompile(`(?i)\b(?:(?:description|product|annotation)\s+)?(?:key\s*word|free[- ]?text|full[- ]?text|text\s+(?:lookup|look-up|query|match)|text(?:\s+search)?\s*:)(?:\s+(?:search|lookup|look-up|query|match))?\s*(?:of|for|on)?\s*:?\s*(?:the\s+(?:word|term)\s+)?(?:['"‘“]([^'"‘“’”]{1,60})['"’”]|([\w-]+))`)

// descriptionSearch writes such a search as a text search: "text search
// for ABC transporter".
func descriptionSearch(text string) string {
	text = keywordSearchRE.ReplaceAllString(text, "text search for $1$2")
	return descriptionSearchRE.ReplaceAllString(text, "text search for ")
}

// packedListRE reads a list of chromosome numbers written without spaces:
// "chromosomes 1,2,3 and 4" (never a number with a thousands comma,
// whose groups have three digits).
var packedListRE = regexp.MustCompile(`\b\d{1,2}(?:,\d{1,2}\b)+`)

// listsSpaced writes such a list with spaces: "1, 2, 3".
func listsSpaced(text string) string {
	return packedListRE.ReplaceAllStringFunc(text, func(s string) string { return strings.ReplaceAll(s, ",", ", ") })
}

// separatedOutRE reads an exclusion whose verb is split by its object:
// "leave chromosomes 3 and 4 out", "take the apicoplast out".
var separatedOutRE = regexp.MustCompile(`(?i)\b(leave|leaving|take|taking|filter|filtering|throw|throwing|keep|keeping)\s+((?:the\s+)?(?:chromosomes?|chr|apicoplast|mitochondri\w*|organelle|ones|those|genes)\b[^,;.?!]*?)\s+out\b`)

// separatedOut writes it as the connective the grammar reads: "leave out
// chromosomes 3 and 4".
func separatedOut(text string) string {
	return separatedOutRE.ReplaceAllStringFunc(text, func(s string) string {
		m := separatedOutRE.FindStringSubmatch(s)
		verb := strings.ToLower(m[1])
		switch verb {
		case "keep":
			verb = "leave"
		case "keeping":
			verb = "leaving"
		}
		return verb + " out " + m[2]
	})
}

// placesFirstRE reads a list of chromosomes that opens a request, before
// what is asked of them: "chromosomes 5 and 6 tRNA genes", "genes on
// chromosomes 1, 2, 3 and 4 that are tRNA genes".
var placesFirstRE = regexp.MustCompile(`(?i)^\s*(?:(?:all\s+)?(?:the\s+)?genes\s+(?:on|from|in)\s+)?(?:the\s+)?(?:(?:odd|even)(?:-numbered)?\s+)?(?:chromosomes?|chrs?)\s+` +
	`(\d{1,2}(?:\s*,\s*\d{1,2})*\s*,?\s*(?:and|or|&|through|to)\s*\d{1,2})\b\s*[,:]?\s+(.+)$`)

// placesLast puts such a list after what is asked of it, where the
// grammar reads a list of places: "tRNA genes on chromosomes 5 and 6". A
// list followed by a connective ("… or tRNA genes") is left as written.
func placesLast(text string) string {
	m := placesFirstRE.FindStringSubmatch(text)
	if m == nil {
		return text
	}
	rest := tokenize(m[2])
	if len(rest) == 0 || !hasContent(rest) {
		return text
	}
	if _, ok := connectiveAt(rest, 0); ok || locationPrepositions[rest[0].low] {
		return text
	}
	return strings.TrimRight(m[2], ".?! ") + " on chromosomes " + m[1]
}

// everyOneOnRE reads a place said of every part of a list after it: "tRNA
// or rRNA genes, all on chromosome 6", "…, both on the apicoplast".
var everyOneOnRE = regexp.MustCompile(`(?i),\s*(?:all|both|each|every\s+one|(?:all|both|each)\s+of\s+them)\s+(?:(?:located|lying|found|sitting)\s+)?(?:on|from|in)\s+`)

// everyOneOn writes it as a restriction of the whole list: "tRNA or rRNA
// genes, limited to chromosome 6".
func everyOneOn(text string) string {
	return everyOneOnRE.ReplaceAllString(text, ", limited to ")
}

// bareListRE reads a list of chromosomes after a comma that ends the
// request, with no word to say how it qualifies it: "tRNA genes,
// chromosomes 8, 9 and 10" asks for the tRNA genes on them.
var bareListRE = regexp.MustCompile(`(?i)[,;]\s*((?:the\s+)?(?:chromosomes?|chrs?\.?)\s*\d{1,2}(?:\s*(?:,|and|or|&|through|to)\s*\d{1,2})*)\s*[.!?]*\s*$`)

// placesOnlyRE reads a place or list of places after the request with
// "only", after a comma or in a fragment of its own: "RNA processing
// genes, chromosomes 1, 2 and 3 only", "… genes. chr5 only.".
var placesOnlyRE = regexp.MustCompile(`(?i)[,.]\s*((?:on\s+)?(?:the\s+)?(?:(?:chromosomes?|chrs?\.?)\s*\d{1,2}|apicoplast|mitochondri\w*)\b[^;:.!?]*?)\s+only\s*[.!?]*\s*$`)

// onlyPlacesRE reads "only" before chromosomes with no "on": "…, only
// chromosomes 1 and 4", "…; only chr 1-4".
var onlyPlacesRE = regexp.MustCompile(`(?i)(^|[,;]\s*|\s)only\s+(?:the\s+)?((?:chromosomes?|chrs?\.?)\s*\d)`)

// placesOnly writes it as a restriction of the whole request, and puts
// the "on" a bare "only chromosomes …" leaves out, so that the list is one
// place list ("only chromosomes 1 and 4" is the genes on either).
func placesOnly(text string) string {
	text = onlyPlacesRE.ReplaceAllString(text, "${1}only on $2")
	return placesOnlyRE.ReplaceAllString(text, ", limited to $1")
}

// chrRepeatRE reads a chromosome word repeated inside a list: "chr 2,
// chr 6 and chr 9".
var chrRepeatRE = regexp.MustCompile(`(?i)(\b\d{1,2}\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+))(?:chr\.?|chromosome)\s*(\d{1,2})\b`)

// chrListed writes such a list with the word once: "chr 2, 6 and 9".
func chrListed(text string) string {
	for {
		next := chrRepeatRE.ReplaceAllString(text, "$1$2")
		if next == text {
			return text
		}
		text = next
	}
}
