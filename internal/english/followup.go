package english

import (
	"regexp"
	"slices"
)

// FollowUp is how a message refines the strategy a conversation has.
type FollowUp int

// The kinds of follow-up. The zero value is a request of its own.
const (
	FollowNone FollowUp = iota
	// FollowExclude removes the part's genes: "now also exclude
	// chromosome 5" is MINUS(strategy, part).
	FollowExclude
	// FollowRestrict keeps the strategy's genes that the part has too:
	// "only those on chromosome 14" is INTERSECT(strategy, part).
	FollowRestrict
	// FollowAdd adds the part's genes: "also add DNA replication genes" is
	// UNION(strategy, part).
	FollowAdd
	// FollowReplace puts the part in place of Replaced (or of the search
	// of the part's kind): "use proteolysis instead", "replace chromosome
	// 14 with 13".
	FollowReplace
	// FollowUndo goes back to the strategy before the last change.
	FollowUndo
	// FollowStartOver drops the strategy and plans the message afresh.
	FollowStartOver
	// FollowEnrich asks what the strategy's genes are enriched for (a GO
	// enrichment of its result): "what are these genes enriched for?",
	// "GO enrichment of the result". Nothing is searched or built.
	FollowEnrich
	// FollowControls asks to test the strategy against the conversation's
	// control gene lists: "test this against my controls", "what is the
	// recall?". Nothing is searched or built.
	FollowControls
	// FollowOrthologs carries the strategy's genes to their orthologs in
	// another organism, or keeps those of them that have orthologs there
	// (Parsed.Orthologs says which).
	FollowOrthologs
)

// String names the follow-up for notes and tests.
func (f FollowUp) String() string {
	return [...]string{"none", "exclude", "restrict", "add", "replace", "undo", "start over", "enrich", "controls", "orthologs"}[f]
}

// leadIns are words that open a follow-up without saying anything:
// "now", "ok, also", "and then".
var leadIns = WordSet("now ok okay also and then please so well but can could you i we want would like to hmm same")

// correctionLeads open a message that corrects the one before: "sorry, I
// meant …", "oops, I wanted …", "no, …".
var correctionLeads = [][]string{{"sorry"}, {"oops"}, {"i", "meant"}, {"i", "wanted"}, {"i", "mean"}, {"meant"}, {"wanted"},
	{"what", "i", "meant", "was"}, {"what", "i", "wanted", "was"}, {"no", "wait"}, {"wait"}, {"try"}, {"actually"}}

// correctionAt returns how many leading words say the message corrects the
// one before (with a "no" only when a comma follows it), or 0.
func correctionAt(w []token) int {
	n := 0
	for {
		k := 0
		for _, lead := range correctionLeads {
			if hasWords(w[n:], lead) {
				k = len(lead)
				break
			}
		}
		if k == 0 && n+1 < len(w) && w[n].low == "no" && !w[n].quoted && w[n+1].comma {
			k = 1
		}
		if k == 0 {
			return n
		}
		n += k
		for n < len(w) && !w[n].quoted && (w[n].comma || leadIns[w[n].low]) {
			n++
		}
	}
}

// undoWords are the words a request to undo is made of.
var undoWords = WordSet("undo revert go back that it this the last change step previous version please take one narrowing restriction exclusion filter filtering edit")

