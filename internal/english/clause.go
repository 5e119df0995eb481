package english

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// parseClause reads the words between two connectives: a GO id, a
// location, a list of gene ids, a phrase with a qualifier (intersected), or
// a term to look up. It returns nil for a clause of fillers only.
func parseClause(words []token) *Node {
	if c := listClause(words); c != nil {
		return &Node{Clause: c}
	}
	w := strip(words)
	if len(w) == 0 {
		return nil
	}
	if !slices.ContainsFunc(w, func(t token) bool { return !t.quoted }) {
		// A quoted phrase is one term, as written.
		text := join(w)
		return &Node{Clause: &Clause{Text: text, Kind: KindTerm, Variants: termVariants(text)}}
	}
	if c := goIDClause(w); c != nil {
		return &Node{Clause: c}
	}
	if c := locationClause(w); c != nil {
		return &Node{Clause: c}
	}
	if c := geneIDClause(w); c != nil {
		return &Node{Clause: c}
	}
	if n := leadingLocation(w); n != nil {
		return n
	}
	// A location at the end qualifies the rest: "DNA repair genes on
	// chromosome 5".
	for k := 1; k < len(w); k++ {
		if !fillers[w[k].low] && !isLocationWord(w[k].low) {
			continue
		}
		loc := locationClause(strip(w[k:]))
		head := strip(w[:k])
		if loc == nil || len(head) == 0 || towardsOrganelle(w, k, loc) {
			continue
		}
		if h := parseClause(head); h != nil {
			return &Node{Op: OpIntersect, Left: h, Right: &Node{Clause: loc}}
		}
	}
	// "proteins involved in Y", "gene products that take part in Y": the
	// words name the genes of Y, as "genes involved in Y" does.
	if len(w) > 2 && !w[0].quoted && (w[0].low == "proteins" || w[0].low == "products") && qualifierLeads[w[1].low] {
		return parseClause(w[1:])
	}
	// "X genes that/involved in/with Y": X qualifies Y.
	for i := 1; i+1 < len(w); i++ {
		if w[i].low != "genes" && w[i].low != "proteins" || !fillers[w[i+1].low] {
			continue
		}
		head, tail := strip(w[:i]), strip(w[i+1:])
		if len(head) == 0 || len(tail) == 0 {
			continue
		}
		h, t := parseClause(head), parseClause(tail)
		if h != nil && t != nil {
			return &Node{Op: OpIntersect, Left: h, Right: t}
		}
	}
	text := join(w)
	if m := literalRE.FindStringSubmatch(text); m != nil {
		return &Node{Clause: &Clause{Text: m[1], Kind: KindTerm, Variants: termVariants(m[1]), Literal: true}}
	}
	return &Node{Clause: &Clause{Text: text, Kind: KindTerm, Variants: termVariants(text)}}
}

// towardsOrganelle reports whether the organelle a clause ends with is
// where a process goes, not where genes lie: "protein targeting to
// mitochondrion", "transport into the apicoplast" name a process.
func towardsOrganelle(w []token, k int, loc *Clause) bool {
	if loc.Location != "apicoplast" && loc.Location != "mitochondrion" {
		return false
	}
	j := k
	for j < len(w) && fillers[w[j].low] {
		j++
	}
	for j > 0 && (w[j-1].low == "the" || w[j-1].low == "a") {
		j--
	}
	if j == 0 {
		return false
	}
	before := w[j-1].low
	return before == "to" || before == "into" || before == "towards" || before == "toward" || before == "across"
}

// qualifierLeads open what a set of genes or proteins is qualified by:
// "proteins involved in …", "proteins that …".
var qualifierLeads = WordSet("involved that which participating participate with taking acting functioning playing having whose implicated engaged required needed")

// literalRE reads a term the researcher asks to find in the annotation
// text as written: "text search for kinases", "full-text search for
// rhoptry", "keyword search 'dynein'", "description mentions
// aminopeptidase".
var literalRE = regexp.MustCompile(`(?i)^(?:(?:full[- ]?)?(?:text|key[- ]?word|word)[- ]search(?:es)?(?:\s+(?:for|of|on|with))?|` +
	`(?:(?:whose\s+)?(?:product\s+)?(?:descriptions?|annotations?|names?)\s+(?:contains?|containing|includes?|including)|(?:whose\s+)?(?:product\s+)?` +
	`(?:(?:descriptions?|annotations?|names?)\s+)?(?:mentions?|mentioning|says|saying))` +
	`(?:\s+the\s+(?:word|term|phrase))?)(?:\s+(?:the|a|an))?\s+['"‘“]?(.+?)['"’”]?$`)

