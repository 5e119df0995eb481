package rules

import (
	"strings"
	"testing"
)

func TestTextExpression(t *testing.T) {
	for in, want := range map[string]string{"kinases": "kinase*", "heat shock protein": `"heat shock protein"`, "zzq": "zzq"} {
		if got := textExpression(in); got != want {
			t.Errorf("textExpression(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOperatorEditWords: the changes of operator read as such, and
// changes of a value or a term do not.
func TestOperatorEditWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want string
	}{
		{"flip the last combine to a UNION", "union"},
		{"Flip the last combine - the one joining the surface features to blood-stage expression - to a UNION, and explain why.", "union"},
		{"make the union an intersection", "intersection"},
		{"change the operator from INTERSECT to MINUS", "minus"},
		{"ok, use a union instead", "union"},
		{"change the minimum to 15", ""},
		{"change DNA repair to DNA replication", ""},
		{"make it genes on chromosome 5 instead", ""},
		{"genes in the union of DNA repair and proteolysis", ""},
	} {
		m := operatorEditRE.FindStringSubmatch(c.text)
		got := ""
		if m != nil {
			got = strings.ToLower(m[2] + m[4] + m[5])
		}
		if got != c.want {
			t.Errorf("%q: operator %q, want %q", c.text, got, c.want)
		}
	}
}
