package strategy

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEncodeParameters(t *testing.T) {
	var in map[string]any
	err := json.Unmarshal([]byte(`{
		"organism": ["Plasmodium falciparum 3D7"],
		"ec_source": ["Annotation, GeneDB", "Uniprot"],
		"geneType": "tRNA encoding",
		"min_weight": 12,
		"max_pi": 7.5,
		"big": 10000000,
		"range": {"min": 20, "max": "100"},
		"flag": true
	}`), &in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EncodeParameters(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"organism":   `["Plasmodium falciparum 3D7"]`,
		"ec_source":  `["Annotation, GeneDB","Uniprot"]`,
		"geneType":   "tRNA encoding",
		"min_weight": "12",
		"max_pi":     "7.5",
		"big":        "10000000",
		"range":      `{"max":"100","min":"20"}`,
		"flag":       "true",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EncodeParameters mismatch (-want +got):\n%s", diff)
	}
	for _, bad := range []map[string]any{
		{"x": nil},
		{"x": []any{[]any{"nested"}}},
		{"x": map[string]any{"min": map[string]any{}}},
		{"x": struct{}{}},
	} {
		if _, err := EncodeParameters(bad); !errors.Is(err, ErrInvalidParameters) {
			t.Errorf("EncodeParameters(%v) error = %v, want ErrInvalidParameters", bad, err)
		}
	}
}
