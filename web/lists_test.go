package web_test

import (
	"strings"
	"testing"

	"strategist/internal/catalog"
	"strategist/web"
)

func TestResultsListsPanel(t *testing.T) {
	pf, nf := 46, 0
	recall, precision := 46.0/58.0, 1.0
	v := web.ResultsView{ConversationID: "c1", StepID: "s5", StepName: "root", Limit: 1, CSRFToken: "tok",
		Answer: &catalog.Answer{Count: 89, Records: []catalog.Record{{GeneID: "PF3D7_0100100"}}},
		Lists: &web.ListsPanel{
			Lists:     []web.ListOption{{ID: "l1", Name: "DNA replication", Size: 58}, {ID: "l2", Name: "chromosome 14", Size: 813}},
			Positives: "l1", Negatives: "l2",
			Controls: &web.StepControlsView{PositivesFound: &pf, PositivesTotal: 58, NegativesFound: &nf, NegativesTotal: 813,
				Recall: &recall, Precision: &precision, Missed: []string{"PF3D7_1400100", "PF3D7_0100100"}},
		}}
	doc := query(t, web.Results(v))
	got := strings.Join(strings.Fields(tid(doc.Selection, "step-controls").Text()), " ")
	if want := "Controls: positives 46 of 58 found (recall 79.3%) · negatives 0 of 813 found · precision 100.0%"; got != want {
		t.Errorf("controls line = %q, want %q", got, want)
	}
	if missed := tid(doc.Selection, "step-controls-missed").Text(); !strings.Contains(missed, "PF3D7_1400100, PF3D7_0100100") {
		t.Errorf("missed positives = %q", missed)
	}
	if action := tid(doc.Selection, "save-step-list").AttrOr("action", ""); action != "/conversations/c1/strategy/steps/s5/gene-list" {
		t.Errorf("save list action = %q", action)
	}
	if sel := doc.Find("#controls-positives option[selected]").AttrOr("value", ""); sel != "l1" {
		t.Errorf("positives chooser selects %q, want l1", sel)
	}
	if sel := doc.Find("#controls-negatives option[selected]").AttrOr("value", ""); sel != "l2" {
		t.Errorf("negatives chooser selects %q, want l2", sel)
	}
	if doc.Find(`[data-testid="upload-list"] input[type=file]`).AttrOr("data-list-file", "") != "upload-text" ||
		doc.Find(`[data-testid="upload-list"] input[type=file][name]`).Length() != 0 {
		t.Error("the upload form's file input does not fill the text box, or is sent itself")
	}

	// Without controls, no figures; without a session, no panel at all.
	v.Lists.Controls = nil
	if doc := query(t, web.Results(v)); tid(doc.Selection, "step-controls").Length() != 0 || tid(doc.Selection, "lists-panel").Length() != 1 {
		t.Error("figures shown without controls, or the panel missing")
	}
	v.CSRFToken = ""
	if doc := query(t, web.Results(v)); tid(doc.Selection, "lists-panel").Length() != 0 {
		t.Error("the lists panel is shown without a browser session")
	}
}
