package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/plan"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/telemetry"
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
// count is zero, so every worker has ended before loop returns.
//
// Events go through one first-in, first-out eventPump: a worker sends its
// node's subagent_task_start, then its sub-agent's tool calls and
// messages, before its result; the owner sends subagent_task_end after
// receiving the result and before starting any dependent. So in the log a
// node's events fall between its start and its end, and a node starts
// after its inputs ended, while no goroutine of the run waits for the
// database: the pump appends whatever has queued in one Emit. Rows go
// through the rowWriter. The owner starts both and waits for them before
// Run returns, so every event and row of the delegation is durable by
// then. The fields set in newRun (s, d, id, ctx, cancel, release, log,
// writeCtx, rows, events) and reused are read-only after it; failErr is
// guarded by failMu.
//
// Reused steps are freed by the workers of the nodes that consume them
// (free), one worker at a time under freeMu, which also guards removed;
// the owner reads removed, and writes it and warning in tidy, only once
// every worker has ended.
type run struct {
	s        *Scheduler
	d        Delegation
	id       string
	parent   context.Context // the caller's: its end stops the run
	ctx      context.Context // cancelled by the caller, or by a write failure
	cancel   context.CancelCauseFunc
	release  context.CancelFunc // of the overall deadline
	writeCtx context.Context    // the caller's values without its cancellation
	log      *slog.Logger
	start    time.Time

	rows         *rowWriter
	events       *eventPump
	nodes        []nodeState // plan order; owner only
	index        map[string]int
	results      chan workerResult
	inflight     int // workers started and not yet received; owner only
	runningTasks int // task workers among them; owner only

	failMu  sync.Mutex
	failErr error // the first write failure, which stops the run

	// reused holds each step node's summary (checkSteps).
	reused map[string]string
	// planKey names the plan in the turn (planKey): with a node id it is
	// the origin every step of that node's sub-agents is keyed with.
	planKey string
	freeMu  sync.Mutex
	// removed lists the steps deleted to free reused steps and to leave
	// a completed build one root, in the order they were deleted.
	removed []strategy.StepID
	warning string // what tidy could not do; owner only
}

// nodeState is the owner's record of one node.
type nodeState struct {
	node       plan.Node
	deps       []int
	dependents []int
	status     Status
	// retry is set on a running task whose attempt ended failed or
	// timeout (retryStatus) and that waits for a slot to start the next.
	retry       bool
	retryStatus Status
	attempt     int
	root        strategy.StepID
	summary     string
	err         string
	started     time.Time // the first attempt's start
	attemptAt   time.Time // the current attempt's start
	ended       time.Time
	usage       llm.Usage // every attempt's
	// carried is the root step the turn's previous run built for this
	// node: it ends done without running (startCarried).
	carried strategy.StepID
}

// workerResult is a worker's one message to the owner.
type workerResult struct {
	index int
	task  attemptResult // for task nodes
	root  strategy.StepID
	err   error // for combine nodes
}

// errOutOfTime is the cause of a delegation's overall deadline.
var errOutOfTime = errors.New("the delegation ran out of time")

func newRun(ctx context.Context, s *Scheduler, d Delegation, id string, reused map[string]string, planKey string) *run {
	dctx, release := context.WithTimeoutCause(ctx, s.cfg.MaxDuration, errOutOfTime)
	rctx, cancel := context.WithCancelCause(dctx)
	r := &run{s: s, d: d, id: id, parent: ctx, ctx: rctx, cancel: cancel, release: release, writeCtx: context.WithoutCancel(ctx),
		log: telemetry.Logger(ctx, s.log.With("delegation_id", id, "turn_id", d.TurnID)), start: time.Now(),
		index: make(map[string]int, len(d.Plan.Nodes)), results: make(chan workerResult),
		rows: newRowWriter(), events: newEventPump(), reused: reused, planKey: planKey}
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
	go r.rows.run(r.writeCtx, r.writeRows, r.failed)
	go r.events.run(r.writeCtx, r.emitBatch, r.failed)
	r.events.send(&event.SubagentPlan{Base: r.base(), DelegationID: r.id, Goal: r.d.Goal, Nodes: eventNodes(r.d.Plan)})
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
		switch ns := &r.nodes[i]; {
		case ns.retry:
			// Its last attempt already ended, in the stream too.
			ns.status, ns.retry, ns.ended = ns.retryStatus, false, time.Now()
			ns.err += "; not retried: " + r.stopReason()
			r.persist(i)
		case !ns.status.Final():
			r.end(i, StatusCancelled, r.stopReason())
		}
	}
	if root := r.nodes[r.index[r.d.Plan.Root]]; root.status == StatusDone {
		r.tidy(root.root)
	}
	r.rows.close()
	r.events.close()
	return r.finish()
}

