package subagent

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// A follow-up edits the strategy that exists: its plan reuses steps
// ({"type":"step","stepId":"s3"}) next to new tasks. The scheduler checks
// the reused steps when the delegation starts (checkSteps), ends their
// nodes done at once without a model (startStep), frees each just before
// the node that consumes it starts (free), and, when the plan completes,
// removes everything outside the result so the strategy has one root
// (tidy). Every removal is a DeleteStep through the strategy service,
// hence a version of its own, so Undo brings the removed steps back.

// freeTimeout bounds the removals that free the reused steps of one node,
// and tidyTimeout those that leave a completed build one root.
const (
	freeTimeout = 30 * time.Second
	tidyTimeout = 60 * time.Second
)

// checkSteps checks d's step nodes against the strategy as it stands (a
// *plan.PlanError naming the valid step ids when one does not exist) and
// returns, for each step node, its summary: the step's name and count.
// It labels the step nodes with their steps' names in a copy of the plan.
// A plan without step nodes reads nothing.
func checkSteps(ctx context.Context, d *Delegation) (map[string]string, error) {
	if len(d.Plan.Steps()) == 0 {
		return nil, nil
	}
	snap, err := d.Graph.Snapshot(ctx)
	if errors.Is(err, store.ErrNotFound) {
		snap, err = strategy.Snapshot{}, nil // no strategy yet: no step to reuse
	}
	if err != nil {
		return nil, err
	}
	if err := d.Plan.CheckSteps(snap); err != nil {
		return nil, err
	}
	labelled := *d.Plan
	labelled.Nodes = slices.Clone(d.Plan.Nodes)
	summaries := map[string]string{}
	for i, n := range labelled.Nodes {
		if n.Kind != plan.KindStep {
			continue
		}
		s, _ := snap.Step(n.StepID) // CheckSteps found it
		// The node's name is the step's (its id is shown beside it, as every
		// node's step is), so that names built on it carry no step id.
		labelled.Nodes[i].Label = plan.Clip(cmp.Or(s.DisplayName, n.Label), 80)
		summaries[n.ID] = reusedSummary(s)
	}
	d.Plan = &labelled
	return summaries, nil
}

// reusedSummary says which step a step node reused and what is known of
// its count, never a number the strategy does not hold.
func reusedSummary(s strategy.Step) string {
	out := fmt.Sprintf("reused step %s %q: ", s.ID, s.DisplayName)
	switch {
	case s.CountStatus == strategy.CountOK && s.Count != nil:
		out += fmt.Sprintf("%d genes", *s.Count)
		if s.CountProvenance != nil && s.CountProvenance.Approximate {
			out += " (approximate)"
		}
	case s.CountStatus == strategy.CountNotEvaluable:
		out += "its count cannot be computed here (not evaluable)"
	case s.CountStatus == strategy.CountError:
		out += "its count failed: " + s.CountMessage
	default:
		out += "not counted yet"
	}
	return out
}

// startStep ends a step node done at once, its result the existing step
// (described, with its count, by checkSteps): no model is called.
func (r *run) startStep(i int) {
	ns := &r.nodes[i]
	ns.status, ns.attempt, ns.started = StatusRunning, 1, time.Now()
	ns.attemptAt = ns.started
	ns.root, ns.summary = ns.node.StepID, r.reused[ns.node.ID]
	r.events.send(&event.SubagentTaskStart{Base: r.base(), DelegationID: r.id, NodeID: ns.node.ID, Attempt: 1})
	r.end(i, StatusDone, "")
}

// A turn that resumes after its server stopped runs its agent again, which
// delegates the same plan again: the nodes the previous run finished are
// not run again. The scheduler finds them (carried: the turn's latest
// unfinished delegation of the same plan, its done nodes whose root steps
// are still in the strategy) and ends them done at once with those roots
// (startCarried), as it does step nodes. A task that had started is
// retried: its attempt count continues, and the next attempt, a fresh
// agent, is told in its prompt (and the stream in subagent_task_retry)
// that the previous one was cut short and which steps it had made. Those
// steps are not made twice: every step a task's sub-agent makes carries
// the task's origin (the turn, the plan, the node: origin) and a digest of
// the call (graphtool), so the retry's same calls get the same steps back.
// free leaves them standing on the task's inputs for that, and tidy removes
// whatever the retry did not use when the plan completes.

