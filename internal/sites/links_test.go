package sites_test

import (
	"testing"

	"strategist/internal/sites"
)

func TestGenePages(t *testing.T) {
	for _, tt := range []struct{ site, gene, url, name string }{
		{"plasmodb", "PF3D7_1133400", "https://plasmodb.org/plasmo/app/record/gene/PF3D7_1133400", "PlasmoDB"},
		{"toxodb-live", "TGME49_200010", "https://toxodb.org/toxo/app/record/gene/TGME49_200010", "ToxoDB"},
		{"plasmodb", "a/b c", "https://plasmodb.org/plasmo/app/record/gene/a%2Fb%20c", "PlasmoDB"},
		{"nosuchdb", "x", "", ""},
	} {
		page, name := sites.GenePages(tt.site)
		u := ""
		if page != nil {
			u = page(tt.gene)
		}
		if u != tt.url || name != tt.name {
			t.Errorf("GenePages(%q)(%q) = %q, %q; want %q, %q", tt.site, tt.gene, u, name, tt.url, tt.name)
		}
	}
}
