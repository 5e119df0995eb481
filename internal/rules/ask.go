package rules

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"strategist/internal/english"
)

// askOption is one reading of ask_researcher's arguments.
type askOption struct {
	Label       string            `json:"label"`
	Message     string            `json:"message"`
	SearchName  string            `json:"search_name,omitempty"`
	Parameters  map[string]string `json:"parameters,omitempty"`
	Approximate bool              `json:"approximate,omitempty"`
}

// askCall is the question the planner asks instead of planning when a
// phrase maps to no search: which of the vocabulary terms nearest its
// words the researcher meant, or a text search for the words, marked
// approximate. It asks about the first such phrase; false when every
// phrase mapped or the researcher asked for a text search. When the
// catalog's vocabularies hold nothing near the phrase the text search is
// the one reading offered, and the researcher may say it another way:
// an unmapped phrase is never built with a number unasked.
func askCall(m *mapped, user string) (call, bool) {
	for _, c := range m.p.Root.Leaves() {
		l := m.res.leaves[c]
		if l == nil || !l.unmapped || c.Literal {
			continue
		}
		var opts []askOption
		for _, n := range l.nearest {
			id := strings.Trim(n.params[paramGO], `["]`)
			opts = append(opts, askOption{
				Label:      n.label,
				Message:    reworded(user, c.Text, id, "genes annotated with "+id),
				SearchName: n.search, Parameters: n.params,
			})
		}
		opts = append(opts, askOption{
			Label:      fmt.Sprintf("genes whose annotation mentions %s (a text search: its count is approximate)", english.Quote(c.Text)),
			Message:    reworded(user, c.Text, "text search for "+c.Text, "text search for "+c.Text),
			SearchName: l.search, Parameters: l.params, Approximate: true,
		})
		question := fmt.Sprintf("I could not map %s to a search of the catalog. Which did you mean?", english.Quote(c.Text))
		if len(l.nearest) == 0 {
			question = fmt.Sprintf("I could not map %s to a search of the catalog, and none of its vocabulary terms is near it. Should I run a text search for it, or can you say it another way?", english.Quote(c.Text))
		}
		return newCall("ask_researcher", map[string]any{"question": question, "options": opts, "free_text": true}), true
	}
	return call{}, false
}

// reworded is the researcher's message with a phrase put in place of what
// they wrote, so an option answers in their own request; alone when the
// phrase is not in the message as written.
func reworded(user, phrase, with, alone string) string {
	re := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(phrase) + `\b`)
	if !re.MatchString(user) {
		return alone
	}
	return strings.TrimSpace(re.ReplaceAllLiteralString(strings.Join(strings.Fields(user), " "), with))
}

// questionText is the planner's answer when it asked: the question, each
// reading with what it builds and the catalog's count for it, and that
// nothing was built.
func questionText(m *mapped, d *done) string {
	var b strings.Builder
	b.WriteString(intro + "\n\n")
	fmt.Fprintf(&b, "I understood: **%s**.\n\n", m.p.Root.Describe())
	var args struct {
		Question string `json:"question"`
	}
	_ = json.Unmarshal(d.args, &args)
	if !d.ok {
		fmt.Fprintf(&b, "%s Asking you failed (%s: %s), so I planned nothing. Name the genes another way, or ask for a \"text search for …\".", args.Question, d.code, d.msg)
		return b.String()
	}
	var asked struct {
		Options []struct {
			Label       string `json:"label"`
			Message     string `json:"message"`
			Count       *int   `json:"count"`
			CountNote   string `json:"countNote"`
			Approximate bool   `json:"approximate"`
		} `json:"options"`
	}
	d.decode(&asked)
	b.WriteString(args.Question + "\n\n")
	for i, o := range asked.Options {
		fmt.Fprintf(&b, "%d. %s", i+1, o.Label)
		switch {
		case o.Count != nil && o.Approximate:
			fmt.Fprintf(&b, ": ≈ %d gene%s by itself", *o.Count, plural(*o.Count))
		case o.Count != nil:
			fmt.Fprintf(&b, ": %d gene%s by itself", *o.Count, plural(*o.Count))
		case o.CountNote != "":
			fmt.Fprintf(&b, ": no count (%s)", o.CountNote)
		}
		fmt.Fprintf(&b, ". Answer %s.\n", english.Quote(o.Message))
	}
	b.WriteString("\nChoose one, or say in your own words what you meant. Nothing is planned or built until you answer.")
	return b.String()
}
