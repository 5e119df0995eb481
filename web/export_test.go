package web_test

import (
	"strings"
	"testing"
	"time"

	"strategist/internal/strategy"
	"strategist/web"
)

// TestExportMarkdownKeepsValuesIntact: parameter values with backticks,
// messages over several lines and a graph with two roots are written so
// that a Markdown reader shows them as they are.
func TestExportMarkdownKeepsValuesIntact(t *testing.T) {
	t.Parallel()
	n := 7
	e := web.Export{
		ID: "c1", Title: "Two\nroots", SiteID: "plasmodb", AsOfEvent: 9, ExportedAt: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		Messages: []web.ExportMessage{{Role: "user", Text: "first line\nsecond line"}, {Role: "assistant", Text: "**done**"}},
		Strategy: &strategy.Snapshot{Name: "S", SiteID: "plasmodb", RecordType: "transcript", Version: 3,
			Roots: []strategy.StepID{"s1", "s2"}, Steps: []strategy.Step{
				{ID: "s1", Kind: strategy.KindSearch, SearchName: "GenesByText", DisplayName: "Text", Parameters: map[string]string{"text_expression": "a`b``c", "empty": ""},
					Count: &n, CountStatus: strategy.CountOK},
				{ID: "s2", Kind: strategy.KindSearch, SearchName: "GenesByTaxon", Parameters: map[string]string{}, CountStatus: strategy.CountNotEvaluable},
			}},
	}
	md := string(e.Markdown())
	for _, want := range []string{
		"# Two roots\n", "> first line\n> second line\n", "### Assistant\n\n**done**\n",
		"Result: not one tree yet.", "- **s1 · Text** — search · search `GenesByText` · 7 genes (count 7)",
		"  - `text_expression` = ```a`b``c```\n", "- **s2 · GenesByTaxon** — search · search `GenesByTaxon` · not evaluable offline",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "`empty`") {
		t.Errorf("an empty parameter is written:\n%s", md)
	}
	if !strings.Contains(string(web.Export{Title: "T"}.Markdown()), "No messages yet.") {
		t.Errorf("an empty conversation does not say so")
	}
}
