package planner_test

import (
	"strings"
	"testing"

	"strategist/internal/event"
	"strategist/internal/planner"
)

// TestAskResearcher: a question needs 2 to 4 options (one when free text
// is welcome), each with a label
// and a message; a valid one is streamed as question_asked, each option
// with what it builds and the catalog's count or why it has none (this
// catalog has no gene data, so none is counted), never an invented number.
func TestAskResearcher(t *testing.T) {
	tools, _, rec, _, _ := setup(t)
	for _, bad := range []string{
		`{"question":"","options":[{"label":"a","message":"a"},{"label":"b","message":"b"}]}`,
		`{"question":"Which?","options":[{"label":"a","message":"a"}]}`,
		`{"question":"Which?","free_text":true,"options":[]}`,
		`{"question":"Which?","options":[{"label":"a","message":"a"},{"label":"b","message":" "}]}`,
		`{"question":"Which?","options":[{"label":"1","message":"1"},{"label":"2","message":"2"},{"label":"3","message":"3"},{"label":"4","message":"4"},{"label":"5","message":"5"}]}`,
	} {
		if _, err := call(t, tools, "ask_researcher", bad); err == nil {
			t.Errorf("ask_researcher(%s) was accepted", bad)
		}
	}
	if len(rec.evs) != 0 {
		t.Fatalf("refused questions streamed %d events", len(rec.evs))
	}
	out, err := call(t, tools, "ask_researcher", `{"question":"Which did you mean by 'ligases'?","free_text":true,"options":[
		{"label":"DNA ligation (GO:0006266)","message":"GO:0006266 genes","search_name":"GenesByGoTerm","parameters":{"go_typeahead":"[\"GO:0006266\"]"}},
		{"label":"the word 'ligase' in annotations","message":"text search for ligases","search_name":"GenesByText","parameters":{"text_expression":"ligase*"},"approximate":true}]}`)
	if err != nil {
		t.Fatal(err)
	}
	asked := out.(*planner.Asked)
	if len(rec.evs) != 1 {
		t.Fatalf("%d events streamed, want one question", len(rec.evs))
	}
	q, ok := rec.evs[0].(*event.QuestionAsked)
	if !ok || q.QuestionID == "" || q.QuestionID != asked.QuestionID || !q.FreeText || len(q.Options) != 2 {
		t.Fatalf("streamed %+v", rec.evs[0])
	}
	for _, o := range q.Options {
		if o.Count != nil || o.CountNote == "" || !strings.HasPrefix(o.Builds, "GenesBy") {
			t.Errorf("option %+v: want what it builds and why it has no count", o)
		}
	}
	if !q.Options[1].Approximate || q.Options[0].Approximate {
		t.Errorf("approximate marks: %+v", q.Options)
	}
}
