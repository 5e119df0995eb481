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

// TestExportMarksReplacedTurns: the messages of replaced turns are exported
// marked replaced, those of the standing turn not.
func TestExportMarksReplacedTurns(t *testing.T) {
	h := newHarness(t)
	l := &log{t: t}
	l.add(replacedTurns()...)
	e := web.NewExport(h.fold(l.records()), time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC))
	var got []string
	for _, m := range e.Messages {
		got = append(got, m.TurnID+" "+m.Role+" "+strings.Repeat("replaced", boolInt(m.Replaced)))
	}
	want := []string{"t1 user replaced", "t1 assistant replaced", "t2 user replaced", "t2 assistant replaced", "t3 user ", "t3 assistant "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("exported messages = %q, want %q", got, want)
	}
	md := string(e.Markdown())
	if strings.Count(md, "### You (replaced)") != 2 || strings.Count(md, "### Assistant (replaced)") != 2 || !strings.Contains(md, "### You\n\n> DNA repair genes of P. falciparum") {
		t.Errorf("markdown does not mark the replaced turns:\n%s", md)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
