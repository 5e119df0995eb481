package english

import (
	"regexp"
	"strings"
)

// Intent is what a message asks of the planner, read before any search is
// planned: only IntentSearch (a new search, or a change to the strategy or
// the draft) plans anything; every other intent is answered in words.
type Intent int

// The intents. The zero value is unknown.
const (
	IntentUnknown Intent = iota
	// IntentSearch is a request for genes, or a change to the strategy or
	// the draft: it is planned.
	IntentSearch
	// IntentConfirm agrees to a plan ("yes, go ahead", "build it"): the
	// plan is built with Build this plan, not planned again.
	IntentConfirm
	// IntentDecline turns a plan down ("not yet", "no, never mind").
	IntentDecline
	// IntentGeneQuestion asks what a gene is or does.
	IntentGeneQuestion
	// IntentGOQuestion asks what a GO term is or means.
	IntentGOQuestion
	// IntentSearchQuestion asks which searches exist for something.
	IntentSearchQuestion
	// IntentStrategyQuestion asks about the strategy: its steps, counts,
	// why a search was chosen, what was offered.
	IntentStrategyQuestion
	// IntentCapability asks what Strategist can do.
	IntentCapability
	// IntentUnsupported asks for something Strategist does not do
	// (memory, attachments, studies, saved gene sets, control sets).
	IntentUnsupported
	// IntentOffTopic is not about genes.
	IntentOffTopic
	// IntentGeneTrace asks where the strategy keeps or loses a gene
	// ("which step drops PF3D7_1405400?", "is PF3D7_0930300 in the
	// result?"); Subject is the gene id.
	IntentGeneTrace
	// IntentThanks acknowledges ("thanks", "great, perfect"): nothing to
	// plan, build or agree to.
	IntentThanks
)

// String names an intent for plans and logs.
func (i Intent) String() string {
	switch i {
	case IntentSearch:
		return "search"
	case IntentConfirm:
		return "confirmation"
	case IntentDecline:
		return "decline"
	case IntentGeneQuestion:
		return "gene question"
	case IntentGOQuestion:
		return "GO term question"
	case IntentSearchQuestion:
		return "question about searches"
	case IntentStrategyQuestion:
		return "question about the strategy"
	case IntentCapability:
		return "question about Strategist"
	case IntentUnsupported:
		return "unsupported request"
	case IntentOffTopic:
		return "off-topic"
	case IntentGeneTrace:
		return "question about a gene in the strategy"
	case IntentThanks:
		return "acknowledgement"
	}
	return "unknown"
}

// UnsupportedGeneSets is what a request to save the result as a gene set
// asks for: the page saves lists (Save as list), the chat does not.
const UnsupportedGeneSets = "saving results as gene sets"

// Classification is a message's intent and what it is about.
type Classification struct {
	Intent Intent
	// Subject is what a question is about: the gene ids of a gene
	// question, the GO id or name of a GO question, the words of a search
	// question. For an unsupported request, the capability asked for
	// (Unsupported names it).
	Subject string
	// Unsupported names, for IntentUnsupported, what Strategist does not
	// do ("remembering preferences between conversations").
	Unsupported string
	// OnThePage, for an unsupported request the page fulfils (a download,
	// an export), says where.
	OnThePage string
}

