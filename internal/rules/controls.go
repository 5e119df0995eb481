package rules

import (
	"fmt"
	"strings"
)

// controlsResult is score_controls' answer: only the fields read.
type controlsResult struct {
	Positives string `json:"positives"`
	Negatives string `json:"negatives"`
	Root      string `json:"rootStepId"`
	Steps     []struct {
		StepID          string   `json:"stepId"`
		PositivesFound  *int     `json:"positivesFound"`
		PositivesTotal  int      `json:"positivesTotal"`
		NegativesFound  *int     `json:"negativesFound"`
		NegativesTotal  int      `json:"negativesTotal"`
		Recall          *float64 `json:"recall"`
		Precision       *float64 `json:"precision"`
		PositivesMissed []string `json:"positivesMissed"`
		MissedCount     int      `json:"missedCount"`
		Message         string   `json:"message"`
	} `json:"steps"`
}

// controlsTurn answers "test this against my controls" in execute mode:
// it runs score_controls and reports every step's figures exactly as the
// tool gave them. Nothing is searched or built.
//
// Gene ids the message gives ("…against my controls: PF3D7_…") are made
// the positive controls first.
func controlsTurn(a *asks, known []string) response {
	if !a.t.has("score_controls") {
		return say(intro + "\n\nI read this as a request to test the strategy against your control gene lists, but this role cannot score one.")
	}
	set := setKnown(a, known)
	if a.pending() {
		return response{calls: a.calls}
	}
	if set != nil && !set.ok {
		return say(intro + "\n\nI read this as a request to test the strategy against these genes, but they could not be set as its controls: " + set.msg + " (" + set.code + ").")
	}
	d := a.get(newCall("score_controls", map[string]string{}))
	if d == nil {
		return response{calls: a.calls}
	}
	var r controlsResult
	if !d.decode(&r) {
		return say(fmt.Sprintf("%s\n\nThe strategy could not be tested against your controls (%s): %s", intro, d.code, d.msg) + knownText(set))
	}
	return say(controlsText(r) + knownText(set))
}

// setKnown asks set_controls to make the genes a request named the
// conversation's positive controls; nil when it named none (or this role
// cannot set controls), or while the call is pending.
func setKnown(a *asks, known []string) *done {
	if len(known) == 0 || !a.t.has("set_controls") {
		return nil
	}
	return a.get(newCall("set_controls", map[string]any{"genes": known}))
}

// knownText says what set_controls did with the genes a request named:
// the list they were saved as, which previous ids were mapped and which
// ids are unknown.
func knownText(d *done) string {
	if d == nil {
		return ""
	}
	var r struct {
		Name    string   `json:"name"`
		Genes   []string `json:"genes"`
		Unknown []string `json:"unknown"`
		Mapped  []struct {
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"mapped"`
	}
	if !d.decode(&r) {
		return "\n\nI could not set the genes you named as controls: " + d.msg + " (" + d.code + ")."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\nI set the genes you named as this conversation's **positive controls** (%s, saved as the list “%s”)", strings.Join(r.Genes, ", "), r.Name)
	b.WriteString(": every build reports which of them its result finds and which it loses, and each step's results show its recall and precision. Change or clear them in a step's results panel.")
	for _, m := range r.Mapped {
		fmt.Fprintf(&b, " %s is the previous id of %s.", m.From, m.To)
	}
	if len(r.Unknown) > 0 {
		fmt.Fprintf(&b, " Unknown on this site, left out: %s.", strings.Join(r.Unknown, ", "))
	}
	return b.String()
}

// controlsText reports a strategy's figures against its controls, step by
// step, the root last as the tool lists it.
func controlsText(r controlsResult) string {
	var b strings.Builder
	b.WriteString(intro + "\n\nThe strategy against your controls")
	switch {
	case r.Positives != "" && r.Negatives != "":
		fmt.Fprintf(&b, " (positives: %q, negatives: %q)", r.Positives, r.Negatives)
	case r.Positives != "":
		fmt.Fprintf(&b, " (positives: %q, no negatives)", r.Positives)
	default:
		fmt.Fprintf(&b, " (no positives, negatives: %q)", r.Negatives)
	}
	b.WriteString(":\n\n| step | positives found | negatives found | recall | precision |\n|---|---|---|---|---|\n")
	for _, s := range r.Steps {
		name := s.StepID
		if s.StepID == r.Root {
			name += " (root)"
		}
		if s.PositivesFound == nil {
			fmt.Fprintf(&b, "| %s | not evaluable | | | |\n", name)
			continue
		}
		fmt.Fprintf(&b, "| %s | %d of %d | %d of %d | %s | %s |\n", name, *s.PositivesFound, s.PositivesTotal, *s.NegativesFound, s.NegativesTotal, ratio(s.Recall), ratio(s.Precision))
	}
	for _, s := range r.Steps {
		if s.StepID == r.Root && s.MissedCount > 0 {
			fmt.Fprintf(&b, "\nThe root misses %d positive(s): %s", s.MissedCount, strings.Join(s.PositivesMissed, ", "))
			if s.MissedCount > len(s.PositivesMissed) {
				b.WriteString(", …")
			}
			b.WriteString(". Ask \"which step drops <gene id>?\" on the page, or trace it in the results panel.\n")
		}
	}
	return b.String()
}

func ratio(r *float64) string {
	if r == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", *r*100)
}

// controlsInPlanMode says how to test against controls from plan mode,
// which plans searches: it is not one.
func controlsInPlanMode(cur *strategyOverview) string {
	if cur == nil {
		return intro + "\n\nI read this as a request to test a strategy against your control gene lists, but there is no strategy yet. " +
			"Describe the genes first and build the plan; then choose your control lists in a step's results panel."
	}
	return intro + "\n\nTesting against your controls reads the strategy; it is not a search to plan, so nothing is built. Switch the composer to " +
		"**execute** and ask again (\"test this against my controls\"), or open a step's results: with control lists chosen there, " +
		"each step shows its recall and precision."
}
