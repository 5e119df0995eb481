package offline

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

func TestParseTextQuery(t *testing.T) {
	tests := []struct {
		expr string
		want textQuery
	}{
		{"kinase", textQuery{{{"kinase"}}}},
		{"ABC transporter", textQuery{{{"abc"}}, {{"transporter"}}}},
		{`"ABC transporter"`, textQuery{{{"abc", "transporter"}}}},
		{"kinase AND calcium", textQuery{{{"kinase"}, {"calcium"}}}},
		{"a AND b OR c", textQuery{{{"a"}, {"b"}}, {{"c"}}}},
		{"invasion OR merozoite OR erythrocyte binding", textQuery{{{"invasion"}}, {{"merozoite"}}, {{"erythrocyte"}}, {{"binding"}}}},
		{"phospho*", textQuery{{{"phospho*"}}}},
		{"ATP-dependent", textQuery{{{"atp", "dependent"}}}},
		{"(kinase AND calcium)", textQuery{{{"kinase"}, {"calcium"}}}},
		{`"unterminated phrase`, textQuery{{{"unterminated", "phrase"}}}},
		{"AND OR", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parseTextQuery(tt.expr)); diff != "" {
			t.Errorf("parseTextQuery(%q) mismatch (-want +got):\n%s", tt.expr, diff)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"kinase", "kinase", true},
		{"kinase", "kinases", false},
		{"kinase*", "kinases", true},
		{"*reductase", "oxidoreductase", true},
		{"*reductase", "reductases", false},
		{"p*e", "protease", true},
		{"p*e*e", "pe", false},
		{"*", "", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "acb", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// TestTextSearchAgainstProducts compares product-only text searches with a
// plain regular-expression scan of the product column of the raw export.
func TestTextSearchAgainstProducts(t *testing.T) {
	c := testCatalog(t)
	products := map[string]string{}
	for _, g := range c.data.genes {
		products[g.ID] = strings.ToLower(g.Product)
	}
	count := func(res ...*regexp.Regexp) int {
		n := 0
		for _, p := range products {
			all := true
			for _, re := range res {
				all = all && re.MatchString(p)
			}
			if all {
				n++
			}
		}
		return n
	}
	word := func(w string) *regexp.Regexp { return regexp.MustCompile(`(^|[^a-z0-9_.])` + w + `($|[^a-z0-9_.])`) }
	tests := []struct {
		expr string
		want int
	}{
		{"kinase", count(word("kinase"))},
		{"kinase AND calcium*", count(word("kinase"), regexp.MustCompile(`(^|[^a-z0-9_.])calcium`))},
		{`"heat shock protein"`, count(word(`heat shock protein`))},
		{"*reductase", count(regexp.MustCompile(`reductase($|[^a-z0-9_.])`))},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			q := &catalog.Query{Search: "GenesByText", Params: map[string]string{
				"text_search_organism": testOrg, "text_expression": tt.expr, "text_fields": `["product"]`,
			}}
			a, err := c.Answer(context.Background(), site, q, catalog.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == 0 || a.Count != tt.want {
				t.Errorf("GenesByText(%q) = %d genes, product scan gives %d", tt.expr, a.Count, tt.want)
			}
		})
	}
}

func TestTextSearchFields(t *testing.T) {
	c := testCatalog(t)
	text := func(expr, fields string) int {
		t.Helper()
		q := &catalog.Query{Search: "GenesByText", Params: map[string]string{
			"text_search_organism": testOrg, "text_expression": expr, "text_fields": fields,
		}}
		a, err := c.Answer(context.Background(), site, q, catalog.Page{})
		if err != nil {
			t.Fatal(err)
		}
		return a.Count
	}
	if n := text("PF3D7_0100100", `["primary_key"]`); n != 1 {
		t.Errorf("gene id in primary_key: %d genes, want 1", n)
	}
	if n := text("PF3D7_0100100", `["product"]`); n != 0 {
		t.Errorf("gene id in product: %d genes, want 0", n)
	}
	if n := text("PFA0005w", `["Alias"]`); n != 1 {
		t.Errorf("previous id in Alias: %d genes, want 1", n)
	}
	if n := text("CDPK1", `["Alias"]`); n != 1 {
		t.Errorf("symbol in Alias: %d genes, want 1", n)
	}
}
