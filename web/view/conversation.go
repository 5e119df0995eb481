// Package view is the projection behind Strategist's conversation page: it
// folds a conversation's event log, in sequence order, into what the page
// shows (the chat with its tool calls, errors and usage, the artifacts and
// handoffs, the latest delegation's nodes, the strategy), and says for each
// event what changed, so that the live stream can send just that part.
//
// The page and the stream are two renderings of one fold: the page drawn
// after event N, updated with the changes of events N+1..M, shows what the
// page drawn after event M shows. Nothing here reads the database or the
// clock; the event log is the only input (plus, for logs written before
// turn_start carried the user's text, a lookup of stored messages).
package view

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// Conversation is the projected state of one conversation's page.
//
// It is not safe for concurrent use: one request folds it and renders it.
type Conversation struct {
	ID     string
	Title  string
	SiteID string
	// Mode is the conversation's current mode: that of its latest turn,
	// else the one it was created with.
	Mode event.Mode
	// Model is the model of the latest turn, else the conversation's.
	Model string
	// Seq is the sequence number of the last event folded in.
	Seq int64

	Turns      []*Turn
	Artifacts  []*Artifact
	Handoffs   []*Handoff
	Delegation *Delegation
	Strategy   *strategy.Snapshot
	// ControlsSeq is the sequence number of the last controls_changed.
	ControlsSeq int64

	userText  func(messageID string) string
	turns     map[string]*Turn
	messages  map[string]*Message
	calls     map[string]*ToolCall // by turn id + "/" + call id
	artifacts map[string]*Artifact
	// introduced is set once a message showed the offline engine's
	// introduction.
	introduced bool
	// versions are the change records of the strategy's versions, as the
	// log's graph snapshots carried them.
	versions map[int]strategy.Change
	// states are the versions' results, for the history.
	states map[int]versionState
}

// Start is what the projection starts from: the conversation as stored.
type Start struct {
	ID, Title, SiteID string
	Mode              event.Mode
	Model             string
	// UserText returns a stored user message's text; it fills in turns whose
	// turn_start event predates the message field. May be nil.
	UserText func(messageID string) string
}

// New returns the projection of a conversation before its first event.
func New(s Start) *Conversation {
	return &Conversation{
		ID: s.ID, Title: s.Title, SiteID: s.SiteID, Mode: s.Mode, Model: s.Model,
		userText:  s.UserText,
		turns:     map[string]*Turn{},
		messages:  map[string]*Message{},
		calls:     map[string]*ToolCall{},
		artifacts: map[string]*Artifact{},
	}
}

// Turn is one turn: the user's message, what the assistant said and did,
// and how it ended.
type Turn struct {
	// Key is the sequence number of the turn's turn_start; element ids of
	// the page derive from such keys, so the page and the stream agree.
	Key           int64
	ID            string
	Mode          event.Mode
	Model         string
	HandoffID     string
	UserMessageID string
	UserText      string
	StartedAt     time.Time
	Items         []Item
	// index is the turn's place in Conversation.Turns.
	index int
	// rebuild is the goal of a turn that sent an approved plan's build
	// message again (Build again), rather than through a handoff.
	rebuild string
	rebuilt bool

	// ReplacedBy is the id of the turn that replaced this one (the
	// researcher edited its message or regenerated its answer); the page
	// shows a replaced turn folded and labelled. "" while it stands.
	ReplacedBy string
	// StrategyChanges counts the changes the turn made to the strategy
	// (its graph snapshots after the strategy's creation): editing or
	// regenerating it keeps them, and the page says so.
	StrategyChanges int
	// Result is the strategy's result step as the turn's last change left
	// it (nil when the turn changed nothing, or left no one tree): a folded
	// turn's line says what it came to.
	Result *strategy.Step

	// Status is "running" until turn_end, then the turn's end status.
	Status     event.TurnStatus
	Error      string
	DurationMs int64
	// Usage is the tokens counted so far (usage events), replaced by the
	// turn_end total.
	Usage llm.Usage
}

// Build reports whether the turn builds an approved plan: started by Build
// this plan, or by Build again with the same build message.
func (t *Turn) Build() bool { return t.HandoffID != "" || t.rebuilt }

// Rebuild returns the goal of a turn started by Build again (ok false for
// any other turn).
func (t *Turn) Rebuild() (goal string, ok bool) { return t.rebuild, t.rebuilt }

