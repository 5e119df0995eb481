package strategies

import (
	"context"
	"testing"

	"strategist/internal/event"
	"strategist/internal/strategy"
)

// TestServicePrevious: the previous version is the last complete one whose
// root computes something else: half-built states and a rename of the same
// result are skipped, and after an undo the build it undid is previous.
func TestServicePrevious(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	previous := func() (int, strategy.StepID, bool) {
		t.Helper()
		snap, ok, err := f.svc.Previous(ctx, f.owner, f.strategy)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Version, snap.RootStepID, ok
	}
	if _, _, ok := previous(); ok {
		t.Error("an empty strategy has a previous version")
	}
	f.apply(t, translation) // v1: s1, complete
	if _, _, ok := previous(); ok {
		t.Error("the first complete version has a previous one")
	}
	f.apply(t, trna)                                                                    // v2: s1, s2 (two roots)
	f.apply(t, strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Intersect}) // v3: s3, complete
	if v, root, ok := previous(); !ok || v != 1 || root != "s1" {
		t.Errorf("previous = v%d root %s (%v), want v1 root s1", v, root, ok)
	}
	f.apply(t, strategy.Rename{Name: "Translation and tRNA"}) // v4: same result as v3
	if v, root, ok := previous(); !ok || v != 1 || root != "s1" {
		t.Errorf("after a rename previous = v%d root %s (%v), want v1 root s1", v, root, ok)
	}
	if _, err := f.svc.Undo(ctx, f.owner, f.strategy); err != nil { // v5: as v3
		t.Fatal(err)
	}
	if _, err := f.svc.Undo(ctx, f.owner, f.strategy); err != nil { // v6: as v2, two roots
		t.Fatal(err)
	}
	if v, root, ok := previous(); !ok || v != 5 || root != "s3" {
		t.Errorf("on a half-built strategy previous = v%d root %s (%v), want v5 root s3", v, root, ok)
	}
	if _, ok, err := f.svc.Previous(ctx, f.other, f.strategy); err == nil || ok {
		t.Errorf("another user's previous version: %v, %v", ok, err)
	}
}

// TestServicePreviousIsUndosTurn: "undo that" returns what the Undo button
// does, the strategy before the last turn, even when an earlier complete
// version lies inside that turn.
func TestServicePreviousIsUndosTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	in := func(turn string, m strategy.Mutation) {
		t.Helper()
		if _, err := f.svc.Apply(event.WithTurn(ctx, turn), f.owner, f.strategy, m); err != nil {
			t.Fatal(err)
		}
	}
	in("A", translation)                                                             // v1: s1, complete: turn A's result
	in("B", trna)                                                                    // v2: s1, s2
	in("B", strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Intersect}) // v3: s3
	in("B", replication)                                                             // v4: s3, s4
	in("B", strategy.Combine{Left: "s3", Right: "s4", Operator: strategy.Union})     // v5: s5, complete
	snap, ok, err := f.svc.Previous(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || snap.Version != 1 || snap.RootStepID != "s1" {
		t.Errorf("previous = v%d root %s (%v), want v1 root s1 (before turn B), not v3 inside it", snap.Version, snap.RootStepID, ok)
	}
}

// TestServicePreviousNotInsideTheFirstBuild: after a conversation's first
// build there is nothing to go back to; the half-built states inside that
// build (one search of two) are not a strategy "undo that" returns to.
func TestServicePreviousNotInsideTheFirstBuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	for _, m := range []strategy.Mutation{translation, trna, strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Intersect}} {
		if _, err := f.svc.Apply(event.WithTurn(ctx, "A"), f.owner, f.strategy, m); err != nil {
			t.Fatal(err)
		}
	}
	if snap, ok, err := f.svc.Previous(ctx, f.owner, f.strategy); err != nil || ok {
		t.Errorf("previous after the first build = v%d root %s (%v, %v), want none", snap.Version, snap.RootStepID, ok, err)
	}
}
