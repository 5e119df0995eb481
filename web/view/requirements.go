package view

import "strategist/internal/event"

// Checks is a build's requirement check, shown as a card in its turn:
// each requirement the request stated with the step that implements it,
// its count and example genes, and the result's figures against the
// conversation's controls.
type Checks struct {
	Key int64
	event.RequirementsChecked
}

func (*Checks) item() {}

// requirementsChecked adds a check to its turn.
func (c *Conversation) requirementsChecked(rec event.Record, e *event.RequirementsChecked) []Change {
	t := c.turnOf(rec, e.TurnID)
	ch := &Checks{Key: rec.Seq, RequirementsChecked: *e}
	t.Items = append(t.Items, ch)
	return []Change{ItemAdded{Turn: t, Item: ch}}
}
