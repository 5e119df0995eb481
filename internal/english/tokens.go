package english

import (
	"regexp"
	"strconv"
	"strings"
)

// token is one word of a request, or a list comma.
type token struct {
	text  string // as written
	low   string
	comma bool
	// quoted words come from a phrase in double quotes: never a
	// connective, never a filler, so "actin polymerization or
	// depolymerization" stays one clause.
	quoted bool
}

// tokenize splits a request into words and commas. Brackets are dropped;
// a phrase in double quotes keeps its words together; sentence
// punctuation is taken off words but kept inside ids (GO:0006260,
// MAL1P4.01) and in abbreviations ("P.").
func tokenize(s string) []token {
	// "chromosome 13's" at the end is chromosome 13 too.
	s = strings.NewReplacer("(", " ", ")", " ", "[", " ", "]", " ", "“", "\"", "”", "\"", "'s ", " ", "’s ", " ").Replace(s + " ")
	var out []token
	for i, part := range strings.Split(s, "\"") {
		quoted := i%2 == 1
		words := splitWords(part)
		if quoted {
			// A comma inside quotes is the phrase's own ("transport,
			// against electrochemical gradient"): it stays on its word.
			words = quotedWords(part)
		}
		for _, t := range words {
			t.quoted = quoted && !t.comma
			// "genes coding for tRNAs" is "genes encoding tRNAs".
			if n := len(out); n > 0 && !t.quoted && t.low == "for" && (out[n-1].low == "code" || out[n-1].low == "codes" || out[n-1].low == "coding") {
				out[n-1] = token{text: "encoding", low: "encoding"}
				continue
			}
			// "GO 0006412" is the GO id GO:0006412.
			if n := len(out); n > 0 && !t.quoted && out[n-1].low == "go" && sevenDigitsRE.MatchString(t.text) {
				out[n-1] = token{text: "GO:" + t.text, low: "go:" + t.text}
				continue
			}
			out = append(out, t)
		}
	}
	return out
}

var sevenDigitsRE = regexp.MustCompile(`^\d{7}$`)

// quotedWords splits a quoted phrase into its words, each with the
// punctuation inside the phrase kept; only a comma that ends the phrase is
// one of its own.
func quotedWords(s string) []token {
	var out []token
	fields := strings.Fields(s)
	for i, f := range fields {
		if i == len(fields)-1 {
			return append(out, splitWords(f)...)
		}
		out = append(out, token{text: f, low: strings.ToLower(f)})
	}
	return out
}

// splitWords splits text into words and commas.
func splitWords(s string) []token {
	var out []token
	for _, f := range strings.Fields(s) {
		trail := 0
		for len(f) > 0 && strings.ContainsAny(f[len(f)-1:], ",;") {
			f = f[:len(f)-1]
			trail++
		}
		// A colon ends a heading ("On the apicoplast: tRNA genes"), as a
		// comma would; inside an id (GO:0006260) it stays.
		if strings.HasSuffix(f, ":") {
			f = f[:len(f)-1]
			trail++
		}
		f = strings.TrimLeft(f, ",;:!?")
		if !abbrevRE.MatchString(f) {
			f = strings.TrimRight(f, ".:!?")
		}
		for len(f) > 0 && strings.ContainsAny(f[len(f)-1:], ",;") {
			f = f[:len(f)-1]
			trail++
		}
		if strings.Trim(f, "-‐‑–—") == "" && f != "" {
			// A dash standing alone ("protein folding — not proteolysis")
			// separates as a comma does.
			f, trail = "", trail+1
		}
		if f != "" {
			out = append(out, token{text: f, low: strings.ToLower(f)})
		}
		if trail > 0 {
			out = append(out, token{text: ",", low: ",", comma: true})
		}
	}
	return out
}

// abbrevRE matches abbreviations whose dot belongs to them: "P.", "T.".
var abbrevRE = regexp.MustCompile(`^[A-Za-z]\.$`)

