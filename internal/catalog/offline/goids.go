package offline

import (
	"slices"
	"strings"
)

// goStatusSecondary is go_terms.tsv's status of an id that GO (release
// 2022-07-01) has merged into another term, named in replaced_by.
const goStatusSecondary = "secondary_id"

// isGORoot reports the roots of the three ontologies. The 2017 file leaves
// them out, so a term merged into a root does not stand for the root's
// genes.
func isGORoot(id string) bool {
	switch id {
	case "GO:0008150", "GO:0003674", "GO:0005575":
		return true
	}
	return false
}

// canonicalGOID reads s as a GO id whatever its case and surrounding
// spaces ("go:0006281" is GO:0006281); ok is false when s is not one.
func canonicalGOID(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) != len("GO:0000000") || !strings.EqualFold(s[:3], "GO:") {
		return "", false
	}
	for i := 3; i < len(s); i++ {
		if !isDigit(s[i]) {
			return "", false
		}
	}
	return "GO:" + s[3:], true
}

// buildGOMerges finds the current GO ids the 2017 file lists under older
// ids only: GO has since merged the file's ids into them (status
// secondary_id), and the file has no set for the current id itself. A
// look-up by the current id is answered with the sets of the ids it
// replaced. Current ids with a set of their own keep it, unchanged.
func (d *Data) buildGOMerges() {
	d.goMerged = map[string][]string{}
	d.goMergedInto = map[string]string{}
	for _, id := range d.goOrder {
		t, ok := d.goTerms[id]
		if !ok || t.Status != goStatusSecondary {
			continue
		}
		current, ok := canonicalGOID(t.ReplacedBy)
		if !ok || isGORoot(current) {
			continue
		}
		if _, own := d.goSets[current]; own {
			continue
		}
		d.goMerged[current] = append(d.goMerged[current], id)
		d.goMergedInto[id] = current
	}
	for _, ids := range d.goMerged {
		slices.Sort(ids)
	}
}

// GOListedAs returns the ids the 2017 file lists a current GO id under,
// when GO has merged them into it since and the file has no set for the
// id itself ("GO:0098609" is listed as GO:0016337); nil otherwise. Case is
// ignored.
func (d *Data) GOListedAs(id string) []string {
	id, _ = canonicalGOID(id)
	return slices.Clone(d.goMerged[id])
}

// goSetIDs returns the ids whose gene sets answer a GO id: the id itself
// when the file has a set for it, else the ids merged into it.
func (d *Data) goSetIDs(id string) []string {
	if _, ok := d.goSets[id]; ok {
		return []string{id}
	}
	return d.goMerged[id]
}

// goMergeNote says that a current GO id was answered with the sets of the
// older ids the 2017 file lists it under.
func goMergeNote(current string, listed []string) string {
	return current + " is listed in the 2017 data as " + andList(listed) + "."
}

// andList joins items as English: "a", "a and b", "a, b and c".
func andList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
