package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/telemetry"
)

// errVersionMoved aborts an undo whose strategy changed between reading the
// version to restore and taking the lock; Undo then starts over.
var errVersionMoved = errors.New("strategy: version moved")

// undoAttempts bounds how often Undo starts over under concurrent changes.
const undoAttempts = 5

// Undo reverts the last change by restoring the graph of the version before
// it, exactly (steps, counts and name), recorded as a new version with
// change "undo" and reported through OnChange. Undos walk back through
// history: a second undo reverts the change before the one the first undid
// (it does not undo the undo), down to the empty strategy of version 0,
// after which there is ErrNothingToUndo. Step ids keep counting up, so a
// step created after an undo never reuses a reverted step's id.
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

func (s *Service) undoOnce(ctx context.Context, userID, strategyID string) (Result, error) {
	rec, err := s.store.Strategy(ctx, userID, strategyID)
	if err != nil {
		return Result{}, fmt.Errorf("strategy: undo %s: %w", strategyID, err)
	}
	cur, err := s.store.StrategyVersion(ctx, userID, strategyID, rec.Version)
	if err != nil {
		return Result{}, fmt.Errorf("strategy: undo %s: current version: %w", strategyID, err)
	}
	var last strategy.Change
	if err := json.Unmarshal(cur.Change, &last); err != nil {
		return Result{}, fmt.Errorf("strategy: undo %s: decode change %d: %w", strategyID, rec.Version, err)
	}
	// The state now is that of version effective; undo goes one before it.
	effective := rec.Version
	if (last.Op == strategy.OpUndo || last.Op == strategy.OpRedo) && last.RestoredVersion != nil {
		effective = *last.RestoredVersion
	}
	target := effective - 1
	if target < 0 {
		return Result{}, fmt.Errorf("strategy: undo %s: %w: the strategy is as it was created", strategyID, strategy.ErrNothingToUndo)
	}
	return s.restore(ctx, userID, strategyID, rec.Version, target, strategy.Change{Op: strategy.OpUndo, UndoneVersion: effective, RestoredVersion: &target,
		Summary: fmt.Sprintf("undid version %d: the strategy is as it was at version %d", effective, target)})
}

// Redo restores the state an undo went back from: after undos (and redos)
// the strategy stands at version r, and redo restores version r+1, up to
// the version the first of those undos undid. Like Undo it records a new
// version (change "redo") and reports it; any other change since the undo
// ends what can be redone (ErrNothingToRedo).
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
	rec, err := s.store.Strategy(ctx, userID, strategyID)
	if err != nil {
		return Result{}, fmt.Errorf("strategy: redo %s: %w", strategyID, err)
	}
	// Walk back over the run of undos and redos that ends at the current
	// version to the change they started from: the newest state redo can
	// restore.
	var (
		current strategy.Change
		top     = -1
	)
	for v := rec.Version; v >= 0; v-- {
		ver, err := s.store.StrategyVersion(ctx, userID, strategyID, v)
		if err != nil {
			return Result{}, fmt.Errorf("strategy: redo %s: version %d: %w", strategyID, v, err)
		}
		var ch strategy.Change
		if err := json.Unmarshal(ver.Change, &ch); err != nil {
			return Result{}, fmt.Errorf("strategy: redo %s: decode change %d: %w", strategyID, v, err)
		}
		if v == rec.Version {
			current = ch
		}
		if ch.Op != strategy.OpUndo && ch.Op != strategy.OpRedo {
			top = v
			break
		}
	}
	if current.Op != strategy.OpUndo && current.Op != strategy.OpRedo || current.RestoredVersion == nil || *current.RestoredVersion+1 > top {
		return Result{}, fmt.Errorf("strategy: redo %s: %w: no undo to take back", strategyID, strategy.ErrNothingToRedo)
	}
	target := *current.RestoredVersion + 1
	return s.restore(ctx, userID, strategyID, rec.Version, target, strategy.Change{Op: strategy.OpRedo, UndoneVersion: *current.RestoredVersion, RestoredVersion: &target,
		Summary: fmt.Sprintf("redid version %d: the strategy is as it was at version %d", target, target)})
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