// takeOrganism removes the organism's name from the words and returns it
// as written: "P. falciparum", "P.falciparum", "Plasmodium falciparum
// 3D7", "falciparum", "Pf3D7", any "<genus or its initial> <species>" of
// the parasites VEuPathDB serves, and a host ("human", "mouse") named
// right before "genes". Whether the catalog has that organism is for the
// catalog to say.
func takeOrganism(toks []token) ([]token, string) {
	var out []token
	var found []string
	for i := 0; i < len(toks); i++ {
		n := organismAt(toks, i)
		if n == 0 {
			out = append(out, toks[i])
			continue
		}
		words := []string{}
		for _, w := range toks[i : i+n] {
			words = append(words, w.text)
		}
		if n == 1 && toks[i].text == "Pf" {
			words = []string{"P. falciparum"}
		}
		if i+n < len(toks) && toks[i+n].low == "strain" {
			n++
		}
		if i+n < len(toks) && strainRE.MatchString(toks[i+n].text) && !toks[i+n].quoted {
			words = append(words, toks[i+n].text)
			n++
			if i+n < len(toks) && (toks[i+n].low == "strain" || toks[i+n].low == "isolate" || toks[i+n].low == "line") {
				n++ // "(3D7 strain)"
			}
		}
		found = append(found, strings.Join(words, " "))
		i += n - 1
	}
	if len(found) == 0 {
		return toks, ""
	}
	// Of several organisms, the one that is not P. falciparum is named, so
	// that a second organism is refused rather than dropped.
	for _, f := range found {
		if l := strings.ToLower(f); !strings.Contains(l, "falciparum") && !strings.Contains(l, "3d7") && !strings.Contains(l, "pf3d7") {
			return out, f
		}
	}
	return out, found[0]
}

// latinEndings end species epithets (fumigatus, gambiae, aegypti, parvum,
// sapiens, braziliensis); other endings are too like English words.
var latinEndings = []string{"us", "um", "ae", "ii", "i", "ensis", "iens", "ens", "ata", "atum"}

// notGenus are capitalised words that start requests, not genus names.
var notGenus = WordSet(`find show give list get which what genes gene please search look build also only now the all any some
	are is how can could would return retrieve display fetch tell include exclude remove add keep drop use take select
	and or but not with without for from in on of to my our their these those this that`)

// notSpecies are English words with a Latin ending.
var notSpecies = WordSet(`plus minus thus status versus focus nucleus virus minimum maximum medium spectrum apparatus genus
	census corpus bonus campus consensus stimulus stimuli cilium cilia flagellum cytoplasm sporozoites merozoites`)

