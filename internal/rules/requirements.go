package rules

import (
	"encoding/json"
	"strings"

	"strategist/internal/event"
)

// checkCall asks check_requirements to check the strategy against the
// plan of what the request stated.
func checkCall(p json.RawMessage) call {
	return newCall("check_requirements", map[string]any{"plan": p})
}

// requirementsOf reads the requirement check a delegation's result
// carries, nil when it has none.
func requirementsOf(d *done) *event.RequirementsChecked {
	var r struct {
		Requirements *event.RequirementsChecked `json:"requirements"`
	}
	if !d.decode(&r) {
		return nil
	}
	return r.Requirements
}

// checkedText says what the requirement check found, as the tool gave
// it: each requirement with its step, count and example genes, and the
// result's figures against the controls. why says why there is no check.
func checkedText(rc *event.RequirementsChecked, why string) string {
	if rc == nil {
		if why == "" {
			return ""
		}
		return "\n\nI could not check the requirements: " + why + "."
	}
	var b strings.Builder
	b.WriteString("\n\n**Requirements the request stated** (" + rc.Tally() + "), each checked against the strategy:\n")
	for _, r := range rc.Requirements {
		line := r.Line()
		if r.Status != event.RequirementMet {
			// What is not met stands out.
			line = strings.Replace(line, ": "+r.Status.StatusText(), ": **"+r.Status.StatusText()+"**", 1)
		}
		b.WriteString("- " + line + "\n")
	}
	if c := rc.Controls; c != nil {
		b.WriteString("\n" + c.Summary() + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
