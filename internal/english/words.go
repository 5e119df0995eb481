package english

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Distance is the optimal-string-alignment edit distance between a and b
// (insertions, deletions, substitutions and swaps of neighbours each cost
// one), over runes. A swap counts once because swapped letters ("tRAN" for
// "tRNA") are the commonest typo.
func Distance(a, b string) int {
	return distance([]rune(a), []rune(b), -1)
}

// Near reports whether a and b are at most k edits apart (Distance's
// edits), and how many when they are: the question every reader of a typo
// asks ("is this within TypoTolerance of that name?"), answered without
// comparing letter by letter what cannot be within k. Strings whose lengths
// differ by more than k never are, and the count stops once no alignment
// can come back within k. It matters when a phrase is held against a
// vocabulary of thousands of names.
func Near(a, b string, k int) (int, bool) {
	if k < 0 {
		return 0, false
	}
	if n, m := utf8.RuneCountInString(a), utf8.RuneCountInString(b); n-m > k || m-n > k {
		return 0, false
	}
	d := distance([]rune(a), []rune(b), k)
	return d, d <= k
}

// distance is Distance over runes. With k >= 0 it may stop early, once two
// consecutive rows of the table are all beyond k (no later cell can come
// back within k), and return a count above k that is not the distance.
func distance(ra, rb []rune, k int) int {
	// Three rows: the one before the previous is needed for swaps. Short
	// names, the usual case, fit in buf and allocate nothing.
	var buf [3 * 64]int
	var rows []int
	if n := len(rb) + 1; 3*n <= len(buf) {
		rows = buf[:3*n]
	} else {
		rows = make([]int, 3*n)
	}
	n := len(rb) + 1
	prev2, prev, cur := rows[:n], rows[n:2*n], rows[2*n:]
	for j := range prev {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if k >= 0 && rowMin > k && prevMin > k {
			return rowMin
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// typoTolerance is how many edits a phrase of n letters may be from a
// catalog name and still be read as that name: none for very short words
// (where one edit is another word: rRNA, tRNA), one up to eight letters,
// two beyond.
func TypoTolerance(n int) int {
	switch {
	case n <= 3:
		return 0
	case n <= 8:
		return 1
	default:
		return 2
	}
}

// singular returns the singular of an English word the simple way, which
// is enough for catalog words: kinases -> kinase, processes -> process,
// snoRNAs -> snoRNA, pathways -> pathway, activities -> activity.
func Singular(w string) string {
	lw := strings.ToLower(w)
	switch {
	case len(lw) <= 3:
		return w
	case strings.HasSuffix(lw, "ies") && len(lw) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(lw, "sses"), strings.HasSuffix(lw, "xes"), strings.HasSuffix(lw, "ches"), strings.HasSuffix(lw, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(lw, "ss"), strings.HasSuffix(lw, "us"), strings.HasSuffix(lw, "is"):
		return w
	case strings.HasSuffix(lw, "s"):
		return w[:len(w)-1]
	}
	return w
}

// singularPhrase makes the last word of a phrase singular.
func SingularPhrase(p string) string {
	words := strings.Fields(p)
	if len(words) == 0 {
		return p
	}
	words[len(words)-1] = Singular(words[len(words)-1])
	return strings.Join(words, " ")
}

// GO's own synonyms name most processes as researchers say them
// ("glycolysis", "TCA cycle", "protein synthesis"): the catalog's GO
// vocabulary finds a term by them, so no table of everyday names is kept
// here. What is left is how English forms names GO writes another way.

// hostCells are the cells of the host a researcher names where GO says
// "host" or "host cell" ("erythrocyte invasion" is GO's "host invasion").
var hostCells = []string{"red blood cells", "red blood cell", "erythrocytes", "erythrocyte", "rbcs", "rbc", "hepatocytes",
	"hepatocyte", "liver cells", "liver cell"}

// processForms rewrites "X synthesis", "X metabolism" and the like into the
// GO naming pattern ("X biosynthetic process", "X metabolic process").
var processForms = []struct{ suffix, replacement string }{
	{" biosynthesis", " biosynthetic process"},
	{" synthesis", " biosynthetic process"},
	{" metabolism", " metabolic process"},
	{" catabolism", " catabolic process"},
	{" degradation", " catabolic process"},
}

// synonym returns p in GO's way of naming: "X synthesis" as "X
// biosynthetic process", a host cell as "host".
func synonym(p string) (string, bool) {
	lp := strings.ToLower(p)
	for _, h := range hostCells {
		if i := strings.Index(" "+lp+" ", " "+h+" "); i >= 0 {
			return strings.TrimSpace(p[:i] + "host" + p[i+len(h):]), true
		}
	}
	for _, f := range processForms {
		if strings.HasSuffix(lp, f.suffix) && len(lp) > len(f.suffix) {
			return p[:len(p)-len(f.suffix)] + f.replacement, true
		}
	}
	return "", false
}

// normalize lower-cases s, turns hyphens and underscores into spaces and
// collapses white space, for comparing phrases with catalog names.
func Normalize(s string) string {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == ',' || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// romanNumerals reads chromosome numbers written in Roman numerals, as
// older papers do ("chromosome XIV").
var romanNumerals = map[string]int{
	"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10,
	"xi": 11, "xii": 12, "xiii": 13, "xiv": 14,
}

// numberWords reads chromosome numbers written out ("chromosome five").
var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
}

// quote renders a phrase for messages: 'DNA repair'.
func Quote(s string) string { return "'" + s + "'" }

// geneTypeNames maps the ways researchers name a kind of gene to a short
// name the catalog's gene types are recognised by.
var geneTypeNames = map[string]string{
	"trna": "tRNA", "transfer rna": "tRNA",
	"rrna": "rRNA", "ribosomal rna": "rRNA",
	"snorna": "snoRNA", "small nucleolar rna": "snoRNA",
	"snrna": "snRNA", "small nuclear rna": "snRNA",
	"ncrna": "ncRNA", "non coding rna": "ncRNA", "noncoding rna": "ncRNA", "non coding": "ncRNA",
	"noncoding": "ncRNA", "non protein coding": "ncRNA",
	"protein coding": "protein coding", "coding": "protein coding", "mrna": "protein coding", "protein": "protein coding",
	"pseudogene": "pseudogene",
}

// GeneTypePhrases are the ways of naming the kind of gene whose short
// name is short ("rRNA": "rrna", "ribosomal rna"), normalized, for a
// reader that holds a typo against each.
func GeneTypePhrases(short string) []string {
	var out []string
	for phrase, s := range geneTypeNames {
		if strings.EqualFold(s, short) {
			out = append(out, phrase)
		}
	}
	slices.Sort(out)
	return out
}

// GeneTypeName reads a phrase as the name of a kind of gene ("ribosomal RNA
// genes", "tRNAs", "non-coding"), returning its short name ("rRNA").
func GeneTypeName(phrase string) (string, bool) {
	words := strings.Fields(Normalize(phrase))
	for len(words) > 0 {
		last := words[len(words)-1]
		if last != "gene" && last != "genes" && last != "encoding" && !(last == "coding" && len(words) > 1 && words[len(words)-2] != "protein" && words[len(words)-2] != "non") {
			break
		}
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return "", false
	}
	words[len(words)-1] = strings.ToLower(Singular(words[len(words)-1]))
	name, ok := geneTypeNames[strings.Join(words, " ")]
	return name, ok
}

// American rewrites British spellings word by word, as GO names its terms:
// haemoglobin -> hemoglobin, organisation -> organization, signalling ->
// signaling, catalyse -> catalyze, behaviour -> behavior.
func American(phrase string) string {
	words := strings.Fields(phrase)
	for i, w := range words {
		words[i] = americanWord(w)
	}
	return strings.Join(words, " ")
}

func americanWord(w string) string {
	lw := strings.ToLower(w)
	if lw != w && strings.ToUpper(w) == w {
		return w // an acronym
	}
	if lw == "haem" {
		return "heme"
	}
	for _, r := range britishRewrites {
		if strings.Contains(lw, r.from) && (r.unless == "" || !strings.Contains(lw, r.unless)) {
			lw = strings.Replace(lw, r.from, r.to, 1)
		}
	}
	if lw == strings.ToLower(w) {
		return w
	}
	return lw
}

// britishRewrites are the British spelling patterns GO does not use.
var britishRewrites = []struct{ from, to, unless string }{
	{"haem", "hem", ""},
	{"anaem", "anem", ""},
	{"oedema", "edema", ""},
	{"oestr", "estr", ""},
	{"isation", "ization", ""},
	{"ising", "izing", "promising"},
	{"ised", "ized", ""},
	{"lyse", "lyze", ""},
	{"lysing", "lyzing", ""},
	{"signalling", "signaling", ""},
	{"labelling", "labeling", ""},
	{"modelling", "modeling", ""},
	{"travelling", "traveling", ""},
	{"colour", "color", ""},
	{"behaviour", "behavior", ""},
	{"centre", "center", ""},
	{"fibre", "fiber", ""},
	{"sulph", "sulf", ""},
}

// ContentWords are the words of a phrase that say what it is about: lower
// case, singular, without fillers, connectives and words of one or two
// letters ("genes involved in DNA repair" is dna, repair).
func ContentWords(phrase string) []string {
	var out []string
	for _, w := range strings.Fields(Normalize(phrase)) {
		w = strings.Trim(w, ",;:.!?'\"")
		if len([]rune(w)) < 3 || fillers[w] || connectiveWords[w] {
			continue
		}
		out = append(out, strings.ToLower(Singular(w)))
	}
	return out
}

// geneCompound reports whether words start with "gene" naming a process
// of genes ("gene regulation", "gene silencing", "gene expression"): a
// lower-case word of content after the singular "gene" is part of the
// name, so "gene" is kept.
func geneCompound(words []token) bool {
	if len(words) < 2 || words[0].low != "gene" || words[0].text != "gene" {
		return false
	}
	next := words[1]
	if next.quoted || next.comma || fillers[next.low] || connectiveWords[next.low] || next.text != next.low || isLocationWord(next.low) {
		return false
	}
	for _, r := range next.low {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// termVariants are the phrasings of a term to look up, best first: as
// written, its synonym, its singular, and without a trailing "process" or
// "pathway".
func termVariants(text string) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		for _, o := range out {
			if strings.EqualFold(o, s) {
				return
			}
		}
		out = append(out, s)
	}
	add(text)
	if s, ok := GeneTypeName(text); ok {
		add(s)
	}
	if am := American(text); am != text {
		add(am)
		if s, ok := synonym(am); ok {
			add(s)
		}
		text = am
	}
	if s, ok := synonym(text); ok {
		add(s)
	}
	sg := SingularPhrase(text)
	add(sg)
	if s, ok := synonym(sg); ok {
		add(s)
	}
	for _, suffix := range []string{" process", " pathway"} {
		if base, ok := strings.CutSuffix(strings.ToLower(sg), suffix); ok && base != "" {
			add(sg[:len(base)])
			if suffix == " pathway" {
				add(sg[:len(base)] + " process") // "glycolytic pathway": GO's "glycolytic process"
			}
		}
	}
	// GO names a response "response to X": "oxidative stress response",
	// "responding to heat".
	low := strings.ToLower(sg)
	if base, ok := strings.CutSuffix(low, " response"); ok && base != "" && !strings.HasPrefix(base, "response") {
		add("response to " + sg[:len(base)])
	}
	if base, ok := strings.CutSuffix(low, " regulation"); ok && base != "" && !strings.Contains(base, "regulation") {
		add("regulation of " + sg[:len(base)]) // "cell cycle regulation"
	}
	if strings.ContainsAny(sg, "-–") {
		add(strings.NewReplacer("-", " ", "–", " ").Replace(sg)) // "DNA-repair"
	}
	if bare := articlesRE.ReplaceAllString(sg, " "); bare != sg {
		add(bare) // "protein import into the mitochondrion": GO writes none
	}
	for _, lead := range []string{"responding to ", "responses to ", "respond to ", "responds to "} {
		if rest, ok := strings.CutPrefix(low, lead); ok && rest != "" {
			add("response to " + sg[len(lead):])
		}
	}
	// An adjective alone names the process GO calls "… process":
	// "glycolytic genes" are those of the glycolytic process.
	if !strings.Contains(low, " ") && (strings.HasSuffix(low, "ic") || strings.HasSuffix(low, "tive")) {
		add(sg + " process")
	}
	return out[:min(len(out), maxVariants)]
}

// articlesRE is an article inside a phrase, which GO's names and
// synonyms leave out.
var articlesRE = regexp.MustCompile(`(?i)\s+(?:the|a|an)\s+`)

// maxVariants bounds the phrasings looked up per term (one catalog call
// each).
const maxVariants = 4
