package english

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// breakAt finds where the first part of a message ends: at a comma,
// colon, semicolon, dash or full stop that separates two parts. A comma
// before a number continues a list ("chromosomes 7, 8 and 9"), a full
// stop ends a part only before a capital letter or at the end ("P.
// falciparum" is one name), and a colon or comma inside an id or a
// number ("GO:0006281", "100,000") separates nothing. It returns the
// separator's start and the index after it and its spaces, or -1.
func breakAt(s string) (int, int) {
	after := func(i int) string { return strings.TrimLeft(s[i:], " ") }
	for i, r := range s {
		n := i + utf8.RuneLen(r)
		switch r {
		case ',', ';', ':':
			rest := after(n)
			if rest == s[n:] && r != ';' {
				continue // "GO:0006281", "100,000"
			}
			if r == ',' && (startsWithDigit(rest) || startsWithDigit(strings.TrimPrefix(strings.TrimPrefix(rest, "and "), "or "))) {
				continue
			}
			return i, len(s) - len(rest)
		case '—', '–':
			return i, len(s) - len(after(n))
		case '-':
			if i > 0 && s[i-1] == ' ' && n < len(s) && s[n] == ' ' {
				return i, len(s) - len(after(n))
			}
		case '.':
			rest := after(n)
			// A sentence ends before a capital, or before a word starting
			// in lower case ("… apicoplast. tRNA genes") after a word of
			// four letters or more (not "chr.", "P.", "e.g.").
			word := s[strings.LastIndexAny(s[:i], " .(")+1 : i]
			if first, _ := utf8.DecodeRuneInString(rest); rest == "" || rest != s[n:] && (unicode.IsUpper(first) ||
				unicode.IsLetter(first) && utf8.RuneCountInString(word) >= 4) {
				return i, len(s) - len(rest)
			}
		}
	}
	return -1, -1
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// leadingConnectiveRE reads a connective that opens a request, after an
// optional "everything" ("Everything except chromosome 14: …").
var leadingConnectiveRE = func() *regexp.Regexp {
	var alts []string
	for _, c := range leadingConnectives() {
		alts = append(alts, strings.Join(c.words, `\s+`))
	}
	return regexp.MustCompile(`(?is)^\s*(?:(?:everything|anything|all\s+genes|all|any\s+genes?)\s+)?(` + strings.Join(alts, "|") + `)\s+(.+)$`)
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
// to chromosome 5"; "Skip chromosome 12 — I want …" and "Excluding
// chromosomes 7, 8 and 9, list …" the same. The request after the
// separator must hold words of its own.
func qualifierLast(text string) string {
	m := leadingConnectiveRE.FindStringSubmatch(text)
	if m == nil {
		m = bareNotRE.FindStringSubmatch(text)
	}
	if m == nil {
		return text
	}
	end, next := breakAt(m[2])
	if end <= 0 {
		return text
	}
	object, rest := strings.TrimSpace(m[2][:end]), strings.TrimRight(strings.TrimSpace(m[2][next:]), ".?! ")
	rest = justRE.ReplaceAllString(rest, "") // "Not chromosome 9 — just the …": the request, not a narrowing
	if object == "" || !hasContent(tokenize(rest)) {
		return text
	}
	return rest + qualifierOf(m[1]) + object
}

// justRE reads the "just" or "only" that opens the request after a
// qualifier placed first.
var justRE = regexp.MustCompile(`(?i)^(?:just|only)\s+`)

// bareNotRE reads a bare "not" before a place that opens a request: "Not
// chromosome 9 — just the …", "Not the apicoplast: …".
var bareNotRE = regexp.MustCompile(`(?is)^\s*(not)\s+((?:the\s+)?(?:chromosomes?|chrs?\.?|apicoplast|mitochondri\w*|organell\w*)\b.+)$`)

// qualifierOf is how a connective is written at the end of a request:
// ", limited to " for a restriction, ", excluding " for an exclusion.
func qualifierOf(conn string) string {
	c, ok := connectiveAt(tokenize(strings.Join(strings.Fields(strings.ToLower(conn)), " ")), 0)
	if ok && c.op == OpIntersect {
		return ", limited to "
	}
	return ", excluding "
}

// trailingWordsRE reads the words a qualifier sentence may end with: "…,
// though.", "…, please!", "… as well."
var trailingWordsRE = regexp.MustCompile(`(?i)[,\s]*(?:\b(?:though|however|please|thanks|too|as\s+well|if\s+possible)\b)?[\s.!?]*$`)

// trailingQualifiers joins a sentence after the request that is only an
// exclusion or a restriction to the request it qualifies: "I need the
// protein maturation genes. Leave out chromosome 9, though." is "I need
// the protein maturation genes, excluding chromosome 9". A condition
// announced ("— one condition: nothing from chromosome 12") is written as
// the qualifier it announces.
func trailingQualifiers(text string) string {
	text = conditionRE.ReplaceAllString(text, ", ")
	sentences := splitSentences(text)
	if len(sentences) < 2 {
		return text
	}
	out := strings.TrimRight(sentences[0], ".!? ")
	for _, s := range sentences[1:] {
		if g := shouldGoRE.FindStringSubmatch(s); g != nil {
			out += ", excluding " + g[1] // "Chromosome 14 should be left out."
			continue
		}
		if a := addSentenceRE.FindStringSubmatch(s); a != nil {
			out += ", plus " + trailingWordsRE.ReplaceAllString(a[1], "") // "Add proteolysis genes."
			continue
		}
		m := leadingConnectiveRE.FindStringSubmatch(s)
		if m == nil {
			return text
		}
		object := trailingWordsRE.ReplaceAllString(m[2], "")
		if _, next := breakAt(object); next > 0 || !hasContent(tokenize(object)) {
			return text
		}
		out += qualifierOf(m[1]) + object
	}
	return out
}

// addSentenceRE reads a sentence that adds a part: "Add proteolysis
// genes.", "Then include chromosome 5 too."
var addSentenceRE = regexp.MustCompile(`(?i)^\s*(?:(?:then|also|and|now|please)\s+)*(?:add|include|plus|throw\s+in|bring\s+in|fold\s+in|tack\s+on|merge\s+in)\s+(.+?)[\s.!?]*$`)

// shouldGoRE reads a sentence that takes a part away: "Chromosome 14
// should be left out.", "The apicoplast must be excluded."
var shouldGoRE = regexp.MustCompile(`(?i)^\s*(.+?)\s+(?:should|must|needs?\s+to|has\s+to|have\s+to|can)\s+(?:be\s+(?:left\s+out|excluded|removed|dropped|omitted)|go)(?:\s+(?:too|as\s+well|please))?\s*[.!]*\s*$`)

// conditionRE reads a condition announced before it is stated: "— one
// condition: …", ", with one caveat: …".
var conditionRE = regexp.MustCompile(`(?i)\s*[,;:—–-]?\s*(?:with\s+|but\s+|and\s+)?(?:one|a|just\s+one|only\s+one|a\s+single|single)\s+(?:condition|caveat|constraint|requirement|restriction|catch|twist|exception|thing)\s*[:,—–-]\s*`)

// contextWords are the words a part of a message that is about the
// research, not the genes, is made of: the work it is for ("for the
// methods section of my thesis", "as a first pass for a drug-target
// project", "my PI wants a table for a grant renewal") and the data it
// uses ("according to PlasmoDB release 33", "using the 3D7 reference
// annotation (2017 export)"). Read-only.
var contextWords = WordSet(`according using based per going
	release version build export exports annotation annotations reference current latest newest official genome assembly
	data dataset snapshot 3d7 pf3d7
	methods method section chapter introduction intro discussion results supplement supplementary appendix table tables
	figure figures slide slides deck grant renewal proposal application review reviewer reviewers article paper papers
	manuscript preprint thesis dissertation project projects first second third quick preliminary pilot initial rough
	pass sanity check drug-target drug target vaccine screen screening study analysis report talk poster presentation
	seminar lecture class course homework assignment meeting group lab team pi supervisor advisor adviser boss notebook
	collaborator collaborators colleague colleagues student students committee wants wanted asked asks needs needed
	writing write wrote preparing prepare prepping working drafting draft putting together compiling planning
	i'm i've i'd we're we've two three four five six seven eight nine ten`)

// dateRE reads a date as a notebook writes it: "12/11", "2026-12-02".
var dateRE = regexp.MustCompile(`^\d{1,4}[/.-]\d{1,2}(?:[/.-]\d{1,4})?$`)

// dataWords are the context words after which a number is a release or
// a year, not a chromosome. Read-only.
var dataWords = WordSet(`release version build export exports annotation annotations snapshot`)

// withoutContextParts drops the first parts of a message, one after
// another up to the separator after each, that say what the research is
// for or which data it uses, while the rest is a request: "For the
// methods section of my thesis, list the protein processing genes" asks
// for the protein processing genes. A part that names anything else is
// kept and read.
func withoutContextParts(text string) string {
	for {
		end, next := breakAt(text)
		if end <= 0 || leadingConnectiveRE.MatchString(text[:end]) || !hasContent(tokenize(text[next:])) {
			return text
		}
		part := tokenize(text[:end])
		if !contextOnly(part) && !(researchLeadRE.MatchString(text[:end]) && aboutResearch(part)) {
			return text
		}
		text = text[next:]
	}
}

// contextOnly reports whether every word of a part is a context word (or
// a filler, or a number where a release or a date is meant), one of them
// at least a context word.
func contextOnly(words []token) bool {
	cue, data := false, false
	for _, w := range words {
		if dataWords[w.low] {
			data = true
		}
	}
	for _, w := range words {
		switch {
		case w.comma:
		case contextWords[w.low]:
			cue = true
		case isNumeric(w.low) && (data || len(w.low) == 4), dateRE.MatchString(w.low):
		case fillers[w.low] && w.low != "genes" && w.low != "gene":
		default:
			return false
		}
	}
	return cue
}

// narrowedWords name the result between the verb and its "to": "limit
// the result to", "narrow my list down to".
var narrowedWords = WordSet("the down result results list strategy set genes my")

// narrowedTo returns how many leading words ask to narrow the result to
// what follows ("limit the result to", "restrict them to", "intersect
// that with", "narrow the list down to"), or 0.
func narrowedTo(w []token) int {
	if len(w) < 3 || w[0].quoted {
		return 0
	}
	var end string
	switch w[0].low {
	case "limit", "restrict", "confine", "narrow", "reduce", "cut", "trim", "pare", "shrink", "whittle", "filter":
		end = "to"
	case "intersect", "overlap", "cross":
		end = "with"
	default:
		return 0
	}
	for i := 1; i < len(w) && i <= 4; i++ {
		switch {
		case w[i].low == end:
			if i+1 < len(w) {
				return i + 1
			}
			return 0
		case !referenceWords[w[i].low] && !narrowedWords[w[i].low]:
			return 0
		}
	}
	return 0
}

// placeCueWords are the words that say how a part made of places
// qualifies the request: "chromosome 13 excluded", "drop chromosomes 6
// and 11 entirely" take away; "chr 10 alone", "chromosome 3 subset"
// restrict. They are the one-word loose connectives of the connectives
// table, the particles of its phrasal ones ("take away", "leave out"),
// the past participles a place part puts after the place ("taken away",
// "cut out") and the nouns of a part ("subset", "share"); a word both
// kinds of connective use says nothing on its own. Read-only.
var minusCues, restrictCues = func() (map[string]bool, map[string]bool) {
	minus := WordSet("excluded excepted removed dropped omitted skipped taken cut ignored discarded deleted subtracted unwanted lose losing gone goes forget ignore discounting discount nothing none no off strip stripped out away aside rid leave leaving left apart")
	restrict := WordSet(`alone solely exclusively subset share portion members limited restricted confined kept only just
		confine confines restrict restricts limit limits narrow narrows apply filter`)
	both := map[string]bool{}
	for _, c := range connectives {
		if !c.loose || len(c.words) != 1 {
			continue
		}
		w := c.words[0]
		switch c.op {
		case OpMinus:
			both[w] = both[w] || restrict[w]
			minus[w] = true
		case OpIntersect:
			both[w] = both[w] || minus[w]
			restrict[w] = true
		}
	}
	for w, b := range both {
		if b {
			delete(minus, w)
			delete(restrict, w)
		}
	}
	return minus, restrict
}()

// placeRE reads the places a part names: a chromosome or a list of them
// ("chromosomes 6, 11 and 12", "chr 4, 6 and 12"), an organelle.
var placeRE = regexp.MustCompile(`(?i)` + placePattern)

const placePattern = `\b(?:(?:chromosomes?|chrs?\.?)\s*(?:\d{1,2}|[ivx]{1,4}\b)(?:\s*(?:,|,?\s*and|,?\s*or|&|through|to|till|until)\s*(?:(?:chromosomes?|chrs?\.?)\s*)?(?:\d{1,2}|[ivx]{1,4})\b)*|apicoplast|mitochondri(?:on|al|a)|plastid)\b`

// withPlaceOutRE reads a place taken away inside the request: "… genes
// with chromosome 12 excluded", "… with chromosome 4 left out".
var withPlaceOutRE = regexp.MustCompile(`(?i)\bwith\s+(?:the\s+)?(` + placePattern + `)\s+(?:excluded|removed|left\s+out|taken\s+out|omitted|cut\s+out|dropped|taken\s+away|deleted|subtracted|excepted|filtered\s+out|discarded|ignored|stripped\s+out)(?:\s+(?:of|from)\s+(?:both|all|each|them|the\s+lot|everything))?\b`)

// placeFillers are the words a place part may hold beside its place and
// its cue: "the whole list", "the lot", "entirely", "for this one" (a cue
// word is read as a cue first).
var placeFillers = WordSet(`i i'm am we we're interested want need care about with if they where lie lies sit sits are is both each those that the a an genes gene ones list lot whole set result results entirely completely altogether please but then so from on in of to everything anything all any this one these them it its genome wide genome-wide first afterwards for
	as pair two combined merged pooled joined union combination resulting every what whatever which lying located
	having been already beforehand before else wanted needed required my interest focus at outset start front up`)

// placePart reads a part of a message that is made of places and a word
// saying how they qualify the request. It returns the qualifier as the
// grammar writes it at the end of a request (", excluding chromosome 13",
// ", limited to chr 10") or "" when the part holds other words, or no
// place, or cues of both kinds.
func placePart(part string, bare bool) string {
	part = strings.TrimPrefix(strings.TrimSpace(part), "and ")
	places := placeRE.FindAllString(part, -1)
	if len(places) != 1 {
		return ""
	}
	minus, restrict := false, false
	for _, w := range tokenize(placeRE.ReplaceAllString(part, " ")) {
		switch {
		case w.comma:
		case minusCues[w.low]:
			minus = true
		case restrictCues[w.low]:
			restrict = true
		case placeFillers[w.low]:
		default:
			return ""
		}
	}
	switch {
	case minus && restrict, !minus && !restrict && !bare:
		return "" // both kinds of cue, or a bare place where the grammar reads it
	case minus:
		return ", excluding " + places[0]
	}
	return ", limited to " + places[0]
}

// correctionWords open a follow-up that corrects or points back ("no
// wait", "sorry", "of those"): a place part after them is the
// follow-up's, not a request's qualifier.
var correctionWords = WordSet("no wait sorry actually oops instead rather oh nope hmm hang")

// asksGenes reports whether a part names genes of its own: words beside
// the lead-ins, references and corrections of a follow-up.
func asksGenes(part string) bool {
	for _, w := range tokenize(part) {
		if !w.comma && !fillers[w.low] && !connectiveWords[w.low] && !leadIns[w.low] && !referenceWords[w.low] &&
			!correctionWords[w.low] {
			return true
		}
	}
	return false
}

// placePartsLast writes a part made of places that ends or opens a
// request as a qualifier of the whole request: "nucleoside triphosphate
// metabolic process (chromosome 13 excluded)", "…; drop chromosomes 6,
// 11 and 12 entirely", "…, chr 10 alone", "Just chromosome 14 for this
// one: …". The rest must hold words of its own.
func placePartsLast(text string) string {
	text = withPlaceOutRE.ReplaceAllString(text, "excluding $1")
	trimmed := strings.TrimRight(text, ".!? ")
	if strings.HasSuffix(trimmed, ")") {
		if open := strings.LastIndex(trimmed, "("); open > 0 {
			if q := placePart(trimmed[open+1:len(trimmed)-1], false); q != "" && asksGenes(trimmed[:open]) {
				return strings.TrimRight(trimmed[:open], " ,") + q
			}
		}
	}
	if end, next := breakAt(trimmed); end > 0 {
		if q := placePart(trimmed[:end], false); q != "" && asksGenes(trimmed[next:]) && !strings.ContainsAny(trimmed[next:], ",;:—–") {
			return trimmed[next:] + q
		}
	}
	last, after := -1, -1
	for off := 0; ; {
		end, next := breakAt(trimmed[off:])
		if end < 0 {
			break
		}
		last, after, off = off+end, off+next, off+next
	}
	if last > 0 {
		// "… — chr 12 through 14": a bare place after a dash or a
		// semicolon restricts too.
		sep := strings.TrimSpace(trimmed[last:after])
		if q := placePart(trimmed[after:], sep != "," && sep != ":"); q != "" && asksGenes(trimmed[:last]) {
			return strings.TrimRight(trimmed[:last], " ,;:—–-") + q
		}
	}
	return text
}
