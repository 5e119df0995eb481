package protocoltest

import (
	"context"
	"time"

	"github.com/google/uuid"

	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
)

// Play answers each message as a scripted orchestrator: it starts a turn
// (or follows the running one Message.Follow names, or accepts the plan
// Message.Accept names, or the pending plan when the text is an approval
// word, as an execute turn), keeps the user's message (an option's
// number, while a question waits, as that option's message), and
// plays events to the caller as records of that turn, in order, keeping
// what the store would (assistant messages, plans, the turn's end). A
// callback that stops the play leaves the turn running, as a turn runs on
// when its follower goes.
func (h *Host) Play(events ...event.Event) ConverseFunc {
	return func(_ context.Context, m protocol.Message, onRecord func(*event.Record, event.Event) error) (protocol.Outcome, error) {
		conv := m.Conversation.ID
		turnID := m.Follow
		h.mu.Lock()
		if turnID == "" {
			turnID = uuid.NewString()
			asked := h.pendingQuestion(conv)
			accept := m.Accept
			if accept == "" && protocol.IsApproval(m.Text) {
				accept = h.pending(conv)
			}
			mode := store.ModePlan
			if accept != "" {
				mode = store.ModeExecute
				h.decide(conv, accept, turnID)
			}
			h.turns[turnID] = store.Turn{ID: turnID, ConversationID: conv, Mode: mode, Status: store.TurnRunning, StartedAt: time.Now()}
			if accept == "" {
				text := m.Text
				if asked != nil {
					text = asked.Answer(text)
				}
				h.messages[conv] = append(h.messages[conv], store.Message{ID: uuid.NewString(), TurnID: &turnID, Role: event.RoleUser,
					Content: text, CreatedAt: time.Now()})
			}
		}
		seq := m.Conversation.LastEventSeq
		h.mu.Unlock()
		out := protocol.Outcome{TurnIDs: []string{turnID}}
		for _, shared := range events {
			e, err := copyEvent(shared) // tests share the played events between turns
			if err != nil {
				return out, err
			}
			event.SetTurn(e, turnID)
			seq++
			h.keep(conv, turnID, e, &out)
			if err := onRecord(&event.Record{ConversationID: conv, Seq: seq, TurnID: turnID, Type: event.Name(e), CreatedAt: time.Now()}, e); err != nil {
				return out, err
			}
		}
		return out, nil
	}
}

// copyEvent is a copy of e that setting its turn leaves e alone.
func copyEvent(e event.Event) (event.Event, error) {
	name, payload, err := event.Encode(e)
	if err != nil {
		return nil, err
	}
	return event.Decode(name, payload)
}

// keep records what the store keeps of a played event.
func (h *Host) keep(conv, turnID string, e event.Event, out *protocol.Outcome) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch e := e.(type) {
	case *event.AssistantMessage:
		h.messages[conv] = append(h.messages[conv], store.Message{ID: e.MessageID, TurnID: &turnID, Role: event.RoleAssistant,
			Content: e.Content, CreatedAt: time.Now()})
	case *event.HandoffRequested:
		for i := range h.handoffs[conv] {
			if hd := &h.handoffs[conv][i]; hd.Status == store.HandoffPending {
				hd.Status = store.HandoffSuperseded
			}
		}
		h.handoffs[conv] = append(h.handoffs[conv], store.Handoff{ID: e.HandoffID, ConversationID: conv, RequestedTurnID: &turnID,
			Goal: e.Goal, Plan: e.Plan, Status: store.HandoffPending, CreatedAt: time.Now()})
		out.PendingHandoff = e.HandoffID
	case *event.QuestionAsked:
		h.questions[turnID] = e
		out.Question = e
	case *event.TurnEnd:
		t := h.turns[turnID]
		now := time.Now()
		t.Status, t.Error, t.EndedAt = store.TurnStatus(e.Status), e.Error, &now
		h.turns[turnID] = t
		out.Status, out.Error, out.Usage = e.Status, e.Error, out.Usage.Add(e.Usage)
	}
}

// pending is the conversation's plan waiting for approval ("" for
// none); h.mu is held.
func (h *Host) pending(conv string) string {
	id := ""
	for _, hd := range h.handoffs[conv] {
		if hd.Status == store.HandoffPending {
			id = hd.ID
		}
	}
	return id
}

// decide marks a pending plan accepted by turnID; h.mu is held.
func (h *Host) decide(conv, handoffID, turnID string) {
	for i := range h.handoffs[conv] {
		if hd := &h.handoffs[conv][i]; hd.ID == handoffID {
			hd.Status, hd.ExecuteTurnID = store.HandoffAccepted, &turnID
		}
	}
}

// Asking is a turn that ends with a question, as the offline planner asks
// when a phrase maps to no search: the planner's words, then two readings
// of "kinases", each with what it builds and its count, and free text
// welcome. The events are new at each call (Play sets their turn).
func Asking() (*event.QuestionAsked, []event.Event) {
	go57, text66 := 57, 66
	q := &event.QuestionAsked{QuestionID: uuid.NewString(), Question: "I could not map \"kinases\" to a search. Which did you mean?", FreeText: true,
		Options: []event.QuestionOption{
			{Label: "protein phosphorylation (GO:0006468)", Message: "genes annotated with GO:0006468", Builds: "GenesByGoTerm (go_typeahead=GO:0006468)", Count: &go57},
			{Label: "genes whose annotation mentions \"kinase\"", Message: "text search for kinases", Builds: "GenesByText (text_expression=kinase)", Count: &text66, Approximate: true},
		}}
	return q, []event.Event{
		&event.TurnStart{Mode: event.ModePlan, Message: "kinases"},
		q,
		&event.AssistantMessage{MessageID: uuid.NewString(), Content: "I could not map \"kinases\" to a search."},
		&event.TurnEnd{Status: event.TurnCompleted},
	}
}
