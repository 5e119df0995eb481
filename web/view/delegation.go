package view

import (
	"time"

	"strategist/internal/event"
	"strategist/internal/llm"
)

// Delegation is the conversation's latest delegation: its goal and nodes in
// plan (dependency) order.
type Delegation struct {
	// Key is the sequence number of its subagent_plan event.
	Key    int64
	ID     string
	TurnID string
	Goal   string
	Nodes  []*Node
	nodes  map[string]*Node
}

// Node is the live state of one node of the delegation.
type Node struct {
	// Key is the delegation's key; with ID it makes the node's element id.
	Key       int64
	ID        string
	Kind      string // task, combine or step (a reused step)
	Label     string
	Operator  string
	DependsOn []string

	// Status is queued, running, retrying (NodeRetrying), done, failed,
	// skipped, cancelled or timeout.
	Status  event.NodeStatus
	Attempt int
	// Retry is why the node's current attempt is a retry
	// (subagent_task_retry): the previous attempt's error, or that the
	// server running it stopped and what it had made. Set from the retry
	// until the attempt ends.
	Retry      string
	StartedAt  time.Time // of the current attempt; zero before any
	DurationMs int64     // of the ended attempt
	RootStepID string
	Error      string
	Usage      llm.Usage
	Calls      []*ToolCall
	Messages   []string
	calls      map[string]*ToolCall
}

// Building lists the nodes of the latest delegation whose steps are not in
// the strategy yet, while the turn that runs it runs: the strategy panel
// shows them under the graph, with their state, so the researcher watches
// the strategy grow where it is drawn. Nil once the turn ended (what was
// built is in the graph, what failed in the sub-agent panel and the chat).
func (c *Conversation) Building() []*Node {
	d := c.Delegation
	if d == nil {
		return nil
	}
	if t, ok := c.turns[d.TurnID]; !ok || !t.Running() {
		return nil
	}
	var out []*Node
	for _, n := range d.Nodes {
		if n.RootStepID == "" {
			out = append(out, n)
		}
	}
	return out
}

// Counts returns how many nodes are in each status.
func (d *Delegation) Counts() map[event.NodeStatus]int {
	m := map[event.NodeStatus]int{}
	for _, n := range d.Nodes {
		m[n.Status]++
	}
	return m
}

func (c *Conversation) subagentPlan(rec event.Record, e *event.SubagentPlan) []Change {
	d := &Delegation{Key: rec.Seq, ID: e.DelegationID, TurnID: e.TurnID, Goal: e.Goal, nodes: map[string]*Node{}}
	for _, pn := range e.Nodes {
		n := &Node{Key: rec.Seq, ID: pn.ID, Kind: pn.Kind, Label: pn.Label, Operator: pn.Operator,
			DependsOn: pn.DependsOn, Status: event.NodeQueued, calls: map[string]*ToolCall{}}
		d.Nodes = append(d.Nodes, n)
		d.nodes[n.ID] = n
	}
	c.Delegation = d
	return []Change{DelegationChanged{}}
}

// node returns a node of the current delegation, or nil for another
// delegation's (an older one's late events change nothing shown).
func (c *Conversation) node(delegationID, nodeID string) *Node {
	if c.Delegation == nil || c.Delegation.ID != delegationID {
		return nil
	}
	return c.Delegation.nodes[nodeID]
}

// NodeRetrying is the page's status of a node whose current attempt is a
// retry, from its subagent_task_retry until the attempt ends: it runs, and
// the page says why it runs again. The stream and the rows say running.
const NodeRetrying event.NodeStatus = "retrying"

// Active reports whether the node's attempt is under way (running or
// retrying).
func (n *Node) Active() bool { return n.Status == event.NodeRunning || n.Status == NodeRetrying }

func (c *Conversation) taskRetry(e *event.SubagentTaskRetry) []Change {
	n := c.node(e.DelegationID, e.NodeID)
	if n == nil {
		return nil
	}
	n.Status, n.Attempt, n.Retry, n.Error = NodeRetrying, e.Attempt, e.Cause, ""
	return []Change{NodeChanged{Node: n}}
}

func (c *Conversation) taskStart(rec event.Record, e *event.SubagentTaskStart) []Change {
	n := c.node(e.DelegationID, e.NodeID)
	if n == nil {
		return nil
	}
	status := event.NodeRunning
	if n.Status == NodeRetrying && n.Attempt == e.Attempt {
		status = NodeRetrying
	} else {
		n.Retry = ""
	}
	n.Status, n.Attempt, n.StartedAt, n.DurationMs, n.Error = status, e.Attempt, rec.CreatedAt, 0, ""
	return []Change{NodeChanged{Node: n}}
}

func (c *Conversation) taskEnd(e *event.SubagentTaskEnd) []Change {
	n := c.node(e.DelegationID, e.NodeID)
	if n == nil {
		return nil
	}
	n.Status, n.DurationMs, n.RootStepID, n.Error, n.Retry = e.Status, e.DurationMs, e.RootStepID, e.Error, ""
	if e.Attempt > n.Attempt {
		n.Attempt = e.Attempt
	}
	n.Usage = n.Usage.Add(e.Usage)
	// A call the sub-agent left running ended with its node.
	for _, tc := range n.Calls {
		if tc.Status == CallRunning {
			tc.Status = CallError
			tc.Error = &event.ToolError{Code: "ENDED", Message: "the task ended (" + string(e.Status) + ") before the call finished"}
		}
	}
	return []Change{NodeChanged{Node: n}}
}

func (c *Conversation) nodeToolStart(rec event.Record, e *event.SubagentToolCallStart) []Change {
	n := c.node(e.DelegationID, e.NodeID)
	if n == nil {
		return nil
	}
	tc := &ToolCall{Key: rec.Seq, ID: e.CallID, Name: e.Name, Args: e.Args, Status: CallRunning}
	n.Calls = append(n.Calls, tc)
	n.calls[e.CallID] = tc
	return []Change{NodeChanged{Node: n}}
}

func (c *Conversation) nodeToolEnd(e *event.SubagentToolCallEnd) []Change {
	n := c.node(e.DelegationID, e.NodeID)
	if n == nil {
		return nil
	}
	tc, ok := n.calls[e.CallID]
	if !ok {
		return nil
	}
	endCall(tc, e.OK, e.Result, e.Error, e.DurationMs)
	return []Change{NodeChanged{Node: n}}
}

func (c *Conversation) nodeMessage(e *event.SubagentMessage) []Change {
	n := c.node(e.DelegationID, e.NodeID)
	if n == nil || e.Content == "" {
		return nil
	}
	n.Messages = append(n.Messages, e.Content)
	return []Change{NodeChanged{Node: n}}
}
