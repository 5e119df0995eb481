package strategy

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func leafStep(id StepID) Step {
	return Step{ID: id, Kind: KindSearch, SearchName: "GenesByTaxon", Parameters: map[string]string{}, Inputs: []StepID{}, RecordType: testRT}
}

func combineStep(id StepID, op Operator, in ...StepID) Step {
	return Step{ID: id, Kind: KindCombine, SearchName: boolName, Operator: op, Parameters: map[string]string{}, Inputs: in, RecordType: testRT}
}

func TestValidate(t *testing.T) {
	n := 5
	tests := []struct {
		name  string
		steps []Step
		want  []Problem
	}{
		{"complete", []Step{leafStep("s1"), leafStep("s2"), combineStep("s3", Union, "s1", "s2")}, nil},
		{"empty", nil, []Problem{{Code: ProblemEmpty, Message: "the strategy has no steps"}}},
		{"two roots", []Step{leafStep("s1"), leafStep("s2")}, []Problem{
			{Code: ProblemMultipleRoots, Message: "the strategy has 2 roots (s1, s2); combine them into one"}}},
		{"every structural problem at once", []Step{
			leafStep("s1"),
			leafStep("s1"),
			{ID: "s2", Kind: KindTransform, SearchName: "GenesByWeightFilter", Parameters: map[string]string{}, Inputs: []StepID{"s1", "s9"}, RecordType: testRT},
			combineStep("s3", "XOR", "s1", "s4"),
			{ID: "s4", Kind: KindSearch, SearchName: "", Parameters: map[string]string{}, Inputs: []StepID{}, RecordType: popsetRT, Operator: Union},
			{ID: "s5", Kind: KindCombine, SearchName: SpanSearch, Operator: Colocate, Parameters: map[string]string{}, Inputs: []StepID{"s3", "s5"}, RecordType: testRT},
			{ID: "s6", SearchName: "GenesByTaxon", Parameters: map[string]string{}, Inputs: []StepID{}, RecordType: testRT, Colocation: &Colocation{Strand: StrandBoth}},
			{ID: "s7", Kind: KindSearch, SearchName: "GenesByTaxon", Parameters: map[string]string{}, Inputs: []StepID{}, RecordType: testRT, CountStatus: CountOK},
			{ID: "s8", Kind: KindSearch, SearchName: "GenesByTaxon", Parameters: map[string]string{}, Inputs: []StepID{}, RecordType: testRT, Count: &n, CountStatus: CountError},
		}, []Problem{
			{Step: "s1", Code: ProblemDuplicateStep, Message: "step id s1 is used twice"},
			{Step: "s2", Code: ProblemInputCount, Message: "transform step s2 has 2 inputs, want 1"},
			{Step: "s2", Code: "STEP_NOT_FOUND", Message: "step s2 takes s9 as input, but there is no step s9"},
			{Step: "s3", Code: "STEP_CONSUMED", Message: "step s1 is an input of both s2 and s3; a step is consumed at most once"},
			{Step: "s3", Code: ProblemInputOrder, Message: "step s3 takes s4 as input, which was created after it"},
			{Step: "s3", Code: "RECORD_TYPE_MISMATCH", Message: `step s3 ("transcript") takes s4 ("popsetSequence") as input`},
			{Step: "s3", Code: "INVALID_OPERATOR", Message: `combine step s3 has no valid operator ("XOR")`},
			{Step: "s4", Code: ProblemMissingSearch, Message: "step s4 has no search"},
			{Step: "s4", Code: "RECORD_TYPE_MISMATCH", Message: `step s4 returns "popsetSequence" records but the strategy is of "transcript"`},
			{Step: "s4", Code: "INVALID_OPERATOR", Message: "search step s4 has an operator; only combines do"},
			{Step: "s5", Code: ProblemInputOrder, Message: "step s5 takes itself as input"},
			{Step: "s5", Code: "INVALID_COLOCATION", Message: "COLOCATE step s5 has no colocation parameters"},
			{Step: "s6", Code: ProblemUnknownKind, Message: "step s6 has no valid kind"},
			{Step: "s6", Code: "INVALID_COLOCATION", Message: "step s6 has colocation parameters but is not a COLOCATE"},
			{Step: "s7", Code: ProblemCount, Message: "step s7 has count status ok but no count"},
			{Step: "s8", Code: ProblemCount, Message: "step s8 has count status error but a count of 5"},
			{Code: ProblemMultipleRoots, Message: "the strategy has 4 roots (s2, s6, s7, s8); combine them into one"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &Graph{SiteID: testSite, RecordType: testRT, NextStep: 10, Steps: tt.steps}
			if diff := cmp.Diff(tt.want, g.Validate()); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
			err := g.Check()
			if (err == nil) != (len(tt.want) == 0) {
				t.Fatalf("Check() = %v with %d problems", err, len(tt.want))
			}
			if err != nil && (!errors.Is(err, ErrInvalidGraph) || Code(err) != "INVALID_STRATEGY") {
				t.Errorf("Check() = %v (code %q), want ErrInvalidGraph", err, Code(err))
			}
		})
	}
}
