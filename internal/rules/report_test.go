package rules

import (
	"encoding/json"
	"testing"
)

// TestCountWording: the report says each kind of count as what it is, from
// the get_result_count wire form: exact, approximate (a text search
// contributed), an approximate zero, and not evaluable (no number).
func TestCountWording(t *testing.T) {
	tests := []struct {
		name, wire, want string
	}{
		{"exact", `{"status":"ok","value":57,"provenance":"PlasmoDB export (offline snapshot), 2017"}`,
			"**57 genes** (PlasmoDB export (offline snapshot), 2017)"},
		{"one", `{"status":"ok","value":1,"provenance":"PlasmoDB export (offline snapshot), 2017"}`,
			"**1 gene** (PlasmoDB export (offline snapshot), 2017)"},
		{"exact zero", `{"status":"ok","value":0,"provenance":"PlasmoDB export (offline snapshot), 2017"}`,
			"**0 genes** (PlasmoDB export (offline snapshot), 2017)"},
		{"approximate", `{"status":"ok","value":8,"provenance":"PlasmoDB export (offline snapshot), 2017","approximate":true,"message":"Text search is approximate"}`,
			"**≈ 8 genes (approximate: text search)** (PlasmoDB export (offline snapshot), 2017)"},
		{"approximate zero", `{"status":"ok","value":0,"provenance":"PlasmoDB export (offline snapshot), 2017","approximate":true}`,
			"**no text matches** (PlasmoDB export (offline snapshot), 2017)"},
		{"not evaluable", `{"status":"not_evaluable","message":"count unavailable offline: GenesByGoTerm is not evaluable offline: go_term_slim Yes: the 2017 export does not mark GO slim terms"}`,
			"**not evaluable offline** (GenesByGoTerm: go_term_slim Yes: the 2017 export does not mark GO slim terms)"},
		{"not evaluable without a reason", `{"status":"not_evaluable","message":"count unavailable offline"}`,
			"**not evaluable offline**"},
		{"failed", `{"status":"error","message":"count failed: the site is down"}`, "count failed: the site is down"},
		{"not counted", `{"status":"unknown"}`, "no count was given (status unknown)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c countView
			if err := json.Unmarshal([]byte(tt.wire), &c); err != nil {
				t.Fatal(err)
			}
			if got := c.describe(); got != tt.want {
				t.Errorf("describe() = %q\nwant          %q", got, tt.want)
			}
		})
	}
}
