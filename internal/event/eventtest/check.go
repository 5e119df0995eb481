// Package eventtest holds test helpers for event streams: Check asserts the
// invariants of Strategist's event stream on any transcript, Mask and
// Golden compare transcripts with golden files.
package eventtest

import (
	"fmt"
	"slices"
	"testing"

	"strategist/internal/event"
)

// Check reports, as test errors, every invariant of the event stream that
// records violate. records is a transcript: a whole stream, or a stream
// resumed from some seq, of one or more conversations. Every turn whose
// turn_start the transcript holds must also hold its turn_end
// (Violations with open set allows turns still running).
//
// The invariants:
//   - each record decodes, carries its turn id, and the turn ids agree;
//   - seq increases by exactly 1 per conversation from the first record;
//   - a turn's turn_start comes first and its turn_end last, once each, and
//     the turns of one conversation do not overlap;
//   - every tool call and sub-agent tool call starts once, before its end,
//     and ends before turn_end, with the same ids and name;
//   - a delegation's nodes are those of its subagent_plan; a node starts
//     only after all its dependencies ended done (so never after a failed
//     one), each attempt ends before the next starts and before turn_end,
//     nothing runs again after done, a node ends skipped only when a
//     dependency did not end done, and done names its root step;
//   - subagent_task_end and turn_end statuses are valid;
//   - graph_snapshot versions strictly increase per strategy.
func Check(t testing.TB, records []event.Record) {
	t.Helper()
	for _, p := range Violations(records, false) {
		t.Errorf("event stream invariant: %s", p)
	}
}

// Violations returns the invariants records violate, one message each, in
// transcript order. open allows turns without turn_end.
func Violations(records []event.Record, open bool) []string {
	c := &checker{
		lastSeq:     map[string]int64{},
		turns:       map[string]*turnState{},
		openTurn:    map[string]string{},
		delegations: map[string]*delegation{},
		versions:    map[string]int{},
	}
	for _, r := range records {
		c.record(r)
	}
	if !open {
		for _, id := range c.turnOrder {
			if ts := c.turns[id]; ts.started && !ts.ended {
				c.problems = append(c.problems, fmt.Sprintf("turn %s has no turn_end", id))
			}
		}
	}
	return c.problems
}

type checker struct {
	problems    []string
	lastSeq     map[string]int64      // by conversation
	turns       map[string]*turnState // by turn id
	turnOrder   []string
	openTurn    map[string]string      // conversation -> running turn
	delegations map[string]*delegation // by delegation id
	versions    map[string]int         // strategy -> last graph_snapshot version
	at          string                 // position of the record being checked
}

type turnState struct {
	conversationID string
	started, ended bool // started: the transcript holds the turn_start
	calls          map[string]*call
	subCalls       map[string]*call // by delegation/node/call
	delegations    []string
}

type call struct {
	name  string
	ended bool
}

type delegation struct {
	turnID string
	nodes  map[string]*node
	order  []string
}

type node struct {
	deps    []string
	attempt int              // last attempt started
	running bool             // an attempt is running
	status  event.NodeStatus // status of the last end, "" before
	retry   int              // the attempt a subagent_task_retry announced, 0 when none is due
}

func (c *checker) fail(format string, args ...any) {
	c.problems = append(c.problems, c.at+": "+fmt.Sprintf(format, args...))
}

func (c *checker) record(r event.Record) {
	c.at = fmt.Sprintf("seq %d (%s)", r.Seq, r.Type)
	if last, seen := c.lastSeq[r.ConversationID]; seen && r.Seq != last+1 {
		c.fail("seq follows %d in conversation %s, want %d", last, r.ConversationID, last+1)
	}
	c.lastSeq[r.ConversationID] = r.Seq

	e, err := r.Decode()
	if err != nil {
		c.fail("does not decode: %v", err)
		return
	}
	turnID := e.Turn()
	if turnID == "" {
		c.fail("no turnId")
		return
	}
	if r.TurnID != "" && r.TurnID != turnID {
		c.fail("record turn %s, payload turnId %s", r.TurnID, turnID)
	}
	ts := c.turns[turnID]
	if start, ok := e.(*event.TurnStart); ok {
		c.turnStart(r, start, ts)
		return
	}
	if ts == nil {
		// The turn started before this transcript: only what can be
		// judged without its beginning is checked.
		ts = &turnState{conversationID: r.ConversationID, calls: map[string]*call{}, subCalls: map[string]*call{}}
		c.turns[turnID] = ts
		c.turnOrder = append(c.turnOrder, turnID)
	}
	if ts.ended {
		c.fail("after turn %s ended", turnID)
		return
	}
	switch e := e.(type) {
	case *event.TurnEnd:
		c.turnEnd(turnID, ts, e)
	case *event.TurnResumed:
		c.openAtResume(ts)
	case *event.ToolCallStart:
		c.callStart(ts.calls, e.CallID, e.Name)
	case *event.ToolCallEnd:
		c.callEnd(ts, ts.calls, e.CallID, e.Name)
	case *event.SubagentPlan:
		c.plan(turnID, ts, e)
	case *event.SubagentTaskRetry:
		c.taskRetry(ts, e)
	case *event.SubagentTaskStart:
		c.taskStart(ts, e)
	case *event.SubagentTaskEnd:
		c.taskEnd(ts, e)
	case *event.SubagentToolCallStart:
		if c.runningNode(ts, e.DelegationID, e.NodeID) {
			c.callStart(ts.subCalls, e.DelegationID+"/"+e.NodeID+"/"+e.CallID, e.Name)
		}
	case *event.SubagentToolCallEnd:
		c.callEnd(ts, ts.subCalls, e.DelegationID+"/"+e.NodeID+"/"+e.CallID, e.Name)
	case *event.SubagentMessage:
		c.runningNode(ts, e.DelegationID, e.NodeID)
	case *event.GraphSnapshot:
		if last, seen := c.versions[e.StrategyID]; seen && e.Version <= last {
			c.fail("strategy %s version %d after version %d", e.StrategyID, e.Version, last)
		}
		c.versions[e.StrategyID] = e.Version
	}
}