// Running reports whether the turn has not ended.
func (t *Turn) Running() bool { return t.Status == event.TurnRunning }

// Item is one entry of a turn's timeline: *Message, *ToolCall, *TurnError,
// *TurnResumed, *Question or *Checks.
type Item interface{ item() }

// Message is an assistant message: streamed text until its final markdown
// arrives.
type Message struct {
	Key  int64
	ID   string
	Text string
	// Final is set by assistant_message; Text is then the whole markdown.
	Final bool
	turn  *Turn
	// repeatsIntro is set on a final message that opens with the offline
	// engine's introduction when an earlier message already did.
	repeatsIntro bool
}

// Shown is the message's text as the chat shows it: the offline engine's
// introduction is kept in the first message that has it and left out of
// later ones (the stored event keeps it).
func (m *Message) Shown() string {
	if m.repeatsIntro {
		return strings.TrimLeft(strings.TrimPrefix(m.Text, llm.OfflineIntro), " \n")
	}
	return m.Text
}

// introduce marks a final message that repeats the offline engine's
// introduction.
func (c *Conversation) introduce(m *Message) {
	if !strings.HasPrefix(m.Text, llm.OfflineIntro) {
		return
	}
	if c.introduced {
		m.repeatsIntro = strings.TrimSpace(strings.TrimPrefix(m.Text, llm.OfflineIntro)) != ""
		return
	}
	c.introduced = true
}

// ToolCall is a tool call of the main agent or of a sub-agent.
type ToolCall struct {
	Key        int64
	ID         string
	Name       string
	Args       json.RawMessage
	Status     CallStatus
	Result     json.RawMessage
	Error      *event.ToolError
	DurationMs int64
	// turn is the chat's turn the call is in; nil for a sub-agent's call.
	turn *Turn
	// group is the Key of the first call of the run of consecutive calls
	// this chat call belongs to (see CallGroup).
	group int64
}

// TurnError is an error event shown in place.
type TurnError struct {
	Key       int64
	Code      string
	Message   string
	Retryable bool
}

// TurnResumed marks where a turn continued in another run, after the
// server running it stopped.
type TurnResumed struct {
	Key    int64
	Run    int
	Reason string
}

// Question is a question the turn ended with: the researcher answers by
// choosing an option (its message is sent as the next message, in the
// turn's mode and model) or, with FreeText, in the composer.
type Question struct {
	Key      int64
	ID       string
	Text     string
	Options  []event.QuestionOption
	FreeText bool
	// Mode and Model are the asking turn's, for the answer.
	Mode  event.Mode
	Model string
}

func (*Message) item()     {}
func (*ToolCall) item()    {}
func (*TurnError) item()   {}
func (*TurnResumed) item() {}
func (*Question) item()    {}

// CallStatus is the state of a tool call on the page.
type CallStatus string

// The statuses of a tool call.
const (
	CallRunning CallStatus = "running"
	CallOK      CallStatus = "ok"
	CallError   CallStatus = "error"
)

// Running reports whether the turn of the conversation's latest turn is
// running, and returns it (nil when there is no turn).
func (c *Conversation) Running() (*Turn, bool) {
	if len(c.Turns) == 0 {
		return nil, false
	}
	t := c.Turns[len(c.Turns)-1]
	return t, t.Running()
}

// Apply folds one event record into the projection and returns what
// changed, in the order the page should be updated. A record at or below
// the last one applied is ignored (no change), so a replayed record cannot
// be counted twice. An event of a type this version does not know changes
// nothing.
func (c *Conversation) Apply(rec event.Record) ([]Change, error) {
	if rec.Seq <= c.Seq {
		return nil, nil
	}
	c.Seq = rec.Seq
	open := len(c.Turns)
	changes, err := c.apply(rec)
	return c.folding(open, changes), err
}

