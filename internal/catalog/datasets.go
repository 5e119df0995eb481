package catalog

import (
	"encoding/json"
	"slices"
	"strings"
)

// An input-dataset parameter (the gene ids search's ds_gene_ids) takes a
// dataset id on a live site: the id of a list of identifiers uploaded to
// the researcher's account. Strategist's strategies hold the identifiers
// themselves, so a strategy means the same on every site and survives
// export and import; the live catalog uploads them as a dataset when it
// sends the step to the site, and the offline catalog evaluates them.

// DatasetIDs reads an input-dataset value as Strategist writes it: a
// JSON-array string of identifiers, or identifiers separated by new lines,
// commas, semicolons, tabs or spaces. Empty identifiers are dropped.
func DatasetIDs(v string) []string {
	s := strings.TrimSpace(v)
	if strings.HasPrefix(s, "[") {
		var ids []string
		if err := json.Unmarshal([]byte(s), &ids); err == nil {
			return slices.DeleteFunc(ids, func(id string) bool { return strings.TrimSpace(id) == "" })
		}
	}
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

// IsDatasetID reports whether an input-dataset value is a live site's
// dataset id (one number) rather than identifiers.
func IsDatasetID(v string) bool {
	s := strings.TrimSpace(v)
	return s != "" && strings.Trim(s, "0123456789") == ""
}
