// Package event is Strategist's stream contract: the sealed set of events a
// turn produces, their one encoding (SSE event name and JSON payload), the
// durable per-conversation log they are appended to, and the broker that
// delivers them live to every subscriber of every server process.
//
// Every event carries the id of its turn. An event is published only after it
// is durable; its per-conversation sequence number is the SSE id, so a client
// that lost its connection resumes with Last-Event-ID and misses nothing.
package event

import (
	"encoding/json"
	"time"

	"strategist/internal/llm"
)

// Event is one thing that happened in a turn. The set is sealed: the structs
// of this file.
type Event interface {
	// Turn returns the id of the turn the event belongs to.
	Turn() string
	wireName() string
}

// Base carries the turn id every event has.
type Base struct {
	TurnID string `json:"turnId"`
}

// Turn returns the event's turn id.
func (b Base) Turn() string { return b.TurnID }

// TurnStart opens a turn; it is always the turn's first event.
type TurnStart struct {
	Base
	Mode          Mode   `json:"mode"`
	Model         string `json:"model"`
	UserMessageID string `json:"userMessageId"`
	// Message is the user's text (or, for a turn started by a handoff, the
	// build request), so a client can show it without reloading.
	Message string `json:"message"`
	// Handoff is set on an execute turn started by accepting a handoff.
	HandoffID string `json:"handoffId,omitempty"`
	// ReplacesTurnID names the turn this one replaces: the researcher
	// edited the latest message and sent it again, or asked for the latest
	// answer again. The replaced turn stays in the log; clients show it as
	// replaced, and later turns' history leaves it out.
	ReplacesTurnID string `json:"replacesTurnId,omitempty"`
	// TraceID and SpanID name the turn's trace and its root span when the
	// server traces turns (OpenTelemetry, hex), so a page, the logs and a
	// trace viewer meet on one id; empty when tracing is off.
	TraceID string `json:"traceId,omitempty"`
	SpanID  string `json:"spanId,omitempty"`
}

