package eval

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Observation is what one case's conversation left, read from the API.
type Observation struct {
	ConversationID string
	Built          bool     // a strategy with at least one step exists
	Roots          int      // how many roots it has (one is the norm)
	RootCount      *int     // the answer's count; nil when none was given
	RootStatus     string   // the answer's count status: ok, not_evaluable, error, unknown
	Approximate    bool     // the answer's count is marked approximate
	NotEvaluable   []string // searches of steps marked not evaluable
	Tree           string   // the answer's tree of searches, rendered (for reports)
	Reply          string   // the assistant's text in the turns of the last message
	// Structure is the answer's tree with search names only, INTERSECT
	// and UNION operands sorted: INTERSECT(GenesByGoTerm, GenesByLocation).
	Structure  string
	Steps      int                          // steps under the answer's root, itself included
	RecordType string                       // the strategy's record type
	Parameters map[string]map[string]string // each search's parameters under the root (the last step of a search wins)
	Handoffs   int                          // handoffs the planner requested, over all messages
	Notes      []string                     // turns that did not complete, and how they ended
}

// Marked reports whether the answer says it is not an exact count.
func (o Observation) Marked() bool { return o.Approximate || len(o.NotEvaluable) > 0 }

// Confident reports whether the answer is a number given without any mark.
func (o Observation) Confident() bool { return o.RootCount != nil && !o.Marked() }

// Verdict is a case's score.
type Verdict string

// The verdicts. Wrong is the one that must not happen: a number given as
// exact that is not the expected answer.
const (
	Correct     Verdict = "correct"
	Wrong       Verdict = "wrong"        // a confident answer that is not the expected one
	MarkedWrong Verdict = "marked-wrong" // not the expected answer, but marked approximate or not evaluable
	NoAnswer    Verdict = "no-answer"    // built, but no count and no mark (several roots, a failed count)
	NoBuild     Verdict = "no-build"     // nothing was built where something should have been
	NoReason    Verdict = "no-reason"    // rightly nothing built (or the right count), but the answer does not say what it must
	Failed      Verdict = "error"        // the harness could not play the case (HTTP, timeout)
)

// Verdicts lists the verdicts in report order.
var Verdicts = []Verdict{Correct, Wrong, MarkedWrong, NoAnswer, NoBuild, NoReason, Failed}

// Score compares what a conversation left with what the case expects.
func Score(e Expectation, o Observation) Verdict {
	if e.nothingBuilt() {
		switch {
		case o.Built && o.Confident():
			return Wrong
		case o.Built && o.Marked():
			return MarkedWrong
		case o.Built:
			return NoAnswer
		}
		if !says(o.Reply, e.Says) || e.Outcome == OutcomeAsk && !strings.Contains(o.Reply, "?") {
			return NoReason
		}
		return Correct
	}
	if !o.Built {
		return NoBuild
	}
	switch e.Outcome {
	case OutcomeCount:
		if o.RootCount != nil && *o.RootCount == e.Count && !o.Marked() {
			if !says(o.Reply, e.Says) {
				return NoReason
			}
			return Correct
		}
	case OutcomeApproximate:
		if o.Approximate {
			return Correct
		}
	case OutcomeNotEvaluable:
		if o.RootCount == nil && slices.Contains(o.NotEvaluable, e.Search) {
			return Correct
		}
	}
	switch {
	case o.Confident():
		return Wrong
	case o.Marked():
		return MarkedWrong
	}
	return NoAnswer
}

// nothingBuilt reports whether the case expects no strategy at all.
func (e Expectation) nothingBuilt() bool {
	switch e.Outcome {
	case OutcomeRefused, OutcomeAnswered, OutcomeNoBuild, OutcomeAsk:
		return true
	}
	return false
}

// says reports whether reply contains every word, case-insensitively.
func says(reply string, words []string) bool {
	low := strings.ToLower(reply)
	for _, w := range words {
		if !strings.Contains(low, strings.ToLower(w)) {
			return false
		}
	}
	return true
}

// Result is one case played and scored.
type Result struct {
	Case        Case
	Expectation Expectation
	Observation Observation
	Verdict     Verdict
	Err         error // why the harness failed (Verdict error)
}

// Expected describes what the case wanted, for reports.
func (r Result) Expected() string {
	e := r.Expectation
	switch e.Outcome {
	case OutcomeCount:
		return fmt.Sprintf("%d = %s", e.Count, e.Tree)
	case OutcomeApproximate:
		return fmt.Sprintf("approximate (%d by %s)", e.Count, e.Tree)
	case OutcomeNotEvaluable:
		return e.Search + " not evaluable"
	case OutcomeNoBuild:
		return "nothing built"
	case OutcomeAsk:
		return "nothing built, a question back"
	}
	return e.Outcome + ", saying " + strings.Join(e.Says, ", ")
}

