package web_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
)

// TestRequirementsCard: a build's requirement check is a card in its turn
// listing each requirement with its status, its step (a link to the box),
// its figures, its genes with their attributes and its note, and the
// result's figures against the controls.
func TestRequirementsCard(t *testing.T) {
	n57, n46, n89, n19, found, neg := 57, 46, 89, 19, 46, 0
	recall, precision := 46.0/58, 1.0
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "execute", Model: "offline", UserMessageID: "u1", Message: "build"},
		&event.RequirementsChecked{Base: b("t1"), StrategyID: "st", Version: 5, RootStepID: "s5", RootCount: &n89,
			Requirements: []event.Requirement{
				{ID: "n1", Kind: event.RequirementSearch, Text: "DNA replication", Search: "GO Term", Status: event.RequirementMet, StepID: "s1", Count: &n57, InResult: &n46,
					Values:   []event.StatedValue{{Param: "go_typeahead", ParamLabel: "GO Term", Value: `["GO:0006260"]`, Label: "DNA replication (GO:0006260)"}},
					Examples: []event.GeneEvidence{{GeneID: "PF3D7_0108600", Attribute: "GO Term: DNA replication (GO:0006260)"}}},
				{ID: "n2", Kind: event.RequirementExclusion, Text: "excluding chromosome 14", Status: event.RequirementMet, StepID: "s5", Count: &n89, InResult: &n19},
				{ID: "n3", Kind: event.RequirementSearch, Text: "signal peptide", Search: "Predicted Signal Peptide", Status: event.RequirementNotEvaluable, StepID: "s6",
					Note: "its genes cannot be computed here: not evaluable offline"},
				{ID: "n4", Kind: event.RequirementSearch, Text: "tRNA genes", Status: event.RequirementMissing, Note: "no step of the strategy runs Gene Type"},
			},
			Controls: &event.RootControls{PositivesName: "replication", PositivesFound: &found, PositivesTotal: 58, PositivesLost: []string{"PF3D7_1405300"},
				NegativesFound: &neg, NegativesTotal: 802, Recall: &recall, Precision: &precision}},
		&event.TurnEnd{Base: b("t1"), Status: "completed"},
	)
	card := tid(doc.Selection, "requirements")
	if card.Length() != 1 {
		t.Fatal("no requirements card")
	}
	if got := tid(card, "requirements-summary").Text(); got != "2 of 4 met · 1 missing · 1 could not be evaluated · result 89 genes" {
		t.Errorf("summary = %q", got)
	}
	reqs := tid(card, "requirement")
	if diff := cmp.Diff([]string{"met", "met", "not_evaluable", "missing"}, attrs(reqs, "data-status")); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s1", "s5", "s6"}, attrs(tid(card, "requirement-step"), "data-step-id")); diff != "" {
		t.Errorf("step links (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"57 genes, 46 in the result", "89 genes, removed 19 genes", "", ""}, texts(tid(card, "requirement-count"))); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
	if g := tid(card, "requirement-gene"); g.Length() != 1 || !strings.Contains(g.Text(), "GO Term: DNA replication (GO:0006260)") {
		t.Errorf("genes = %q", g.Text())
	}
	if notes := texts(tid(card, "requirement-note")); len(notes) != 2 || !strings.Contains(notes[1], "no step") {
		t.Errorf("notes = %q", notes)
	}
	if c := tid(card, "requirements-controls").Text(); !strings.Contains(c, "46 of 58 positives found") || !strings.Contains(c, "lost 1: PF3D7_1405300") || !strings.Contains(c, "precision 100.0%") {
		t.Errorf("controls = %q", c)
	}
}

// TestControlsMark: a change of the conversation's controls moves the
// page's controls mark, the element the stream redraws so that the open
// results panel reads its figures again.
func TestControlsMark(t *testing.T) {
	before := tid(page(t, &event.TurnStart{Base: b("t1"), Mode: "plan", Model: "offline", UserMessageID: "u1", Message: "hi"}).Selection, "controls-mark")
	after := tid(page(t, &event.TurnStart{Base: b("t1"), Mode: "plan", Model: "offline", UserMessageID: "u1", Message: "hi"},
		&event.ControlsChanged{PositivesID: "l1", PositivesName: "known", PositivesSize: 3}).Selection, "controls-mark")
	if before.AttrOr("data-seq", "") != "0" || after.AttrOr("data-seq", "0") == "0" {
		t.Errorf("controls mark: %q before, %q after a controls_changed", before.AttrOr("data-seq", ""), after.AttrOr("data-seq", ""))
	}
}
