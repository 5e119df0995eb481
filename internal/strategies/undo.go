package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"strategist/internal/event"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/telemetry"
)

// errVersionMoved aborts an undo whose strategy changed between reading the
// version to restore and taking the lock; Undo then starts over.
var errVersionMoved = errors.New("strategy: version moved")

// undoAttempts bounds how often Undo starts over under concurrent changes.
const undoAttempts = 5

// Undo reverts the last turn's changes by restoring the graph of the
// version before the turn's first change, exactly (steps, counts and name),
// recorded as a new version with change "undo" and reported through
// OnChange. A change no turn made (the researcher's own edit) is a unit of
// its own. Undos walk back through history: a second undo reverts the turn
// (or edit) before the one the first undid (it does not undo the undo),
// down to the empty strategy of version 0, after which there is
// ErrNothingToUndo. An undo made by a turn among its own changes (an
// agent's undo_last_change) takes back one change. Step ids keep counting up, so a step created after an
// undo never reuses a reverted step's id.
func (s *Service) Undo(ctx context.Context, userID, strategyID string) (Result, error) {
	ctx, span := telemetry.Start(ctx, "strategy.undo")
	if !span.IsRecording() {
		return s.undo(ctx, userID, strategyID)
	}
	span.SetAttributes(telemetry.KeyStrategyID.String(strategyID), telemetry.KeyMutation.String("Undo"))
	res, err := s.undo(ctx, userID, strategyID)
	endMutationSpan(span, res, err)
	return res, err
}

func (s *Service) undo(ctx context.Context, userID, strategyID string) (Result, error) {
	for range undoAttempts {
		res, err := s.undoOnce(ctx, userID, strategyID)
		if !errors.Is(err, errVersionMoved) {
			return res, err
		}
	}
	return Result{}, fmt.Errorf("strategy: undo %s: the strategy kept changing; try again", strategyID)
}

// history reads a strategy's change records, by version.
func (s *Service) history(ctx context.Context, userID, strategyID string) (store.Strategy, []strategy.Change, error) {
	rec, err := s.store.Strategy(ctx, userID, strategyID)
	if err != nil {
		return store.Strategy{}, nil, err
	}
	vs, err := s.store.StrategyVersions(ctx, userID, strategyID)
	if err != nil {
		return store.Strategy{}, nil, err
	}
	changes := make([]strategy.Change, rec.Version+1)
	for _, v := range vs {
		if v.Version < 0 || v.Version > rec.Version {
			continue
		}
		if err := json.Unmarshal(v.Change, &changes[v.Version]); err != nil {
			return store.Strategy{}, nil, fmt.Errorf("decode change %d: %w", v.Version, err)
		}
	}
	return rec, changes, nil
}

func (s *Service) undoOnce(ctx context.Context, userID, strategyID string) (Result, error) {
	rec, changes, err := s.history(ctx, userID, strategyID)
	if err != nil {
		return Result{}, fmt.Errorf("strategy: undo %s: %w", strategyID, err)
	}
	target, effective := strategy.UndoTarget(changes, rec.Version, event.TurnFrom(ctx))
	if target < 0 {
		return Result{}, fmt.Errorf("strategy: undo %s: %w: the strategy is as it was created", strategyID, strategy.ErrNothingToUndo)
	}
	summary := fmt.Sprintf("undid version %d: the strategy is as it was at version %d", effective, target)
	if n := effective - target; n > 1 {
		summary = fmt.Sprintf("undid versions %d–%d (%d changes of one turn): the strategy is as it was at version %d", target+1, effective, n, target)
	}
	return s.restore(ctx, userID, strategyID, rec.Version, target, strategy.Change{Op: strategy.OpUndo, UndoneVersion: effective, RestoredVersion: &target,
		Undone: effective - target, Turn: event.TurnFrom(ctx), Summary: summary})
}

// Redo restores the state an undo went back from: after undos (and redos)
// the strategy stands at version r, and redo restores the newest version
// of the turn that made version r+1, up to the version the first of those
// undos undid. Like Undo it records a new version (change "redo") and
// reports it; any other change since the undo ends what can be redone
// (strategy.ErrNothingToRedo).
func (s *Service) Redo(ctx context.Context, userID, strategyID string) (Result, error) {
	for range undoAttempts {
		res, err := s.redoOnce(ctx, userID, strategyID)
		if !errors.Is(err, errVersionMoved) {
			return res, err
		}
	}
	return Result{}, fmt.Errorf("strategy: redo %s: the strategy kept changing; try again", strategyID)
}

