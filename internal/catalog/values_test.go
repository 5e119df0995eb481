package catalog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeEncodeTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{``, []string{}, true},
		{`["a","b, c"]`, []string{"a", "b, c"}, true},
		{`a, b`, []string{"a, b"}, true}, // never split on commas
		{` [1, "x"] `, []string{"1", "x"}, true},
		{`["a"`, nil, false},
		{`[["a"]]`, nil, false},
	}
	for _, tt := range tests {
		got, ok := DecodeTerms(tt.in)
		if ok != tt.ok || !cmp.Equal(got, tt.want) {
			t.Errorf("DecodeTerms(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok {
			if back, _ := DecodeTerms(EncodeTerms(got)); !cmp.Equal(back, got) && len(got) > 0 {
				t.Errorf("round trip of %q = %q", got, back)
			}
		}
	}
	if got := EncodeTerms([]string{"<i>P. falciparum</i>"}); got != `["<i>P. falciparum</i>"]` {
		t.Errorf("EncodeTerms escapes HTML: %s", got)
	}
	if got := EncodeTerms(nil); got != `[]` {
		t.Errorf("EncodeTerms(nil) = %s", got)
	}
}

func TestEncodeValue(t *testing.T) {
	lo, hi := 0.0, 100.0
	evidence := Param{Name: "ev", DisplayName: "Evidence", Type: ParamMultiPick, MaxSelected: 2,
		Vocabulary: []Term{{Term: "Curated", Display: "Curated"}, {Term: "Computed", Display: "Computed"}, {Term: "IEA", Display: "Inferred electronically"}}}
	tree := Param{Name: "org", DisplayName: "Organism", Type: ParamMultiPick, MaxSelected: 1,
		Vocabulary: []Term{{Term: "Plasmodium"}, {Term: "Pf", Parent: "Plasmodium"}, {Term: "Pv", Parent: "Plasmodium"}}}
	slim := Param{Name: "slim", DisplayName: "Slim", Type: ParamSinglePick, Vocabulary: []Term{{Term: "Yes"}, {Term: "No"}}}
	num := Param{Name: "n", Type: ParamString, IsNumber: true, Min: &lo, Max: &hi}
	rng := Param{Name: "r", Type: ParamNumberRange, Min: &lo, Max: &hi}
	text := Param{Name: "t", Type: ParamString}
	optional := Param{Name: "o", Type: ParamMultiPick, AllowEmpty: true}
	tests := []struct {
		name  string
		p     Param
		v     string
		vocab bool
		want  string
		probs []string
	}{
		{"array", evidence, `["Curated","Computed"]`, true, `["Curated","Computed"]`, nil},
		{"bare term", evidence, `Curated`, true, `["Curated"]`, nil},
		{"duplicates dropped", evidence, `["Curated","Curated"]`, true, `["Curated"]`, nil},
		{"comma list refused", evidence, `Curated,Computed`, true, "", []string{
			`'Curated,Computed' is not one term; give several values as a JSON array string such as ["a","b"] (values are not split on commas).`}},
		{"display label", evidence, `["inferred electronically"]`, true, "", []string{"Invalid value 'inferred electronically'. Use the term 'IEA', not its display label."}},
		{"short vocabulary listed", evidence, `["Manual"]`, true, "", []string{"Invalid value 'Manual'. Allowed: Curated, Computed, IEA."}},
		{"open vocabulary", evidence, `["Manual"]`, false, `["Manual"]`, nil},
		{"too many", evidence, `["Curated","Computed","IEA"]`, true, "", []string{
			"Number of selected values (3) was not in range ( Inf, 2 ] for parameter Evidence."}},
		{"tree counts leaves", tree, `["Plasmodium"]`, true, "", []string{
			"Number of selected values (2) was not in range ( Inf, 1 ] for parameter Organism."}},
		{"empty multi-pick", evidence, `[]`, true, "", []string{MsgEmpty}},
		{"empty allowed", optional, ``, false, `[]`, nil},
		{"not an array", evidence, `["a"`, true, "", []string{`'["a"' is not a JSON array of terms such as ["a","b"].`}},
		{"single from array", slim, `["No"]`, true, "No", nil},
		{"single two values", slim, `["No","Yes"]`, true, "", []string{"Slim takes one value; got 2."}},
		{"number", num, ` 42 `, false, "42", nil},
		{"number separators", num, `1,000`, false, "", []string{"'1,000' is not a number: write it without thousands separators."}},
		{"number out of range", num, `101`, false, "", []string{"'101' is outside the allowed range [0, 100]."}},
		{"range", rng, `{"min":1,"max":"5"}`, false, `{"min":"1","max":"5"}`, nil},
		{"range reversed", rng, `{"min":6,"max":5}`, false, "", []string{`'{"min":6,"max":5}': min is greater than max.`}},
		{"text empty", text, ``, false, "", []string{MsgEmpty}},
		{"text", text, `kinase`, false, "kinase", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r ValueRules
			if tt.vocab {
				r.Vocabulary = NewVocabulary(tt.p.Vocabulary)
			}
			got, probs := EncodeValue(&tt.p, tt.v, r)
			if got != tt.want || !cmp.Equal(probs, tt.probs) {
				t.Errorf("EncodeValue(%q) = %q, %q; want %q, %q", tt.v, got, probs, tt.want, tt.probs)
			}
		})
	}
}

func TestCheckValues(t *testing.T) {
	s := &Search{SearchSummary: SearchSummary{Name: "GenesByX"}, Params: []Param{
		{Name: "in", Type: ParamInputStep},
		{Name: "ev", Type: ParamMultiPick, HasDefault: true, Default: `["Curated"]`},
		{Name: "q", Type: ParamString},
		{Name: "site", Type: ParamMultiPick, SiteDefault: true},
		{Name: "opt", Type: ParamString, AllowEmpty: true},
	}}
	none := func(*Param) ValueRules { return ValueRules{} }
	got, ve := CheckValues(s, map[string]string{"q": "kinase"}, none)
	if ve != nil {
		t.Fatal(ve)
	}
	want := map[string]string{"in": "", "ev": `["Curated"]`, "q": "kinase", "opt": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CheckValues() mismatch (-want +got):\n%s", diff)
	}
	_, ve = CheckValues(s, map[string]string{"in": "12", "zz": "1"}, none)
	wantErr := map[string][]string{
		"in": {MsgInputStepValue},
		"q":  {MsgEmpty},
		"zz": {"Parameter 'zz' is not a parameter of GenesByX (its parameters: in, ev, q, site, opt)."},
	}
	if ve == nil || !cmp.Equal(ve.ByKey, wantErr) {
		t.Errorf("CheckValues() problems = %v, want %v", ve, wantErr)
	}
}
