package strategies

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// taskNode is a plan task stating a search and its values.
func taskNode(phrase, search string, params map[string]string) map[string]any {
	return map[string]any{"type": "task", "task": phrase, "context": map[string]any{"searchName": search, "parameters": params, "phrase": phrase}}
}

func combineNode(op string, l, r map[string]any) map[string]any {
	return map[string]any{"type": "combine", "operator": op, "left": l, "right": r}
}

func mustPlan(t *testing.T, tree map[string]any) *plan.Plan {
	t.Helper()
	raw, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// brief renders a requirement as one line: kind, status, step, count, in
// result, examples with their attributes, note.
func brief(r event.Requirement) string {
	n := func(p *int) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	var ex []string
	for _, e := range r.Examples {
		ex = append(ex, e.GeneID+"="+e.Attribute)
	}
	s := fmt.Sprintf("%s %s %s count=%s in=%s [%s]", r.Kind, r.Status, r.StepID, n(r.Count), n(r.InResult), strings.Join(ex, ", "))
	if r.Note != "" {
		s += " (" + r.Note + ")"
	}
	return s
}

// TestCheckRequirements: each requirement of a plan is matched to the
// step that implements it, with its count, what the result keeps and
// genes with the attribute that qualified them; a requirement no step
// implements is missing, a step with other values is not met, and a
// search the catalog cannot evaluate is not evaluable.
func TestCheckRequirements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	f.apply(t, translation) // s1: g001..g040
	f.apply(t, replication) // s2: g031..g060
	f.apply(t, strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Minus})
	translationTask := taskNode("translation", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:0006412"]`})
	replicationTask := taskNode("DNA replication", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:0006260"]`})

	check := func(tree map[string]any, bound map[string]strategy.StepID) []string {
		t.Helper()
		rep, err := f.svc.CheckRequirements(ctx, f.owner, f.strategy, mustPlan(t, tree), bound)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rep.Requirements {
			out = append(out, brief(r))
		}
		return out
	}
	want := func(got []string, want ...string) {
		t.Helper()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("requirements:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}

	// The plan as built: the exclusion removed g031..g040, which DNA
	// replication qualified.
	want(check(combineNode("MINUS", translationTask, replicationTask), nil),
		"search met s1 count=40 in=30 [g001=go_typeahead: translation (GO:0006412), g002=go_typeahead: translation (GO:0006412), g003=go_typeahead: translation (GO:0006412)]",
		"search met s2 count=30 in=0 [g031=go_typeahead: DNA replication (GO:0006260), g032=go_typeahead: DNA replication (GO:0006260), g033=go_typeahead: DNA replication (GO:0006260)]",
		"exclusion met s3 count=30 in=10 [g031=go_typeahead: DNA replication (GO:0006260), g032=go_typeahead: DNA replication (GO:0006260), g033=go_typeahead: DNA replication (GO:0006260)]")

	// A requirement no step implements, and the combine above it.
	want(check(combineNode("MINUS", combineNode("MINUS", translationTask, replicationTask),
		taskNode("tRNA genes", "GenesByGeneType", map[string]string{"geneType": "tRNA encoding"})), nil),
		"search met s1 count=40 in=30 [g001=go_typeahead: translation (GO:0006412), g002=go_typeahead: translation (GO:0006412), g003=go_typeahead: translation (GO:0006412)]",
		"search met s2 count=30 in=0 [g031=go_typeahead: DNA replication (GO:0006260), g032=go_typeahead: DNA replication (GO:0006260), g033=go_typeahead: DNA replication (GO:0006260)]",
		"exclusion met s3 count=30 in=10 [g031=go_typeahead: DNA replication (GO:0006260), g032=go_typeahead: DNA replication (GO:0006260), g033=go_typeahead: DNA replication (GO:0006260)]",
		"search missing  count=- in=- [] (no step of the strategy runs Genes by GenesByGeneType)",
		"exclusion missing  count=- in=- [] (no step of the strategy implements it)")

	// A step of the search with other values is not what was asked; the
	// builder's own step for the node is checked against the plan too.
	want(check(taskNode("DNA replication", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:0006260","GO:0006412"]`}), map[string]strategy.StepID{"n1": "s2"}),
		`search not_met s2 count=30 in=30 [g031=go_typeahead: DNA replication (GO:0006260), g032=go_typeahead: DNA replication (GO:0006260), g033=go_typeahead: DNA replication (GO:0006260)] (step s2 has go_typeahead "DNA replication (GO:0006260)", not the stated "DNA replication (GO:0006260), translation (GO:0006412)")`)

	// A search the catalog cannot evaluate builds, and says so.
	f.apply(t, strategy.AddSearch{SearchName: "GenesByMolecularWeight", Parameters: map[string]string{"min_molecular_weight": "20000"}})
	got := check(taskNode("heavy proteins", "GenesByMolecularWeight", map[string]string{"min_molecular_weight": "20000"}), map[string]strategy.StepID{"n1": "s4"})
	if len(got) != 1 || !strings.HasPrefix(got[0], "search not_evaluable s4 count=- in=- [] (its genes cannot be computed here: ") {
		t.Errorf("a search that cannot be evaluated: %v", got)
	}

	// A value of several terms shows, gene by gene, the terms that found it.
	f.apply(t, strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006260","GO:0006412"]`}})
	got = check(taskNode("both", "GenesByGoTerm", map[string]string{"go_typeahead": `["GO:0006412","GO:0006260"]`}), map[string]strategy.StepID{"n1": "s5"})
	if len(got) != 1 || !strings.Contains(got[0], "search met s5 count=60") || !strings.Contains(got[0], "g001=go_typeahead: translation (GO:0006412),") {
		t.Errorf("a value of several terms: %v", got)
	}

	// Another user's strategy is not found.
	if _, err := f.svc.CheckRequirements(ctx, f.other, f.strategy, mustPlan(t, translationTask), nil); err == nil {
		t.Error("another user's strategy was checked")
	}
}