var (
	confirmWords = WordSet("yes yeah yep yup ok okay alright sure go ahead proceed continue thanks thank you build do it please that this plan and now fine great sounds good let's lets run looks perfect right exactly absolutely correct indeed spot on then works outline with the is seems approved approve excellent brilliant execute reads correctly correct matches")
	declineWords = WordSet("no nope not yet never mind nevermind cancel don't dont do it that this thanks thank you please for now stop wait hold on leave build anything second thought thoughts unbuilt off actually drop scrap forget skip")
	// declineCues are words only a decline holds.
	declineCues = WordSet("no nope not never nevermind cancel don't dont stop wait hold forget")
	// confirmCues are the words a confirmation needs: "thanks" or "great"
	// alone agree to nothing.
	confirmCues = WordSet("yes yeah yep ok okay sure ahead proceed continue build do run let's lets approved approve execute")
	thanksWords = WordSet("thanks thank you thx cheers great perfect nice cool awesome excellent wonderful good lovely brilliant that that's thats it is looks very much so a lot lots all done for now bye goodbye i'm im we're ok okay what i meant correct correctly right exactly reads matches had in mind mm-hm mhm uh-huh")

	geneAskRE = regexp.MustCompile(`(?i)\b(what\s+\S+\s+(encodes|makes|codes\s+for)|what\s+(does|do|is|are)|what's|whats|tell me (about|more about)|describe|explain|function of|role of|what do you know about|information on|info on|(which|what) gene is|look\s*up|what (protein|product) (does|do)?\b.*\b(makes?|encodes?)|is that now|tell me what|what (it|this|that) (is|does|encodes)|codes? for|product description|description|annotation|summary)\b`)
	// geneFirstAskRE is a yes-or-no question whose subject is a gene id:
	// "Is PF3D7_… on chromosome 11, and what does it code for?".
	geneFirstAskRE = regexp.MustCompile(`(?i)^\s*(is|does|was|are|do)\s+(the\s+gene\s+)?(pf3d7_\w+|pf\w+_\w+|mal\w+|pf[a-z]\d{4}\w*)\b`)
	goAskRE        = regexp.MustCompile(`(?i)\b(what\s+(does|is|are)|what's|whats|tell me about|describe|explain|define|definition|meaning|mean|means|what (process|term|function) is (that|this|it)|(which|what) (biological |go )?(process|term|function))\b|=\s*(which|what)\b`)
	searchWordsRE  = regexp.MustCompile(`(?i)\b(genes|find|list|show|give|get|build|search for|strategy for|excluding|except|minus|not on|on chromosome|intersect|union|combined?|shares? with|in common with)\b`)
	goIDInRE       = regexp.MustCompile(`(?i)\bGO:\d{7}\b`)
	howManyRE      = regexp.MustCompile(`(?i)\bhow many\b`)
	searchAskRE    = regexp.MustCompile(`(?i)^\s*((which|what)\s+(searches|search|kinds? of search(es)?)\b|(is there|are there|do you have|does (the|this) (site|catalog) have)\s+(a|an|any)\s+(searche?s?|ways? to search)\s+(for|by|on)\b|(can|could) (i|we|you) search\s+(for|by|on)\b)`)
	capabilityRE   = regexp.MustCompile(`(?i)^\s*(what can you do|what do you do|what are you|who are you|help|how do(es)? (this|it|strategist) work|how do i use (this|it|strategist))\s*[?.!]*\s*$`)
	// strategyAskRE asks about the result or the conversation so far.
	strategyAskRE = regexp.MustCompile(`(?i)\b(how many genes (is|are) (that|this|it|there now|left)|how many (are )?(left|remain)|why did you (choose|pick|use)|(which|what) (go term|term|search|gene type|step)s? did you (choose|pick|use|select)|why (this|that) search|what did you (offer|build|do|plan|choose)|what (is|was) (the|my) (count|result)|how many genes each step|which step (drops|removes|loses)|how many (of )?(them|those|these|the genes) (were|had been) (on|in|removed|dropped|excluded|lost|taken out)|what (did|does) (each|every|the) (step|exclusion|search|filter|combine)s? (remove|drop|take out|exclude|cut|keep)|(each|every) (step|exclusion)\b.*\b(removed?|dropped|excluded|took out|kept)|how many (genes )?(did|does) (each|every|the) (step|exclusion)s? (remove|drop|exclude)|analy[sz]e (my|the|this) (current )?strategy|diagnose (my|the|this)|summari[sz]e (this|the|my)|give me a .*summary|what does (the|my|this) strategy|(how many|counts?|numbers?|sizes?)\b.*\b(each|every|per) (step|search)|(each|every) (step|search)\b.*\b(returns?|gives?|finds?|have|has|counts?)|walk me through (the|my|this) (strategy|steps|result)|explain (the|my|this) (strategy|steps|result)|what (is|are|was|were) the (first|second|third|fourth|fifth|last|final|root|top|\d+(st|nd|rd|th)) steps?|what (are|were) (the|its|my) steps` +
		`|how many (genes )?(did|does|has|have|were) (that|this|it|the (exclusion|restriction|step|filter|change|last (step|change)|subtraction))\s+(remove|removed|drop|dropped|exclude|excluded|take away|took away|take out|took out|cut|lose|lost|get rid of))\b` +
		`|^\s*(the\s+)?(count|size|total|number)\s*\?\s*$` +
		`|\bwhat\s+did\s+(dropping|removing|excluding|losing|taking\s+out|the\s+(exclusion|removal|restriction)\s+of)\s+.+?\s+(cost|remove|take\s+away|lose)\b` +
		`|^\s*(please\s+)?(show|list|give|display|see)\s+(me\s+)?(all\s+)?(of\s+)?(the|these|those|them|my|our)\s*(genes|results?|steps|list|ids)?\s*(now|please|again)?\s*[.?!]*\s*$`)

	// unsupportedREs name requests Strategist does not fulfil, and what
	// they ask for.
	unsupportedREs = []struct {
		re   *regexp.Regexp
		what string
	}{
		{regexp.MustCompile(`(?i)\b(remember|memori[sz]e|for future sessions|my preferences?|do i prefer|i prefer)\b`), "remembering preferences between conversations"},
		{regexp.MustCompile(`(?i)\be-?mail\b`), "sending results by email"},
		{regexp.MustCompile(`(?i)\b(this|the|attached) (image|picture|photo|document|pdf|file|spreadsheet|table)\b|\b(upload(ed)?|attached)\b|\b(the|my|this|an?)\s+attachments?\b|\battachments?(\s+(file|image|document|here|below|above)|\s*[?.!,;]|\s*$)`), "reading attachments or uploaded files"},
		{regexp.MustCompile(`(?i)\b(pca|principal components?|component separates|variance|differential(ly)? expression|differentially expressed|deseq2?|\bstudy\b.*\b(open|compare|samples)|open the .*study)\b`), "studies and sample analyses (PCA, differential expression)"},
		{regexp.MustCompile(`(?i)\b(gene set|gene list)\b.*\b(save|name|call)|\b(save|store|keep)\b.*\b(as|in) (a |my )?(gene set|gene list|basket|favou?rites)\b|\bsave (these|this|the genes|the result)`), UnsupportedGeneSets},
		{regexp.MustCompile(`(?i)\b(optimi[sz]e|parameter sweep)\b`), "optimising search parameters"},
		{regexp.MustCompile(`(?i)\b(compare|comparison of) the .*\bversions?\b`), "comparing versions of a search"},
		{regexp.MustCompile(`(?i)\bclear(_strategy| the (current |whole )?strategy)\b`), "clearing a strategy (start a new conversation instead)"},
		{regexp.MustCompile(`(?i)\b(vectorbase|toxodb|cryptodb|fungidb|tritrypdb|giardiadb|amoebadb|hostdb|microsporidiadb|piroplasmadb)\b`), "another VEuPathDB site's data (this conversation is on PlasmoDB)"},
	}

	// traceAskRE asks where the strategy keeps or loses a gene.
	traceAskRE = regexp.MustCompile(`(?i)\b(which|what) (step|search|filter|part)s? (drops?|removes?|loses?|lost|excludes?|filters? out|kills?|threw out|throws out)\b` +
		`|\b(is|are|was)\b.*\b(in|part of|still in|kept in|among) (the|my|this|our) (result|results|strategy|genes|list)\b` +
		`|\b(does|do|did) (the|my|this|our) (result|strategy|list) (still )?(include|contain|have|keep|find)\b` +
		`|\bwhere (did|do|does|was|is) .*\b(lose|lost|drop|dropped|go|removed)\b|\bwhy (is|was|did) .*\b(missing|not in|dropped|lost|gone|removed)\b|\btrace\b`)

	// onThePageREs name requests the page fulfils and the chat does not,
	// and where on the page they are.
	onThePageREs = []struct {
		re          *regexp.Regexp
		what, where string
	}{
		{regexp.MustCompile(`(?i)\bdownload\b|\bas an? (csv|tsv|excel|spreadsheet|table)\b`), "downloading genes",
			"open a step's results (click its box) and use **Download all … genes**: TSV, CSV or JSON, every gene of the step"},
		{regexp.MustCompile(`(?i)\bexport (it|this|that|them|these|the strategy|my strategy)\b|\b(save|send|push|export|upload)\s+(it|this|that|the strategy|my strategy)?\s*(in|to|into) (veupathdb|plasmodb)\b`), "exporting the strategy to VEuPathDB",
			"**Export for VEuPathDB** under the strategy gives the strategy as WDK JSON, which VEuPathDB imports; on a live site **Save to VEuPathDB** saves it into your account"},
		{regexp.MustCompile(`(?i)\bshare (it|this|that|the strategy|the conversation|my strategy)\b|\bshare\s+with\s+(?:my\s+|a\s+|the\s+|our\s+)?(?:colleague|collaborator|lab|team|group|pi|supervisor|student|someone|others|people|him|her|them)s?\b|\bshareable link\b`), "sharing the conversation",
			"**Share** at the top of the conversation makes a read-only link to it"},
		{regexp.MustCompile(`(?i)\b(go(ing)?\s+back|return|revert|roll\s+back|restore|get\s+back|bring\s+back)\s+(to\s+)?(the\s+|my\s+)?(very\s+)?(first|original|initial|earliest)\s+(version|strategy|one|result|state|build)\b`), "returning to the first version of the strategy",
			"**Undo** (or \"undo that\") goes back one turn at a time, and the strategy's **History** lists every version by turn: one click there returns to the first"},
		{regexp.MustCompile(`(?i)^\s*((now|please|great|ok|okay|and|then|also),?\s+)*(rename|retitle)\s+(it|this|the strategy|the conversation|my strategy)\b`), "renaming the conversation",
			"click the conversation's title to rename it; a step is renamed on its results"},
	}

	// offTopicRE holds words of requests that are not about genes.
	offTopicRE = regexp.MustCompile(`(?i)\b(weather|recipe|banana bread|haiku|poem|joke|song|lyrics|movie|football|soccer|stock price|horoscope|capital of)\b`)
	// bioRE holds words that make a message about genes whatever else it says.
	bioRE = regexp.MustCompile(`(?i)\b(genes?|proteins?|chromosomes?|go:\d+|pf3d7_\w+|rna|dna|\w+ase|\w+ases|antigens?|apicoplast|mitochondri\w*|plasmodium|falciparum|parasites?)\b`)
)