func (s *Service) redoOnce(ctx context.Context, userID, strategyID string) (Result, error) {
	rec, changes, err := s.history(ctx, userID, strategyID)
	if err != nil {
		return Result{}, fmt.Errorf("strategy: redo %s: %w", strategyID, err)
	}
	target, from, ok := strategy.RedoTarget(changes, rec.Version)
	if !ok {
		return Result{}, fmt.Errorf("strategy: redo %s: %w: no undo to take back", strategyID, strategy.ErrNothingToRedo)
	}
	return s.restore(ctx, userID, strategyID, rec.Version, target, strategy.Change{Op: strategy.OpRedo, UndoneVersion: from, RestoredVersion: &target,
		Undone: target - from, Turn: event.TurnFrom(ctx),
		Summary: fmt.Sprintf("redid version %d: the strategy is as it was at version %d", target, target)})
}

// Restore returns the strategy to an earlier version, picked from its
// history, recorded as a new version (change "restore") that Undo and
// Redo treat as an undo to that version. The version must exist and be
// older than the current one (ErrVersionNotFound otherwise).
func (s *Service) Restore(ctx context.Context, userID, strategyID string, version int) (Result, error) {
	for range undoAttempts {
		rec, err := s.store.Strategy(ctx, userID, strategyID)
		if err != nil {
			return Result{}, fmt.Errorf("strategy: restore %s: %w", strategyID, err)
		}
		if version < 0 || version >= rec.Version {
			return Result{}, fmt.Errorf("strategy: restore %s to version %d: %w: it has versions 0 to %d", strategyID, version, strategy.ErrVersionNotFound, rec.Version)
		}
		target := version
		res, err := s.restore(ctx, userID, strategyID, rec.Version, target, strategy.Change{Op: strategy.OpRestore, UndoneVersion: rec.Version, RestoredVersion: &target,
			Turn: event.TurnFrom(ctx), Summary: fmt.Sprintf("went back to version %d", target)})
		if !errors.Is(err, errVersionMoved) {
			return res, err
		}
	}
	return Result{}, fmt.Errorf("strategy: restore %s: the strategy kept changing; try again", strategyID)
}

// restore records the graph of version target as the version after
// version (the one read), with change; errVersionMoved when another change
// came first.
func (s *Service) restore(ctx context.Context, userID, strategyID string, version, target int, change strategy.Change) (Result, error) {
	tv, err := s.store.StrategyVersion(ctx, userID, strategyID, target)
	if err != nil {
		return Result{}, fmt.Errorf("strategy: %s %s: version %d: %w", change.Op, strategyID, target, err)
	}
	restored, err := strategy.Decode(tv.Graph)
	if err != nil {
		return Result{}, err
	}
	var (
		next    *strategy.Graph
		failure error
	)
	st := s.report.stripe(strategyID)
	st.mu.Lock()
	defer st.mu.Unlock()
	saved, rows, err := s.store.UpdateStrategy(ctx, userID, strategyID, func(current []byte, cur int) ([]byte, []byte, error) {
		if cur != version {
			failure = errVersionMoved
			return nil, nil, failure
		}
		g, err := strategy.Decode(current)
		if err != nil {
			failure = err
			return nil, nil, err
		}
		next = restored.Clone()
		next.NextStep = max(next.NextStep, g.NextStep)
		return encodePair(next, change, &failure)
	}, s.logged(ctx, func(rec store.Strategy) (strategy.Snapshot, error) { return snapshotAt(next, rec), nil }, &change))
	if failure != nil {
		return Result{}, failure
	}
	if err != nil {
		return Result{}, fmt.Errorf("strategy: %s %s: %w", change.Op, strategyID, err)
	}
	res := Result{Snapshot: snapshotAt(next, saved), Change: change}
	s.published(rows)
	s.report.deliver(ctx, st, res.Snapshot)
	return res, nil
}
