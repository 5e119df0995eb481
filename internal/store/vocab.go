package store

import "strategist/internal/event"

// The vocabularies of the columns that hold a state. Each is a named string
// type whose values are exactly those of the column's CHECK constraint
// (migrations/0001_init.sql): the database and the wire keep these strings,
// Go code compares and assigns only the constants. Those the event stream
// carries too are defined with the stream's contract and named here.

// Mode is a turn's (and a conversation's) mode.
type Mode = event.Mode

// The modes.
const (
	ModePlan    = event.ModePlan
	ModeExecute = event.ModeExecute
)

// TurnStatus is a turn's status.
type TurnStatus = event.TurnStatus

// The statuses of a turn.
const (
	TurnRunning     = event.TurnRunning
	TurnCompleted   = event.TurnCompleted
	TurnFailed      = event.TurnFailed
	TurnCancelled   = event.TurnCancelled
	TurnInterrupted = event.TurnInterrupted
)

// NodeStatus is the state of one node of a delegation.
type NodeStatus = event.NodeStatus

// The states of a delegation node.
const (
	NodeQueued    = event.NodeQueued
	NodeRunning   = event.NodeRunning
	NodeDone      = event.NodeDone
	NodeFailed    = event.NodeFailed
	NodeSkipped   = event.NodeSkipped
	NodeCancelled = event.NodeCancelled
	NodeTimeout   = event.NodeTimeout
)

// HandoffStatus is the state of the planner's request that a plan be built.
type HandoffStatus = event.HandoffStatus

// The states of a handoff.
const (
	HandoffPending    = event.HandoffStatusPending
	HandoffAccepted   = event.HandoffStatusAccepted
	HandoffSuperseded = event.HandoffStatusSuperseded
)

// DelegationStatus is a delegation's status.
type DelegationStatus = event.DelegationStatus

// The statuses of a delegation.
const (
	DelegationRunning     = event.DelegationRunning
	DelegationCompleted   = event.DelegationCompleted
	DelegationFailed      = event.DelegationFailed
	DelegationCancelled   = event.DelegationCancelled
	DelegationInterrupted = event.DelegationInterrupted
)

// MessageRole is who a stored message is from.
type MessageRole = event.MessageRole

// The roles of stored messages.
const (
	RoleUser      = event.RoleUser
	RoleAssistant = event.RoleAssistant
	RoleTool      = event.RoleTool
	RoleSummary   = event.RoleSummary
)