// Classify reads what a message asks for. It is deliberately conservative:
// a message that may be a search is a search (the planner then says what it
// understood); the other intents need words that say so.
func Classify(msg string) Classification {
	text := strings.TrimSpace(msg)
	low := strings.ToLower(text)
	if text == "" {
		return Classification{Intent: IntentOffTopic}
	}
	if onlyWords(low, confirmWords) && !hasAny(low, declineCues) && hasAny(low, confirmCues) {
		return Classification{Intent: IntentConfirm}
	}
	if onlyWords(low, thanksWords) {
		return Classification{Intent: IntentThanks}
	}
	if onlyWords(low, declineWords) && (hasAny(low, declineCues) || strings.Contains(low, "second thought")) {
		return Classification{Intent: IntentDecline}
	}
	for _, u := range onThePageREs {
		if u.re.MatchString(text) {
			return Classification{Intent: IntentUnsupported, Unsupported: u.what, OnThePage: u.where}
		}
	}
	for _, u := range unsupportedREs {
		if u.re.MatchString(text) {
			return Classification{Intent: IntentUnsupported, Unsupported: u.what}
		}
	}
	if capabilityRE.MatchString(text) {
		return Classification{Intent: IntentCapability}
	}
	if ids := geneIDsIn(text); len(ids) == 1 && traceAskRE.MatchString(text) {
		return Classification{Intent: IntentGeneTrace, Subject: ids[0]}
	}
	if strategyAskRE.MatchString(text) {
		return Classification{Intent: IntentStrategyQuestion}
	}
	if howManyRE.MatchString(text) {
		if !hasContent(tokenize(text)) {
			// "How many genes now?", "how many are there in total?": the
			// count of what the conversation has.
			return Classification{Intent: IntentStrategyQuestion}
		}
		return Classification{Intent: IntentSearch} // a count is a search
	}
	if searchAskRE.MatchString(text) {
		return Classification{Intent: IntentSearchQuestion, Subject: searchSubject(text)}
	}
	ids := geneIDsIn(text)
	if len(ids) == 1 && (geneFirstAskRE.MatchString(text) || geneOnlyAsked(text)) ||
		len(ids) > 0 && (geneAskRE.MatchString(text) || terseGeneAskRE.MatchString(text)) && !searchWordsRE.MatchString(text) {
		return Classification{Intent: IntentGeneQuestion, Subject: strings.Join(ids, " ")}
	}
	if m := geneIDOfRE.FindStringSubmatch(text); m != nil && len(ids) == 0 && !placeRE.MatchString(m[3]) && !searchWordsRE.MatchString(m[3]) &&
		!relationRE.MatchString(m[3]) {
		return Classification{Intent: IntentGeneQuestion, Subject: American(strings.Trim(m[1]+m[2]+m[3], `"' `))}
	}
	if symbol, ok := symbolQuestion(text); ok {
		return Classification{Intent: IntentGeneQuestion, Subject: symbol}
	}
	if id := goIDInRE.FindString(text); id != "" && goAskRE.MatchString(text) && !searchWordsRE.MatchString(text) {
		return Classification{Intent: IntentGOQuestion, Subject: strings.ToUpper(id[:2]) + id[2:]}
	}
	if subject, ok := goPhraseQuestion(text); ok {
		return Classification{Intent: IntentGOQuestion, Subject: subject}
	}
	if offTopicRE.MatchString(text) || (gibberish(low) && !bioRE.MatchString(text)) {
		return Classification{Intent: IntentOffTopic}
	}
	return Classification{Intent: IntentSearch}
}

