package acp

import "encoding/json"

// The part of ACP version 1's schema Strategist speaks. Field names and
// values are the protocol's; optional fields are omitted when empty.

// ProtocolVersion is the ACP version Strategist speaks.
const ProtocolVersion = 1

// Methods.
const (
	MethodInitialize        = "initialize"
	MethodAuthenticate      = "authenticate"
	MethodSessionNew        = "session/new"
	MethodSessionPrompt     = "session/prompt"
	MethodSessionCancel     = "session/cancel"
	MethodSessionUpdate     = "session/update"
	MethodRequestPermission = "session/request_permission"
)

// Meta is the _meta object: Strategist's extra facts, under keys of its own.
type Meta map[string]any

type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type InitializeRequest struct {
	ProtocolVersion int             `json:"protocolVersion"`
	ClientInfo      *Implementation `json:"clientInfo,omitempty"`
}

type PromptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

type MCPCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

type AgentCapabilities struct {
	LoadSession         bool               `json:"loadSession"`
	PromptCapabilities  PromptCapabilities `json:"promptCapabilities"`
	MCPCapabilities     MCPCapabilities    `json:"mcpCapabilities"`
	SessionCapabilities struct{}           `json:"sessionCapabilities"`
}

type InitializeResponse struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AuthMethods       []any             `json:"authMethods"`
	AgentInfo         Implementation    `json:"agentInfo"`
}

type NewSessionRequest struct {
	Cwd        string            `json:"cwd"`
	MCPServers []json.RawMessage `json:"mcpServers"`
}

type NewSessionResponse struct {
	SessionID string `json:"sessionId"`
	Meta      Meta   `json:"_meta,omitempty"`
}

// ContentBlock is a prompt's or a message's content: Strategist reads text
// and resource links and writes text.
type ContentBlock struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	// URI and Name are a resource_link's.
	URI  string `json:"uri,omitempty"`
	Name string `json:"name,omitempty"`
}

func textBlock(s string) ContentBlock { return ContentBlock{Type: "text", Text: s} }

type PromptRequest struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
}

// StopReason is why a prompt turn ended.
type StopReason string

const (
	StopEndTurn   StopReason = "end_turn"
	StopCancelled StopReason = "cancelled"
)

type PromptResponse struct {
	StopReason StopReason `json:"stopReason"`
	Meta       Meta       `json:"_meta,omitempty"`
}

type CancelNotification struct {
	SessionID string `json:"sessionId"`
}

type SessionNotification struct {
	SessionID string        `json:"sessionId"`
	Update    SessionUpdate `json:"update"`
}

// Kinds of session update.
const (
	UpdateAgentMessage = "agent_message_chunk"
	UpdateAgentThought = "agent_thought_chunk"
	UpdateToolCall     = "tool_call"
	UpdateToolCallEdit = "tool_call_update"
	UpdatePlan         = "plan"
	UpdateSessionInfo  = "session_info_update"
)

// SessionUpdate is one update of a session: SessionUpdate names its kind,
// and the fields of that kind are set (a message chunk's Content, a tool
// call's ToolCall fields, a plan's Entries, the session's Title).
type SessionUpdate struct {
	SessionUpdate string `json:"sessionUpdate,omitempty"`
	// Content is a message or thought chunk's content.
	Content *ContentBlock `json:"content,omitempty"`
	// MessageID groups a message's chunks.
	MessageID string `json:"messageId,omitempty"`
	ToolCall
	// Entries is a plan's entries: the whole plan, each time.
	Entries []PlanEntry `json:"entries,omitempty"`
	// Title is the session's title (session_info_update).
	Title string `json:"title,omitempty"`
}

// ToolCall is a tool call, or an update of one (only the fields that
// changed are set).
type ToolCall struct {
	ToolCallID string            `json:"toolCallId,omitempty"`
	ToolTitle  string            `json:"-"`
	Kind       string            `json:"kind,omitempty"`
	Status     string            `json:"status,omitempty"`
	Content    []ToolCallContent `json:"-"`
	RawInput   json.RawMessage   `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage   `json:"rawOutput,omitempty"`
}

// ToolCallContent is content a tool call shows.
type ToolCallContent struct {
	Type    string       `json:"type"` // "content"
	Content ContentBlock `json:"content"`
}

// Tool call statuses.
const (
	ToolPending    = "pending"
	ToolInProgress = "in_progress"
	ToolCompleted  = "completed"
	ToolFailed     = "failed"
)

// MarshalJSON writes the update with its kind's fields: a tool call's
// title and content share their names with a session's title and a
// chunk's content, so they are written here by kind. An update with no
// kind is a tool call given on its own (a permission request's).
func (u SessionUpdate) MarshalJSON() ([]byte, error) {
	type plain SessionUpdate
	raw, err := json.Marshal(plain(u))
	if err != nil {
		return nil, err
	}
	isToolCall := u.SessionUpdate == UpdateToolCall || u.SessionUpdate == UpdateToolCallEdit || u.SessionUpdate == ""
	if !isToolCall {
		if u.SessionUpdate == UpdatePlan && u.Entries == nil {
			return addFields(raw, map[string]any{"entries": []PlanEntry{}})
		}
		return raw, nil
	}
	extra := map[string]any{}
	if u.ToolTitle != "" {
		extra["title"] = u.ToolTitle
	}
	if len(u.ToolCall.Content) > 0 {
		extra["content"] = u.ToolCall.Content
	}
	return addFields(raw, extra)
}

func addFields(raw []byte, extra map[string]any) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		m[k] = b
	}
	return json.Marshal(m)
}

// PlanEntry is one entry of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"` // high, medium, low
	Status   string `json:"status"`   // pending, in_progress, completed
}

// Plan entry statuses.
const (
	PlanPending    = "pending"
	PlanInProgress = "in_progress"
	PlanCompleted  = "completed"
)

type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"` // allow_once, allow_always, reject_once, reject_always
}

type RequestPermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  SessionUpdate      `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

type RequestPermissionResponse struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // cancelled or selected
		OptionID string `json:"optionId,omitempty"`
	} `json:"outcome"`
}