func (c *checker) turnStart(r event.Record, e *event.TurnStart, ts *turnState) {
	if ts != nil {
		if ts.started {
			c.fail("second turn_start of turn %s", e.TurnID)
		} else {
			c.fail("turn %s has events before its turn_start", e.TurnID)
		}
		return
	}
	if other, busy := c.openTurn[r.ConversationID]; busy {
		c.fail("turn %s starts while turn %s of the conversation is still running", e.TurnID, other)
	}
	c.openTurn[r.ConversationID] = e.TurnID
	c.turns[e.TurnID] = &turnState{conversationID: r.ConversationID, started: true, calls: map[string]*call{}, subCalls: map[string]*call{}}
	c.turnOrder = append(c.turnOrder, e.TurnID)
}

var turnStatuses = []event.TurnStatus{event.TurnCompleted, event.TurnFailed, event.TurnCancelled, event.TurnInterrupted}

func (c *checker) turnEnd(turnID string, ts *turnState, e *event.TurnEnd) {
	if !slices.Contains(turnStatuses, e.Status) {
		c.fail("turn_end status %q is not one of %v", e.Status, turnStatuses)
	}
	for _, calls := range []map[string]*call{ts.calls, ts.subCalls} {
		for _, id := range sortedKeys(calls) {
			if !calls[id].ended {
				c.fail("tool call %s (%s) never ended", id, calls[id].name)
			}
		}
	}
	for _, did := range ts.delegations {
		d := c.delegations[did]
		for _, nid := range d.order {
			if d.nodes[nid].running {
				c.fail("delegation %s node %s attempt %d never ended", did, nid, d.nodes[nid].attempt)
			}
		}
	}
	ts.ended = true
	if c.openTurn[ts.conversationID] == turnID {
		delete(c.openTurn, ts.conversationID)
	}
}

// openAtResume: a turn resumes only once everything its previous run
// started has ended (recovery closes it first).
func (c *checker) openAtResume(ts *turnState) {
	for _, calls := range []map[string]*call{ts.calls, ts.subCalls} {
		for _, id := range sortedKeys(calls) {
			if !calls[id].ended {
				c.fail("turn resumes while tool call %s (%s) is open", id, calls[id].name)
			}
		}
	}
	for _, did := range ts.delegations {
		d := c.delegations[did]
		for _, nid := range d.order {
			if d.nodes[nid].running {
				c.fail("turn resumes while delegation %s node %s runs", did, nid)
			}
		}
	}
}

func (c *checker) callStart(calls map[string]*call, id, name string) {
	if _, seen := calls[id]; seen {
		c.fail("tool call %s started twice", id)
		return
	}
	calls[id] = &call{name: name}
}

func (c *checker) callEnd(ts *turnState, calls map[string]*call, id, name string) {
	cl, seen := calls[id]
	switch {
	case !seen:
		if ts.started {
			c.fail("tool call %s (%s) ends without its start", id, name)
		}
	case cl.ended:
		c.fail("tool call %s ended twice", id)
	case cl.name != name:
		c.fail("tool call %s started as %s, ends as %s", id, cl.name, name)
	default:
		cl.ended = true
	}
}

func (c *checker) plan(turnID string, ts *turnState, e *event.SubagentPlan) {
	if _, seen := c.delegations[e.DelegationID]; seen {
		c.fail("second subagent_plan for delegation %s", e.DelegationID)
		return
	}
	d := &delegation{turnID: turnID, nodes: map[string]*node{}}
	for _, n := range e.Nodes {
		if _, dup := d.nodes[n.ID]; dup || n.ID == "" {
			c.fail("delegation %s: node id %q empty or repeated", e.DelegationID, n.ID)
			continue
		}
		d.nodes[n.ID] = &node{deps: n.DependsOn}
		d.order = append(d.order, n.ID)
	}
	for _, id := range d.order {
		for _, dep := range d.nodes[id].deps {
			if _, ok := d.nodes[dep]; !ok || dep == id {
				c.fail("delegation %s: node %s depends on unknown node %q", e.DelegationID, id, dep)
			}
		}
	}
	c.delegations[e.DelegationID] = d
	ts.delegations = append(ts.delegations, e.DelegationID)
}