// geneOnlyAskRE reads the words a question about one gene is made of
// besides its id: "remind me what PF3D7_… is", "what product is
// annotated for PF3D7_…?", "I have PFF1300w from a 2008 paper. Which 3D7
// gene does that correspond to these days?".
var geneOnlyAskRE = regexp.MustCompile(`(?i)\b(?:remind\s+me|(?:which|what)\s+(?:protein|product)\s+does\s+(?:it|this|that)\s+(?:encode|make|code\s+for)|what\s+(?:protein|product|gene\s+product|symbol|name)\s+(?:is|was|does)|correspond(?:s|ing)?\s+to|current\s+(?:id|name|gene)|new\s+id|renamed|maps?\s+to|(?:which|what)\s+chromosome|what\s+protein|what\s+(?:is|was)\s+(?:it|that|this)\s+(?:now|called)|(?:which|what)\s+(?:enzyme|protein|gene|product)\s+is\s+(?:it|that|this)|(?:symbol|gene\s+name|(?:annotated\s+)?product)\s+(?:for|of))\b`)

// geneOnlyAsked reports whether a message asks about the one gene it names
// and for no genes beside it.
func geneOnlyAsked(text string) bool {
	return geneOnlyAskRE.MatchString(text) && !searchWordsRE.MatchString(text) && !goIDInRE.MatchString(text)
}

