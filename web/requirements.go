package web

import (
	"strings"

	"strategist/internal/event"
	"strategist/web/view"
)

// checksSummary says how many requirements were met (and not) and the
// result's size.
func checksSummary(c *view.Checks) string {
	s := c.Tally()
	switch {
	case c.RootCount == nil:
	case c.RootApproximate && *c.RootCount == 0:
		s += " · result: no text matches"
	case c.RootApproximate:
		s += " · result ≈ " + plural(*c.RootCount, "gene") + " (approximate: text search)"
	default:
		s += " · result " + plural(*c.RootCount, "gene")
	}
	return s
}

// statedValues lists the values a requirement states.
func statedValues(vs []event.StatedValue) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.ParamLabel + ": " + v.Label
	}
	return strings.Join(parts, "; ")
}
