package event

import (
	"fmt"
	"strings"
)

// The requirement check in words, one sentence form shared by every
// reader that writes text (the offline engine's answer, the protocols'
// answers, the page's card), so they say the same.

// StatusText is how a requirement's status reads.
func (s RequirementStatus) StatusText() string {
	switch s {
	case RequirementMet:
		return "met"
	case RequirementNotMet:
		return "not met"
	case RequirementMissing:
		return "missing"
	case RequirementNotEvaluable:
		return "could not be evaluated"
	}
	return string(s)
}

// Name says what a requirement is: its words, with its search or kind.
func (r Requirement) Name() string {
	switch r.Kind {
	case RequirementSearch, RequirementTransform:
		if r.Search != "" {
			return fmt.Sprintf("%s (%s)", r.Text, r.Search)
		}
	case RequirementStep:
		return "the existing " + r.Text
	}
	return fmt.Sprintf("%s (%s)", r.Text, r.Kind)
}

// Figures are a requirement's count and what the result keeps of it (an
// exclusion: what it removed): "57 genes, 46 in the result".
// Figures a text search made approximate say so, and their zero is "no
// text matches", never an exact-sounding "0 genes".
func (r Requirement) Figures() string {
	about := ""
	if r.Approximate {
		about = "≈ "
	}
	var parts []string
	switch {
	case r.Count == nil:
	case r.Approximate && *r.Count == 0:
		return "no text matches"
	case r.Approximate:
		parts = append(parts, about+Genes(*r.Count)+" (approximate: text search)")
	default:
		parts = append(parts, Genes(*r.Count))
	}
	if r.InResult != nil {
		if r.Kind == RequirementExclusion {
			parts = append(parts, "removed "+about+Genes(*r.InResult))
		} else {
			parts = append(parts, fmt.Sprintf("%s%d in the result", about, *r.InResult))
		}
	}
	return strings.Join(parts, ", ")
}

// Line is the whole requirement in one line: what it is, its status,
// the step and figures, a few genes with their attributes, and the note.
func (r Requirement) Line() string {
	s := r.Name() + ": " + r.Status.StatusText()
	if r.StepID != "" {
		s += ", step " + r.StepID
		if f := r.Figures(); f != "" {
			s += ", " + f
		}
	}
	if len(r.Examples) > 0 {
		ex := make([]string, len(r.Examples))
		for i, e := range r.Examples {
			ex[i] = e.GeneID + " (" + e.Attribute + ")"
		}
		lead := "e.g. "
		if r.Kind == RequirementExclusion {
			lead = "removed e.g. "
		}
		s += "; " + lead + strings.Join(ex, ", ")
	}
	if r.Note != "" {
		s += " — " + r.Note
	}
	return s
}

// Genes says n genes.
func Genes(n int) string {
	if n == 1 {
		return "1 gene"
	}
	return fmt.Sprintf("%d genes", n)
}

// maxLostShown bounds the lost positives a summary names.
const maxLostShown = 10

// Summary is the result's figures against the controls in one sentence.
func (c *RootControls) Summary() string {
	if c.PositivesFound == nil {
		return "Controls at the result: not evaluated (" + c.Message + ")."
	}
	var parts []string
	if c.PositivesTotal > 0 {
		s := fmt.Sprintf("%d of %d positives found", *c.PositivesFound, c.PositivesTotal)
		if c.PositivesName != "" {
			s += " (“" + c.PositivesName + "”)"
		}
		if c.Recall != nil {
			s += fmt.Sprintf(", recall %.1f%%", *c.Recall*100)
		}
		if n := len(c.PositivesLost); n > 0 {
			s += fmt.Sprintf("; lost %d: %s", n, strings.Join(c.PositivesLost[:min(n, maxLostShown)], ", "))
			if n > maxLostShown {
				s += ", …"
			}
		} else {
			s += "; none lost"
		}
		parts = append(parts, s)
	}
	if c.NegativesTotal > 0 && c.NegativesFound != nil {
		s := fmt.Sprintf("%d of %d negatives found", *c.NegativesFound, c.NegativesTotal)
		if c.NegativesName != "" {
			s += " (“" + c.NegativesName + "”)"
		}
		parts = append(parts, s)
	}
	if c.Precision != nil {
		parts = append(parts, fmt.Sprintf("precision %.1f%%", *c.Precision*100))
	}
	return "Controls at the result: " + strings.Join(parts, "; ") + "."
}

// Tally says how many requirements are met, and how many are not, are
// missing or could not be evaluated: "4 of 5 met · 1 missing".
func (e *RequirementsChecked) Tally() string {
	n := map[RequirementStatus]int{}
	for _, r := range e.Requirements {
		n[r.Status]++
	}
	s := fmt.Sprintf("%d of %d met", n[RequirementMet], len(e.Requirements))
	for _, st := range []RequirementStatus{RequirementNotMet, RequirementMissing, RequirementNotEvaluable} {
		if n[st] > 0 {
			s += fmt.Sprintf(" · %d %s", n[st], st.StatusText())
		}
	}
	return s
}

// Summary is the check in a few lines: the tally, each requirement that
// is not met, and the result's figures against the controls.
func (e *RequirementsChecked) Summary() string {
	lines := []string{"Requirements: " + e.Tally()}
	for _, r := range e.Requirements {
		if r.Status != RequirementMet {
			lines = append(lines, "- "+r.Line())
		}
	}
	if e.Controls != nil {
		lines = append(lines, e.Controls.Summary())
	}
	return strings.Join(lines, "\n")
}

// Summary says what the controls are now: "Controls changed: positives
// “known” (3 genes), no negatives."
func (e *ControlsChanged) Summary() string {
	side := func(kind, id, name string, size int) string {
		if id == "" {
			return "no " + kind
		}
		return kind + " “" + name + "” (" + Genes(size) + ")"
	}
	return "Controls changed: " + side("positives", e.PositivesID, e.PositivesName, e.PositivesSize) + ", " +
		side("negatives", e.NegativesID, e.NegativesName, e.NegativesSize) + "."
}
