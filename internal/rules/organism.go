package rules

import (
	"strategist/internal/english"

	"fmt"
	"slices"
	"strings"
)

// organism picks the organism term every organism parameter gets: the
// catalog's organism that the request names, else its only or first one.
// An organism the catalog does not have is a refusal, naming those it has:
// quietly answering for another species would read as a result.
func (rv *resolver) organism() (term, note, refusal string) {
	leaves := rv.organismLeaves()
	if len(leaves) == 0 {
		return "", "", ""
	}
	mention := strings.ToLower(rv.p.Organism)
	if mention != "" {
		if l, ok := matchOrganism(mention, leaves); ok {
			return l, fmt.Sprintf("%s is %s in the catalog", english.Quote(rv.p.Organism), l), ""
		}
		return "", "", noOrganism(rv.p.Organism, leaves)
	}
	if len(leaves) == 1 {
		return leaves[0], "you named no organism; I used " + leaves[0] + ", the only organism the catalog offers", ""
	}
	return leaves[0], "you named no organism; I used " + leaves[0] + ", the first the catalog offers", ""
}

// organismLeaves are the organisms the organism parameters read so far
// offer.
func (rv *resolver) organismLeaves() []string {
	var leaves []string
	for _, sd := range rv.allDetails() {
		for _, p := range sd.Parameters {
			if !strings.Contains(strings.ToLower(p.Name), "organism") {
				continue
			}
			for _, l := range leafTerms(p.Values) {
				if !slices.Contains(leaves, l) {
					leaves = append(leaves, l)
				}
			}
		}
	}
	return leaves
}

// noOrganism refuses an organism the catalog does not have, naming those
// it has.
func noOrganism(name string, leaves []string) string {
	return fmt.Sprintf("this catalog has no organism %s: its organisms are %s. Ask about one of them, or open a conversation on the VEuPathDB site that has %s",
		english.Quote(name), strings.Join(leaves, ", "), name)
}

// matchOrganism finds the catalog organism a mention names: its species
// ("falciparum", "P. falciparum"), or "Pf3D7"; a genus alone
// ("Plasmodium") fits when one organism of that genus exists.
func matchOrganism(mention string, leaves []string) (string, bool) {
	if strings.Contains(mention, "pf3d7") || mention == "pfalciparum" {
		mention = "plasmodium falciparum 3d7"
	}
	switch {
	case mention == "3d7":
		mention = "falciparum 3d7"
	case strings.HasPrefix(mention, "malaria parasite"):
		mention = "plasmodium"
	}
	words := strings.Fields(strings.ReplaceAll(mention, ".", ". "))
	var species []string
	for _, w := range words {
		if !strings.HasSuffix(w, ".") && (len(w) >= 4 || strings.ContainsAny(w, "0123456789")) {
			species = append(species, w) // the species, and a strain (3D7, Dd2)
		}
	}
	for _, l := range leaves {
		ll := strings.ToLower(l)
		ok := len(species) > 0
		for i, w := range species {
			// The genus may be written in full; the species must match.
			if !strings.Contains(ll, w) && !(i == 0 && len(species) > 1 && strings.HasPrefix(ll, w[:1])) {
				ok = false
			}
		}
		if ok {
			return l, true
		}
	}
	return "", false
}