// AssistantDelta is a piece of assistant text as it streams.
type AssistantDelta struct {
	Base
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

// AssistantMessage is a complete assistant message (markdown).
type AssistantMessage struct {
	Base
	MessageID string `json:"messageId"`
	Content   string `json:"content"`
}

// ToolCallStart says a tool is about to run.
type ToolCallStart struct {
	Base
	CallID string          `json:"callId"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
}

// ToolError is a failed tool call's code and message.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ToolCallEnd says a tool finished: its bounded result or its error.
type ToolCallEnd struct {
	Base
	CallID     string          `json:"callId"`
	Name       string          `json:"name"`
	OK         bool            `json:"ok"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *ToolError      `json:"error,omitempty"`
	DurationMs int64           `json:"durationMs"`
}

// ArtifactKind says what an artifact is.
type ArtifactKind string

// The artifact kinds.
const (
	// ArtifactPlanning is a planner's notes: what it understood, the
	// searches and parameters it chose, its assumptions.
	ArtifactPlanning ArtifactKind = "planning"
	// ArtifactDelegationDraft is the delegation plan waiting for approval.
	// A conversation has one: saving another revises it.
	ArtifactDelegationDraft ArtifactKind = "delegation_draft"
)

// Artifact is a planning artifact or delegation draft as streamed.
type Artifact struct {
	ID              string          `json:"id"`
	Kind            ArtifactKind    `json:"kind"`
	Title           string          `json:"title"`
	SummaryMarkdown string          `json:"summaryMarkdown"`
	Assumptions     []string        `json:"assumptions"`
	Parameters      json.RawMessage `json:"parameters"`
	Plan            json.RawMessage `json:"plan,omitempty"`
	Validation      json.RawMessage `json:"validation,omitempty"`
	Version         int             `json:"version"`
}

// ArtifactSaved says the planner saved (a new version of) an artifact.
type ArtifactSaved struct {
	Base
	Artifact Artifact `json:"artifact"`
}

// HandoffRequested says the planner asks the researcher to approve a build.
type HandoffRequested struct {
	Base
	HandoffID  string          `json:"handoffId"`
	Goal       string          `json:"goal"`
	ArtifactID string          `json:"artifactId"`
	Plan       json.RawMessage `json:"plan"`
	// Confirmed says the researcher's own message of this turn agreed to
	// build ("yes, go ahead"): the server accepts the handoff when the
	// turn ends, as if they had clicked Build.
	Confirmed bool `json:"confirmed,omitempty"`
}

// HandoffAccepted says the build was approved and which turn runs it.
type HandoffAccepted struct {
	Base
	HandoffID     string `json:"handoffId"`
	ExecuteTurnID string `json:"executeTurnId"`
}

// ConversationRenamed says the conversation has a new title (the planner
// names conversations as it understands them).
type ConversationRenamed struct {
	Base
	Title string `json:"title"`
}

// QuestionAsked ends a turn with a question to the researcher instead of a
// plan: the planner could not tell what a phrase means, and each option is
// one reading of it, with what it would build and, where the catalog can
// count it, its count. The researcher answers by choosing an option (its
// Message is sent as the next message of the conversation) or, when
// FreeText is set, in words of their own.
type QuestionAsked struct {
	Base
	QuestionID string           `json:"questionId"`
	Question   string           `json:"question"`
	Options    []QuestionOption `json:"options"`
	FreeText   bool             `json:"freeText"`
}

// QuestionOption is one answer a question offers.
type QuestionOption struct {
	// Label is the reading in the researcher's words ("protein
	// phosphorylation (GO:0006468)").
	Label string `json:"label"`
	// Message is the text choosing the option sends.
	Message string `json:"message"`
	// Builds says what it would build: the search and its values.
	Builds string `json:"builds"`
	// Count is the catalog's count for the option's search; nil when the
	// catalog cannot count it (CountNote says why).
	Count     *int   `json:"count,omitempty"`
	CountNote string `json:"countNote,omitempty"`
	// Approximate marks a reading whose count is only approximate (a text
	// search for the words).
	Approximate bool `json:"approximate,omitempty"`
}

// ControlsChanged says the conversation's control lists changed (a
// researcher set them, or deleted a list they used): which lists are now
// the positives and the negatives ("" ids: none), so open pages and
// clients read the strategy's figures again.
type ControlsChanged struct {
	Base
	PositivesID   string `json:"positivesId"`
	PositivesName string `json:"positivesName"`
	PositivesSize int    `json:"positivesSize"`
	NegativesID   string `json:"negativesId"`
	NegativesName string `json:"negativesName"`
	NegativesSize int    `json:"negativesSize"`
}

// RequirementsChecked is what a build's answer checks: each requirement
// the request stated (the plan's searches with their stated parameter
// values, its restrictions, exclusions and unions, the steps it reused),
// the step of the strategy that implements it, that step's count and a few
// of its genes with the attribute that qualified them, all computed by the
// server from the graph and the plan, never taken from a model. A
// requirement no step implements, or whose genes the catalog cannot
// compute, says so. Controls, when the conversation has control lists,
// are the result's figures against them.
type RequirementsChecked struct {
	Base
	StrategyID string `json:"strategyId"`
	Version    int    `json:"version"`
	RootStepID string `json:"rootStepId"`
	RootCount  *int   `json:"rootCount"`
	// RootApproximate marks a result count a text search made approximate.
	RootApproximate bool          `json:"rootApproximate,omitempty"`
	Requirements    []Requirement `json:"requirements"`
	Controls        *RootControls `json:"controls,omitempty"`
}

// Requirement is one stated requirement and how the strategy meets it.
type Requirement struct {
	// ID is the plan node the requirement comes from ("n3").
	ID   string          `json:"id"`
	Kind RequirementKind `json:"kind"`
	// Text is the requirement in the request's words where the plan kept
	// them (a task's phrase), else the plan's label for it.
	Text string `json:"text"`
	// Search is the catalog's name of the search a search requirement
	// asks for ("GO Term"); Values are the parameter values it states.
	Search string        `json:"search,omitempty"`
	Values []StatedValue `json:"values,omitempty"`
	// Operator is a combine's operator.
	Operator string            `json:"operator,omitempty"`
	Status   RequirementStatus `json:"status"`
	// StepID and StepName are the step that implements it ("" for a
	// missing one); Count is that step's count, nil when it has none.
	StepID   string `json:"stepId,omitempty"`
	StepName string `json:"stepName,omitempty"`
	Count    *int   `json:"count"`
	// Approximate marks figures a text search made approximate.
	Approximate bool `json:"approximate,omitempty"`
	// InResult is how many of the step's genes the strategy's result
	// keeps; for an exclusion, how many genes it removed.
	InResult *int `json:"inResult"`
	// Examples are a few genes that show the requirement at work: genes
	// the step found (an exclusion: genes it removed), each with what
	// qualified it.
	Examples []GeneEvidence `json:"examples"`
	// Note says why a requirement is not met, missing or not evaluable,
	// or anything else the researcher should know of it.
	Note string `json:"note,omitempty"`
}

// StatedValue is one parameter value a requirement states: the
// parameter's name and label, the value as sent, and its label.
type StatedValue struct {
	Param      string `json:"param"`
	ParamLabel string `json:"paramLabel"`
	Value      string `json:"value"`
	Label      string `json:"label"`
}

// GeneEvidence is one gene and the attribute that qualified it for a
// requirement ("GO term: DNA replication (GO:0006260)", "Chromosome:
// Pf3D7_14_v3").
type GeneEvidence struct {
	GeneID     string `json:"geneId"`
	Product    string `json:"product,omitempty"`
	Chromosome string `json:"chromosome,omitempty"`
	Attribute  string `json:"attribute"`
}

// RootControls are the result's figures against the conversation's
// control lists: the positives it finds and those it loses, the negatives
// it finds. Recall and Precision are null where undefined, and every
// figure is null when the result cannot be computed (Message says why).
type RootControls struct {
	PositivesName  string   `json:"positivesName,omitempty"`
	PositivesFound *int     `json:"positivesFound"`
	PositivesTotal int      `json:"positivesTotal"`
	PositivesLost  []string `json:"positivesLost"`
	NegativesName  string   `json:"negativesName,omitempty"`
	NegativesFound *int     `json:"negativesFound"`
	NegativesTotal int      `json:"negativesTotal"`
	Recall         *float64 `json:"recall"`
	Precision      *float64 `json:"precision"`
	Message        string   `json:"message,omitempty"`
}

// GraphSnapshot is the strategy after a mutation. The strategy service emits
// it, from the one place that mutates.
type GraphSnapshot struct {
	Base
	StrategyID string          `json:"strategyId"`
	Version    int             `json:"version"`
	Snapshot   json.RawMessage `json:"snapshot"`
	// Change is the version's change record (strategy.Change: op, summary,
	// and what an undo restored); absent for a strategy's creation and in
	// logs written before it was added.
	Change json.RawMessage `json:"change,omitempty"`
}

// PlanNode is one node of a delegation as streamed.
type PlanNode struct {
	ID        string   `json:"id"`
	Kind      string   `json:"kind"` // task, combine or step
	Label     string   `json:"label"`
	DependsOn []string `json:"dependsOn"`
	Operator  string   `json:"operator,omitempty"`
}

// SubagentPlan opens a delegation: its goal and normalised nodes.
type SubagentPlan struct {
	Base
	DelegationID string     `json:"delegationId"`
	Goal         string     `json:"goal"`
	Nodes        []PlanNode `json:"nodes"`
}

// SubagentTaskStart says a node started (again, for attempt > 1).
type SubagentTaskStart struct {
	Base
	DelegationID string `json:"delegationId"`
	NodeID       string `json:"nodeId"`
	Attempt      int    `json:"attempt"`
}

// SubagentTaskRetry says a task node is retried: its attempt numbered
// Attempt starts next, a fresh sub-agent, because of Cause (the previous
// attempt's error, or that the server running it stopped and what it had
// made). It comes just before that attempt's subagent_task_start; the node
// shows as retrying until the attempt ends.
type SubagentTaskRetry struct {
	Base
	DelegationID string `json:"delegationId"`
	NodeID       string `json:"nodeId"`
	Attempt      int    `json:"attempt"`
	Cause        string `json:"cause"`
}

// SubagentToolCallStart is a sub-agent's tool call starting.
type SubagentToolCallStart struct {
	Base
	DelegationID string          `json:"delegationId"`
	NodeID       string          `json:"nodeId"`
	CallID       string          `json:"callId"`
	Name         string          `json:"name"`
	Args         json.RawMessage `json:"args"`
}

// SubagentToolCallEnd is a sub-agent's tool call ending.
type SubagentToolCallEnd struct {
	Base
	DelegationID string          `json:"delegationId"`
	NodeID       string          `json:"nodeId"`
	CallID       string          `json:"callId"`
	Name         string          `json:"name"`
	OK           bool            `json:"ok"`
	Result       json.RawMessage `json:"result,omitempty"`
	Error        *ToolError      `json:"error,omitempty"`
	DurationMs   int64           `json:"durationMs"`
}

// SubagentMessage is a sub-agent's text.
type SubagentMessage struct {
	Base
	DelegationID string `json:"delegationId"`
	NodeID       string `json:"nodeId"`
	Content      string `json:"content"`
}

// SubagentTaskEnd says a node ended, with its root step when done.
type SubagentTaskEnd struct {
	Base
	DelegationID string     `json:"delegationId"`
	NodeID       string     `json:"nodeId"`
	Status       NodeStatus `json:"status"`
	Attempt      int        `json:"attempt"`
	RootStepID   string     `json:"rootStepId,omitempty"`
	Error        string     `json:"error,omitempty"`
	DurationMs   int64      `json:"durationMs"`
	Usage        llm.Usage  `json:"usage"`
}

// UsageScope says whose model call a Usage event counts.
type UsageScope string

// The scopes of usage: the main agent's call, or a sub-agent node's.
const (
	ScopeMain     UsageScope = "main"
	ScopeSubagent UsageScope = "subagent"
)

// Usage reports tokens: of one model call of the main agent (scope main) or
// of a sub-agent node (scope subagent).
type Usage struct {
	Base
	Scope  UsageScope `json:"scope"`
	NodeID string     `json:"nodeId,omitempty"`
	llm.Usage
}

// Error reports a problem in the turn that the researcher should see.
type Error struct {
	Base
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// TurnResumed says a turn continues in another run: the server process
// running it stopped (it handed the turn back on its way down, or died), and
// a process, maybe another replica, took it up. Everything the previous run
// left open has ended before it (a call INTERRUPTED, a node cancelled); the
// turn's agent runs again after it.
type TurnResumed struct {
	Base
	// Run counts the runs of the turn: 2 for the first resume.
	Run int `json:"run"`
	// Reason says why the previous run stopped.
	Reason string `json:"reason"`
}

// TurnEnd closes a turn; it is always the turn's last event.
type TurnEnd struct {
	Base
	Status     TurnStatus `json:"status"`
	Error      string     `json:"error,omitempty"`
	DurationMs int64      `json:"durationMs"`
	Usage      llm.Usage  `json:"usage"`
}

// Record is an event as stored: its place in the conversation's sequence,
// its wire name and its JSON payload.
type Record struct {
	ConversationID string          `json:"conversationId"`
	Seq            int64           `json:"seq"`
	TurnID         string          `json:"turnId"`
	Type           string          `json:"type"`
	Payload        json.RawMessage `json:"payload"`
	CreatedAt      time.Time       `json:"createdAt"`
}

// turnSetter is implemented by every event through its embedded Base.
type turnSetter interface{ setTurn(id string) }

func (b *Base) setTurn(id string) { b.TurnID = id }

// SetTurn stamps e with its turn id; producers that do not know the turn
// (tools) leave it to the orchestrator.
func SetTurn(e Event, id string) {
	if ts, ok := e.(turnSetter); ok {
		ts.setTurn(id)
	}
}
