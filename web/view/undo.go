package view

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// changes are the change records of versions 0 to the current one; ok is
// false when the log does not hold every one (versions logged before
// change records were).
func (c *Conversation) changes() ([]strategy.Change, bool) {
	if c.Strategy == nil {
		return nil, false
	}
	out := make([]strategy.Change, c.Strategy.Version+1)
	for v := 1; v <= c.Strategy.Version; v++ {
		ch, ok := c.versions[v]
		if !ok {
			return nil, false
		}
		out[v] = ch
	}
	return out, true
}

// turnWords names a turn in the strategy's history: the researcher's
// message, or for a build the plan's goal ("build: …").
func (c *Conversation) turnWords(id string) string {
	t, ok := c.turns[id]
	if !ok || id == "" {
		return ""
	}
	if t.Build() {
		goal := t.rebuild
		for _, h := range c.Handoffs {
			if h.ID == t.HandoffID && h.Goal != "" {
				goal = h.Goal
			}
		}
		if goal == "" {
			if bc, _, ok := plan.ReadBuildMessage(t.UserText); ok {
				goal = bc.Goal
			}
		}
		if goal != "" {
			return "build: " + clipText(goal, 60)
		}
		return "the build"
	}
	return clipText(t.UserText, 60)
}

// unitLabel says what the versions from+1..to changed: a turn's changes by
// the turn's message ("10 changes by “exclude chromosome 5”"), one
// change by its summary.
func (c *Conversation) unitLabel(changes []strategy.Change, from, to int) string {
	ch := changes[to]
	if n := to - from; n > 1 {
		if words := c.turnWords(ch.Turn); words != "" {
			return fmt.Sprintf("%d changes by “%s”", n, words)
		}
		return fmt.Sprintf("%d changes of one turn", n)
	}
	return ch.Summary
}

// UndoLabel says what Undo would revert: the turn (or the researcher's
// own edit) that made the version the strategy stands at (after undos,
// the version they restored); "" when the log does not say (a version
// logged before change records were, or the strategy's creation).
func (c *Conversation) UndoLabel() string {
	changes, ok := c.changes()
	if !ok {
		return ""
	}
	target, effective := strategy.UndoTarget(changes, c.Strategy.Version, "")
	if target < 0 || changes[effective].Restores() {
		return ""
	}
	return c.unitLabel(changes, target, effective)
}

// CanUndo reports whether Undo has something to revert: with the change
// records, whether a version before the current unit exists; without them
// (a log from before change records), whether the strategy ever changed.
func (c *Conversation) CanUndo() bool {
	if c.Strategy == nil {
		return false
	}
	changes, ok := c.changes()
	if !ok {
		return c.Strategy.Version > 0
	}
	target, _ := strategy.UndoTarget(changes, c.Strategy.Version, "")
	return target >= 0
}

// RedoLabel says what Redo would restore, as UndoLabel says it; ok is
// false when there is nothing to redo (the strategy does not stand after
// an undo) or the log does not tell.
func (c *Conversation) RedoLabel() (label string, ok bool) {
	changes, known := c.changes()
	if !known {
		return "", false
	}
	target, from, ok := strategy.RedoTarget(changes, c.Strategy.Version)
	if !ok || changes[target].Restores() {
		return "", false
	}
	return c.unitLabel(changes, from, target), true
}

// Checkpoint is a version of the strategy the history offers to return
// to: the state before a turn (or a researcher's edit) changed it.
type Checkpoint struct {
	Version int
	// Before says what changed it next: the turn's message or the edit's
	// summary.
	Before string
	// Root is the version's result step (nil when it had not one tree).
	Root *strategy.Step
	// Steps counts the version's steps.
	Steps int
	// Latest marks the newest version (after an undo went back from it).
	Latest bool
}

// History lists the checkpoints of the strategy, newest first: for each
// turn or edit that changed it, the version just before ("Before …"), and
// the newest version when the strategy does not stand at it (after an
// undo; "Latest …"). The version the strategy stands at now is left out,
// and so are undos and restores (the versions they return to are listed
// already). Nil when the log does not hold every change record.
func (c *Conversation) History() []Checkpoint {
	changes, ok := c.changes()
	if !ok {
		return nil
	}
	_, now := strategy.UndoTarget(changes, c.Strategy.Version, "")
	var out []Checkpoint
	add := func(version int, cp Checkpoint) {
		if version == now {
			return
		}
		cp.Version = version
		if st, ok := c.states[version]; ok {
			cp.Root, cp.Steps = st.root, st.steps
		}
		out = append(out, cp)
	}
	newest := -1
	for v := 1; v <= c.Strategy.Version; v++ {
		ch := changes[v]
		if ch.Restores() {
			continue
		}
		newest = v
		if v > 1 && ch.Turn != "" && changes[v-1].Turn == ch.Turn && !changes[v-1].Restores() {
			continue // not the turn's first change
		}
		before := ch.Summary
		if words := c.turnWords(ch.Turn); words != "" {
			before = "“" + words + "”"
		}
		add(v-1, Checkpoint{Before: before})
	}
	if newest > 0 {
		add(newest, Checkpoint{Latest: true})
	}
	slices.Reverse(out)
	return out
}

// versionState is what the history shows of a version: its result and
// size, from the graph snapshot that reported it.
type versionState struct {
	root  *strategy.Step
	steps int
}

// graphSnapshot records a strategy version: the snapshot on the page, and
// what Undo and the history name it by.
func (c *Conversation) graphSnapshot(e *event.GraphSnapshot) ([]Change, error) {
	var snap strategy.Snapshot
	if err := json.Unmarshal(e.Snapshot, &snap); err != nil {
		return nil, fmt.Errorf("view: graph snapshot %s v%d: %w", e.StrategyID, e.Version, err)
	}
	if snap.StrategyID == "" {
		snap.StrategyID = e.StrategyID
	}
	if c.Strategy == nil || c.Strategy.StrategyID != snap.StrategyID {
		c.versions = map[int]strategy.Change{}
		c.states = map[int]versionState{}
	}
	c.Strategy = &snap
	st := versionState{steps: len(snap.Steps)}
	if snap.RootStepID != "" {
		if root, ok := snap.Step(snap.RootStepID); ok {
			st.root = &root
		}
	}
	c.states[snap.Version] = st
	// The strategy's creation (version 0, empty) is no change to it: the
	// count matches what Undo names for the turn.
	if t, ok := c.turns[e.TurnID]; ok && e.TurnID != "" && e.Version > 0 {
		t.StrategyChanges++
		t.Result = st.root
	}
	if len(e.Change) > 0 {
		var ch strategy.Change
		if json.Unmarshal(e.Change, &ch) == nil {
			c.versions[e.Version] = ch
		}
	}
	return []Change{StrategyChanged{}}, nil
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