func (c *Conversation) apply(rec event.Record) ([]Change, error) {
	ev, err := rec.Decode()
	if err != nil {
		return nil, fmt.Errorf("view: event %d: %w", rec.Seq, err)
	}
	switch e := ev.(type) {
	case *event.TurnStart:
		return c.turnStart(rec, e), nil
	case *event.AssistantDelta:
		return c.delta(rec, e), nil
	case *event.AssistantMessage:
		return c.message(rec, e), nil
	case *event.ToolCallStart:
		return c.toolStart(rec, e), nil
	case *event.ToolCallEnd:
		return c.toolEnd(rec, e), nil
	case *event.Error:
		t := c.turnOf(rec, e.TurnID)
		te := &TurnError{Key: rec.Seq, Code: e.Code, Message: e.Message, Retryable: e.Retryable}
		t.Items = append(t.Items, te)
		return []Change{ItemAdded{Turn: t, Item: te}}, nil
	case *event.TurnResumed:
		t := c.turnOf(rec, e.TurnID)
		tr := &TurnResumed{Key: rec.Seq, Run: e.Run, Reason: e.Reason}
		t.Items = append(t.Items, tr)
		return []Change{ItemAdded{Turn: t, Item: tr}}, nil
	case *event.Usage:
		t := c.turnOf(rec, e.TurnID)
		if !t.Running() {
			return nil, nil
		}
		t.Usage = t.Usage.Add(e.Usage)
		return []Change{TurnUpdated{Turn: t}}, nil
	case *event.TurnEnd:
		t := c.turnOf(rec, e.TurnID)
		t.Status, t.Error, t.DurationMs, t.Usage = e.Status, e.Error, e.DurationMs, e.Usage
		return c.withStrategy([]Change{TurnUpdated{Turn: t}, ComposerChanged{}}), nil
	case *event.ArtifactSaved:
		return c.artifactSaved(rec, e), nil
	case *event.HandoffRequested:
		return c.handoffRequested(e), nil
	case *event.HandoffAccepted:
		return c.handoffAccepted(e), nil
	case *event.QuestionAsked:
		t := c.turnOf(rec, e.TurnID)
		q := &Question{Key: rec.Seq, ID: e.QuestionID, Text: e.Question, Options: e.Options, FreeText: e.FreeText, Mode: t.Mode, Model: t.Model}
		t.Items = append(t.Items, q)
		return []Change{ItemAdded{Turn: t, Item: q}}, nil
	case *event.RequirementsChecked:
		return c.requirementsChecked(rec, e), nil
	case *event.ControlsChanged:
		return c.controlsChanged(rec, e), nil
	case *event.ConversationRenamed:
		c.Title = e.Title
		return []Change{TitleChanged{}}, nil
	case *event.GraphSnapshot:
		return c.graphSnapshot(e)
	case *event.SubagentPlan:
		return c.subagentPlan(rec, e), nil
	case *event.SubagentTaskRetry:
		return c.taskRetry(e), nil
	case *event.SubagentTaskStart:
		return c.taskStart(rec, e), nil
	case *event.SubagentTaskEnd:
		return c.taskEnd(e), nil
	case *event.SubagentToolCallStart:
		return c.nodeToolStart(rec, e), nil
	case *event.SubagentToolCallEnd:
		return c.nodeToolEnd(e), nil
	case *event.SubagentMessage:
		return c.nodeMessage(e), nil
	}
	return nil, nil
}

// withStrategy adds a redraw of the strategy panel to a turn's start or
// end when there is a strategy or a delegation: its Undo, Redo and history
// wait while a turn runs, and the steps still to build are listed only
// while the delegation's turn runs.
func (c *Conversation) withStrategy(changes []Change) []Change {
	if c.Strategy == nil && c.Delegation == nil {
		return changes
	}
	return append(changes, StrategyChanged{})
}

func (c *Conversation) turnStart(rec event.Record, e *event.TurnStart) []Change {
	t := &Turn{
		Key: rec.Seq, ID: e.TurnID, Mode: e.Mode, Model: e.Model, HandoffID: e.HandoffID,
		UserMessageID: e.UserMessageID, UserText: e.Message, StartedAt: rec.CreatedAt, Status: event.TurnRunning,
	}
	if t.UserText == "" && c.userText != nil {
		t.UserText = c.userText(e.UserMessageID)
	}
	if t.HandoffID == "" && strings.HasPrefix(strings.TrimSpace(t.UserText), plan.BuildPrefix) {
		if bc, _, ok := plan.ReadBuildMessage(t.UserText); ok {
			t.rebuild, t.rebuilt = bc.Goal, true
		}
	}
	c.add(t)
	if e.Mode != "" {
		c.Mode = e.Mode
	}
	if e.Model != "" {
		c.Model = e.Model
	}
	changes := c.withStrategy([]Change{TurnAdded{Turn: t}, ComposerChanged{}})
	if old, ok := c.turns[e.ReplacesTurnID]; ok && old != t && old.ReplacedBy == "" {
		old.ReplacedBy = t.ID
		changes = append(changes, TurnFolded{Turn: old})
	}
	return changes
}