// planKey names a plan within its turn: a digest of the plan, so that the
// same plan delegated again by a resumed run has the same key and another
// plan of the same turn another. Without a turn (tests) it is the
// delegation's id.
func planKey(turnID, delegationID string, planJSON []byte) string {
	if turnID == "" {
		return delegationID
	}
	sum := sha256.Sum256(planJSON)
	return turnID + "/" + hex.EncodeToString(sum[:6])
}

// origin is the key prefix of the steps node id's sub-agents make, the same
// for every attempt and every run of the turn.
func (r *run) origin(id string) string { return r.planKey + "/" + id }

// cutShort is a task the turn's previous run had started and not
// finished: its attempts so far and the steps they made.
type cutShort struct {
	attempt int
	steps   []strategy.Step
}

// cause is what the next attempt's prompt and subagent_task_retry say.
func (c cutShort) cause() string {
	msg := fmt.Sprintf("attempt %d was cut short: the server running it stopped", c.attempt)
	if len(c.steps) == 0 {
		return msg + " before it made any step; start again from the inputs"
	}
	made := make([]string, len(c.steps))
	for i, s := range c.steps {
		made[i] = fmt.Sprintf("%s %q (%s)", s.ID, s.DisplayName, s.SearchName)
	}
	return msg + " after it had made " + strings.Join(made, ", ") +
		"; the same create_step, transform_step or combine_steps call gives you that step back instead of making another, so redo the calls you need and finish"
}

// carried returns the nodes of d's plan that a previous run of the same
// turn finished (node id -> root step), those whose root is still in the
// strategy, and the tasks it had started without finishing, which are
// retried.
func (s *Scheduler) carried(ctx context.Context, d Delegation, planJSON []byte) (map[string]strategy.StepID, map[string]cutShort, error) {
	if d.TurnID == "" {
		return nil, nil, nil
	}
	prev, err := s.cfg.Store.PreviousNodes(ctx, d.UserID, d.TurnID, planJSON)
	if err != nil || len(prev) == 0 {
		return nil, nil, err
	}
	snap, err := d.Graph.Snapshot(ctx)
	if errors.Is(err, store.ErrNotFound) {
		// The previous run stopped before its first step: nothing it
		// made is carried, and its started tasks are retried.
		snap, err = strategy.Snapshot{}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	key := planKey(d.TurnID, "", planJSON)
	done, retried := map[string]strategy.StepID{}, map[string]cutShort{}
	for _, n := range d.Plan.Nodes {
		p, ok := prev[n.ID]
		if !ok || n.Kind == plan.KindStep {
			continue
		}
		if _, ok := snap.Step(strategy.StepID(p.RootStepID)); ok && p.Status == store.NodeDone && p.RootStepID != "" {
			done[n.ID] = strategy.StepID(p.RootStepID)
			continue
		}
		if n.Kind == plan.KindTask && p.Attempt > 0 {
			// A node whose attempts ran out when its server stopped
			// still gets one more: the stop was not its failure.
			c := cutShort{attempt: min(p.Attempt, s.cfg.MaxAttempts-1)}
			prefix := key + "/" + n.ID + "#"
			for _, st := range snap.Steps {
				if strings.HasPrefix(st.Key, prefix) {
					c.steps = append(c.steps, st)
				}
			}
			retried[n.ID] = c
		}
	}
	return done, retried, nil
}

// startCarried ends a node the turn's previous run finished done at once,
// its result that run's root step: no model is called.
func (r *run) startCarried(i int) {
	ns := &r.nodes[i]
	ns.status, ns.attempt, ns.started = StatusRunning, 1, time.Now()
	ns.attemptAt = ns.started
	ns.root = ns.carried
	ns.summary = fmt.Sprintf("step %s, built before the server stopped", ns.carried)
	r.events.send(&event.SubagentTaskStart{Base: r.base(), DelegationID: r.id, NodeID: ns.node.ID, Attempt: 1})
	r.end(i, StatusDone, "")
}

// reusedInputs returns the steps node i takes from step nodes and carried
// nodes: the ones free must make roots again before it starts.
func (r *run) reusedInputs(i int) []strategy.StepID {
	var ids []strategy.StepID
	for _, j := range r.nodes[i].deps {
		if r.nodes[j].node.Kind == plan.KindStep || r.nodes[j].carried != "" {
			ids = append(ids, r.nodes[j].root)
		}
	}
	return ids
}

// free makes each reused step a root again so that a new step can take it
// as an input: the steps above it (its consumer, that one's consumer, up
// to a root) are deleted, the top first. Workers call it just before the
// node that consumes a reused step starts, so a plan whose new tasks fail
// leaves the existing strategy as it was. freeMu lets one worker free at a
// time: two reused steps under the same combine share its chain, and only
// one worker may delete it.
//
// The steps above a reused step that all carry origin (the consuming
// task's own, made by an attempt the server's stop cut short; "" for a
// combine) are left standing: the task's retry takes them back with the
// same calls, and its tools clear them if it takes another path.
func (r *run) free(ctx context.Context, reused []strategy.StepID, origin string) error {
	if len(reused) == 0 {
		return nil
	}
	r.freeMu.Lock()
	defer r.freeMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, freeTimeout)
	defer cancel()
	for _, id := range reused {
		snap, err := r.d.Graph.Snapshot(ctx)
		if err != nil {
			return fmt.Errorf("free reused step %s: %w", id, err)
		}
		if _, ok := snap.Step(id); !ok {
			return fmt.Errorf("free reused step %s: it is gone from the strategy", id)
		}
		chain := above(snap, id)
		if origin != "" && len(chain) > 0 && !slices.ContainsFunc(chain, func(c strategy.StepID) bool {
			st, _ := snap.Step(c)
			return !strings.HasPrefix(st.Key, origin+"#")
		}) {
			continue
		}
		for j := len(chain) - 1; j >= 0; j-- {
			if _, err := r.d.Graph.Apply(ctx, strategy.DeleteStep{Step: chain[j]}); err != nil {
				return fmt.Errorf("free reused step %s: delete %s above it: %w", id, chain[j], err)
			}
			r.removed = append(r.removed, chain[j])
		}
		if len(chain) > 0 {
			r.log.Info("freed a reused step", "step_id", string(id), "deleted", ids(chain))
		}
	}
	return nil
}

