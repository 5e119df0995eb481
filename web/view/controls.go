package view

import "strategist/internal/event"

// ControlsSet redraws the controls mark: the conversation's control
// lists changed, so the open results panel reads its figures again.
type ControlsSet struct{}

func (ControlsSet) change() {}

// controlsChanged records the latest change of the conversation's
// controls (its sequence number, which the page's mark carries).
func (c *Conversation) controlsChanged(rec event.Record, _ *event.ControlsChanged) []Change {
	c.ControlsSeq = rec.Seq
	return []Change{ControlsSet{}}
}
