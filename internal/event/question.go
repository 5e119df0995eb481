package event

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Detail says what an option builds and its count: "GenesByGoTerm (…):
// 57 genes", "≈ 66 genes (approximate: a text search)", or why it has no
// count.
func (o QuestionOption) Detail() string {
	var s string
	switch {
	case o.Count != nil && o.Approximate:
		s = "≈ " + Genes(*o.Count) + " (approximate: a text search)"
	case o.Count != nil:
		s = Genes(*o.Count)
	case o.CountNote != "":
		s = "no count: " + o.CountNote
	}
	if o.Builds != "" {
		if s != "" {
			s = "; " + s
		}
		s = o.Builds + s
	}
	return s
}

// Summary is the question as a chat client shows it, one line each: the
// question, each option numbered with what it builds and its count, and
// how to answer.
func (q *QuestionAsked) Summary() string {
	lines := []string{"Question: " + q.Question}
	for i, o := range q.Options {
		line := fmt.Sprintf("%d. %s", i+1, o.Label)
		if d := o.Detail(); d != "" {
			line += " — " + d
		}
		lines = append(lines, line)
	}
	return strings.Join(append(lines, q.ReplyHint()), "\n")
}

// ReplyHint says how to answer the question in a chat.
func (q *QuestionAsked) ReplyHint() string {
	if q.FreeText {
		return "Reply with an option's number, or say in your own words what you meant."
	}
	return "Reply with an option's number."
}

// Numbered says whether text already puts the question with its options
// numbered as Summary does ("1. <label>"), as the offline planner's
// answer does: a chat then needs only the reply hint.
func (q *QuestionAsked) Numbered(text string) bool {
	if !strings.Contains(text, q.Question) {
		return false
	}
	for i, o := range q.Options {
		if !strings.Contains(text, fmt.Sprintf("%d. %s", i+1, o.Label)) {
			return false
		}
	}
	return true
}

// optionNumberRE is a reply that names an option by its number: "2",
// "2.", "#2", "option 2".
var optionNumberRE = regexp.MustCompile(`(?i)^(?:option\s*|#)?(\d{1,2})[.)!]?$`)

// OptionNumber reads a reply that names an option by its number ("2",
// "2.", "#2", "option 2"); ok is false for any other reply.
func OptionNumber(reply string) (n int, ok bool) {
	m := optionNumberRE.FindStringSubmatch(strings.TrimSpace(reply))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// Answer is the message a reply to the question sends: the message of the
// option a reply names by its number (as Summary numbers them), else the
// reply as it is, the researcher's own words.
func (q *QuestionAsked) Answer(reply string) string {
	n, ok := OptionNumber(reply)
	if !ok || n < 1 || n > len(q.Options) {
		return reply
	}
	return q.Options[n-1].Message
}
