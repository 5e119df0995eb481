package wdk

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

func TestDecodeVocabulary(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		want     []catalog.Term
		wantTree bool
		wantErr  bool
	}{
		{"absent", ``, nil, false, false},
		{"null", `null`, nil, false, false},
		{"3-element rows with null parents", `[["UNION","UNION",null],["MINUS","LEFT_MINUS",null]]`,
			[]catalog.Term{{Term: "UNION", Display: "UNION"}, {Term: "MINUS", Display: "LEFT_MINUS"}}, false, false},
		{"rows with a parent", `[["a","A",null],["a1","A one","a"]]`,
			[]catalog.Term{{Term: "a", Display: "A"}, {Term: "a1", Display: "A one", Parent: "a"}}, false, false},
		{"short and odd rows", `[["x"],["2,-3",null,null],[7,"seven",null],[],null]`,
			[]catalog.Term{{Term: "x", Display: "x"}, {Term: "2,-3", Display: "2,-3"}, {Term: "7", Display: "seven"}}, false, false},
		{"object rows", `[{"term":"gene","display":"Gene"},{"term":"est"}]`,
			[]catalog.Term{{Term: "gene", Display: "Gene"}, {Term: "est", Display: "est"}}, false, false},
		{"tree under a synthetic root", `{"data":{"term":"@@fake@@","display":"@@fake@@"},"children":[
			{"data":{"term":"Plasmodiidae","display":"Plasmodiidae"},"children":[
				{"data":{"term":"Pf3D7","display":"P. falciparum 3D7"},"children":[]},
				{"data":{"term":"PvP01"},"children":null}]}]}`,
			[]catalog.Term{{Term: "Plasmodiidae", Display: "Plasmodiidae"},
				{Term: "Pf3D7", Display: "P. falciparum 3D7", Parent: "Plasmodiidae"},
				{Term: "PvP01", Display: "PvP01", Parent: "Plasmodiidae"}}, true, false},
		{"tree with a real root", `{"data":{"term":"root","display":"Root"},"children":[{"data":{"term":"leaf","display":"Leaf"}}],"countOnlyLeaves":true}`,
			[]catalog.Term{{Term: "root", Display: "Root"}, {Term: "leaf", Display: "Leaf", Parent: "root"}}, true, false},
		{"not a vocabulary", `"nope"`, nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, tree, err := decodeVocabulary(json.RawMessage(tt.raw))
			if (err != nil) != tt.wantErr {
				t.Fatalf("decodeVocabulary() error = %v, wantErr %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decodeVocabulary() mismatch (-want +got):\n%s", diff)
			}
			if tree != tt.wantTree {
				t.Errorf("tree = %v, want %v", tree, tt.wantTree)
			}
		})
	}
}