func (r *run) base() event.Base { return event.Base{TurnID: r.d.TurnID} }

// stopReason says why the run's context ended, for the nodes it stops.
func (r *run) stopReason() string {
	r.failMu.Lock()
	failErr := r.failErr
	r.failMu.Unlock()
	switch cause := context.Cause(r.ctx); {
	case failErr != nil:
		return "the delegation stopped: its events or rows could not be written"
	case errors.Is(cause, errOutOfTime):
		return fmt.Sprintf("the delegation ran out of time (%s)", r.s.cfg.MaxDuration)
	default:
		return "the delegation was cancelled"
	}
}

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
// step nodes and combines at once, tasks (and tasks waiting to retry)
// while a slot is free.
func (r *run) startReady() {
	for i := range r.nodes {
		ns := &r.nodes[i]
		waiting := ns.status == StatusQueued || ns.retry
		if !waiting || !r.ready(i) {
			continue
		}
		if ns.carried != "" && ns.status == StatusQueued {
			r.startCarried(i)
			continue
		}
		switch ns.node.Kind {
		case plan.KindStep:
			r.startStep(i)
		case plan.KindCombine:
			r.startCombine(i)
		case plan.KindTask:
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
	ns.attemptAt = time.Now()
	if ns.started.IsZero() {
		ns.started = ns.attemptAt
	}
	r.persist(i)
	if previous != "" {
		// The node is retried: the stream says so, and why, before the
		// attempt starts.
		r.events.send(&event.SubagentTaskRetry{Base: r.base(), DelegationID: r.id, NodeID: ns.node.ID, Attempt: ns.attempt, Cause: previous})
	}
	spec := attemptSpec{node: ns.node, attempt: ns.attempt, previous: previous}
	for _, j := range ns.deps {
		dep := r.nodes[j]
		spec.deps = append(spec.deps, depRoot{nodeID: dep.node.ID, label: dep.node.Label, root: dep.root})
	}
	reused := r.reusedInputs(i)
	r.inflight++
	r.runningTasks++
	go func() {
		res := workerResult{index: i}
		ctx, span := r.startNodeSpan(spec.node, spec.attempt)
		defer func() {
			if p := recover(); p != nil {
				r.log.ErrorContext(ctx, "sub-agent panicked", slog.String("node_id", spec.node.ID), slog.Any("panic", p),
					slog.String("stack", string(debug.Stack())))
				res.task = attemptResult{err: fmt.Errorf("sub-agent panicked: %v", p)}
			}
			endTaskSpan(span, res.task)
			r.results <- res
		}()
		r.events.send(&event.SubagentTaskStart{Base: r.base(), DelegationID: r.id, NodeID: spec.node.ID, Attempt: spec.attempt})
		if err := r.free(ctx, reused, r.origin(spec.node.ID)); err != nil {
			res.task = attemptResult{err: err, cancelled: r.ctx.Err() != nil}
			return
		}
		res.task = r.runTask(ctx, spec)
	}()
}

func (r *run) startCombine(i int) {
	ns := &r.nodes[i]
	ns.status, ns.attempt, ns.started = StatusRunning, 1, time.Now()
	ns.attemptAt = ns.started
	r.persist(i)
	n := ns.node
	m := strategy.Combine{Left: r.nodes[ns.deps[0]].root, Right: r.nodes[ns.deps[1]].root,
		Operator: n.Operator, Colocation: n.Colocation, DisplayName: n.DisplayName}
	reused := r.reusedInputs(i)
	r.inflight++
	go func() {
		res := workerResult{index: i}
		sctx, span := r.startNodeSpan(n, 1)
		defer func() {
			if p := recover(); p != nil {
				r.log.ErrorContext(sctx, "combine panicked", slog.String("node_id", n.ID), slog.Any("panic", p),
					slog.String("stack", string(debug.Stack())))
				res.err = fmt.Errorf("combine panicked: %v", p)
			}
			endCombineSpan(span, res.root, res.err)
			r.results <- res
		}()
		r.events.send(&event.SubagentTaskStart{Base: r.base(), DelegationID: r.id, NodeID: n.ID, Attempt: 1})
		ctx, cancel := context.WithTimeout(sctx, r.s.cfg.TaskTimeout)
		defer cancel()
		if root, ok := r.combined(ctx, n.ID, m); ok {
			// The turn's previous run made this combine and stopped
			// before it recorded the node done.
			res.root = root
			return
		}
		if err := r.free(ctx, reused, ""); err != nil {
			res.err = err
			return
		}
		out, err := r.d.Graph.Apply(ctx, strategy.Keyed(r.origin(n.ID)+"#combine", m))
		if err != nil {
			res.err = fmt.Errorf("combine %s %s %s: %w", m.Left, n.Operator, m.Right, err)
			return
		}
		res.root = out.Change.Step
		if hold := r.s.cfg.CombineHold; hold > 0 {
			select {
			case <-time.After(hold):
			case <-ctx.Done():
			}
		}
	}()
}

// record applies a worker's outcome to the state.
func (r *run) record(res workerResult) {
	i := res.index
	ns := &r.nodes[i]
	if ns.node.Kind == plan.KindCombine {
		switch {
		case res.err == nil:
			ns.root = res.root
			r.end(i, StatusDone, "")
		case r.ctx.Err() != nil:
			r.end(i, StatusCancelled, r.stopReason())
		default:
			r.fail(i, StatusFailed, res.err.Error())
		}
		r.s.cfg.Metrics.Attempt(r.writeCtx, "combine", string(ns.status))
		return
	}
	r.runningTasks--
	t := res.task
	ns.usage = ns.usage.Add(t.usage)
	// The tokens of this attempt, once: summing usage events gives the
	// delegation's spend.
	r.events.send(&event.Usage{Base: r.base(), Scope: event.ScopeSubagent, NodeID: ns.node.ID, Usage: t.usage})
	failed := StatusFailed
	if t.timedOut {
		failed = StatusTimeout
	}
	r.s.cfg.Metrics.Attempt(r.writeCtx, "task", string(t.outcome()))
	switch {
	case t.err == nil:
		ns.root, ns.summary = t.root, t.summary
		r.end(i, StatusDone, "")
	case t.cancelled || r.ctx.Err() != nil:
		r.end(i, StatusCancelled, r.stopReason())
	case !t.permanent && ns.attempt < r.s.cfg.MaxAttempts:
		// The attempt ends; the node waits for a slot to try again.
		r.end(i, failed, t.err.Error())
		ns.status, ns.retry, ns.retryStatus, ns.ended = StatusRunning, true, failed, time.Time{}
		r.persist(i)
		r.log.Info("sub-agent attempt failed; retrying", "node_id", ns.node.ID, "attempt", ns.attempt, slog.Any("error", t.err))
	default:
		r.fail(i, failed, t.err.Error())
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

// end records that node i's attempt (or the node, never started) ended
// with status, writes its row and emits its subagent_task_end: the
// attempt's duration and the node's tokens so far.
func (r *run) end(i int, status Status, msg string) {
	ns := &r.nodes[i]
	ns.status, ns.retry, ns.err, ns.ended = status, false, msg, time.Now()
	r.persist(i)
	var took time.Duration
	if !ns.attemptAt.IsZero() {
		took = ns.ended.Sub(ns.attemptAt)
	}
	id := ns.node.ID
	r.events.send(&event.SubagentTaskEnd{Base: r.base(), DelegationID: r.id, NodeID: id, Status: status,
		Attempt: ns.attempt, RootStepID: string(ns.root), Error: msg, DurationMs: took.Milliseconds(), Usage: ns.usage})
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
	case r.parent.Err() != nil || failErr == nil && r.ctx.Err() != nil && !errors.Is(context.Cause(r.ctx), errOutOfTime):
		// The caller stopped it (a cancel, or its turn handed back),
		// whatever could not be written after: a resumed run of the turn
		// carries what it finished.
		res.Status = DelegationCancelled
	case store.Unavailable(failErr):
		// Its events or rows could not be written because the database
		// was away: the plan did not fail, and the turn's next run
		// carries what it finished, as after a crash.
		res.Status = DelegationInterrupted
	default:
		res.Status = DelegationFailed
	}
	res.Removed, res.Warning = r.removed, r.warning
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

// combined returns the step the turn's previous run made for combine node
// id (keyed with its origin) when it joins the same two inputs, so that a
// combine the server's stop cut short between its change and its end is
// not made twice.
func (r *run) combined(ctx context.Context, id string, m strategy.Combine) (strategy.StepID, bool) {
	snap, err := r.d.Graph.Snapshot(ctx)
	if err != nil {
		return "", false // the Apply that follows reports the problem
	}
	for _, s := range snap.Steps {
		if s.Key == r.origin(id)+"#combine" && slices.Equal(s.Inputs, []strategy.StepID{m.Left, m.Right}) {
			return s.ID, true
		}
	}
	return "", false
}
