package strategy

import (
	"context"
	"strings"
	"testing"
)

// stepName is the name of step id in g.
func stepName(t *testing.T, g *Graph, id StepID) Step {
	t.Helper()
	s, ok := g.Step(id)
	if !ok {
		t.Fatalf("no step %s", id)
	}
	return s
}

func TestNamesFollowTheData(t *testing.T) {
	ctx := context.Background()
	cat := newFakeCatalog()
	dnaRepair := AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006412"]`},
		DisplayName: "Translation (GO:0006412)"}
	tests := []struct {
		name      string
		setup     []Mutation
		m         Mutation
		want      map[StepID]string
		wantNamed map[StepID]bool
	}{
		{
			name:  "a step made without a name is named from its parameter values",
			setup: []Mutation{},
			m:     replication,
			want:  map[StepID]string{"s1": "DNA replication (GO:0006260)"},
		},
		{
			name:  "a combine made without a name is named from its inputs, never their ids",
			setup: []Mutation{dnaRepair, replication},
			m:     Combine{Left: "s1", Right: "s2", Operator: "MINUS"},
			want:  map[StepID]string{"s3": "Translation (GO:0006412) excluding DNA replication (GO:0006260)"},
		},
		{
			name:  "changing the GO term renames the step and the combine above it",
			setup: []Mutation{dnaRepair, trna, Combine{Left: "s1", Right: "s2", Operator: "AND", DisplayName: "Translation and tRNA"}},
			m:     UpdateStep{Step: "s1", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}},
			want: map[StepID]string{"s1": "DNA replication (GO:0006260)",
				"s3": "DNA replication (GO:0006260) and Genes by GenesByGeneType"},
		},
		{
			name:      "a name the researcher set is kept through a parameter change, and marked",
			setup:     []Mutation{dnaRepair, UpdateStep{Step: "s1", DisplayName: ptr("my favourite genes")}},
			m:         UpdateStep{Step: "s1", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}},
			want:      map[StepID]string{"s1": "my favourite genes"},
			wantNamed: map[StepID]bool{"s1": true},
		},
		{
			name:  "renaming an input renames the unnamed combines downstream",
			setup: []Mutation{dnaRepair, replication, Combine{Left: "s1", Right: "s2", Operator: "OR"}, trna, Combine{Left: "s3", Right: "s4", Operator: "MINUS"}},
			m:     UpdateStep{Step: "s2", DisplayName: ptr("copying DNA")},
			want: map[StepID]string{"s2": "copying DNA", "s3": "Translation (GO:0006412) or copying DNA",
				"s5": "(Translation (GO:0006412) or copying DNA) excluding Genes by GenesByGeneType"},
			wantNamed: map[StepID]bool{"s2": true, "s3": false, "s5": false},
		},
		{
			name:  "a named combine keeps its name when its inputs change",
			setup: []Mutation{dnaRepair, replication, Combine{Left: "s1", Right: "s2", Operator: "OR"}, UpdateStep{Step: "s3", DisplayName: ptr("both")}},
			m:     UpdateStep{Step: "s1", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}},
			want:  map[StepID]string{"s1": "DNA replication (GO:0006260)", "s3": "both"},
		},
		{
			name:  "changing a combine's operator renames it",
			setup: []Mutation{dnaRepair, replication, Combine{Left: "s1", Right: "s2", Operator: "OR"}},
			m:     UpdateStep{Step: "s3", Operator: ptr(Operator("INTERSECT"))},
			want:  map[StepID]string{"s3": "Translation (GO:0006412) and DNA replication (GO:0006260)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, cat, tt.setup...)
			next, _, err := g.Apply(ctx, cat, tt.m)
			if err != nil {
				t.Fatal(err)
			}
			for id, want := range tt.want {
				s := stepName(t, next, id)
				if s.DisplayName != want {
					t.Errorf("step %s is named %q, want %q", id, s.DisplayName, want)
				}
				if named, ok := tt.wantNamed[id]; ok && s.Named != named {
					t.Errorf("step %s Named = %v, want %v", id, s.Named, named)
				}
			}
			for _, s := range next.Steps {
				for _, other := range next.Steps {
					if strings.Contains(s.DisplayName, " "+string(other.ID)+" ") || strings.HasPrefix(s.DisplayName, string(other.ID)+" ") {
						t.Errorf("step %s's name %q carries the step id %s", s.ID, s.DisplayName, other.ID)
					}
				}
			}
		})
	}
}