// leadingLocation reads a clause that starts with a location: "chr5 tRNA
// genes", "Pf3D7_05_v3 tRNA genes", and an organelle before a gene type
// ("mitochondrial rRNA genes"; "mitochondrial translation" stays a term,
// since GO names processes so).
func leadingLocation(w []token) *Node {
	for k := 1; k <= 2 && k < len(w); k++ {
		loc := locationClause(w[:k])
		rest := strip(w[k:])
		if loc == nil || len(rest) == 0 {
			continue
		}
		organelle := loc.Location == "apicoplast" || loc.Location == "mitochondrion"
		if _, typ := GeneTypeName(join(rest)); organelle && !typ {
			continue // "apicoplast genome tRNA genes": the genome's words first
		}
		if r := parseClause(rest); r != nil {
			return &Node{Op: OpIntersect, Left: &Node{Clause: loc}, Right: r}
		}
	}
	return nil
}

// goIDRE reads a GO id, its leading zeros left out too when the colon
// is written ("GO:6511" is GO:0006511).
var goIDRE = regexp.MustCompile(`(?i)^GO:?(\d{7})$|^GO:(\d{4,6})$`)

// listOfIDs reports whether the GO ids of words are written as one list:
// nothing but list separators between the first id and the last.
func listOfIDs(w []token) bool {
	first, last := -1, -1
	for i, t := range w {
		if goIDRE.MatchString(t.text) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for _, t := range w[first+1 : last] {
		if !goIDRE.MatchString(t.text) && !t.comma && !idListWords[t.low] {
			return false
		}
	}
	return true
}

// idListWords join the ids of one list: "GO:A and GO:B", "GO:A merged
// with GO:B" (a GO step of several ids finds the genes of any).
var idListWords = WordSet("and or and/or & plus merged combined pooled joined together along with")

// goIDClause reads GO ids ("GO:0006260"); other words beside them are
// noted as not used.
func goIDClause(w []token) *Clause {
	var ids, rest []string
	for _, t := range w {
		if m := goIDRE.FindStringSubmatch(t.text); m != nil {
			n := m[1] + m[2]
			ids = append(ids, "GO:"+strings.Repeat("0", 7-len(n))+n)
		} else if !t.comma && !connectiveWords[t.low] && !fillers[t.low] {
			rest = append(rest, t.text)
		}
	}
	// "GO:A members that are also in GO:B" says how the two relate: the
	// grammar reads it, not one step of both ids.
	if len(ids) > 1 && !listOfIDs(w) {
		return nil
	}
	// "chr. 12 GO:0009100": a place beside the id qualifies it, read by
	// the location rules of parseClause.
	if len(ids) == 0 || slices.ContainsFunc(w, func(t token) bool { return !t.quoted && isLocationWord(strings.TrimSuffix(t.low, ".")) }) {
		return nil
	}
	c := &Clause{Text: join(w), Kind: KindGOID, IDs: ids, Variants: ids}
	if len(rest) > 0 {
		c.Notes = append(c.Notes, "I used the GO id "+strings.Join(ids, ", ")+" and not the words "+Quote(strings.Join(rest, " ")))
	}
	return c
}

// chromosomeWords are the ways of writing "chromosome".
var chromosomeWords = WordSet("chromosome chromosomes chr chr. chrom chrom.")

var (
	chrTokenRE   = regexp.MustCompile(`(?i)^chr(?:om|omosome)?[_-]?(\d{1,2})$`)
	sequenceIDRE = regexp.MustCompile(`(?i)^(pf3d7_\d\d_v3|pfc10_api_irab|m76611)$`)
)

// organelleAbbrev reads the short names of the organelle genomes, as
// PlasmoDB writes them in gene ids and sequence names (API, MIT).
var organelleAbbrev = map[string]string{
	"api": "apicoplast", "plastid": "apicoplast", "mit": "mitochondrion", "mito": "mitochondrion", "mtdna": "mitochondrion",
}

// isLocationWord reports whether a word can start a location phrase.
// NamesPlace reports whether a word (lower case) names or numbers a place:
// a chromosome word, a sequence id, an organelle, a number (numbered is
// false: a chromosome word, a sequence id or an organelle only).
func NamesPlace(w string, numbered bool) bool {
	return isLocationWord(w) || numbered && (isNumberWord(w) || strings.ContainsAny(w, "0123456789"))
}

func isLocationWord(w string) bool {
	return chromosomeWords[w] || chrTokenRE.MatchString(w) || sequenceIDRE.MatchString(w) ||
		strings.HasPrefix(w, "apicoplast") || strings.HasPrefix(w, "mitochondri") || organelleAbbrev[w] != ""
}

// locationClause reads a whole clause as a location: "chromosome 14",
// "chr14", "chromosome XIV", "the apicoplast", "mitochondrial genome",
// "Pf3D7_14_v3". A misspelt "chromosome" is read when it is one or two
// edits away, and said so.
func locationClause(w []token) *Clause {
	if len(w) == 0 || slices.ContainsFunc(w, func(t token) bool { return t.quoted }) {
		return nil // a quoted phrase is a term
	}
	text := join(w)
	// "the MIT chromosome", "chromosome 5" written backwards.
	if len(w) == 2 && chromosomeWords[w[1].low] && (organelleAbbrev[w[0].low] != "" || isNumberWord(w[0].low)) {
		w = []token{w[1], w[0]}
	}
	first := w[0].low
	rest := w[1:]
	// A trailing "genome", "DNA" or "sequence" adds nothing.
	for len(rest) > 0 && (rest[len(rest)-1].low == "genome" || rest[len(rest)-1].low == "genomes" || rest[len(rest)-1].low == "dna" || rest[len(rest)-1].low == "sequence") {
		rest = rest[:len(rest)-1]
	}
	if o := organelleAbbrev[first]; o != "" && len(rest) == 0 {
		return &Clause{Text: text, Kind: KindLocation, Location: o}
	}
	if o := organelleAbbrev[strings.ToLower(join(rest))]; o != "" && len(rest) == 1 && chromosomeWords[first] {
		return &Clause{Text: text, Kind: KindLocation, Location: o}
	}
	loc := func(l string, notes ...string) *Clause {
		return &Clause{Text: text, Kind: KindLocation, Location: l, Notes: notes}
	}
	switch {
	case len(w) == 1 && chrTokenRE.MatchString(first):
		n, _ := strconv.Atoi(chrTokenRE.FindStringSubmatch(first)[1])
		return loc(strconv.Itoa(n))
	case len(w) == 1 && sequenceIDRE.MatchString(first):
		return loc(w[0].text)
	case len(rest) == 0 && (strings.HasPrefix(first, "apicoplast") || Distance(first, "apicoplast") <= 2):
		return loc("apicoplast", typoNote(w[0].text, "apicoplast")...)
	case len(rest) == 0 && (strings.HasPrefix(first, "mitochondri") || Distance(first, "mitochondrion") <= 2 || Distance(first, "mitochondrial") <= 2):
		return loc("mitochondrion", typoNote(w[0].text, "mitochondrion", "mitochondrial", "mitochondria")...)
	}
	if len(rest) != 1 || !isNumberWord(rest[0].low) {
		return nil
	}
	n, _ := chromosomeNumber(rest[0].low)
	switch {
	case chromosomeWords[first]:
		return loc(strconv.Itoa(n))
	case len(first) >= 7 && (Distance(first, "chromosome") <= 2 || Distance(first, "chromosomes") <= 2):
		return loc(strconv.Itoa(n), "I read "+Quote(w[0].text)+" as 'chromosome'")
	}
	return nil
}

// typoNote says how a misspelt word was read, or nothing when it was
// spelt as (a prefix of) one of the forms.
func typoNote(written string, forms ...string) []string {
	lw := strings.ToLower(written)
	for _, f := range forms {
		if strings.HasPrefix(lw, f) || strings.HasPrefix(f, lw) && len(lw) >= 8 {
			return nil
		}
	}
	return []string{"I read " + Quote(written) + " as " + Quote(forms[0])}
}

// isNumberWord reports whether w is a chromosome number: digits, a Roman
// numeral or a number word.
func isNumberWord(w string) bool {
	_, ok := chromosomeNumber(strings.ToLower(w))
	return ok
}

func chromosomeNumber(w string) (int, bool) {
	if n, err := strconv.Atoi(w); err == nil && n > 0 && n < 100 {
		return n, true
	}
	if n, ok := romanNumerals[w]; ok {
		return n, true
	}
	n, ok := numberWords[w]
	return n, ok
}

// isSequenceID reports whether a location is written as a sequence id
// rather than a chromosome number or an organelle.
func isSequenceID(loc string) bool {
	return sequenceIDRE.MatchString(loc)
}

var (
	// strongIDRE matches P. falciparum gene ids: current (PF3D7_1133400,
	// with a transcript suffix), and the retired forms (PF11_0344,
	// MAL13P1.56, PFI1475w).
	strongIDRE = regexp.MustCompile(`(?i)^(PF3D7_\d{7}(\.\d+)?|PF\d{2}_\d{4}[a-z]?|MAL\d{1,2}P\d\.\d+[a-z]?|PF[A-Z]\d{4}[wc])$`)
	// symbolRE matches gene symbols: letters and digits with at least one
	// digit (AMA1, MSP1, PfEMP1, K13).
	symbolRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{1,11}$`)
)

// isGeneID reports whether a word looks like a gene id or a gene symbol.
func isGeneID(w string) bool {
	if strongIDRE.MatchString(w) {
		return true
	}
	if !symbolRE.MatchString(w) || goIDRE.MatchString(w) || strings.EqualFold(w, "3d7") {
		return false
	}
	upper, digits, letters := 0, 0, 0
	for _, r := range w {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'A' && r <= 'Z':
			upper++
			letters++
		default:
			letters++
		}
	}
	return digits > 0 && upper > 0 && letters >= 2
}

// geneIDClause reads a clause made only of gene ids and symbols, joined
// by commas, "and" or "or".
func geneIDClause(w []token) *Clause {
	var ids []string
	for _, t := range w {
		switch {
		case t.comma, t.low == "and", t.low == "or", t.low == "and/or", fillers[t.low]:
		case isGeneID(t.text):
			if !slices.Contains(ids, t.text) {
				ids = append(ids, t.text)
			}
		default:
			return nil
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return &Clause{Text: join(w), Kind: KindGeneIDs, IDs: ids}
}

// describeClause names a clause for people: "DNA repair", "chromosome 14".
func DescribeClause(c *Clause) string {
	switch c.Kind {
	case KindLocation:
		region := ""
		if c.Start != "" {
			region = " from " + c.Start + " to " + c.End + " bp"
		}
		switch {
		case c.Location == "apicoplast":
			return "the apicoplast genome" + region
		case c.Location == "mitochondrion":
			return "the mitochondrial genome" + region
		case isSequenceID(c.Location):
			return c.Location + region
		}
		return "chromosome " + c.Location + region
	case KindGeneIDs:
		return "genes " + strings.Join(c.IDs, ", ")
	case KindGOID:
		return strings.Join(c.IDs, ", ")
	case KindTaxon:
		return "all genes"
	case KindList:
		return "your list " + Quote(c.Text)
	}
	return c.Text // a term, or a reused step's name
}

// Describe renders the tree for people, with parentheses where the
// grouping matters: "(DNA replication or DNA repair) excluding chromosome
// 14".
func (n *Node) Describe() string {
	if n == nil {
		return ""
	}
	if n.Clause != nil {
		return DescribeClause(n.Clause)
	}
	side := func(c *Node) string {
		if c.Clause != nil || c.Op == n.Op && c == n.Left {
			return c.Describe()
		}
		return "(" + c.Describe() + ")"
	}
	return side(n.Left) + " " + n.Op.word() + " " + side(n.Right)
}

// TermClause is a clause for a phrase read as a term, with the phrasings
// to look up (as Parse writes them).
func TermClause(text string) *Clause {
	return &Clause{Text: text, Kind: KindTerm, Variants: termVariants(text)}
}

// listClause reads a clause that names one of the researcher's gene
// lists: "(genes in) my list 'kinase screen'", "my gene list called hits".
// The name is the words after "list" (and "named" or "called"), without
// the quotes around it; nothing but fillers may come before "my" or after
// the name, so "my list X on chromosome 5" is split at the location first.
func listClause(w []token) *Clause {
	for i := 0; i+1 < len(w); i++ {
		if w[i].quoted || (w[i].low != "my" && w[i].low != "our") {
			continue
		}
		j := i + 1
		if w[j].low == "gene" && j+1 < len(w) {
			j++
		}
		if w[j].quoted || w[j].low != "list" {
			return nil
		}
		for _, t := range w[:i] {
			if t.quoted || !fillers[t.low] {
				return nil
			}
		}
		rest := w[j+1:]
		if len(rest) > 0 && !rest[0].quoted && (rest[0].low == "named" || rest[0].low == "called") {
			rest = rest[1:]
		}
		var name []string
		k := 0
		if len(rest) > 0 && rest[0].quoted {
			for k < len(rest) && rest[k].quoted {
				name = append(name, rest[k].text)
				k++
			}
		} else if len(rest) > 0 && (strings.HasPrefix(rest[0].text, "'") || strings.HasPrefix(rest[0].text, "\u2018")) {
			for k < len(rest) {
				name = append(name, rest[k].text)
				k++
				if last := name[len(name)-1]; (strings.HasSuffix(last, "'") || strings.HasSuffix(last, "\u2019")) && (k > 1 || len(rest[0].text) > 1) {
					break
				}
			}
		} else {
			for k < len(rest) && !rest[k].comma && !fillers[rest[k].low] {
				name = append(name, rest[k].text)
				k++
			}
		}
		if len(strip(rest[k:])) > 0 {
			return nil
		}
		text := strings.TrimSpace(strings.Trim(strings.Join(name, " "), "'\u2018\u2019\u201c\u201d\""))
		if text == "" {
			return nil
		}
		return &Clause{Text: text, Kind: KindList}
	}
	return nil
}