// node returns a delegation's node, reporting unknown ones when the
// transcript should know them.
func (c *checker) node(ts *turnState, delegationID, nodeID string) *node {
	d, ok := c.delegations[delegationID]
	if !ok {
		if ts.started {
			c.fail("delegation %s has no subagent_plan", delegationID)
		}
		return nil
	}
	n, ok := d.nodes[nodeID]
	if !ok {
		c.fail("delegation %s has no node %s", delegationID, nodeID)
		return nil
	}
	return n
}

func (c *checker) runningNode(ts *turnState, delegationID, nodeID string) bool {
	n := c.node(ts, delegationID, nodeID)
	if n == nil {
		return !ts.started
	}
	if !n.running {
		c.fail("node %s of delegation %s is not running", nodeID, delegationID)
		return false
	}
	return true
}

func (c *checker) taskStart(ts *turnState, e *event.SubagentTaskStart) {
	n := c.node(ts, e.DelegationID, e.NodeID)
	if n == nil {
		return
	}
	d := c.delegations[e.DelegationID]
	switch {
	case n.running && e.Attempt <= n.attempt:
		// A retry starts while the node runs: the scheduler ends a node
		// once, after its last attempt, so a new attempt replaces the
		// running one; it must be a later one.
		c.fail("node %s starts attempt %d while attempt %d still runs", e.NodeID, e.Attempt, n.attempt)
	case n.status == event.NodeDone || n.status == event.NodeSkipped || n.status == event.NodeCancelled:
		c.fail("node %s starts again after ending %s", e.NodeID, n.status)
	case e.Attempt <= n.attempt:
		c.fail("node %s attempt %d after attempt %d", e.NodeID, e.Attempt, n.attempt)
	}
	for _, dep := range n.deps {
		if dn := d.nodes[dep]; dn != nil && (dn.running || dn.status != event.NodeDone) {
			state := string(dn.status)
			if dn.running {
				state = "running"
			} else if state == "" {
				state = "not started"
			}
			c.fail("node %s starts before its dependency %s ended done (%s)", e.NodeID, dep, state)
		}
	}
	if n.retry != 0 && e.Attempt != n.retry {
		c.fail("node %s starts attempt %d, its retry announced attempt %d", e.NodeID, e.Attempt, n.retry)
	}
	n.attempt, n.running, n.status, n.retry = e.Attempt, true, "", 0
}

// taskRetry checks a retry: announced for a later attempt than any
// started, of a node that is not running and has not ended for good, with
// a cause; the next event of the node must be that attempt's start.
func (c *checker) taskRetry(ts *turnState, e *event.SubagentTaskRetry) {
	n := c.node(ts, e.DelegationID, e.NodeID)
	if n == nil {
		return
	}
	switch {
	case n.running:
		c.fail("node %s is retried while attempt %d runs", e.NodeID, n.attempt)
	case n.status == event.NodeDone || n.status == event.NodeSkipped || n.status == event.NodeCancelled:
		c.fail("node %s is retried after ending %s", e.NodeID, n.status)
	case e.Attempt < 2 || e.Attempt <= n.attempt:
		c.fail("node %s retry announces attempt %d after attempt %d", e.NodeID, e.Attempt, n.attempt)
	case e.Cause == "":
		c.fail("node %s is retried without a cause", e.NodeID)
	}
	n.retry = e.Attempt
}

var nodeStatuses = []event.NodeStatus{event.NodeDone, event.NodeFailed, event.NodeSkipped, event.NodeCancelled, event.NodeTimeout}

func (c *checker) taskEnd(ts *turnState, e *event.SubagentTaskEnd) {
	if !slices.Contains(nodeStatuses, e.Status) {
		c.fail("node %s status %q is not one of %v", e.NodeID, e.Status, nodeStatuses)
	}
	n := c.node(ts, e.DelegationID, e.NodeID)
	if n == nil {
		return
	}
	d := c.delegations[e.DelegationID]
	switch {
	case n.running && e.Status == event.NodeSkipped:
		c.fail("node %s skipped while running", e.NodeID)
	case !n.running && n.status != "":
		c.fail("node %s ends %s after already ending %s", e.NodeID, e.Status, n.status)
	case !n.running && e.Status != event.NodeSkipped && e.Status != event.NodeCancelled:
		c.fail("node %s ends %s without starting", e.NodeID, e.Status)
	case n.running && e.Attempt != 0 && e.Attempt != n.attempt:
		c.fail("node %s ends attempt %d while attempt %d runs", e.NodeID, e.Attempt, n.attempt)
	}
	switch e.Status {
	case event.NodeDone:
		if e.RootStepID == "" {
			c.fail("node %s done without a root step", e.NodeID)
		}
	case event.NodeSkipped:
		blocked := false
		for _, dep := range n.deps {
			if dn := d.nodes[dep]; dn != nil && dn.status != event.NodeDone {
				blocked = true
			}
		}
		if !blocked {
			c.fail("node %s skipped although all its dependencies ended done", e.NodeID)
		}
	}
	n.running, n.status = false, e.Status
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
