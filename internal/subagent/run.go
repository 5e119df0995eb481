package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// writeTimeout bounds each event or row write, which run detached from
// cancellation so that a cancelled delegation still records how it ended.
const writeTimeout = 10 * time.Second

// run is one delegation in progress.
//
// Concurrency model: the goroutine that called Scheduler.Run owns the run
// (it executes loop and everything loop calls) and is the only one to
// read or write nodes, inflight and runningTasks. Each started attempt or
// combine is a worker goroutine that gets an immutable description of its
// work, never touches the state, and sends exactly one workerResult on
// results; the owner counts workers out (inflight) and receives until the
// count is zero, so every worker has ended before loop returns. Workers
// emit their own sub-agent tool calls and messages (the Emitter is
// concurrency-safe) before sending their result, so a node's events always
// precede its subagent_task_end. The fields set in newRun (s, d, id, ctx,
// cancel, log, writeCtx) are read-only after it; failure is guarded by
// its own mutex.
type run struct {
	s        *Scheduler
	d        Delegation
	id       string
	ctx      context.Context // cancelled by the caller, or by a write failure
	cancel   context.CancelCauseFunc
	writeCtx context.Context // the caller's values without its cancellation
	log      *slog.Logger
	start    time.Time

	nodes        []nodeState // plan order; owner only
	index        map[string]int
	results      chan workerResult
	inflight     int // workers started and not yet received; owner only
	runningTasks int // task workers among them; owner only

	failMu  sync.Mutex
	failErr error // the first write failure, which stops the run
}

// nodeState is the owner's record of one node.
type nodeState struct {
	node       Node
	deps       []int
	dependents []int
	status     Status
	// retry is set on a running task whose attempt failed and that waits
	// for a slot to start the next one.
	retry    bool
	attempt  int
	root     strategy.StepID
	summary  string
	err      string
	started  time.Time
	ended    time.Time
	usage    llm.Usage
	timedOut bool
}

// workerResult is a worker's one message to the owner.
type workerResult struct {
	index int
	task  attemptResult // for task nodes
	root  strategy.StepID
	err   error // for combine nodes
}

func newRun(ctx context.Context, s *Scheduler, d Delegation, id string) *run {
	rctx, cancel := context.WithCancelCause(ctx)
	r := &run{s: s, d: d, id: id, ctx: rctx, cancel: cancel, writeCtx: context.WithoutCancel(ctx),
		log: s.log.With("delegation_id", id, "turn_id", d.TurnID), start: time.Now(),
		index: make(map[string]int, len(d.Plan.Nodes)), results: make(chan workerResult)}
	r.nodes = make([]nodeState, len(d.Plan.Nodes))
	for i, n := range d.Plan.Nodes {
		r.nodes[i] = nodeState{node: n, status: StatusQueued}
		r.index[n.ID] = i
	}
	for i, n := range d.Plan.Nodes {
		for _, dep := range n.DependsOn {
			j := r.index[dep]
			r.nodes[i].deps = append(r.nodes[i].deps, j)
			r.nodes[j].dependents = append(r.nodes[j].dependents, i)
		}
	}
	return r
}

// loop is the owner's loop: start what is ready, wait for one worker,
// record its outcome, until no worker is left.
func (r *run) loop() (*Result, error) {
	r.emit(&event.SubagentPlan{Base: r.base(), DelegationID: r.id, Goal: r.d.Goal, Nodes: r.d.Plan.EventNodes()})
	for {
		if r.ctx.Err() == nil {
			r.startReady()
		}
		if r.inflight == 0 {
			break
		}
		res := <-r.results
		r.inflight--
		r.record(res)
	}
	for i := range r.nodes {
		if !r.nodes[i].status.Final() {
			r.end(i, StatusCancelled, "the delegation was cancelled")
		}
	}
	return r.finish()
}

func (r *run) base() event.Base { return event.Base{TurnID: r.d.TurnID} }

// ready reports whether every input of node i is done.
func (r *run) ready(i int) bool {
	for _, j := range r.nodes[i].deps {
		if r.nodes[j].status != StatusDone {
			return false
		}
	}
	return true
}

