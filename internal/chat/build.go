package chat

import (
	"strategist/internal/event"
)

// build is what a turn's delegations built, from their events: a turn that
// delegated and built no task or combine (every one failed, was skipped or
// cancelled) did not build, whatever its model answered afterwards.
type build struct {
	delegated bool
	built     bool
	// makes holds the delegation/node keys of tasks and combines: the
	// nodes that make a step (a step node reuses one).
	makes map[string]bool
	// cause is the first error a making node ended with.
	cause string
}

func (b *build) note(ev event.Event) {
	switch e := ev.(type) {
	case *event.SubagentPlan:
		b.delegated = true
		if b.makes == nil {
			b.makes = map[string]bool{}
		}
		for _, n := range e.Nodes {
			if n.Kind != "step" {
				b.makes[e.DelegationID+"/"+n.ID] = true
			}
		}
	case *event.SubagentTaskEnd:
		if !b.makes[e.DelegationID+"/"+e.NodeID] {
			return
		}
		if e.Status == event.NodeDone {
			b.built = true
		} else if b.cause == "" && e.Error != "" {
			b.cause = e.NodeID + ": " + e.Error
		}
	}
}

// failed says why a turn whose agent completed did not build, "" when it
// did, never delegated, or delegated a plan that makes nothing (its root
// is a step the strategy has: going back to it, or keeping it when a
// step above it is removed).
func (b *build) failed() string {
	if !b.delegated || b.built || len(b.makes) == 0 {
		return ""
	}
	msg := "the build made no step: no task of its plan was built"
	if b.cause != "" {
		msg += " (" + b.cause + ")"
	}
	return msg
}
