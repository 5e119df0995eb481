package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"sync"

	"strategist/internal/event"
)

// Backend is the Strategist server the agent works through: conversations,
// turns and handoffs of the token's user, and a conversation's event log.
type Backend interface {
	// CreateConversation starts a conversation: its id, the address of its
	// page and the seq of its last event.
	CreateConversation(ctx context.Context) (Conversation, error)
	// StartTurn starts a plan turn with the researcher's message.
	StartTurn(ctx context.Context, conversationID, message string) (turnID string, err error)
	// AcceptHandoff accepts the plan a turn asked to build and returns the
	// build turn (the one already building it when another client, or the
	// server itself, accepted it first).
	AcceptHandoff(ctx context.Context, conversationID, handoffID string) (turnID string, err error)
	// CancelTurn asks a running turn to stop.
	CancelTurn(ctx context.Context, conversationID, turnID string) error
	// Events follows the conversation's log after seq until ctx ends.
	Events(ctx context.Context, conversationID string, after int64) iter.Seq2[event.Record, error]
	// Summary is one line about the conversation's strategy: its root
	// step's gene count and where that count comes from.
	Summary(ctx context.Context, conversationID string) (string, error)
}

// Conversation is a conversation the agent created.
type Conversation struct {
	ID           string
	URL          string
	LastEventSeq int64
}

// AuthError is the Backend refusing the API token; the editor is told
// that authentication is required.
type AuthError struct{ Message string }

func (e *AuthError) Error() string { return e.Message }

// RequestError is the Backend refusing a request the researcher can act
// on (a turn still running, turns started too fast): its message is shown.
type RequestError struct{ Message string }

func (e *RequestError) Error() string { return e.Message }

// Agent is Strategist as an ACP agent on one connection. It owns its
// sessions (mu guards the map); each session's state is guarded by its own
// mutex, because a prompt's goroutine and the cancel notification both
// touch it.
type Agent struct {
	Backend Backend
	Version string
	conn    *Conn

	mu       sync.Mutex
	sessions map[string]*session
}

// session is one ACP session: a Strategist conversation.
type session struct {
	id  string
	url string

	mu sync.Mutex
	// after is the seq of the last event of the conversation read.
	after int64
	// running is set while a prompt is answered: one at a time.
	running bool
	// turnID is the running prompt's current turn ("" before it starts).
	turnID string
	// cancelled is set by session/cancel during the running prompt.
	cancelled bool
}

// Serve answers the editor on conn until its input ends.
func (a *Agent) Serve(ctx context.Context, conn *Conn) error {
	a.conn = conn
	a.sessions = map[string]*session{}
	return conn.Serve(ctx, a)
}

func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 {
		params = []byte("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return &Error{Code: CodeInvalidParams, Message: "invalid params: " + err.Error()}
	}
	return nil
}

// Request answers the editor's requests.
func (a *Agent) Request(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case MethodInitialize:
		var req InitializeRequest
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		return InitializeResponse{
			ProtocolVersion: ProtocolVersion,
			AuthMethods:     []any{},
			AgentInfo:       Implementation{Name: "strategist", Title: "Strategist", Version: a.Version},
		}, nil
	case MethodAuthenticate:
		// The API token is given when the command starts; nothing to do.
		return struct{}{}, nil
	case MethodSessionNew:
		var req NewSessionRequest
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		conv, err := a.Backend.CreateConversation(ctx)
		if err != nil {
			return nil, rpcError(err)
		}
		a.mu.Lock()
		a.sessions[conv.ID] = &session{id: conv.ID, url: conv.URL, after: conv.LastEventSeq}
		a.mu.Unlock()
		return NewSessionResponse{SessionID: conv.ID, Meta: Meta{"strategist/conversationUrl": conv.URL}}, nil
	case MethodSessionPrompt:
		var req PromptRequest
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		return a.prompt(ctx, req)
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: "Strategist does not offer " + method}
}

// Notify handles the editor's notifications: session/cancel.
func (a *Agent) Notify(ctx context.Context, method string, params json.RawMessage) {
	if method != MethodSessionCancel {
		return
	}
	var n CancelNotification
	if err := decodeParams(params, &n); err != nil {
		return
	}
	s := a.session(n.SessionID)
	if s == nil {
		return
	}
	s.mu.Lock()
	if !s.running {
		s.mu.Unlock()
		return
	}
	s.cancelled = true
	turnID := s.turnID
	s.mu.Unlock()
	if turnID != "" {
		// A turn that ended meanwhile cannot be cancelled; the prompt
		// answers "cancelled" all the same.
		_ = a.Backend.CancelTurn(ctx, s.id, turnID)
	}
}

