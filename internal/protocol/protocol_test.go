package protocol_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"strategist/internal/catalog/offline"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/sites"
	"strategist/internal/tool"
)

// TestNarrator: a turn's events become the answer a chat client shows:
// streamed text once, one line for each step worth watching, paragraphs
// apart.
func TestNarrator(t *testing.T) {
	n := protocol.NewNarrator(false)
	var b strings.Builder
	for _, e := range []event.Event{
		&event.AssistantDelta{MessageID: "m1", Delta: "Kinases"},
		&event.AssistantDelta{MessageID: "m1", Delta: " first."},
		&event.AssistantMessage{MessageID: "m1", Content: "Kinases first."},
		&event.ToolCallEnd{Name: "lookup_genes", OK: true},
		&event.ToolCallEnd{Name: "create_step", Error: &event.ToolError{Message: "no such search"}},
		&event.HandoffRequested{Goal: "kinases"},
		&event.TurnEnd{Status: event.TurnCompleted},
	} {
		b.WriteString(n.Text(e))
	}
	b.WriteString(n.Para("Done."))
	want := "Kinases first.\n\n> `create_step` failed: no such search\n\n> Plan ready: kinases. Reply **build** to build it.\n\nDone."
	if b.String() != want {
		t.Errorf("narrated\n%q\nwant\n%q", b.String(), want)
	}
	if got := protocol.NewNarrator(true).Text(&event.HandoffRequested{Goal: "kinases"}); got != "> Plan ready: kinases. Building it now." {
		t.Errorf("auto-build plan line = %q", got)
	}
}

// TestNarratorListsAndControls: an answer says when a gene list was saved
// and when the controls changed, and gives a build's requirement check:
// its tally, each requirement not met, the controls at the result.
func TestNarratorListsAndControls(t *testing.T) {
	n := protocol.NewNarrator(false)
	found, count := 1, 57
	var b strings.Builder
	for _, e := range []event.Event{
		&event.ToolCallEnd{Name: "save_gene_list", OK: true, Result: json.RawMessage(`{"listId":"l1","name":"replication hits","size":57}`)},
		&event.ControlsChanged{PositivesID: "l1", PositivesName: "replication hits", PositivesSize: 57},
		&event.RequirementsChecked{RootCount: &count, Requirements: []event.Requirement{
			{Kind: event.RequirementSearch, Text: "DNA replication", Search: "GO Term", Status: event.RequirementMet, StepID: "s1", Count: &count},
			{Kind: event.RequirementSearch, Text: "signal peptide", Search: "Predicted Signal Peptide", Status: event.RequirementNotEvaluable, StepID: "s2", Note: "not evaluable offline"},
		}, Controls: &event.RootControls{PositivesName: "known", PositivesFound: &found, PositivesTotal: 2, PositivesLost: []string{"PF3D7_0100100"}}},
	} {
		b.WriteString(n.Text(e))
	}
	want := "> Saved the gene list “replication hits” (57 genes).\n\n" +
		"> Controls changed: positives “replication hits” (57 genes), no negatives.\n\n" +
		"> Requirements: 1 of 2 met · 1 could not be evaluated\n" +
		"> - signal peptide (Predicted Signal Peptide): could not be evaluated, step s2 — not evaluable offline\n" +
		"> Controls at the result: 1 of 2 positives found (“known”); lost 1: PF3D7_0100100."
	if b.String() != want {
		t.Errorf("narrated\n%s\nwant\n%s", b.String(), want)
	}
}

// TestChecks: titles are trimmed and bounded, a title made from a message
// is one line of at most 80 characters, and only canonical UUIDs pass.
func TestChecks(t *testing.T) {
	if got, err := protocol.CheckTitle("  Kinases  "); err != nil || got != "Kinases" {
		t.Errorf("CheckTitle = %q, %v", got, err)
	}
	for _, bad := range []string{"   ", strings.Repeat("é", protocol.MaxTitle+1)} {
		_, err := protocol.CheckTitle(bad)
		if ae, ok := errors.AsType[*protocol.APIError](err); !ok || ae.Status != http.StatusUnprocessableEntity || ae.Code != protocol.CodeValidation {
			t.Errorf("CheckTitle(%.10q…) = %v, want 422 VALIDATION_ERROR", bad, err)
		}
	}
	if got := protocol.TitleFrom("kinases\n  in   the\tapicoplast"); got != "kinases in the apicoplast" {
		t.Errorf("TitleFrom = %q", got)
	}
	if got := []rune(protocol.TitleFrom(strings.Repeat("word ", 40))); len(got) != 80 || got[79] != '…' {
		t.Errorf("TitleFrom of a long message = %q (%d characters)", string(got), len(got))
	}
	for s, want := range map[string]bool{"0f8fad5b-d9cb-469f-a165-70867728950e": true, "0F8FAD5B-D9CB-469F-A165-70867728950E": true,
		"0f8fad5bd9cb469fa16570867728950e": false, "0f8fad5b-d9cb-469f-a165-70867728950g": false, "": false} {
		if protocol.IsUUID(s) != want {
			t.Errorf("IsUUID(%q) = %v", s, !want)
		}
	}
}

