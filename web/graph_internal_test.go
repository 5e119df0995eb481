package web

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
	"strategist/internal/strategy"
)

func TestWrapName(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"short", "GenesByGoTerm", []string{"GenesByGoTerm"}},
		{"empty", "", []string{""}},
		{"two lines", "DNA replication or DNA repair excluding chromosome 14", []string{"DNA replication or DNA repair", "excluding chromosome 14"}},
		{"a long word is cut", strings.Repeat("x", 40), []string{strings.Repeat("x", 34), strings.Repeat("x", 6)}},
		{"too long for three lines", strings.Repeat("word ", 40), []string{
			"word word word word word word word", "word word word word word word word", "word word word word word word wor…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wrapName(tt.in, 34, 3)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("wrapName(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			for _, l := range got {
				if n := len([]rune(l)); n > 34 {
					t.Errorf("line %q has %d characters", l, n)
				}
			}
		})
	}
}

// A step whose name wraps gets a taller box, and the steps below it move
// down: no box overlaps the next.
func TestGraphLayoutWrapsNames(t *testing.T) {
	long := "Genes involved in DNA replication or DNA repair, excluding chromosome 14"
	s := &strategy.Snapshot{
		RootStepID: "s3", Roots: []strategy.StepID{"s3"},
		Steps: []strategy.Step{
			{ID: "s1", Kind: strategy.KindSearch, SearchName: "GenesByGoTerm", DisplayName: long},
			{ID: "s2", Kind: strategy.KindSearch, SearchName: "GenesByGoTerm"},
			{ID: "s3", Kind: strategy.KindCombine, Operator: strategy.Union, Inputs: []strategy.StepID{"s1", "s2"}},
		},
	}
	l := layoutGraph(s, nil)
	if len(l.Nodes) != 3 {
		t.Fatalf("%d nodes", len(l.Nodes))
	}
	if n := l.Nodes[1]; len(n.Name) < 2 || n.H <= boxH {
		t.Errorf("long name: %d lines, height %d; want wrapped and taller", len(n.Name), n.H)
	}
	for i := 1; i < len(l.Nodes); i++ {
		if prev, n := l.Nodes[i-1], l.Nodes[i]; n.Y < prev.Y+prev.H {
			t.Errorf("node %d at %d overlaps node %d ending at %d", i, n.Y, i-1, prev.Y+prev.H)
		}
	}
	last := l.Nodes[len(l.Nodes)-1]
	if l.Height < last.Y+last.H {
		t.Errorf("height %d cuts the last box (ends at %d)", l.Height, last.Y+last.H)
	}
}

// A combine whose exact count is its left input's says it changes nothing,
// in the words of its operator; an approximate or different count says
// nothing.
func TestNoopText(t *testing.T) {
	n := func(v int) *int { return &v }
	left := strategy.Step{ID: "s1", Kind: strategy.KindSearch, CountStatus: strategy.CountOK, Count: n(60)}
	steps := map[strategy.StepID]strategy.Step{"s1": left}
	combine := func(op strategy.Operator, count int) strategy.Step {
		return strategy.Step{ID: "s3", Kind: strategy.KindCombine, Operator: op, Inputs: []strategy.StepID{"s1", "s2"}, CountStatus: strategy.CountOK, Count: n(count)}
	}
	approx := combine(strategy.Minus, 60)
	approx.CountProvenance = &catalog.Provenance{Approximate: true}
	tests := []struct {
		name string
		st   strategy.Step
		want string
	}{
		{"minus removes nothing", combine(strategy.Minus, 60), "removes nothing: no left gene is in the right"},
		{"intersect keeps all", combine(strategy.Intersect, 60), "keeps all: every left gene is in the right"},
		{"minus that removes", combine(strategy.Minus, 41), ""},
		{"approximate", approx, ""},
	}
	for _, tt := range tests {
		if got := noopText(tt.st, steps); got != tt.want {
			t.Errorf("%s: noopText = %q, want %q", tt.name, got, tt.want)
		}
	}
}