// followUpOf reads whether the words refine the strategy already built,
// and returns the kind, the words of the part, and the words of what it
// replaces.
func followUpOf(toks []token) (FollowUp, []token, []token) {
	w := toks
	for len(w) > 0 && !w[0].quoted && (w[0].comma || leadIns[w[0].low]) {
		w = w[1:]
	}
	if len(w) == 0 {
		return FollowNone, toks, nil
	}
	if isUndo(w) {
		return FollowUndo, nil, nil
	}
	// "chromosome 13 has to go as well", "the tRNA genes must go".
	if n := goesAt(w); n > 0 {
		return FollowExclude, trimJoiners(trimReference(w[:n])), nil
	}
	if asksControls(w) {
		return FollowControls, nil, nil
	}
	if asksEnrichment(w) {
		return FollowEnrich, nil, nil
	}
	if n := startOverAt(w); n > 0 {
		return FollowStartOver, trimJoiners(w[n:]), nil
	}
	// "Sorry, I meant DNA replication": what the last request named is
	// replaced ("…, instead of DNA repair" names it).
	if n := correctionAt(w); n > 0 && n < len(w) {
		rest := w[n:]
		// "oops — chromosome 8, not 3": the first names what replaces the
		// second.
		for i := 1; i+1 < len(rest); i++ {
			if rest[i].low == "not" && !rest[i].quoted && (rest[i-1].comma || isNumeric(rest[i+1].low) || isLocationWord(rest[i+1].low)) &&
				!(rest[i+1].low == "on" || rest[i+1].low == "in") {
				return FollowReplace, trimJoiners(stripLeads(rest[:i])), trimJoiners(rest[i+1:])
			}
		}
		if f, part, replaced := followUpOf(rest); f != FollowNone {
			return f, part, replaced
		}
		// A whole request corrects the whole strategy; one clause, the
		// clause of its kind.
		for i := range rest {
			if _, ok := connectiveAt(rest, i); ok {
				return FollowStartOver, trimJoiners(rest), nil
			}
		}
		return FollowReplace, trimJoiners(stripLeads(rest)), nil
	}
	if f, rest, replaced, ok := replacement(w); ok {
		return f, trimReference(rest), trimReference(replaced)
	}
	if n := resultFrame(w); n > 0 || len(w) > 2 && (w[0].low == "which" || w[0].low == "what") && resultFrame(w[1:]) > 0 {
		if n == 0 {
			n = 1 + resultFrame(w[1:]) // "which of them are on chromosome 2?"
		}
		rest := w[n:]
		for len(rest) > 0 && !rest[0].quoted && (rest[0].comma || leadIns[rest[0].low]) {
			rest = rest[1:]
		}
		if f, part, replaced := followUpOf(rest); f != FollowNone {
			return f, part, replaced
		}
		if rest = trimJoiners(narrowingLead(rest)); len(rest) > 0 {
			return FollowRestrict, rest, nil
		}
	}
	if n := narrowedTo(w); n > 0 {
		return FollowRestrict, trimJoiners(w[n:]), nil
	}
	if (w[0].low == "keep" || w[0].low == "retain") && !w[0].quoted && len(w) > 1 {
		rest := narrowingLead(w[1:])
		// "keep the chromosome 5 subset": the words after the place name
		// the part kept.
		for len(rest) > 1 && !rest[len(rest)-1].quoted && partWords[rest[len(rest)-1].low] {
			rest = rest[:len(rest)-1]
		}
		return FollowRestrict, trimJoiners(trimReference(rest)), nil
	}
	if c, ok := connectiveAt(w, 0); ok && c.loose {
		kind := FollowExclude
		if c.op == OpIntersect {
			kind = FollowRestrict
		}
		return kind, trimJoiners(trimReference(withoutPlaceVerb(w[len(c.words):]))), nil
	}
	if w[0].low == "only" || w[0].low == "just" {
		return FollowRestrict, trimJoiners(trimReference(w[1:])), nil
	}
	// "How many (of them) are on chromosome 13?"
	if hasWords(w, []string{"how", "many"}) {
		rest := w[2:]
		for len(rest) > 0 && (rest[0].low == "of" || rest[0].low == "them" || rest[0].low == "those" || rest[0].low == "these" ||
			rest[0].low == "are" || rest[0].low == "is" || rest[0].low == "lie" || rest[0].low == "sit") {
			rest = rest[1:]
		}
		if len(rest) > 0 && !mentionsGenes(rest) {
			return FollowRestrict, trimJoiners(rest), nil
		}
	}
	// "what about just chromosomes 1 and 3?" narrows; "which ones sit on
	// chromosome 3?" too.
	if hasWords(w, []string{"what", "about"}) && len(w) > 3 && (w[2].low == "just" || w[2].low == "only") {
		return FollowRestrict, trimJoiners(w[3:]), nil
	}
	if len(w) > 2 && (w[0].low == "which" || w[0].low == "what") && w[1].low == "ones" {
		return FollowRestrict, trimJoiners(narrowingLead(w[2:])), nil
	}
	for _, lead := range [][]string{{"add"}, {"adding"}, {"include"}, {"including"}, {"plus"}, {"as", "well", "as"}, {"what", "about"},
		{"combine", "that", "with"}, {"combine", "it", "with"}, {"combine", "this", "with"}, {"combine", "with"}, {"merge", "that", "with"},
		{"merge", "it", "with"}, {"merge", "with"}, {"union", "with"}, {"join", "with"}, {"merge", "in"}, {"mix", "in"}, {"throw", "in"},
		{"bring", "in"}, {"fold", "in"}, {"chuck", "in"}, {"toss", "in"}, {"pop", "in"}, {"stick", "in"}, {"tack", "on"}, {"add", "in"}, {"widen", "it", "to"}, {"widen", "that", "to"}, {"widen", "to"}, {"extend", "it", "to"},
		{"extend", "that", "to"}, {"extend", "to"}, {"expand", "it", "to"}, {"expand", "that", "to"}, {"expand", "to"}, {"broaden", "it", "to"}, {"broaden", "that", "to"}, {"broaden", "to"}} {
		if hasWords(w, lead) {
			rest := w[len(lead):]
			// "widen it to include chromosome 11", "extend it to also cover …".
			for len(rest) > 1 && !rest[0].quoted && addVerbs[rest[0].low] {
				rest = rest[1:]
			}
			return FollowAdd, trimJoiners(trimReference(rest)), nil
		}
	}
	if f, part, ok := verbFollowUp(w); ok {
		return f, part, nil
	}
	return FollowNone, toks, nil
}

