package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"strategist/internal/chat"
	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// The agent protocols (internal/protocol/...) start and follow turns
// through the Host: converse is the runner they share, over the same
// orchestrator (Chat), stream (Streamer) and store as the app.

// converse starts the turn msg asks for (or accepts the pending plan) and
// calls onRecord with each event of the turns it follows, in stream order,
// until the last of them ends. The turn runs on the server whatever
// happens to the caller: a client that goes away only stops following it.
func (s *Server) converse(ctx context.Context, req protocol.Message, onRecord func(r *event.Record, e event.Event) error) (protocol.Outcome, error) {
	var out protocol.Outcome
	after := req.Conversation.LastEventSeq
	turnID := req.Follow
	if turnID == "" {
		var err error
		if turnID, err = s.startOrAccept(ctx, req); err != nil {
			if req.Created {
				s.discardConversation(ctx, req.UserID, req.Conversation.ID)
			}
			return out, err
		}
	}
	out.TurnIDs = append(out.TurnIDs, turnID)
	for {
		restart := false
		for batch, err := range s.cfg.Streamer.Batches(ctx, req.UserID, req.Conversation.ID, after, req.Heartbeat) {
			if errors.Is(err, eventlog.ErrSlowSubscriber) {
				restart = true // resume from the last record read
				break
			}
			if err != nil {
				return out, err
			}
			if len(batch) == 0 {
				if err := onRecord(nil, nil); err != nil {
					return out, err
				}
				continue
			}
			for _, p := range batch {
				after = p.Seq
				if p.TurnID != turnID {
					continue
				}
				e, err := p.Decode()
				if err != nil {
					return out, fmt.Errorf("server: decode %s: %w", p.Type, err)
				}
				if err := onRecord(&p.Record, e); err != nil {
					return out, err
				}
				switch e := e.(type) {
				case *event.HandoffRequested:
					out.PendingHandoff = e.HandoffID
				case *event.QuestionAsked:
					out.Question = e
				case *event.TurnEnd:
					out.Status, out.Error, out.Usage = e.Status, e.Error, out.Usage.Add(e.Usage)
					if out.Status != event.TurnCompleted || !req.AutoBuild || out.PendingHandoff == "" {
						return out, nil
					}
					next, err := s.cfg.Chat.AcceptHandoff(ctx, req.UserID, req.Conversation.ID, out.PendingHandoff)
					if errors.Is(err, chat.ErrHandoffDecided) || errors.Is(err, chat.ErrTurnRunning) {
						// The server accepts plans itself (STRATEGIST_AUTO_APPROVE)
						// and was first: follow the build turn it started.
						next, err = s.acceptedBy(ctx, req.UserID, req.Conversation.ID, out.PendingHandoff)
					}
					if err != nil {
						return out, err
					}
					out.PendingHandoff, out.Question = "", nil
					turnID = next
					out.TurnIDs = append(out.TurnIDs, turnID)
				}
			}
		}
		if !restart {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			return out, errors.New("server: the conversation's stream ended before its turn")
		}
	}
}

// discardConversation deletes a conversation a protocol request made for
// a turn that was then refused (no turn of it ever started).
func (s *Server) discardConversation(ctx context.Context, userID, conversationID string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.cfg.Store.DeleteConversation(ctx, userID, conversationID); err != nil && !errors.Is(err, store.ErrNotFound) {
		s.log.WarnContext(ctx, "deleting the conversation of a refused turn", slog.String("conversation_id", conversationID), slog.Any("error", err))
	}
}

// startOrAccept accepts the plan req.Accept names, or the conversation's
// pending plan when the message is an approval word and a plan waits, and
// otherwise starts a plan turn. A message that is an option's number,
// while a question waits, sends that option's message instead: a chat
// client shows the options numbered.
func (s *Server) startOrAccept(ctx context.Context, req protocol.Message) (string, error) {
	if req.Accept != "" {
		return s.cfg.Chat.AcceptHandoff(ctx, req.UserID, req.Conversation.ID, req.Accept)
	}
	if protocol.IsApproval(req.Text) {
		if h, ok, err := s.pendingHandoff(ctx, req.UserID, req.Conversation.ID); err != nil {
			return "", err
		} else if ok {
			return s.cfg.Chat.AcceptHandoff(ctx, req.UserID, req.Conversation.ID, h.ID)
		}
	}
	if _, ok := event.OptionNumber(req.Text); ok {
		q, err := s.pendingQuestion(ctx, req.UserID, req.Conversation.ID)
		if err != nil {
			return "", err
		}
		if q != nil {
			req.Text = q.Answer(req.Text)
		}
	}
	return s.cfg.Chat.StartTurn(ctx, chat.TurnRequest{UserID: req.UserID, ConversationID: req.Conversation.ID, Message: req.Text, Mode: chat.ModePlan})
}