// onlyWords reports whether s has one to eight words, all in set: a short
// reply, not a request.
func onlyWords(s string, set map[string]bool) bool {
	w := strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == ',' || r == '.' || r == '!' || r == '?' || r == ';' || r == ':'
	})
	if len(w) == 0 || len(w) > 8 {
		return false
	}
	for _, x := range w {
		if !set[x] {
			return false
		}
	}
	return true
}

func hasAny(s string, set map[string]bool) bool {
	for _, x := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '!' || r == '?' }) {
		if set[x] {
			return true
		}
	}
	return false
}

// geneIDsIn lists the strong gene ids of a message (PF3D7_…, old ids), not
// symbols, which are too like ordinary words for a question.
func geneIDsIn(text string) []string {
	var ids []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == ',' || r == '?' || r == '!' || r == ';' || r == ':' || r == '(' || r == ')'
	}) {
		w = strings.TrimSuffix(strings.Trim(w, `"'`), ".")
		if strongIDRE.MatchString(w) {
			ids = append(ids, strings.ToUpper(w))
		}
	}
	return ids
}

// goPhraseQuestionRE reads "what is X in GO terms", "what does the GO term
// X mean (in the Gene Ontology)", "define X".
var goPhraseQuestionRE = regexp.MustCompile(`(?i)^\s*(?:what\s+(?:is|are|does)|what's|define|explain(?:\s+what)?)\s+(?:the\s+)?(?:(?:go\s+)?term\s+)?(.+?)\s*` +
	`(?:(?:mean|means|stand\s+for|refer\s+to)(?:\s+in\s+(?:the\s+)?(?:go|gene\s+ontology)(?:\s+terms)?)?|in\s+(?:the\s+)?(?:go|gene\s+ontology)(?:\s+terms)?)\s*\??\s*$`)