func (a *Agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// rpcError turns the Backend's refusals into JSON-RPC errors the editor
// shows.
func rpcError(err error) error {
	if ae, ok := errors.AsType[*AuthError](err); ok {
		return &Error{Code: CodeAuthRequired, Message: ae.Message}
	}
	if re, ok := errors.AsType[*RequestError](err); ok {
		return &Error{Code: CodeInvalidRequest, Message: re.Message}
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}

// promptText is the researcher's message: the prompt's text blocks, and
// the links it carries as their addresses.
func promptText(blocks []ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "resource_link":
			parts = append(parts, b.URI)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// Permission options of the handoff, and of a question: each reading is
// option-<n>, and answering in words of one's own is optionOwnWords.
const (
	optionBuild    = "build"
	optionKeep     = "keep-planning"
	optionPrefix   = "option-"
	optionOwnWords = "own-words"
)

// prompt runs a prompt: a plan turn started with the message, its events
// sent as session updates, and, when the plan asks to be built, the
// editor's permission asked; granted, the build turn is followed too. A
// turn that ends with a question asks the editor to choose a reading, as a
// permission whose options are the question's: the chosen option's
// message starts the next turn, followed in the same prompt.
func (a *Agent) prompt(ctx context.Context, req PromptRequest) (*PromptResponse, error) {
	s := a.session(req.SessionID)
	if s == nil {
		return nil, &Error{Code: CodeResourceNotFound, Message: "no session " + req.SessionID + " on this connection (start one with session/new)"}
	}
	text := promptText(req.Prompt)
	if text == "" {
		return nil, &Error{Code: CodeInvalidParams, Message: "the prompt has no text"}
	}
	s.mu.Lock()
	if s.running {
		s.mu.Unlock()
		return nil, &Error{Code: CodeInvalidRequest, Message: "a prompt of this session is still running; cancel it first"}
	}
	s.running, s.cancelled, s.turnID = true, false, ""
	after := s.after
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running, s.turnID = false, ""
		s.mu.Unlock()
	}()

	turnID, err := a.Backend.StartTurn(ctx, s.id, text)
	if err != nil {
		return nil, rpcError(err)
	}
	if a.setTurn(ctx, s, turnID) {
		return a.stop(StopCancelled), nil
	}
	m := newMapper()
	var (
		handoff  *event.HandoffRequested
		question *event.QuestionAsked
	)
	for rec, err := range a.Backend.Events(ctx, s.id, after) {
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, rpcError(err)
		}
		s.mu.Lock()
		s.after = rec.Seq
		s.mu.Unlock()
		if rec.TurnID != turnID {
			continue
		}
		e, err := rec.Decode()
		if err != nil {
			continue // an event this version does not know
		}
		for _, u := range m.updates(e) {
			a.update(s, u)
		}
		switch e := e.(type) {
		case *event.HandoffRequested:
			handoff = e
		case *event.QuestionAsked:
			question = e
		case *event.TurnEnd:
			if s.isCancelled() || e.Status == event.TurnCancelled {
				return a.stop(StopCancelled), nil
			}
			if e.Status != event.TurnCompleted {
				msg := "the turn ended " + string(e.Status)
				if e.Error != "" {
					msg += ": " + e.Error
				}
				return nil, &Error{Code: CodeInternalError, Message: msg}
			}
			var next string
			switch {
			case handoff != nil:
				build, stop, err := a.askToBuild(ctx, s, handoff)
				if err != nil || stop != "" {
					return a.stop(stop), err
				}
				next = build
			case question != nil:
				answer, stop, err := a.askQuestion(ctx, s, question)
				if err != nil || stop != "" {
					return a.stop(stop), err
				}
				next = answer
			default:
				a.closing(ctx, s, turnID)
				return a.stop(StopEndTurn), nil
			}
			handoff, question = nil, nil
			turnID = next
			if a.setTurn(ctx, s, turnID) {
				return a.stop(StopCancelled), nil
			}
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, &Error{Code: CodeInternalError, Message: "the conversation's event stream ended before its turn"}
}

func (a *Agent) stop(r StopReason) *PromptResponse {
	if r == "" {
		return nil
	}
	return &PromptResponse{StopReason: r}
}

// setTurn records the prompt's current turn; when the editor cancelled
// before the turn was known, it cancels the turn now and reports true.
func (a *Agent) setTurn(ctx context.Context, s *session, turnID string) bool {
	s.mu.Lock()
	s.turnID = turnID
	cancelled := s.cancelled
	s.mu.Unlock()
	if cancelled {
		_ = a.Backend.CancelTurn(ctx, s.id, turnID)
	}
	return cancelled
}

func (s *session) isCancelled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

func (a *Agent) update(s *session, u SessionUpdate) {
	_ = a.conn.Notify(MethodSessionUpdate, SessionNotification{SessionID: s.id, Update: u})
}

// closing ends an answer with the strategy's root count and the
// conversation's page.
func (a *Agent) closing(ctx context.Context, s *session, turnID string) {
	line, err := a.Backend.Summary(ctx, s.id)
	if err != nil || line == "" {
		return
	}
	b := textBlock("\n\n" + line + " Conversation: " + s.url)
	a.update(s, SessionUpdate{SessionUpdate: UpdateAgentMessage, Content: &b, MessageID: turnID + "-summary"})
}

// handoffCallID is the tool call that stands for a plan's handoff.
func handoffCallID(handoffID string) string { return "handoff-" + handoffID }

// askToBuild asks the editor whether to build the plan. Allowed, the
// handoff is accepted through the server (as Build on the page) and the
// build turn is returned; rejected, the plan stays waiting on the page and
// the prompt ends; the editor's cancel ends it cancelled.
func (a *Agent) askToBuild(ctx context.Context, s *session, h *event.HandoffRequested) (string, StopReason, error) {
	call := SessionUpdate{ToolCall: ToolCall{ToolCallID: handoffCallID(h.HandoffID), ToolTitle: "Build the plan: " + h.Goal, Kind: "switch_mode", Status: ToolPending}}
	var res RequestPermissionResponse
	err := a.conn.Call(ctx, MethodRequestPermission, RequestPermissionRequest{
		SessionID: s.id,
		ToolCall:  call,
		Options: []PermissionOption{
			{OptionID: optionBuild, Name: "Build the plan", Kind: "allow_once"},
			{OptionID: optionKeep, Name: "Keep planning", Kind: "reject_once"},
		},
	}, &res)
	if err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "", &Error{Code: CodeInternalError, Message: "asking to build the plan: " + err.Error()}
	}
	if res.Outcome.Outcome == "cancelled" || s.isCancelled() {
		return "", StopCancelled, nil
	}
	if res.Outcome.OptionID != optionBuild {
		c := textBlock("Not built: the plan waits on the conversation's page (" + s.url + "); say what to change, or build it there.")
		a.update(s, SessionUpdate{SessionUpdate: UpdateToolCallEdit, ToolCall: ToolCall{ToolCallID: call.ToolCallID, Status: ToolFailed,
			Content: []ToolCallContent{{Type: "content", Content: c}}}})
		return "", StopEndTurn, nil
	}
	build, err := a.Backend.AcceptHandoff(ctx, s.id, h.HandoffID)
	if err != nil {
		return "", "", rpcError(err)
	}
	a.update(s, SessionUpdate{SessionUpdate: UpdateToolCallEdit, ToolCall: ToolCall{ToolCallID: call.ToolCallID, Status: ToolInProgress}})
	return build, "", nil
}

// questionCallID is the tool call that stands for a question.
func questionCallID(questionID string) string { return "question-" + questionID }

// askQuestion asks the editor which reading the researcher means, as a
// permission whose options are the question's (each allow_once, named
// with what it builds and its count) and answering in words of their own
// (reject_once). A reading chosen, its message starts the next turn
// through the server, as a prompt would, and that turn is returned; words
// of their own end the prompt, the question waiting for the next one; the
// editor's cancel ends it cancelled.
func (a *Agent) askQuestion(ctx context.Context, s *session, q *event.QuestionAsked) (string, StopReason, error) {
	call := SessionUpdate{ToolCall: ToolCall{ToolCallID: questionCallID(q.QuestionID), ToolTitle: q.Question, Kind: "other", Status: ToolPending}}
	opts := make([]PermissionOption, 0, len(q.Options)+1)
	for i, o := range q.Options {
		name := fmt.Sprintf("%d. %s", i+1, o.Label)
		if d := o.Detail(); d != "" {
			name += " — " + d
		}
		opts = append(opts, PermissionOption{OptionID: optionPrefix + strconv.Itoa(i+1), Name: name, Kind: "allow_once"})
	}
	own := "Not now"
	if q.FreeText {
		own = "Answer in my own words"
	}
	opts = append(opts, PermissionOption{OptionID: optionOwnWords, Name: own, Kind: "reject_once"})
	var res RequestPermissionResponse
	err := a.conn.Call(ctx, MethodRequestPermission, RequestPermissionRequest{SessionID: s.id, ToolCall: call, Options: opts}, &res)
	if err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "", &Error{Code: CodeInternalError, Message: "asking the question: " + err.Error()}
	}
	if res.Outcome.Outcome == "cancelled" || s.isCancelled() {
		return "", StopCancelled, nil
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(res.Outcome.OptionID, optionPrefix))
	if !strings.HasPrefix(res.Outcome.OptionID, optionPrefix) || n < 1 || n > len(q.Options) {
		c := textBlock("The question waits: say in your next prompt what you meant.")
		a.update(s, SessionUpdate{SessionUpdate: UpdateToolCallEdit, ToolCall: ToolCall{ToolCallID: call.ToolCallID, Status: ToolCompleted,
			Content: []ToolCallContent{{Type: "content", Content: c}}}})
		return "", StopEndTurn, nil
	}
	chosen := q.Options[n-1]
	turnID, err := a.Backend.StartTurn(ctx, s.id, chosen.Message)
	if err != nil {
		return "", "", rpcError(err)
	}
	c := textBlock("Answered: " + chosen.Message)
	a.update(s, SessionUpdate{SessionUpdate: UpdateToolCallEdit, ToolCall: ToolCall{ToolCallID: call.ToolCallID, Status: ToolCompleted,
		Content: []ToolCallContent{{Type: "content", Content: c}}}})
	return turnID, "", nil
}