// binomial reports whether a capitalised word and a lower-case word with
// a Latin ending read as a genus and a species, however rare the genus.
func binomial(genus token, species string, lowerAsWritten bool) bool {
	g := genus.text
	if genus.quoted || len(g) < 4 || g[0] < 'A' || g[0] > 'Z' || g[1:] != strings.ToLower(g[1:]) || notGenus[genus.low] ||
		!lowerAsWritten || len(species) < 5 || !isSpecies(species) || notSpecies[species] || strings.HasSuffix(species, "sis") {
		return false
	}
	for _, r := range genus.low {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	for _, e := range latinEndings {
		if strings.HasSuffix(species, e) {
			return true
		}
	}
	return false
}

// organismAt returns how many words at toks[i] name an organism, or 0.
func organismAt(toks []token, i int) int {
	t := toks[i]
	next := func(k int) string {
		if i+k < len(toks) && !toks[i+k].quoted {
			return toks[i+k].low
		}
		return ""
	}
	switch {
	case t.quoted:
		return 0
	case (genera[t.low] || genusInitialRE.MatchString(t.low)) && isSpecies(next(1)):
		return 2
	case t.low == "plasmodium":
		return 1
	case binomial(t, next(1), i+1 < len(toks) && toks[i+1].text == toks[i+1].low):
		return 2 // any "Genus species": Aspergillus fumigatus, Anopheles gambiae
	case len(t.low) > 3 && genusInitialRE.MatchString(t.low[:2]) && isSpecies(t.low[2:]):
		return 1 // "P.falciparum"
	case t.low == "falciparum" || t.low == "pf3d7" || t.low == "pfalciparum" || t.low == "3d7" || knownSpecies[t.low]:
		return 1
	case hosts[t.low] && (next(1) == "genes" || next(1) == "gene"):
		return 1
	case t.text == "Pf" && (next(1) == "genes" || next(1) == "gene" || next(1) == "proteins"):
		return 1 // "Pf genes": the usual shorthand for P. falciparum
	case t.low == "malaria" && (next(1) == "parasite" || next(1) == "parasites"):
		return 2
	}
	return 0
}

// strainRE matches a strain name after a species: 3D7, Dd2, HB3, 7G8, IT.
var strainRE = regexp.MustCompile(`^(3D7|3d7|Dd2|DD2|HB3|7G8|IT|K1|NF54|W2|FCR3|GB4|D10|V1/S|HB3B|IT4|[A-Z0-9]{2,5}\d)$`)

// genusInitialRE matches an abbreviated genus: "P.", "T.".
var genusInitialRE = regexp.MustCompile(`^[a-z]\.$`)

// genera are the genera of VEuPathDB's organisms a researcher is likely to
// name in full.
var genera = WordSet(`plasmodium toxoplasma cryptosporidium leishmania trypanosoma giardia babesia theileria
	neospora eimeria entamoeba trichomonas cyclospora sarcocystis`)

// knownSpecies are species epithets that name an organism on their own.
var knownSpecies = WordSet("vivax berghei yoelii knowlesi chabaudi malariae ovale gondii")

// hosts are organisms named by a common name.
var hosts = WordSet("human humans mouse murine yeast")

// fillers are words that say nothing about which genes: request verbs,
// articles, "genes", and the prepositions around a clause. They are only
// taken off the ends of a clause, never out of its middle. Read-only.
var fillers = WordSet(`find show me list get give return retrieve search look looking for i i'm im we want
		need would like to please can could you which what who whose that those these them they all any every
		everything anything whatever same each the a an some genes gene ones one ids id identifiers is are be were was being
		involved involvement participating participate participates playing play role roles part
		related relating associated annotated annotation annotations as with having have has
		functioning function functions located lying found sitting situated positioned placed on in from of within at
		both either also only just too encoded by whose products there here then now so those ones overlaps overlapping afterwards besides members entire
		see like i'd let us interested obtain fetch identify display tell how many much total altogether overall fraction proportion percentage percent do does help
		hi hello hey thanks okay ok kindly build create construct make run query strategy start take
		lie lies sit sits sitting reside resides residing actually about encode encodes encoding am love set
		up pull out generate produce finds finding returns returning gives lists listing collect gather compile
		extract select choose tied doing takes took handle handles handling perform performs performing mediate mediates mediating responsible undertake undertakes drive drives driving contribute contributes contributing catalyse catalyses catalyze catalyzes conduct conducts deal deals suggest propose recommend comprehensive complete full broad exhaustive thorough mapped mapping assigned known thought predicted putative
		trying try tried possible it curious idea appreciate bring wondering wonder hoping hope able mind kind
		thank you much cheers lot genome-wide genomewide strain isolate reference my our your analysis analyses thesis paper project study studies research
		work experiment lab plasmodb veupathdb database db site parasite parasites anyway anyhow regardless though however after their its linked connected carry carries carrying making`)

// trailingFillers are the fillers also taken off a clause's end. Read-only.
var trailingFillers = WordSet(`genes gene ones please only too also ids id identifiers there here as well
	of in on from the a an that which are is with for but then now and so those me us thanks thank you much
	if possible my our analysis thesis paper project study research work plasmodb veupathdb database db lot
	found located situated lie lies lying sit sits sitting reside resides residing encoded parasite parasites anyway anyhow regardless function functions role roles though however alone
	strategy strategies search searches query queries members member afterwards besides first annotation annotations
	genome-wide genomewide strain isolate reference it them likewise`)

func WordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// strip takes filler words off both ends of a clause.
func strip(words []token) []token {
	for len(words) > 0 && !words[0].quoted && (fillers[words[0].low] || words[0].comma) && !geneCompound(words) {
		words = words[1:]
	}
	for len(words) > 0 && !words[len(words)-1].quoted && (trailingFillers[words[len(words)-1].low] || words[len(words)-1].comma) {
		words = words[:len(words)-1]
	}
	return words
}

// hasContent reports whether any word of the request is not a filler.
func hasContent(toks []token) bool {
	for _, t := range toks {
		if !t.comma && !fillers[t.low] && !connectiveWords[t.low] {
			return true
		}
	}
	return false
}

func mentionsGenes(toks []token) bool {
	for _, t := range toks {
		if t.low == "genes" || t.low == "gene" || t.low == "all" || t.low == "everything" {
			return true
		}
	}
	return false
}

func join(words []token) string {
	s := make([]string, len(words))
	for i, w := range words {
		s[i] = w.text
	}
	return strings.Join(s, " ")
}

// isSpecies reports whether w can be a species epithet after a genus or
// its initial: a lower-case word that is not a filler ("P. genes" is not
// one).
func isSpecies(w string) bool {
	if len(w) < 4 || fillers[w] || connectiveWords[w] {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// boundWords follow "N or" in a bound: "3 or more".
var boundWords = WordSet("more greater higher larger above over fewer less lower smaller below under")

// isNumeric reports whether w is a number ("10", "2.5").
func isNumeric(w string) bool {
	_, err := strconv.ParseFloat(w, 64)
	return err == nil
}
