package view

import (
	"strings"

	"strategist/internal/event"
)

// Recovery is what the page offers after the latest turn was stopped or
// failed: Retry sends the last message the researcher wrote again, in its
// mode and with its model; Build again (when the turn was a build) sends
// the same approved plan to the executor again.
type Recovery struct {
	// Turn is the turn that ended badly.
	Turn *Turn
	// Retry is the latest turn with a message the researcher wrote (nil
	// when there is none).
	Retry *Turn
	// Build is the build turn to run again (nil when Turn was no build).
	Build *Turn
}

// Recovery returns what to offer after the latest turn, or nil when it is
// running or ended well.
func (c *Conversation) Recovery() *Recovery {
	if len(c.Turns) == 0 {
		return nil
	}
	t := c.Turns[len(c.Turns)-1]
	switch t.Status {
	case event.TurnCancelled, event.TurnFailed, event.TurnInterrupted:
	default:
		return nil
	}
	r := &Recovery{Turn: t}
	if t.Build() && t.UserText != "" {
		r.Build = t
	}
	for i := len(c.Turns) - 1; i >= 0; i-- {
		if u := c.Turns[i]; !u.Build() && strings.TrimSpace(u.UserText) != "" {
			r.Retry = u
			break
		}
	}
	return r
}