// resultFrame returns how many leading words name the current result as
// the set a message narrows ("of those", "among these genes", "out of
// them", "from this list", "within the result"), or 0 when the message
// does not start so.
func resultFrame(w []token) int {
	i := 0
	if hasWords(w, []string{"out", "of"}) {
		i = 2
	} else if len(w) > 0 && !w[0].quoted && frameWords[w[0].low] {
		i = 1
	} else {
		return 0
	}
	for i < len(w) && !w[i].quoted && (w[i].low == "the" || w[i].low == "all" || w[i].low == "my" || w[i].low == "our") {
		i++
	}
	n := 0
	for i < len(w) && !w[i].quoted && (referenceWords[w[i].low] || n > 0 && (w[i].low == "genes" || w[i].low == "gene")) {
		i++
		n++
	}
	if n == 0 {
		return 0
	}
	return i
}

// frameWords open a phrase naming the set a message narrows.
var frameWords = WordSet("of among amongst from within in")

// narrowingLead takes off the words that say "keep the ones": "only the
// ones", "just those", "keep the genes", "which are".
func narrowingLead(w []token) []token {
	for len(w) > 0 && !w[0].quoted && (w[0].comma || narrowingWords[w[0].low]) {
		w = w[1:]
	}
	return w
}

var narrowingWords = WordSet("only just keep retain leave show me give the ones one those these them genes gene which that are is lie lies sit sits")

// undoBeforeRE asks to return to the strategy before a change: "revert to
// before the exclusion", "go back to the version before chromosome 5 was
// removed", "roll back to how it was before".
var undoBeforeRE = regexp.MustCompile(`(?i)^(?:please\s+)?(?:revert|go\s+back|get\s+back|return|roll\s+back|restore|back)\s+(?:it\s+|that\s+|this\s+)?(?:to\s+)?(?:the\s+(?:version|strategy|state|result)\s+|how\s+it\s+was\s+|what\s+(?:it|we)\s+had\s+)?before\b` +
	// "restore the previous version", "bring back the last strategy".
	`|^(?:please\s+)?(?:restore|bring\s+back|go\s+back\s+to|return\s+to|revert\s+to|roll\s+back\s+to)\s+(?:the\s+|my\s+)?(?:previous|last|earlier|prior|old|former|unrestricted|unfiltered|broader|wider)\s+(?:version|strategy|one|result|state|list|set)\b` +
	// "get rid of that", "scrap that change": the last change, named by a pronoun alone.
	`|^(?:(?:hmm|no|nah|actually|ok|okay|please)[\s,]+)*(?:get\s+rid\s+of|scrap|drop|remove|delete|take\s+back|cancel)\s+(?:that|it|this)(?:\s+(?:change|last\s+change|step|edit))?(?:\s+again)?\s*$` +
	// "scratch that exclusion, go back", "cancel the narrowing".
	`|^(?:(?:hmm|no|nah|actually|ok|okay|please)[\s,]+)*(?:scratch|scrap|cancel|undo|reverse|revert|drop)\s+(?:that|the|this|my)\s+(?:last\s+)?(?:exclusion|restriction|narrowing|filter|change|edit)(?:\s*[,;]?\s*(?:and\s+)?go\s+back)?\s*[.!]*\s*$` +
	// "take that back", "undo the last change".
	`|^(?:(?:hmm|no|nah|actually|ok|okay|please)[\s,]+)*(?:take\s+(?:that|it|this)\s+back|undo\s+(?:the|my)\s+(?:last|latest)\s+(?:change|edit|step))\s*$`)

