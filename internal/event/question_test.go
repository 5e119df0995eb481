package event_test

import (
	"testing"

	"strategist/internal/event"
)

// TestQuestionAnswer: a reply naming an option by its number sends that
// option's message; any other reply, or a number no option has, is sent as
// written.
func TestQuestionAnswer(t *testing.T) {
	q := &event.QuestionAsked{Options: []event.QuestionOption{{Message: "genes in GO:0006468"}, {Message: "text search for kinases"}}}
	for reply, want := range map[string]string{
		"1": "genes in GO:0006468", " 2. ": "text search for kinases", "#2": "text search for kinases", "Option 1": "genes in GO:0006468",
		"3": "3", "0": "0", "2 kinases": "2 kinases", "chromosome 2": "chromosome 2", "kinases": "kinases",
	} {
		if got := q.Answer(reply); got != want {
			t.Errorf("Answer(%q) = %q, want %q", reply, got, want)
		}
	}
}