type statuses []sites.Status

func (s statuses) Statuses(context.Context, string) ([]sites.Status, error) { return s, nil }

// TestUsableSite: a site the catalog does not know is NOT_FOUND with the
// known sites; a live site without the caller's key is SITE_ACCOUNT.
func TestUsableSite(t *testing.T) {
	ctx := context.Background()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := protocol.UsableSite(ctx, cat, nil, "u", "plasmodb"); err != nil {
		t.Errorf("plasmodb from the catalog = %v", err)
	}
	reg := statuses{{ID: "plasmodb", Name: "PlasmoDB", Available: true}, {ID: "toxodb", Name: "ToxoDB", Message: "store your key"}}
	for site, code := range map[string]string{"nosuchdb": protocol.CodeNotFound, "toxodb": protocol.CodeSiteAccount} {
		for _, st := range []protocol.SiteStatuses{nil, reg} {
			if st == nil && site == "toxodb" {
				continue // the catalog alone knows no accounts
			}
			err := protocol.UsableSite(ctx, cat, st, "u", site)
			if te, ok := errors.AsType[*tool.ToolError](err); !ok || te.Code != code {
				t.Errorf("UsableSite(%s) = %v, want a %s tool error", site, err, code)
			}
		}
	}
	if err := protocol.UsableSite(ctx, cat, reg, "u", "plasmodb"); err != nil {
		t.Errorf("plasmodb from the registry = %v", err)
	}
}

// TestNarratorQuestion: a question the turn ended with closes the answer,
// after the planner's own words: the question, its options numbered with
// what each builds and its count, and how to reply. A turn that did not
// complete leaves it out.
func TestNarratorQuestion(t *testing.T) {
	n57, n66 := 57, 66
	q := &event.QuestionAsked{QuestionID: "q1", Question: "Which kinases did you mean?", FreeText: true, Options: []event.QuestionOption{
		{Label: "protein phosphorylation (GO:0006468)", Message: "genes in GO:0006468", Builds: "GenesByGoTerm", Count: &n57},
		{Label: "genes whose annotation mentions kinase", Message: "text search for kinases", Builds: "GenesByText", Count: &n66, Approximate: true},
	}}
	n := protocol.NewNarrator(false)
	var b strings.Builder
	for _, e := range []event.Event{q, &event.AssistantMessage{MessageID: "m1", Content: "I could not map kinases."}, &event.TurnEnd{Status: event.TurnCompleted}} {
		b.WriteString(n.Text(e))
	}
	want := "I could not map kinases.\n\n" +
		"> Question: Which kinases did you mean?\n" +
		"> 1. protein phosphorylation (GO:0006468) — GenesByGoTerm; 57 genes\n" +
		"> 2. genes whose annotation mentions kinase — GenesByText; ≈ 66 genes (approximate: a text search)\n" +
		"> Reply with an option's number, or say in your own words what you meant."
	if b.String() != want {
		t.Errorf("narrated\n%s\nwant\n%s", b.String(), want)
	}
	// Words that number the options already get only how to reply.
	n = protocol.NewNarrator(false)
	n.Text(q)
	n.Text(&event.AssistantDelta{MessageID: "m2", Delta: "Which kinases did you mean?\n\n1. protein phosphorylation (GO:0006468): 57 genes.\n"})
	n.Text(&event.AssistantDelta{MessageID: "m2", Delta: "2. genes whose annotation mentions kinase: ≈ 66 genes."})
	if got := n.Text(&event.TurnEnd{Status: event.TurnCompleted}); got != "\n\n> Reply with an option's number, or say in your own words what you meant." {
		t.Errorf("after numbered words the question narrated %q", got)
	}
	n = protocol.NewNarrator(false)
	n.Text(q)
	if got := n.Text(&event.TurnEnd{Status: event.TurnCancelled}); got != "> The turn ended cancelled" {
		t.Errorf("a cancelled turn's question narrated %q", got)
	}
}
