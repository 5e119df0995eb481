package english

import (
	"regexp"
	"strings"
)

// Orthologs is a request about the strategy's genes in another organism:
// to carry them to their orthologs there ("carry these to their orthologs
// in P. vivax P01"), or, with Keep, to keep those of them that have
// orthologs there ("keep only those with syntenic orthologs in P.
// vivax P01").
type Orthologs struct {
	// Organism is the organism as written ("P. vivax P01").
	Organism string
	// Syntenic asks for orthologs in conserved gene order only.
	Syntenic bool
	// Keep keeps the strategy's own genes instead of their orthologs.
	Keep bool
}

// What a request about orthologs is made of: the strategy's genes named
// by a pronoun or a noun, the orthologs (spelled either way), and the
// organism after "in", "from" or "of".
const (
	orthologLead  = `^(?:(?:now|ok|okay|so|then|next|and|please|also|can you|could you|would you|i want to|i'd like to|i would like to|let's|lets)[\s,]+)*`
	orthologGenes = `(?:these|them|those|this|it|that|(?:these|those|the|my|this|our) (?:genes|gene list|list|results?|hits|set|candidates|strategy))`
	orthologWord  = `(?:(syntenic|positional)\s+)?ortholog(?:ue)?s?`
	orthologPlace = `\s+(?:in|from|of|for)\s+(?:the\s+)?(.+?)[\s.!?]*$`
)

var (
	// "carry these to their orthologs in P. vivax P01", "map the genes
	// over to their syntenic orthologues in Plasmodium vivax P01".
	carryOrthologsRE = regexp.MustCompile(`(?i)` + orthologLead +
		`(?:carry|map|transform|convert|translate|move|take|turn|project|bring|transfer|swap)\s+` + orthologGenes +
		`\s+(?:over\s+|across\s+)?(?:to|into|onto|for)\s+(?:their|its|the)?\s*` + orthologWord + orthologPlace)
	// "find their orthologs in P. vivax", "what are the orthologs of
	// these genes in P. knowlesi strain H?", "orthologs of these in …".
	findOrthologsRE = regexp.MustCompile(`(?i)` + orthologLead +
		`(?:(?:find|show|get|list|give|fetch|pull|return)(?: me| us)?\s+|what are\s+|which are\s+)?(?:their|its|the)\s+` + orthologWord +
		`(?:\s+of\s+` + orthologGenes + `)?` + orthologPlace)
	// "keep only those with syntenic orthologs in P. vivax P01", "of
	// these, just the ones that have an ortholog in P. vivax", "which of
	// them have orthologs in P. knowlesi?".
	keepOrthologsRE = regexp.MustCompile(`(?i)` + orthologLead + `(?:of (?:these|those|them)[\s,]+)?` +
		`(?:(?:keep|retain|leave|show|give me|restrict (?:it |this |them )?to|limit (?:it |this |them )?to|narrow (?:it |this |them )?(?:down )?to|filter (?:it |this |them )?(?:down )?to|only|just)\s+)+` +
		`(?:(?:those|the ones|the genes|genes|these|them|ones)\s+)?(?:that\s+|which\s+)?(?:have|has|having|with)\s+(?:an?\s+|any\s+)?` +
		orthologWord + orthologPlace)
	whichOrthologsRE = regexp.MustCompile(`(?i)` + orthologLead + `which (?:of (?:these|those|them|the genes)|ones)\s+(?:have|has)\s+(?:an?\s+|any\s+)?` +
		orthologWord + orthologPlace)
)

// orthologsOf reads a request about the strategy's genes in another
// organism, or reports false.
func orthologsOf(text string) (Orthologs, bool) {
	text = strings.TrimSpace(strings.Join(strings.Fields(text), " "))
	for _, r := range []struct {
		re   *regexp.Regexp
		keep bool
	}{{carryOrthologsRE, false}, {findOrthologsRE, false}, {keepOrthologsRE, true}, {whichOrthologsRE, true}} {
		m := r.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		org := strings.TrimSpace(strings.TrimRight(m[2], " ,;:"))
		syntenic := m[1] != ""
		// "… in P. vivax P01, syntenic only", "(syntenic ones)".
		if s, ok := trimSyntenic(org); ok {
			org, syntenic = s, true
		}
		if org == "" || len(strings.Fields(org)) > 6 || strings.Contains(strings.ToLower(org), "gene") {
			// Not an organism: "the orthologs in P. vivax of DNA repair
			// genes" is a request of its own.
			return Orthologs{}, false
		}
		return Orthologs{Organism: org, Syntenic: syntenic, Keep: r.keep}, true
	}
	return Orthologs{}, false
}

// syntenicTailRE is "syntenic" said after the organism.
var syntenicTailRE = regexp.MustCompile(`(?i)[\s,(—–-]+(?:(?:only|just)\s+)?(?:the\s+)?syntenic(?:\s+(?:ones|orthologs?|only))?\)?$`)

func trimSyntenic(org string) (string, bool) {
	if loc := syntenicTailRE.FindStringIndex(org); loc != nil {
		return strings.TrimSpace(org[:loc[0]]), true
	}
	return org, false
}