func TestParamDecoding(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		raw  string
		want Param
	}{
		{"multi-pick unlimited", `{"name":"organism","displayName":"Organism","type":"multi-pick-vocabulary","displayType":"treeBox",
			"isVisible":true,"allowEmptyValue":false,"initialDisplayValue":"[\"Pf3D7\"]","minSelectedCount":1,"maxSelectedCount":-1,
			"countOnlyLeaves":true,"depthExpanded":0,"visibleHelpPosition":"above","someFutureKey":{"x":1},
			"vocabulary":{"data":{"term":"@@fake@@"},"children":[{"data":{"term":"Pf3D7","display":"Pf"}}]}}`,
			Param{Param: catalog.Param{Name: "organism", DisplayName: "Organism", Type: catalog.ParamMultiPick, DisplayType: "treeBox",
				IsVisible: true, Default: `["Pf3D7"]`, HasDefault: true, MinSelected: 1, MaxSelected: -1,
				Vocabulary: []catalog.Term{{Term: "Pf3D7", Display: "Pf"}}}, TreeVocabulary: true, CountOnlyLeaves: true}},
		{"multi-pick without maxSelectedCount", `{"name":"m","type":"multi-pick-vocabulary","vocabulary":[]}`,
			Param{Param: catalog.Param{Name: "m", DisplayName: "m", Type: catalog.ParamMultiPick, IsVisible: true, MaxSelected: -1, Vocabulary: []catalog.Term{}}}},
		{"single-pick", `{"name":"bq_operator","type":"single-pick-vocabulary","isVisible":true,"initialDisplayValue":"INTERSECT",
			"minSelectedCount":1,"maxSelectedCount":1,"vocabulary":[["INTERSECT","INTERSECT",null]]}`,
			Param{Param: catalog.Param{Name: "bq_operator", DisplayName: "bq_operator", Type: catalog.ParamSinglePick, IsVisible: true,
				Default: "INTERSECT", HasDefault: true, MinSelected: 1, MaxSelected: 1,
				Vocabulary: []catalog.Term{{Term: "INTERSECT", Display: "INTERSECT"}}}}},
		{"number string with bounds as strings", `{"name":"min_mw","type":"string","isNumber":true,"isVisible":false,
			"initialDisplayValue":"10000","min":"0","max":1e6,"group":"advanced"}`,
			Param{Param: catalog.Param{Name: "min_mw", DisplayName: "min_mw", Type: catalog.ParamString, Default: "10000", HasDefault: true,
				IsNumber: true, Min: f(0), Max: f(1e6)}, Group: "advanced"}},
		{"empty default is no default", `{"name":"text_expression","type":"string","initialDisplayValue":""}`,
			Param{Param: catalog.Param{Name: "text_expression", DisplayName: "text_expression", Type: catalog.ParamString, IsVisible: true}}},
		{"empty default allowed when empty is allowed", `{"name":"opt","type":"string","allowEmptyValue":true,"initialDisplayValue":""}`,
			Param{Param: catalog.Param{Name: "opt", DisplayName: "opt", Type: catalog.ParamString, IsVisible: true, AllowEmpty: true, HasDefault: true}}},
		{"null default", `{"name":"x","type":"string","initialDisplayValue":null}`,
			Param{Param: catalog.Param{Name: "x", DisplayName: "x", Type: catalog.ParamString, IsVisible: true}}},
		{"number-range default as an object", `{"name":"r","type":"number-range","initialDisplayValue":{"min":1,"max":5},"isVisible":"true"}`,
			Param{Param: catalog.Param{Name: "r", DisplayName: "r", Type: catalog.ParamNumberRange, IsVisible: true, Default: `{"min":1,"max":5}`, HasDefault: true}}},
		{"dependents", `{"name":"go_term_slim","type":"string","dependentParams":["go_typeahead"],"initialDisplayValue":"No"}`,
			Param{Param: catalog.Param{Name: "go_term_slim", DisplayName: "go_term_slim", Type: catalog.ParamString, IsVisible: true,
				Default: "No", HasDefault: true, DependentParams: []string{"go_typeahead"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w wireParam
			if err := json.Unmarshal([]byte(tt.raw), &w); err != nil {
				t.Fatalf("Unmarshal() error = %v", err)
			}
			got, err := w.param()
			if err != nil {
				t.Fatalf("param() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("param() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLenientScalars(t *testing.T) {
	var s struct {
		A, B, C, D, E text
		N1, N2        optInt
		N3, N4        optInt
		F             flag
		G             flag
		L             texts
		M             names
	}
	raw := `{"A":"x","B":12,"C":true,"D":null,"E":{"k": [1, 2]},"N1":"42","N2":7.9,"N3":null,"N4":"n/a",
		"F":"true","G":null,"L":"single","M":["a",{"name":"b","displayName":"B"},{"nameless":1}]}`
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatalf("Unmarshal() error = %v", err)
	}
	got := []any{s.A, s.B, s.C, s.D, s.E, s.N1, s.N2, s.N3, s.N4, s.F, s.G, s.L, s.M}
	want := []any{text("x"), text("12"), text("true"), text(""), text(`{"k":[1,2]}`),
		optInt{42, true}, optInt{7, true}, optInt{}, optInt{}, flag(true), flag(false), texts{"single"}, names{"a", "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lenient decoding mismatch (-want +got):\n%s", diff)
	}
}

func TestSearchDetailsOrderAndKind(t *testing.T) {
	var w wireSearchResponse
	raw := `{"searchData":` + fixtureSearch(t, "transcript", "boolean_question_TranscriptRecordClasses_TranscriptRecordClass") + `,"validation":{"level":"DISPLAYABLE","isValid":true}}`
	if err := json.Unmarshal([]byte(raw), &w); err != nil {
		t.Fatal(err)
	}
	d, err := w.details("transcript")
	if err != nil {
		t.Fatal(err)
	}
	wantInputs := []string{"bq_left_op_TranscriptRecordClasses_TranscriptRecordClass", "bq_right_op_TranscriptRecordClasses_TranscriptRecordClass"}
	if diff := cmp.Diff(wantInputs, d.InputParams); diff != "" {
		t.Errorf("InputParams mismatch (-want +got):\n%s", diff)
	}
	if d.Kind() != catalog.KindCombine || !d.Internal() || !d.IsBoolean() {
		t.Errorf("Kind() = %s, Internal() = %v, IsBoolean() = %v; want combine, true, true", d.Kind(), d.Internal(), d.IsBoolean())
	}
	if diff := cmp.Diff([]string{"wdk_weight"}, d.DynamicAttributes); diff != "" {
		t.Errorf("DynamicAttributes mismatch (-want +got):\n%s", diff)
	}
}

func TestLeavesAndExpansion(t *testing.T) {
	terms := []catalog.Term{{Term: "Plasmodiidae"}, {Term: "Pf", Parent: "Plasmodiidae"}, {Term: "Pv", Parent: "Plasmodiidae"}, {Term: "Tg"}}
	p := &Param{Param: catalog.Param{Name: "organism", Type: catalog.ParamMultiPick, Vocabulary: terms}, TreeVocabulary: true, CountOnlyLeaves: true}
	tests := []struct{ in, want string }{
		{`["Plasmodiidae"]`, `["Pf","Pv"]`},
		{`["Pf","Plasmodiidae","Tg"]`, `["Pf","Pv","Tg"]`},
		{`["Unknown"]`, `["Unknown"]`},
		{`bare term`, `["bare term"]`},
		{`[broken`, `[broken`},
	}
	d := &SearchDetails{Params: []Param{*p}}
	for _, tt := range tests {
		if got := expandLeaves(d, p, tt.in); got != tt.want {
			t.Errorf("expandLeaves(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	flat := &Param{Param: catalog.Param{Name: "o", Type: catalog.ParamMultiPick, Vocabulary: terms}}
	if got := expandLeaves(&SearchDetails{Params: []Param{*flat}}, flat, `["Plasmodiidae"]`); got != `["Plasmodiidae"]` {
		t.Errorf("expandLeaves(flat) = %s, want unchanged", got)
	}
}