// above returns the steps above id, nearest first: its consumer, that
// step's consumer, ... up to a root.
func above(snap strategy.Snapshot, id strategy.StepID) []strategy.StepID {
	var chain []strategy.StepID
	for cur, ok := consumerOf(snap, id); ok; cur, ok = consumerOf(snap, cur) {
		if slices.Contains(chain, cur) || cur == id {
			break // a corrupt graph with a cycle
		}
		chain = append(chain, cur)
	}
	return chain
}

// tidy leaves the strategy one root, the completed build's result: every
// step outside the result's subtree (what the strategy held before and the
// plan did not reuse) is deleted, newest first so that each is a root when
// it goes. The owner calls it once every worker has ended. A step it
// cannot delete stops it; the build stands and the result says what is
// left.
func (r *run) tidy(root strategy.StepID) {
	if r.ctx.Err() != nil {
		r.warning = "the strategy was not tidied to one root: " + r.stopReason()
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, tidyTimeout)
	defer cancel()
	snap, err := r.d.Graph.Snapshot(ctx)
	if err != nil {
		r.tidyFailed(fmt.Errorf("read the strategy: %w", err))
		return
	}
	keep := snap.Subtree(root)
	var gone []strategy.StepID
	for i := len(snap.Steps) - 1; i >= 0; i-- {
		id := snap.Steps[i].ID
		if keep[id] {
			continue
		}
		if _, err := r.d.Graph.Apply(ctx, strategy.DeleteStep{Step: id}); err != nil {
			r.tidyFailed(fmt.Errorf("delete step %s: %w", id, err))
			break
		}
		gone = append(gone, id)
	}
	r.removed = append(r.removed, gone...) // every worker has ended: freeMu is free
	if len(gone) > 0 {
		r.log.Info("removed the steps outside the build's result", "root_step_id", string(root), "deleted", ids(gone))
	}
}

func (r *run) tidyFailed(err error) {
	r.warning = "the strategy may have more than one root: " + err.Error()
	r.log.Warn("cannot leave the strategy one root", slog.Any("error", err))
}
