package subagent

import (
	"context"
	"encoding/json"
	"fmt"

	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/store"
)

// persist hands node i's state, as the owner holds it, to the row writer.
func (r *run) persist(i int) {
	ns := &r.nodes[i]
	u := store.DelegationNodeUpdate{NodeID: ns.node.ID, Status: ns.status, Attempt: ns.attempt,
		RootStepID: string(ns.root), Error: ns.err}
	if ns.node.Kind == plan.KindTask && ns.attempt > 0 {
		u.Usage, _ = json.Marshal(ns.usage) // plain ints
	}
	if !ns.started.IsZero() {
		t := ns.started
		u.StartedAt = &t
	}
	if !ns.ended.IsZero() {
		t := ns.ended
		u.EndedAt = &t
	}
	r.rows.put(u)
}

// writeRows writes node rows; the row writer calls it.
func (r *run) writeRows(ctx context.Context, us []store.DelegationNodeUpdate) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if err := r.s.cfg.Store.UpdateDelegationNodes(ctx, r.d.UserID, r.id, us); err != nil {
		return fmt.Errorf("subagent: delegation %s: write nodes: %w", r.id, err)
	}
	return nil
}

// emitBatch appends events in one Emit, detached from cancellation.
func (r *run) emitBatch(ctx context.Context, events ...event.Event) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if err := r.d.Emitter.Emit(ctx, events...); err != nil {
		return fmt.Errorf("subagent: delegation %s: emit %s: %w", r.id, event.Name(events[0]), err)
	}
	return nil
}
