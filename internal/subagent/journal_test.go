package subagent

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/store"
)

// TestRowWriterCoalesces: while a write is in flight, changes accumulate;
// the next write carries each node's latest state once, in the order the
// nodes first changed, and close waits for it.
func TestRowWriterCoalesces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newRowWriter()
		release := make(chan struct{})
		var writes [][]string
		write := func(_ context.Context, us []store.DelegationNodeUpdate) error {
			var batch []string
			for _, u := range us {
				batch = append(batch, u.NodeID+":"+string(u.Status))
			}
			writes = append(writes, batch)
			if len(writes) == 1 {
				<-release
			}
			return nil
		}
		go w.run(t.Context(), write, func(err error) { t.Errorf("fail(%v)", err) })
		w.put(store.DelegationNodeUpdate{NodeID: "n1", Status: "running"})
		synctest.Wait() // the first write is in flight
		w.put(store.DelegationNodeUpdate{NodeID: "n2", Status: "running"})
		w.put(store.DelegationNodeUpdate{NodeID: "n1", Status: "done"})
		w.put(store.DelegationNodeUpdate{NodeID: "n2", Status: "failed"})
		close(release)
		w.close()
		want := [][]string{{"n1:running"}, {"n2:failed", "n1:done"}}
		if diff := cmp.Diff(want, writes); diff != "" {
			t.Errorf("writes mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestEventPump: events are appended in the order sent, batched while an
// append is in flight; after a failure the rest are dropped and the
// failure reported once.
func TestEventPump(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newEventPump()
		release := make(chan struct{})
		var appends [][]string
		emit := func(_ context.Context, events ...event.Event) error {
			var batch []string
			for _, e := range events {
				batch = append(batch, e.(*event.SubagentTaskStart).NodeID)
			}
			appends = append(appends, batch)
			switch len(appends) {
			case 1:
				<-release
			case 2:
				return errors.New("log down")
			}
			return nil
		}
		var failures []error
		go p.run(t.Context(), emit, func(err error) { failures = append(failures, err) })
		start := func(id string) *event.SubagentTaskStart { return &event.SubagentTaskStart{NodeID: id} }
		p.send(start("n1"))
		synctest.Wait()
		p.send(start("n2"))
		p.send(start("n3"))
		close(release)
		synctest.Wait()
		p.send(start("n4"))
		p.close()
		if diff := cmp.Diff([][]string{{"n1"}, {"n2", "n3"}}, appends); diff != "" {
			t.Errorf("appends mismatch (-want +got):\n%s", diff)
		}
		if len(failures) != 1 {
			t.Errorf("failures = %v, want one", failures)
		}
	})
}
