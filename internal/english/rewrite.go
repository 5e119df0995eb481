package english

import (
	"regexp"
	"slices"
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
	text = withoutContextSentences(text)
	text = withoutContext(text)
	text = withoutTrailingContext(text)
	text = regionsSpelled(text)
	text = rangesSpelled(text)
	text = postfixExclusions(text)
	text = possessionAsked(text)
	text = qualifierLast(text)
	return withoutHeading(text)
}

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
var dashRangeRE = regexp.MustCompile(`(?i)\b(chromosomes?|chrs?)\s*(\d{1,2})\s*[-‐‑–—]\s*(\d{1,2})\b`)

// rangesSpelled writes a dashed range of chromosomes in the words the
// grammar reads: "chromosomes 3-5" is "chromosomes 3 through 5".
func rangesSpelled(text string) string {
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
// before a space and a capital letter, or at the end.
var sentenceRE = regexp.MustCompile(`([.?!])\s+([A-Z"“])`)

// contextSentenceRE reads a sentence about the research rather than a
// request: "I'm studying translation.", "We work on gametocytes.", "My
// lab investigates invasion."
var contextSentenceRE = regexp.MustCompile(`(?i)^\s*(?:i'?m|i\s+am|we'?re|we\s+are|i|we|my\s+(?:lab|group|team|project|thesis)|our\s+(?:lab|group|team|project))\s+(?:(?:currently|mostly|mainly|now)\s+)?` +
	`(?:study|studying|studies|work|working|works|research|researching|researches|investigate|investigating|investigates|focus|focusing|focuses|look\s+at|looking\s+at|am\s+looking\s+at|writing|write)\b`)

// withoutContextSentences drops the sentences of a message that say what
// the researcher works on, when another sentence holds the request: "I'm
// studying translation. Which genes are on chromosome 9?" asks which
// genes are on chromosome 9.
func withoutContextSentences(text string) string {
	sentences := splitSentences(text)
	if len(sentences) < 2 {
		return text
	}
	var keep []string
	for _, s := range sentences {
		if !contextSentenceRE.MatchString(s) || mentionsGenes(tokenize(s)) {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 || len(keep) == len(sentences) {
		return text
	}
	return strings.Join(keep, " ")
}

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
// chromosome 1 through 3 excluded", "…, the apicoplast left out".
var postfixRE = regexp.MustCompile(`(?i)([,;:]\s*)([^,;:.?!]+?)\s+(?:excluded|removed|omitted|left\s+out|taken\s+out|not\s+included)\b`)

// postfixExclusions writes an exclusion written after what it takes away
// as the grammar reads one: "…, chromosome 3 excluded" is "…, excluding
// chromosome 3".
func postfixExclusions(text string) string {
	return postfixRE.ReplaceAllString(text, "${1}excluding $2")
}

// possessionRE reads "does 3D7 have", "do P. falciparum parasites
// contain", "does the genome encode": a question's frame around the genes
// asked for, with the organism it may name.
var possessionRE = regexp.MustCompile(`(?i)\b(?:does|do)\s+(?:(the\s+)?(?:parasites?|genomes?|organisms?)|it|they|(3d7|pf3d7|p\.\s*falciparum(?:\s+3d7)?|plasmodium\s+falciparum(?:\s+3d7)?)(?:\s+parasites?)?)\s+(?:have|has|contain|carry|encode|possess)\b`)

// possessionAsked drops the frame of "How many tRNA genes does 3D7 have?",
// keeping an organism it names: "How many tRNA genes 3D7?".
func possessionAsked(text string) string {
	return possessionRE.ReplaceAllString(text, "$2")
}

// leadingQualifierRE reads an exclusion or a restriction placed before
// the request it qualifies, up to the comma, colon, semicolon or full
// stop that ends it: "Without chromosome 7, which genes …", "Apart from
// the apicoplast: rRNA genes", "Leave out chromosome 3; tRNA genes",
// "Only chromosome 5: tRNA genes". Its words are the connectives that can
// open a request (leadingConnectives).
var leadingQualifierRE = func() *regexp.Regexp {
	var alts []string
	for _, c := range leadingConnectives() {
		alts = append(alts, strings.Join(c.words, `\s+`))
	}
	return regexp.MustCompile(`(?is)^\s*(` + strings.Join(alts, "|") + `)\s+([^,:;.]+?)\s*[,:;.]\s*(.+?)\s*[.?!]*\s*$`)
}()

// leadingConnectives are the loose connectives that can open a request,
// longest first: every exclusion and restriction but those that need a
// subject before them ("but not", "are not", "and not") and the bare
// "not".
func leadingConnectives() []connective {
	var out []connective
	for _, c := range connectives {
		first := c.words[0]
		if !c.loose || first == "but" || first == "and" || first == "are" || first == "is" || first == "aren't" || first == "isn't" ||
			len(c.words) == 1 && first == "not" {
			continue
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b connective) int {
		return len(strings.Join(b.words, " ")) - len(strings.Join(a.words, " "))
	})
	return out
}

// qualifierLast moves an exclusion or restriction placed first to the end
// of the request, where the grammar reads it as qualifying the whole
// request: "Without chromosome 7, DNA repair genes" is "DNA repair genes,
// excluding chromosome 7", not every gene minus DNA repair genes on
// chromosome 7; "Only chromosome 5: tRNA genes" is "tRNA genes, limited
// to chromosome 5". The request after the separator must hold words of
// its own.
func qualifierLast(text string) string {
	m := leadingQualifierRE.FindStringSubmatch(text)
	if m == nil || !hasContent(tokenize(m[3])) {
		return text
	}
	words := strings.Fields(strings.ToLower(m[1]))
	c, ok := connectiveAt(tokenize(strings.Join(words, " ")), 0)
	if ok && c.op == OpIntersect {
		return m[3] + ", limited to " + m[2]
	}
	return m[3] + ", excluding " + m[2]
}