// isGOTermRE reads "Is X a GO term? Which one?".
var isGOTermRE = regexp.MustCompile(`(?i)^\s*is\s+(?:there\s+a\s+go\s+term\s+(?:for|called|named)\s+(.+?)|(.+?)\s+a\s+go\s+(?:term|process|id))\s*\?`)

// goDefinitionRE reads a question for a term's definition: "what's the GO
// definition of organelle fission?", "how does GO define X?", "GO
// definition for X".
var goDefinitionRE = regexp.MustCompile(`(?i)^\s*(?:(?:what\s+is|what's|whats|give\s+me|show\s+me|tell\s+me)\s+)?(?:the\s+)?(?:go|gene\s+ontology)(?:'s)?\s+definition\s+(?:of|for)\s+(.+?)\s*[?.!]*\s*$` +
	`|^\s*how\s+(?:does|do)\s+(?:the\s+)?(?:go|gene\s+ontology)\s+define\s+(.+?)\s*[?.!]*\s*$` +
	`|^\s*(?:(?:can|could|would|will)\s+you\s+|please\s+)?(?:define|explain|describe)\s+(?:the\s+|a\s+)?(?:go|gene\s+ontology)\s+(?:term|process)\s+(.+?)\s*(?:for\s+me|please)?\s*[?.!]*\s*$` +
	// "define heterocycle biosynthetic process for me", "explain the
	// meaning of X"
	`|^\s*(?:(?:can|could|would|will)\s+you\s+|please\s+)?(?:define|explain\s+the\s+meaning\s+of)\s+(?:the\s+|a\s+)?(.+?)\s*(?:for\s+me|please)?\s*[?.!]*\s*$` +
	// "what's the GO id for regulation of biological quality?"
	`|^\s*(?:(?:what\s+is|what's|whats|give\s+me|tell\s+me|which\s+is)\s+)?(?:the\s+)?(?:go|gene\s+ontology)\s+(?:term\s+)?(?:id|identifier|accession|number|code)\s+(?:of|for)\s+(?:the\s+)?(.+?)\s*[?.!]*\s*$` +
	// "what is meant by the GO term 'pH reduction'?"
	`|^\s*(?:what\s+is|what's|whats)\s+meant\s+by\s+(?:the\s+)?(?:(?:go|gene\s+ontology)\s+)?(?:term\s+|process\s+)?(.+?)\s*[?.!]*\s*$`)

// goPhraseQuestion reads a question about a GO term by name.
func goPhraseQuestion(text string) (string, bool) {
	m := goPhraseQuestionRE.FindStringSubmatch(text)
	if m == nil {
		if d := goDefinitionRE.FindStringSubmatch(text); d != nil {
			m = []string{d[0], d[1] + d[2] + d[3] + d[4] + d[5] + d[6]}
		} else if d := isGOTermRE.FindStringSubmatch(text); d != nil {
			m = []string{d[0], d[1] + d[2]}
		}
	}
	if m == nil {
		return "", false
	}
	subject := strings.Trim(strings.TrimSpace(m[1]), `"'`)
	if subject == "" || searchWordsRE.MatchString(subject) || len(strings.Fields(subject)) > 8 {
		return "", false
	}
	return subject, true
}

// searchSubject is what a question about searches asks them to find: the
// words after "find genes by", "for", "about".
func searchSubject(text string) string {
	low := strings.ToLower(text)
	for _, cue := range []string{" genes by ", " by ", " for ", " about ", " on "} {
		if i := strings.LastIndex(low, cue); i >= 0 {
			return strings.Trim(strings.TrimSpace(text[i+len(cue):]), "?.!")
		}
	}
	return strings.Trim(text, "?.!")
}

// keyboardRows are the letter rows of a QWERTY keyboard: a word typed
// along one row ("asdf", "qwerty") is a test, not a search.
var keyboardRows = []string{"qwertyuiop", "asdfghjkl", "zxcvbnm"}