// isUndo reports whether the words only ask to undo.
func isUndo(w []token) bool {
	if undoBeforeRE.MatchString(join(w)) {
		return true
	}
	hasVerb := false
	for i, t := range w {
		switch {
		case t.comma:
		case t.low == "undo" || t.low == "revert" || t.low == "back" && i > 0 && w[i-1].low == "go":
			hasVerb = true
		case !undoWords[t.low]:
			return false
		}
	}
	return hasVerb
}

// asksControls reports whether the words ask for the strategy's figures
// against control lists: they name controls (or control genes, lists or
// sets), recall or precision.
func asksControls(w []token) bool {
	for i, t := range w {
		if t.quoted {
			continue
		}
		switch t.low {
		case "controls", "recall", "precision":
			return true
		case "control":
			// "transcriptional control genes" name a process, not controls.
			if i > 0 && !fillers[w[i-1].low] && w[i-1].low != "positive" && w[i-1].low != "negative" {
				continue
			}
			if i+1 < len(w) && (w[i+1].low == "genes" || w[i+1].low == "list" || w[i+1].low == "lists" || w[i+1].low == "set" || w[i+1].low == "sets") {
				return true
			}
		}
	}
	return false
}

// asksEnrichment reports whether the words ask for an enrichment analysis
// of the genes at hand: they name "enrichment" or over-representation, or
// ask what the genes are "enriched for" ("genes enriched in gametocytes"
// is an expression question, not this).
func asksEnrichment(w []token) bool {
	for i, t := range w {
		if t.quoted {
			continue
		}
		switch t.low {
		case "enrichment", "enrichments", "overrepresentation", "over-representation", "overrepresented", "over-represented":
			return true
		case "enriched":
			if i+1 < len(w) && w[i+1].low == "for" {
				return true
			}
		}
	}
	return false
}

// startOverAt returns how many words say to start over, or 0.
func startOverAt(w []token) int {
	for _, lead := range [][]string{{"start", "over"}, {"start", "again"}, {"start", "afresh"}, {"from", "scratch"},
		{"new", "search"}, {"new", "strategy"}, {"forget", "that"}, {"forget", "it"}, {"scrap", "that"}, {"never", "mind"}} {
		if hasWords(w, lead) {
			return len(lead)
		}
	}
	return 0
}

// replacement reads "use X instead (of Y)", "X instead of Y", "make that X
// instead", "replace Y with X", "swap Y for X", "change Y to X".
func replacement(w []token) (FollowUp, []token, []token, bool) {
	for _, lead := range [][]string{{"make", "that"}, {"make", "it"}, {"switch", "to"}, {"change", "it", "to"}, {"change", "that", "to"}} {
		if hasWords(w, lead) && !slices.ContainsFunc(w, func(t token) bool { return t.low == "instead" }) {
			return FollowReplace, trimJoiners(w[len(lead):]), nil, true
		}
	}
	for _, lead := range [][]string{{"replace"}, {"swap"}, {"change"}, {"substitute"}, {"switch"}, {"set"}} {
		if !hasWords(w, lead) {
			continue
		}
		rest := w[len(lead):]
		if len(rest) > 0 && rest[0].low == "out" {
			rest = rest[1:] // "swap out the X step for Y"
		}
		for i, t := range rest {
			if i == 0 && t.low == "to" && (lead[0] == "switch" || lead[0] == "set") {
				break // "switch to X instead" names no replaced part
			}
			if t.low == "with" || t.low == "for" || t.low == "to" || t.low == "by" {
				return FollowReplace, trimJoiners(rest[i+1:]), trimJoiners(rest[:i]), true
			}
		}
	}
	i := slices.IndexFunc(w, func(t token) bool { return t.low == "instead" && !t.quoted })
	if i < 0 {
		return FollowNone, nil, nil, false
	}
	// "Instead of translation, use proteolysis".
	if i == 0 && len(w) > 2 && w[1].low == "of" {
		if c := slices.IndexFunc(w, func(t token) bool { return t.comma }); c > 2 {
			return FollowReplace, trimJoiners(stripLeads(w[c+1:])), trimJoiners(w[2:c]), true
		}
	}
	part := w[:i]
	var replaced []token
	if i+1 < len(w) && w[i+1].low == "of" {
		replaced = trimJoiners(w[i+2:])
	} else if i+1 < len(w) {
		part = append(slices.Clip(part), w[i+1:]...)
	}
	if len(replaced) == 0 {
		replaced = nil
	}
	return FollowReplace, trimJoiners(stripLeads(part)), replaced, true
}