// startReady starts, in plan order, every node whose inputs are done:
// combines at once, tasks (and tasks waiting to retry) while a slot is
// free.
func (r *run) startReady() {
	for i := range r.nodes {
		ns := &r.nodes[i]
		waiting := ns.status == StatusQueued || ns.retry
		if !waiting || !r.ready(i) {
			continue
		}
		switch ns.node.Kind {
		case KindCombine:
			r.startCombine(i)
		case KindTask:
			if r.runningTasks < r.s.cfg.Concurrency {
				r.startTask(i)
			}
		}
	}
}

func (r *run) startTask(i int) {
	ns := &r.nodes[i]
	previous := ns.err
	ns.status, ns.retry, ns.err = StatusRunning, false, ""
	ns.attempt++
	if ns.started.IsZero() {
		ns.started = time.Now()
	}
	r.persist(i)
	r.emit(&event.SubagentTaskStart{Base: r.base(), DelegationID: r.id, NodeID: ns.node.ID, Attempt: ns.attempt})
	spec := attemptSpec{node: ns.node, attempt: ns.attempt, previous: previous}
	for _, j := range ns.deps {
		dep := r.nodes[j]
		spec.deps = append(spec.deps, depRoot{nodeID: dep.node.ID, label: dep.node.Label, root: dep.root})
	}
	r.inflight++
	r.runningTasks++
	go func() {
		res := workerResult{index: i}
		defer func() {
			if p := recover(); p != nil {
				res.task = attemptResult{err: fmt.Errorf("sub-agent panicked: %v", p)}
			}
			r.results <- res
		}()
		res.task = r.runTask(r.ctx, spec)
	}()
}

func (r *run) startCombine(i int) {
	ns := &r.nodes[i]
	ns.status, ns.attempt, ns.started = StatusRunning, 1, time.Now()
	r.persist(i)
	r.emit(&event.SubagentTaskStart{Base: r.base(), DelegationID: r.id, NodeID: ns.node.ID, Attempt: 1})
	n := ns.node
	m := strategy.Combine{Left: r.nodes[ns.deps[0]].root, Right: r.nodes[ns.deps[1]].root,
		Operator: n.Operator, Colocation: n.Colocation, DisplayName: n.DisplayName}
	r.inflight++
	go func() {
		res := workerResult{index: i}
		defer func() {
			if p := recover(); p != nil {
				res.err = fmt.Errorf("combine panicked: %v", p)
			}
			r.results <- res
		}()
		ctx, cancel := context.WithTimeout(r.ctx, r.s.cfg.TaskTimeout)
		defer cancel()
		out, err := r.d.Graph.Apply(ctx, m)
		if err != nil {
			res.err = fmt.Errorf("combine %s %s %s: %w", m.Left, n.Operator, m.Right, err)
			return
		}
		res.root = out.Change.Step
	}()
}

// record applies a worker's outcome to the state.
func (r *run) record(res workerResult) {
	i := res.index
	ns := &r.nodes[i]
	if ns.node.Kind == KindCombine {
		switch {
		case res.err == nil:
			ns.root = res.root
			r.end(i, StatusDone, "")
		case r.ctx.Err() != nil:
			r.end(i, StatusCancelled, "the delegation was cancelled")
		default:
			r.fail(i, StatusFailed, res.err.Error())
		}
		return
	}
	r.runningTasks--
	t := res.task
	ns.usage = ns.usage.Add(t.usage)
	switch {
	case t.err == nil:
		ns.root, ns.summary = t.root, t.summary
		r.end(i, StatusDone, "")
	case t.cancelled || r.ctx.Err() != nil:
		r.end(i, StatusCancelled, "the delegation was cancelled")
	case !t.permanent && ns.attempt < r.s.cfg.MaxAttempts:
		ns.retry, ns.err, ns.timedOut = true, t.err.Error(), t.timedOut
		r.log.Info("sub-agent attempt failed; retrying", "node_id", ns.node.ID, "attempt", ns.attempt, slog.Any("error", t.err))
	case t.timedOut:
		r.fail(i, StatusTimeout, t.err.Error())
	default:
		r.fail(i, StatusFailed, t.err.Error())
	}
}

// fail ends node i and marks every node depending on it, transitively,
// skipped: they will never have their inputs, so no model call is spent
// on them.
func (r *run) fail(i int, status Status, msg string) {
	r.end(i, status, msg)
	var skip func(j int, cause string)
	skip = func(j int, cause string) {
		for _, k := range r.nodes[j].dependents {
			if r.nodes[k].status == StatusQueued {
				r.end(k, StatusSkipped, fmt.Sprintf("skipped: %s did not finish", cause))
				skip(k, cause)
			}
		}
	}
	skip(i, r.nodes[i].node.ID)
}

