package event

// The vocabularies of states the stream carries and the store keeps: each
// a named string type whose values are exactly those of the column's CHECK
// constraint (migrations/0001_init.sql). The store names the same types.

// Mode is a turn's (and a conversation's) mode.
type Mode string

// The modes: plan explores and drafts a plan, execute builds the strategy.
const (
	ModePlan    Mode = "plan"
	ModeExecute Mode = "execute"
)

// TurnStatus is a turn's status: running until it ends, then how it ended.
type TurnStatus string

// The statuses of a turn.
const (
	TurnRunning     TurnStatus = "running"
	TurnCompleted   TurnStatus = "completed"
	TurnFailed      TurnStatus = "failed"
	TurnCancelled   TurnStatus = "cancelled"
	TurnInterrupted TurnStatus = "interrupted"
)

// NodeStatus is the state of one node of a delegation. Queued and running
// are live states; the others are final.
type NodeStatus string

// The states of a delegation node.
const (
	NodeQueued    NodeStatus = "queued"
	NodeRunning   NodeStatus = "running"
	NodeDone      NodeStatus = "done"
	NodeFailed    NodeStatus = "failed"
	NodeSkipped   NodeStatus = "skipped"
	NodeCancelled NodeStatus = "cancelled"
	NodeTimeout   NodeStatus = "timeout"
)

// Final reports whether the node has ended.
func (s NodeStatus) Final() bool {
	switch s {
	case NodeDone, NodeFailed, NodeSkipped, NodeCancelled, NodeTimeout:
		return true
	}
	return false
}

// HandoffStatus is the state of the planner's request that a plan be built.
type HandoffStatus string

// The states of a handoff: pending until accepted, or superseded by a
// later request. (The event of acceptance is HandoffAccepted, hence the
// Status in these names.)
const (
	HandoffStatusPending    HandoffStatus = "pending"
	HandoffStatusAccepted   HandoffStatus = "accepted"
	HandoffStatusSuperseded HandoffStatus = "superseded"
)

// DelegationStatus is a delegation's status.
type DelegationStatus string

// The statuses of a delegation.
const (
	DelegationRunning     DelegationStatus = "running"
	DelegationCompleted   DelegationStatus = "completed"
	DelegationFailed      DelegationStatus = "failed"
	DelegationCancelled   DelegationStatus = "cancelled"
	DelegationInterrupted DelegationStatus = "interrupted"
)

// MessageRole is who a stored message is from.
type MessageRole string

// The roles of stored messages. A summary stands in for the earlier
// messages of a compacted conversation.
const (
	RoleUser      MessageRole = "user"
	RoleAssistant MessageRole = "assistant"
	RoleTool      MessageRole = "tool"
	RoleSummary   MessageRole = "summary"
)

// RequirementKind says what a stated requirement is: a search (a location,
// a gene type, an organism, a GO term... is the search that finds it), a
// combine of two of them, a transform of one, or a step the plan reused.
type RequirementKind string

// The kinds of requirement.
const (
	RequirementSearch      RequirementKind = "search"
	RequirementRestriction RequirementKind = "restriction" // INTERSECT
	RequirementExclusion   RequirementKind = "exclusion"   // MINUS, RMINUS
	RequirementEither      RequirementKind = "either"      // UNION
	RequirementCombine     RequirementKind = "combine"     // any other operator
	RequirementTransform   RequirementKind = "transform"
	RequirementStep        RequirementKind = "step"
)

// RequirementStatus says how the strategy meets a requirement.
type RequirementStatus string

// The statuses of a requirement: met (a step implements it and its genes
// were computed), not met (a step of its search exists but with other
// values, or outside the result), missing (no step implements it), not
// evaluable (a step implements it but its genes cannot be computed here).
const (
	RequirementMet          RequirementStatus = "met"
	RequirementNotMet       RequirementStatus = "not_met"
	RequirementMissing      RequirementStatus = "missing"
	RequirementNotEvaluable RequirementStatus = "not_evaluable"
)
