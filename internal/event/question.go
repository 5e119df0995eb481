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
		s = fmt.Sprintf("≈ %d genes (approximate: a text search)", *o.Count)
	case o.Count != nil:
		s = fmt.Sprintf("%d genes", *o.Count)
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
	if q.FreeText {
		lines = append(lines, "Reply with an option's number, or say in your own words what you meant.")
	} else {
		lines = append(lines, "Reply with an option's number.")
	}
	return strings.Join(lines, "\n")
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