// gibberish reports whether every word of s is typed along one keyboard
// row or has no vowel: keys pressed, not words.
func gibberish(s string) bool {
	words := strings.Fields(s)
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		w = strings.Trim(w, ".,!?")
		if len(w) < 3 {
			return false
		}
		row := false
		for _, r := range keyboardRows {
			if strings.Trim(w, r) == "" {
				row = true
			}
		}
		if !row && strings.ContainsAny(w, "aeiouy") {
			return false
		}
	}
	return true
}

// terseGeneAskRE reads the short ways a gene is asked about: "PF3D7_… =
// ?", "pf3d7_… product?", "What protein is it?".
var terseGeneAskRE = regexp.MustCompile(`(?i)=\s*\?|\bproducts?\s*\?|\bwhat\s+(?:protein|gene|product)\s+is\s+(?:it|this|that)\b`)

// geneIDOfRE asks for the id of a gene named by its symbol or product:
// "gene ID of myosin A?", "KAHRP - gene id?", "what's the gene id for
// CSP".
var geneIDOfRE = regexp.MustCompile(`(?i)^\s*(?:(?:what\s+is|what's|whats|give\s+me|tell\s+me)\s+)?(?:the\s+)?(?:gene\s+id|locus\s+tag|id)\s+(?:of|for)\s+(?:the\s+)?(.{2,40}?)\s*[?.!]*\s*$` +
	`|^\s*(\S{2,20}?)\s*(?:[-–—:,]\s*)?(?:(?:what'?s|what\s+is|which|what)\s+)?(?:its\s+|the\s+)?(?:gene\s+id|locus\s+tag)\s*[?.!]*\s*$` +
	// "which gene id belongs to T-complex protein 1 subunit alpha?",
	// "which gene codes for haem oxygenase? I need its id".
	`|^\s*(?:which|what)\s+(?:gene(?:\s+id)?|locus(?:\s+tag)?|id)\s+(?:belongs\s+to|codes\s+for|encodes|makes|is)\s+(?:the\s+|an?\s+)?(.{2,60}?)\s*[?.!]*(?:\s*(?:i\s+need|give\s+me|what'?s)\s+(?:its|the)\s+(?:gene\s+)?id\s*[?.!]*)?\s*$`)

// relationRE opens what a gene does or where it is, not its name: "which
// gene is involved in DNA repair" asks for a search.
var relationRE = regexp.MustCompile(`(?i)^\s*(?:involved|annotated|located|found|part|associated|linked|related|responsible|required|needed|used|expressed|encoded|known|on|in|at|near|from|there|the\s+one)\b`)

// symbolQuestionRE reads a question about a gene by its symbol: "Which
// gene is AP2-G?", "what does the MSP1 gene do?".
var symbolQuestionRE = regexp.MustCompile(`(?i)^\s*(?:(?:which|what)\s+gene\s+(?:is|encodes|has\s+the\s+(?:symbol|name|gene\s+name))\s+(?:called\s+|named\s+)?(\S+?)` +
	`|(?:what\s+(?:is|does)|tell\s+me\s+about|describe)\s+(?:the\s+)?(\S+?)\s+gene(?:\s+do)?|what\s+is\s+(\S+?))\s*[?.!]*\s*$`)

// symbolQuestion reads such a question when the word asked about is
// written as a symbol is (a capital letter with a digit or a hyphen, or
// capitals only: "AP2-G", "MSP1", "KAHRP"), not an ordinary word.
func symbolQuestion(text string) (string, bool) {
	m := symbolQuestionRE.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	w := strings.Trim(m[1]+m[2]+m[3], `"'`)
	upper, digitOrHyphen, lower := false, false, false
	for _, r := range w {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9', r == '-':
			digitOrHyphen = true
		case r >= 'a' && r <= 'z':
			lower = true
		}
	}
	if m[3] != "" {
		// "what is kelch13?": one word of letters and digits, as symbols
		// are written and words are not.
		return w, len(w) >= 3 && (lower || upper) && digitOrHyphen && !goIDInRE.MatchString(w) && !isNumeric(w)
	}
	return w, len(w) >= 2 && upper && (digitOrHyphen || !lower)
}