// Seen describes what the conversation left, for reports.
func (r Result) Seen() string {
	o := r.Observation
	if r.Err != nil {
		return "error: " + r.Err.Error()
	}
	if !o.Built {
		reply := strings.Join(strings.Fields(o.Reply), " ")
		if len(reply) > 160 {
			reply = reply[:160] + "…"
		}
		return fmt.Sprintf("nothing built (%d handoffs%s): %q", o.Handoffs, strings.Join(append([]string{""}, o.Notes...), "; "), reply)
	}
	count := "no count (" + o.RootStatus + ")"
	if o.RootCount != nil {
		count = strconv.Itoa(*o.RootCount)
	}
	var marks []string
	if o.Approximate {
		marks = append(marks, "approximate")
	}
	if len(o.NotEvaluable) > 0 {
		marks = append(marks, "not evaluable: "+strings.Join(o.NotEvaluable, ", "))
	}
	if o.Roots != 1 {
		marks = append(marks, fmt.Sprintf("%d roots", o.Roots))
	}
	marks = append(marks, o.Notes...)
	s := count + " = " + o.Tree
	if len(marks) > 0 {
		s += " [" + strings.Join(marks, "; ") + "]"
	}
	return s
}

// Tally counts verdicts for one category (or all).
type Tally struct {
	Cases    int
	Verdicts map[Verdict]int
}

// Accuracy is the share of correct cases, 0 to 1.
func (t Tally) Accuracy() float64 {
	if t.Cases == 0 {
		return 0
	}
	return float64(t.Verdicts[Correct]) / float64(t.Cases)
}

// Summary is a set's results by category and in total.
type Summary struct {
	Name       string
	ByCategory map[string]*Tally
	Total      Tally
}

// Summarize tallies results.
func Summarize(name string, results []Result) Summary {
	s := Summary{Name: name, ByCategory: map[string]*Tally{}, Total: Tally{Verdicts: map[Verdict]int{}}}
	for _, r := range results {
		t := s.ByCategory[r.Case.Category]
		if t == nil {
			t = &Tally{Verdicts: map[Verdict]int{}}
			s.ByCategory[r.Case.Category] = t
		}
		t.Cases++
		t.Verdicts[r.Verdict]++
		s.Total.Cases++
		s.Total.Verdicts[r.Verdict]++
	}
	return s
}

// ConfidentWrong is how many answers gave a wrong number without marking it.
func (s Summary) ConfidentWrong() int { return s.Total.Verdicts[Wrong] }

// WriteTable prints accuracy by category, then the totals and the count of
// confident wrong answers.
func (s Summary) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "category\tcases\taccuracy"
	for _, v := range Verdicts {
		header += "\t" + string(v)
	}
	fmt.Fprintln(tw, header+"\t")
	row := func(name string, t Tally) {
		line := fmt.Sprintf("%s\t%d\t%.1f%%", name, t.Cases, 100*t.Accuracy())
		for _, v := range Verdicts {
			line += "\t" + strconv.Itoa(t.Verdicts[v])
		}
		fmt.Fprintln(tw, line+"\t")
	}
	for _, c := range Categories {
		if t := s.ByCategory[c]; t != nil {
			row(c, *t)
		}
	}
	row("total", s.Total)
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("eval: table: %w", err)
	}
	_, err := fmt.Fprintf(w, "%s: %d of %d correct (%.1f%%); %d confident wrong answers\n",
		s.Name, s.Total.Verdicts[Correct], s.Total.Cases, 100*s.Total.Accuracy(), s.ConfidentWrong())
	if err != nil {
		return fmt.Errorf("eval: table: %w", err)
	}
	return nil
}

// WriteFailures lists every case that was not correct: id, category,
// verdict, the messages, what was expected and what was seen.
func WriteFailures(w io.Writer, results []Result) error {
	for _, r := range results {
		if r.Verdict == Correct {
			continue
		}
		_, err := fmt.Fprintf(w, "%s [%s] %s: %s\n  expected %s\n  seen     %s\n  conversation %s\n",
			r.Case.ID, r.Case.Category, r.Verdict, strings.Join(quoteAll(r.Case.Messages), " → "),
			r.Expected(), r.Seen(), r.Observation.ConversationID)
		if err != nil {
			return fmt.Errorf("eval: failures: %w", err)
		}
	}
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