// replaceLeads are the words before what a replacement puts in place:
// "use", "what if we use", "let's look at", "switch to".
var replaceLeads = WordSet(`use make that it try search for with what about how switch to if we let's lets look at go i want
	would rather maybe perhaps then`)

func stripLeads(w []token) []token {
	for len(w) > 0 && !w[0].quoted && (w[0].comma || replaceLeads[w[0].low]) {
		w = w[1:]
	}
	return w
}

// trimReference takes off the words that point back at the strategy: "from
// that", "to this", "from the result".
func trimReference(w []token) []token {
	for {
		n := len(w)
		if n == 0 || w[n-1].quoted || !referenceWords[w[n-1].low] {
			return w
		}
		k := n - 1
		for k > 0 && !w[k-1].quoted && (referenceWords[w[k-1].low] || w[k-1].low == "the" || w[k-1].low == "our" || w[k-1].low == "my") {
			k--
		}
		if k == 0 || !referencePrepositions[w[k-1].low] {
			return w
		}
		w = w[:k-1]
	}
}

var (
	referenceWords        = WordSet("that this it them those these result results strategy list set search one ones current")
	referencePrepositions = WordSet("from to in of on into alongside")
)

// hasWords reports whether w starts with the words.
func hasWords(w []token, words []string) bool {
	if len(w) < len(words) {
		return false
	}
	for i, x := range words {
		if w[i].quoted || w[i].low != x {
			return false
		}
	}
	return true
}

// goesPhrases end a message that takes its part away: "… has to go",
// "… must be removed too".
var goesPhrases = [][]string{{"has", "to", "go"}, {"have", "to", "go"}, {"must", "go"}, {"should", "go"}, {"needs", "to", "go"},
	{"need", "to", "go"}, {"can", "go"}, {"has", "to", "be", "removed"}, {"must", "be", "removed"}, {"should", "be", "removed"},
	{"has", "to", "be", "excluded"}, {"must", "be", "excluded"}, {"should", "be", "excluded"}, {"is", "out"}, {"are", "out"},
	{"should", "be", "stripped"}, {"must", "be", "stripped"}, {"should", "be", "dropped"}, {"must", "be", "dropped"},
	{"should", "be", "taken", "out"}, {"should", "be", "left", "out"}, {"can", "be", "dropped"}, {"can", "be", "removed"}, {"goes"}}

// goesAt returns where a goes-phrase starts when it ends the message
// (before "as well", "too", "also"), or 0.
func goesAt(w []token) int {
	end := len(w)
	for end > 0 && !w[end-1].quoted && (w[end-1].low == "too" || w[end-1].low == "also" || w[end-1].low == "well" || w[end-1].low == "as" || w[end-1].comma) {
		end--
	}
	for _, ph := range goesPhrases {
		if k := end - len(ph); k > 0 && hasWords(w[k:end], ph) {
			return k
		}
	}
	return 0
}

var (
	// addVerbs say again that a part is added, after a lead that did.
	addVerbs = WordSet("include including cover covering also add adding take in")
	// partWords name a part of the result kept.
	partWords = WordSet("subset subsets portion portions part parts fraction share slice bit ones only")
)

// AlsoAdds reports whether a message opens with a word that adds to what
// the conversation has ("and also the rRNA genes on chromosome 5",
// "plus the snoRNAs", "additionally …").
func AlsoAdds(text string) bool {
	w := tokenize(text)
	and := false
	for len(w) > 0 && (w[0].comma || w[0].low == "and" || w[0].low == "now" || w[0].low == "ok" || w[0].low == "okay") {
		and = and || w[0].low == "and"
		w = w[1:]
	}
	// "and the rRNA ones too": more of the same kind of request, added.
	return len(w) > 1 && !w[0].quoted && (w[0].low == "also" || w[0].low == "plus" || w[0].low == "additionally" || and && Repeats(text))
}

// Repeats reports whether a message asks to do again what the one before
// it did, to something else: "and chromosome 13 too", "chromosome 12 as
// well", "same for tRNA genes".
func Repeats(text string) bool {
	w := tokenize(formsSpelled(text))
	if len(w) == 0 {
		return false
	}
	last := w[len(w)-1].low
	return last == "too" || last == "likewise" || hasWords(w[max(0, len(w)-2):], []string{"as", "well"}) || hasWords(w, []string{"same", "for"}) ||
		hasWords(w, []string{"likewise"}) || hasWords(w, []string{"and", "also"})
}
