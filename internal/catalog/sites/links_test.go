package sites_test

import (
	"testing"

	"strategist/internal/catalog/sites"
)

func TestGenePage(t *testing.T) {
	for _, tt := range []struct{ site, gene, url, name string }{
		{"plasmodb", "PF3D7_1133400", "https://plasmodb.org/plasmo/app/record/gene/PF3D7_1133400", "PlasmoDB"},
		{"toxodb-live", "TGME49_200010", "https://toxodb.org/toxo/app/record/gene/TGME49_200010", "ToxoDB"},
		{"plasmodb", "a/b c", "https://plasmodb.org/plasmo/app/record/gene/a%2Fb%20c", "PlasmoDB"},
		{"nosuchdb", "x", "", ""},
	} {
		if u, n := sites.GenePage(tt.site, tt.gene); u != tt.url || n != tt.name {
			t.Errorf("GenePage(%q, %q) = %q, %q; want %q, %q", tt.site, tt.gene, u, n, tt.url, tt.name)
		}
	}
}
