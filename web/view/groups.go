package view

// A turn's tool calls are shown in groups: each run of consecutive calls
// (no message or error between them) is one line that says what the calls
// did ("12 catalog look-ups · 3 steps created") and opens on demand, so a
// turn of many calls takes a line of the chat, not a screen.

// addCall appends a chat tool call to the turn, in the group of the call
// just before it, or as the first of a new group.
func (t *Turn) addCall(tc *ToolCall) {
	tc.group = tc.Key
	if n := len(t.Items); n > 0 {
		if prev, ok := t.Items[n-1].(*ToolCall); ok {
			tc.group = prev.group
		}
	}
	t.Items = append(t.Items, tc)
}

// Group is the key of the call's group: the Key of its first call (0 for a
// sub-agent's call, which is in no group).
func (tc *ToolCall) Group() int64 { return tc.group }

// FirstOfGroup reports whether the call opens its group: the page draws
// the group when its first call arrives and appends later calls to it.
func (tc *ToolCall) FirstOfGroup() bool { return tc.turn != nil && tc.group == tc.Key }

// CallGroup is a run of consecutive tool calls of one turn.
type CallGroup struct {
	Key   int64
	Calls []*ToolCall
}

func (*CallGroup) item() {}

// GroupOf returns the group a chat tool call is in, as it stands.
func (tc *ToolCall) GroupOf() *CallGroup {
	g := &CallGroup{Key: tc.group}
	if tc.turn == nil {
		return &CallGroup{Key: tc.Key, Calls: []*ToolCall{tc}}
	}
	for _, it := range tc.turn.Items {
		if o, ok := it.(*ToolCall); ok && o.group == tc.group {
			g.Calls = append(g.Calls, o)
		}
	}
	return g
}

// Grouped returns the turn's items with each run of tool calls replaced by
// its *CallGroup: what the chat draws.
func (t *Turn) Grouped() []Item {
	out := make([]Item, 0, len(t.Items))
	var g *CallGroup
	for _, it := range t.Items {
		tc, ok := it.(*ToolCall)
		if !ok {
			g = nil
			out = append(out, it)
			continue
		}
		if g == nil || g.Key != tc.group {
			g = &CallGroup{Key: tc.group}
			out = append(out, g)
		}
		g.Calls = append(g.Calls, tc)
	}
	return out
}