// Editable reports whether the researcher wrote t's message (it is no
// build request), so that it can be edited and sent again.
func (t *Turn) Editable() bool {
	return !t.Build() && strings.TrimSpace(t.UserText) != ""
}

// turnOf returns the event's turn; an event of a turn whose start the log
// does not have (or of no turn) gets a placeholder turn so it is still
// shown.
func (c *Conversation) turnOf(rec event.Record, id string) *Turn {
	if t, ok := c.turns[id]; ok {
		return t
	}
	t := &Turn{Key: rec.Seq, ID: id, StartedAt: rec.CreatedAt, Status: event.TurnRunning}
	c.add(t)
	return t
}

func (c *Conversation) add(t *Turn) {
	t.index = len(c.Turns)
	c.Turns = append(c.Turns, t)
	c.turns[t.ID] = t
}

func (c *Conversation) delta(rec event.Record, e *event.AssistantDelta) []Change {
	if m, ok := c.messages[e.MessageID]; ok {
		if m.Final {
			return nil
		}
		m.Text += e.Delta
		return []Change{DeltaAppended{Turn: m.turn, Message: m, Delta: e.Delta}}
	}
	t := c.turnOf(rec, e.TurnID)
	m := &Message{Key: rec.Seq, ID: e.MessageID, Text: e.Delta, turn: t}
	c.messages[m.ID] = m
	t.Items = append(t.Items, m)
	return []Change{ItemAdded{Turn: t, Item: m}}
}

func (c *Conversation) message(rec event.Record, e *event.AssistantMessage) []Change {
	if m, ok := c.messages[e.MessageID]; ok {
		m.Text, m.Final = e.Content, true
		c.introduce(m)
		return []Change{ItemReplaced{Turn: m.turn, Item: m}}
	}
	t := c.turnOf(rec, e.TurnID)
	m := &Message{Key: rec.Seq, ID: e.MessageID, Text: e.Content, Final: true, turn: t}
	c.introduce(m)
	c.messages[m.ID] = m
	t.Items = append(t.Items, m)
	return []Change{ItemAdded{Turn: t, Item: m}}
}

func (c *Conversation) toolStart(rec event.Record, e *event.ToolCallStart) []Change {
	t := c.turnOf(rec, e.TurnID)
	tc := &ToolCall{Key: rec.Seq, ID: e.CallID, Name: e.Name, Args: e.Args, Status: CallRunning, turn: t}
	c.calls[e.TurnID+"/"+e.CallID] = tc
	t.addCall(tc)
	return []Change{ItemAdded{Turn: t, Item: tc}}
}

func (c *Conversation) toolEnd(rec event.Record, e *event.ToolCallEnd) []Change {
	tc, ok := c.calls[e.TurnID+"/"+e.CallID]
	if !ok {
		// An end without its start (a log cut short): show the call anyway.
		t := c.turnOf(rec, e.TurnID)
		tc = &ToolCall{Key: rec.Seq, ID: e.CallID, Name: e.Name, turn: t}
		c.calls[e.TurnID+"/"+e.CallID] = tc
		t.addCall(tc)
		endCall(tc, e.OK, e.Result, e.Error, e.DurationMs)
		return []Change{ItemAdded{Turn: t, Item: tc}}
	}
	endCall(tc, e.OK, e.Result, e.Error, e.DurationMs)
	return []Change{ItemReplaced{Turn: tc.turn, Item: tc}}
}

func endCall(tc *ToolCall, ok bool, result json.RawMessage, terr *event.ToolError, ms int64) {
	tc.Status, tc.Result, tc.Error, tc.DurationMs = CallOK, result, terr, ms
	if !ok {
		tc.Status = CallError
	}
}

// DOMID returns a page element id made of a prefix and a key.
func DOMID(prefix string, key int64) string { return prefix + strconv.FormatInt(key, 10) }
