package rules

import "testing"

func TestTextExpression(t *testing.T) {
	for in, want := range map[string]string{"kinases": "kinase*", "heat shock protein": `"heat shock protein"`, "zzq": "zzq"} {
		if got := textExpression(in); got != want {
			t.Errorf("textExpression(%q) = %q, want %q", in, got, want)
		}
	}
}
