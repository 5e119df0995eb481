package english

import "testing"

// FuzzParse: any text parses without panicking, and every clause of the
// tree has a kind.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14",
		"genes mapped to chromosome 3", "chromosomes 1 through 3", "replace chromosome 14 with 13", "undo that",
		"on chromosome 14, A or B", `"quoted or phrase" and GO 0006412`, "between 10 and 50 kDa", "to 5", "- -",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Parse(s)
		for _, n := range []*Node{p.Root, p.Part, p.Replaced} {
			for _, c := range n.Leaves() {
				if c.Kind == KindUnknown {
					t.Fatalf("Parse(%q): a clause without a kind: %+v", s, c)
				}
			}
			_ = n.String()
			_ = n.Describe()
		}
	})
}
