package view

// OpenTurns is how many of the latest turns the page draws whole. Older
// turns that have ended are folded: the page shows a summary line for each
// and draws the turn when it is opened. A long conversation's page then
// weighs about the same as a short one's, and the browser lays out only
// what the researcher is reading.
const OpenTurns = 2

// Folded reports whether the page shows t as a summary line: it ended and
// it is not one of the latest OpenTurns turns, or another turn replaced it.
func (c *Conversation) Folded(t *Turn) bool {
	return !t.Running() && (t.index < len(c.Turns)-OpenTurns || t.ReplacedBy != "")
}

// Turn returns the turn with the id, or nil.
func (c *Conversation) Turn(id string) *Turn { return c.turns[id] }

// ToolCall returns the tool call (of the chat or of the latest
// delegation's sub-agents) whose tool_call_start has sequence number key,
// or nil.
func (c *Conversation) ToolCall(key int64) *ToolCall {
	for _, t := range c.Turns {
		if t.Key > key {
			break
		}
		for _, it := range t.Items {
			if tc, ok := it.(*ToolCall); ok && tc.Key == key {
				return tc
			}
		}
	}
	if c.Delegation != nil {
		for _, n := range c.Delegation.Nodes {
			for _, tc := range n.Calls {
				if tc.Key == key {
					return tc
				}
			}
		}
	}
	return nil
}

// folding turns what an event changed into what the page must redraw now
// that some turns are folded. turnsBefore is how many turns there were
// before the event. A turn that ended outside the latest OpenTurns, or
// that a new turn pushed out of them, is redrawn folded (TurnFolded), and
// a change inside a folded turn becomes that turn's TurnFolded, since the
// page has no element of it but the summary line.
func (c *Conversation) folding(turnsBefore int, changes []Change) []Change {
	var out []Change
	folded := map[*Turn]bool{}
	fold := func(t *Turn) {
		if !folded[t] {
			folded[t] = true
			out = append(out, TurnFolded{Turn: t})
		}
	}
	// Turns that new turns pushed out of the open ones.
	for i := max(0, turnsBefore-OpenTurns); i < len(c.Turns)-OpenTurns; i++ {
		if t := c.Turns[i]; c.Folded(t) {
			fold(t)
		}
	}
	if len(out) == 0 && !c.touchesFolded(changes) {
		return changes
	}
	for _, ch := range changes {
		if t := changedTurn(ch); t != nil && c.Folded(t) {
			fold(t)
			continue
		}
		out = append(out, ch)
	}
	return out
}

func (c *Conversation) touchesFolded(changes []Change) bool {
	for _, ch := range changes {
		if t := changedTurn(ch); t != nil && c.Folded(t) {
			return true
		}
	}
	return false
}

// changedTurn is the chat turn a change redraws part of, or nil.
func changedTurn(ch Change) *Turn {
	switch ch := ch.(type) {
	case ItemAdded:
		return ch.Turn
	case ItemReplaced:
		return ch.Turn
	case DeltaAppended:
		return ch.Turn
	case TurnUpdated:
		return ch.Turn
	case HandoffChanged:
		return ch.Turn
	}
	return nil
}
