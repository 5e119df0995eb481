package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
)

// TestQuestionCard: a question the turn ended with is a card whose
// options are buttons sending each option's message as the next message,
// in the asking turn's mode and model, with what each builds and its count.
func TestQuestionCard(t *testing.T) {
	n, approx := 60, 66
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "plan", Model: "offline", UserMessageID: "u1", Message: "ligases on chromosome 11"},
		&event.QuestionAsked{Base: b("t1"), QuestionID: "q1", Question: "I could not map 'ligases' to a search. Which did you mean?", FreeText: true,
			Options: []event.QuestionOption{
				{Label: "DNA ligation (GO:0006266)", Message: "GO:0006266 on chromosome 11", Builds: "GenesByGoTerm (go_typeahead=[\"GO:0006266\"])", Count: &n},
				{Label: "genes whose annotation mentions 'ligases'", Message: "text search for ligases on chromosome 11", Builds: "GenesByText", Count: &approx, Approximate: true},
			}},
		&event.AssistantMessage{Base: b("t1"), MessageID: "m1", Content: "Which did you mean?"},
		&event.TurnEnd{Base: b("t1"), Status: "completed"},
	)
	q := tid(doc.Selection, "question")
	if q.Length() != 1 || q.AttrOr("data-question-id", "") != "q1" || !strings.Contains(q.Find(".question-text").Text(), "Which did you mean?") {
		t.Fatalf("no question card: %s", q.Text())
	}
	opts := tid(q, "question-option")
	if diff := cmp.Diff([]string{"false", "true"}, attrs(opts, "data-approximate")); diff != "" {
		t.Errorf("options approximate (-want +got):\n%s", diff)
	}
	var sent, modes, models []string
	opts.Find("form").Each(func(_ int, f *goquery.Selection) {
		sent = append(sent, f.Find(`input[name="message"]`).AttrOr("value", ""))
		modes = append(modes, f.Find(`input[name="mode"]`).AttrOr("value", ""))
		models = append(models, f.Find(`input[name="model"]`).AttrOr("value", ""))
	})
	if diff := cmp.Diff([]string{"GO:0006266 on chromosome 11", "text search for ligases on chromosome 11"}, sent); diff != "" {
		t.Errorf("messages the options send (-want +got):\n%s", diff)
	}
	if !cmp.Equal(modes, []string{"plan", "plan"}) || !cmp.Equal(models, []string{"offline", "offline"}) {
		t.Errorf("answers go to modes %v models %v, want the asking turn's", modes, models)
	}
	detail := texts(opts.Find(".muted"))
	if len(detail) != 2 || !strings.HasSuffix(detail[0], "60 genes") || !strings.Contains(detail[1], "≈ 66 genes (approximate") {
		t.Errorf("option details = %q", detail)
	}
}
