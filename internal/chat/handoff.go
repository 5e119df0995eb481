package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/store"
)

// AcceptHandoff approves a pending handoff: in one transaction the handoff
// is accepted, the conversation switches to execute mode, and an execute
// turn starts whose input is the build message (plan.WriteBuildMessage):
// the goal, the validated plan and the planning artifacts' summaries. It
// returns the execute turn's id.
func (s *Service) AcceptHandoff(ctx context.Context, userID, conversationID, handoffID string) (string, error) {
	return s.acceptHandoff(ctx, userID, conversationID, handoffID, true)
}

// acceptHandoff is AcceptHandoff; spend says whether the build turn spends
// the researcher's turn budget (not when the server accepts by itself).
func (s *Service) acceptHandoff(ctx context.Context, userID, conversationID, handoffID string, spend bool) (string, error) {
	h, err := s.cfg.Store.Handoff(ctx, userID, conversationID, handoffID)
	if err != nil {
		return "", err
	}
	if h.Status != store.HandoffPending {
		return "", ErrHandoffDecided
	}
	conv, err := s.cfg.Store.Conversation(ctx, userID, conversationID)
	if err != nil {
		return "", err
	}
	arts, err := s.cfg.Store.Artifacts(ctx, userID, conversationID)
	if err != nil {
		return "", err
	}
	bc := plan.BuildContext{HandoffID: h.ID, Goal: h.Goal, Plan: h.Plan, Artifacts: []plan.ArtifactSummary{}}
	for _, a := range arts {
		if a.Kind != event.ArtifactPlanning {
			continue
		}
		var body struct {
			Summary     string          `json:"summaryMarkdown"`
			Assumptions json.RawMessage `json:"assumptions"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		_ = json.Unmarshal(a.Body, &body)
		bc.Artifacts = append(bc.Artifacts, plan.ArtifactSummary{ID: a.ID, Title: a.Title, Summary: body.Summary, Assumptions: body.Assumptions, Parameters: body.Parameters})
	}
	content, data, err := plan.WriteBuildMessage(bc)
	if err != nil {
		return "", fmt.Errorf("chat: %w", err)
	}
	model, err := s.pickModel("", conv.Model)
	if err != nil {
		return "", err
	}
	t := &turn{id: uuid.NewString(), userID: userID, convID: conv.ID, mode: ModeExecute, model: model,
		userMessageID: uuid.NewString(), start: time.Now()}
	st := store.StartTurn{
		UserID: userID, ConversationID: conv.ID, TurnID: t.id, Mode: ModeExecute, Model: model,
		Message: store.NewMessage{ID: t.userMessageID, Role: agent.StoredUser,
			Content: content, Data: data},
		AcceptHandoff: h.ID,
	}
	err = s.begin(ctx, t, st, spend,
		&event.TurnStart{Base: event.Base{TurnID: t.id}, Mode: ModeExecute, Model: model, UserMessageID: t.userMessageID, Message: st.Message.Content, HandoffID: h.ID},
		&event.HandoffAccepted{Base: event.Base{TurnID: t.id}, HandoffID: h.ID, ExecuteTurnID: t.id})
	if err != nil {
		return "", err
	}
	return t.id, nil
}
