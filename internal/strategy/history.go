package strategy

// Undo and Redo take a turn's changes as one unit: these functions read a
// strategy's change records (changes[v] is version v's) and say which
// version each restores, for the strategy service and for the page that
// names what they would do.

// Restores reports whether the change put back an earlier version (an
// undo, a redo, or a restore from the history), and which.
func (c Change) Restores() bool {
	return (c.Op == OpUndo || c.Op == OpRedo || c.Op == OpRestore) && c.RestoredVersion != nil
}

// UndoTarget is the version Undo restores when the strategy stands at
// version (changes are the records of versions 0..version), and the
// version it takes back: the state now is that of effective (after undos,
// the version they restored), and undo goes to the version before the
// first change of effective's turn. A turn undoing within itself (own: an
// agent's undo_last_change while its turn runs) takes back one change of
// its own, not everything it did so far. target is -1 when there is
// nothing to undo.
func UndoTarget(changes []Change, version int, own string) (target, effective int) {
	effective = version
	if last := changes[version]; last.Restores() {
		effective = *last.RestoredVersion
	}
	target = effective - 1
	if turn := changes[effective].Turn; turn != "" && turn != own && effective > 0 {
		for target >= 1 && changes[target].Turn == turn && !changes[target].Restores() {
			target--
		}
	}
	return target, effective
}

// RedoTarget is the version Redo restores when the strategy stands at
// version, the newest change of the turn an undo took back; ok is false
// when the strategy does not stand after an undo, or a change since ended
// what can be redone.
func RedoTarget(changes []Change, version int) (target, from int, ok bool) {
	current := changes[version]
	if !current.Restores() {
		return 0, 0, false
	}
	// The change the run of undos and redos started from: the newest
	// state redo can restore.
	top := -1
	for v := version; v >= 0; v-- {
		if !changes[v].Restores() {
			top = v
			break
		}
	}
	from = *current.RestoredVersion
	target = from + 1
	if target > top {
		return 0, 0, false
	}
	if turn := changes[target].Turn; turn != "" {
		for target+1 <= top && changes[target+1].Turn == turn {
			target++
		}
	}
	return target, from, true
}