// end records a node's final status, writes its row, and emits its usage
// (for a task that ran) and its subagent_task_end.
func (r *run) end(i int, status Status, msg string) {
	ns := &r.nodes[i]
	ns.status, ns.retry, ns.err, ns.ended = status, false, msg, time.Now()
	r.persist(i)
	id := ns.node.ID
	if ns.node.Kind == KindTask && ns.attempt > 0 {
		r.emit(&event.Usage{Base: r.base(), Scope: "subagent", NodeID: id, Usage: ns.usage})
	}
	r.emit(&event.SubagentTaskEnd{Base: r.base(), DelegationID: r.id, NodeID: id, Status: string(status),
		Attempt: ns.attempt, RootStepID: string(ns.root), Error: msg, DurationMs: ns.duration().Milliseconds(), Usage: ns.usage})
	if status != StatusDone {
		r.log.Info("node ended", "node_id", id, "status", string(status), "attempt", ns.attempt, "error", msg)
	}
}

func (ns *nodeState) duration() time.Duration {
	if ns.started.IsZero() || ns.ended.IsZero() {
		return 0
	}
	return ns.ended.Sub(ns.started)
}

// persist writes node i's row as the owner holds it.
func (r *run) persist(i int) {
	ns := &r.nodes[i]
	u := store.DelegationNodeUpdate{NodeID: ns.node.ID, Status: string(ns.status), Attempt: ns.attempt,
		RootStepID: string(ns.root), Error: ns.err}
	if ns.node.Kind == KindTask && ns.attempt > 0 {
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
	ctx, cancel := context.WithTimeout(r.writeCtx, writeTimeout)
	defer cancel()
	if err := r.s.cfg.Store.UpdateDelegationNode(ctx, r.d.UserID, r.id, u); err != nil {
		r.failed(fmt.Errorf("subagent: delegation %s: write node %s: %w", r.id, ns.node.ID, err))
	}
}

// emit appends an event; any goroutine of the run may call it.
func (r *run) emit(e event.Event) {
	ctx, cancel := context.WithTimeout(r.writeCtx, writeTimeout)
	defer cancel()
	if err := r.d.Emitter.Emit(ctx, e); err != nil {
		r.failed(fmt.Errorf("subagent: delegation %s: emit %s: %w", r.id, event.Name(e), err))
	}
}

// failed records the first write failure and stops the run: a delegation
// nobody can follow must not go on spending model calls.
func (r *run) failed(err error) {
	r.failMu.Lock()
	first := r.failErr == nil
	if first {
		r.failErr = err
	}
	r.failMu.Unlock()
	if first {
		r.log.Error("delegation stopped", slog.Any("error", err))
		r.cancel(err)
	}
}

// finish writes how the delegation ended and builds the result.
func (r *run) finish() (*Result, error) {
	res := &Result{DelegationID: r.id, Nodes: make([]NodeResult, len(r.nodes))}
	for i, ns := range r.nodes {
		res.Nodes[i] = NodeResult{ID: ns.node.ID, Kind: ns.node.Kind, Label: ns.node.Label, Status: ns.status,
			Attempts: ns.attempt, RootStepID: ns.root, Summary: ns.summary, Error: ns.err,
			DurationMs: ns.duration().Milliseconds(), Usage: ns.usage}
		res.Usage = res.Usage.Add(ns.usage)
	}
	r.failMu.Lock()
	failErr := r.failErr
	r.failMu.Unlock()
	root := r.nodes[r.index[r.d.Plan.Root]]
	switch {
	case root.status == StatusDone:
		res.Status, res.RootStepID = DelegationCompleted, root.root
	case failErr == nil && r.ctx.Err() != nil:
		res.Status = DelegationCancelled
	default:
		res.Status = DelegationFailed
	}
	res.DurationMs = time.Since(r.start).Milliseconds()
	usage, _ := json.Marshal(res.Usage)
	ctx, cancel := context.WithTimeout(r.writeCtx, writeTimeout)
	defer cancel()
	if err := r.s.cfg.Store.FinishDelegation(ctx, r.d.UserID, r.id, res.Status, usage); err != nil && failErr == nil {
		failErr = fmt.Errorf("subagent: delegation %s: finish: %w", r.id, err)
	}
	if failErr != nil {
		return res, failErr
	}
	return res, nil
}