// questionAskedType is question_asked's name in the log.
var questionAskedType = event.Name(&event.QuestionAsked{})

// pendingQuestion is the question waiting for the researcher (nil for
// none): the one the conversation's latest turn ended with, when that turn
// completed. Their next message answers it.
func (s *Server) pendingQuestion(ctx context.Context, userID, conversationID string) (*event.QuestionAsked, error) {
	turns, err := s.cfg.Store.Turns(ctx, userID, conversationID)
	if err != nil || len(turns) == 0 {
		return nil, err
	}
	last := turns[len(turns)-1]
	if last.Status != store.TurnCompleted {
		return nil, nil
	}
	rows, err := s.cfg.Store.TurnEvents(ctx, last.ID)
	if err != nil {
		return nil, err
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Type != questionAskedType {
			continue
		}
		e, err := eventlog.FromRow(rows[i]).Decode()
		if err != nil {
			return nil, fmt.Errorf("server: decode %s: %w", rows[i].Type, err)
		}
		return e.(*event.QuestionAsked), nil
	}
	return nil, nil
}

// pendingHandoff returns the conversation's newest plan waiting for
// approval.
func (s *Server) pendingHandoff(ctx context.Context, userID, conversationID string) (store.Handoff, bool, error) {
	hs, err := s.cfg.Store.Handoffs(ctx, userID, conversationID)
	if err != nil {
		return store.Handoff{}, false, err
	}
	var best store.Handoff
	found := false
	for _, h := range hs {
		if h.Status == store.HandoffPending && (!found || h.CreatedAt.After(best.CreatedAt)) {
			best, found = h, true
		}
	}
	return best, found, nil
}

// acceptedBy returns the build turn that accepted a handoff.
func (s *Server) acceptedBy(ctx context.Context, userID, conversationID, handoffID string) (string, error) {
	hs, err := s.cfg.Store.Handoffs(ctx, userID, conversationID)
	if err != nil {
		return "", err
	}
	for _, h := range hs {
		if h.ID == handoffID && h.ExecuteTurnID != nil {
			return *h.ExecuteTurnID, nil
		}
	}
	return "", chat.ErrHandoffDecided
}

// rootSummary describes the conversation's strategy as the answer's last
// line: its root step's count (with where it comes from), or why there is
// none. root is the root step, nil when there is no single one.
func (s *Server) rootSummary(ctx context.Context, userID, conversationID string) (summary string, root *strategy.Step) {
	snap, err := s.cfg.Strategies.Conversation(ctx, userID, conversationID)
	if err != nil {
		return "No strategy has been built yet.", nil
	}
	root = rootStep(snap)
	if root == nil {
		return fmt.Sprintf("The strategy has %d steps and %d roots; it has no single result yet.", len(snap.Steps), len(snap.Roots)), nil
	}
	if root.Count == nil {
		msg := root.CountMessage
		if msg == "" {
			msg = root.CountStatus.String()
		}
		return fmt.Sprintf("Root step %s (%s): count unavailable (%s).", root.ID, root.DisplayName, msg), root
	}
	src := ""
	if p := root.CountProvenance; p != nil && p.Source != "" {
		src = " (" + p.Source + ")"
	}
	return fmt.Sprintf("Root step %s (%s): %d genes%s.", root.ID, root.DisplayName, *root.Count, src), root
}

func rootStep(snap strategy.Snapshot) *strategy.Step {
	if snap.RootStepID == "" {
		return nil
	}
	for i := range snap.Steps {
		if snap.Steps[i].ID == snap.RootStepID {
			return &snap.Steps[i]
		}
	}
	return nil
}
