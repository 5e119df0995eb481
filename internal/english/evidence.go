package english

import "slices"

// evidenceKinds reads the words for kinds of GO evidence.
var evidenceKinds = map[string]string{
	"curated": "Curated", "manually": "Curated", "manual": "Curated", "experimental": "Curated", "experimentally": "Curated",
	"computed": "Computed", "computational": "Computed", "computationally": "Computed", "predicted": "Computed", "electronic": "Computed",
}

// evidenceLeads are the words that lead into an evidence qualifier:
// "supported by curated evidence", "based on computed annotations".
var evidenceLeads = WordSet("with having by only from on based supported backed")

// takeEvidence removes a GO evidence qualifier ("with curated GO
// evidence", "based on computational annotations") from the words and
// returns the kind it names.
func takeEvidence(toks []token) ([]token, string) {
	for i, t := range toks {
		kind := evidenceKinds[t.low]
		if kind == "" || t.quoted {
			continue
		}
		end := -1
		for j := i + 1; j < len(toks) && j <= i+3; j++ {
			if w := toks[j].low; w == "evidence" || w == "annotation" || w == "annotations" {
				end = j
				break
			}
		}
		if end < 0 {
			continue
		}
		start := i
		for start > 0 && evidenceLeads[toks[start-1].low] {
			start--
		}
		if end+1 < len(toks) && toks[end+1].low == "only" {
			end++ // "… curated evidence only"
		}
		return append(slices.Clip(toks[:start]), toks[end+1:]...), kind
	}
	return toks, ""
}
