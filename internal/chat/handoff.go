package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/store"
)

// BuildContext is what an execute turn started from an approved plan
// receives: structured, not prose. It is stored as the turn's user message
// (data) and sent to the executor as a JSON block.
type BuildContext struct {
	HandoffID string            `json:"handoffId"`
	Goal      string            `json:"goal"`
	Plan      json.RawMessage   `json:"plan"`
	Artifacts []ArtifactSummary `json:"planningArtifacts"`
}

// ArtifactSummary is a planning artifact as the executor sees it.
type ArtifactSummary struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Summary     string          `json:"summaryMarkdown"`
	Assumptions json.RawMessage `json:"assumptions,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// AcceptHandoff approves a pending handoff: in one transaction the handoff
// is accepted, the conversation switches to execute mode, and an execute
// turn starts whose input is the goal, the validated plan and the planning
// artifacts' summaries. It returns the execute turn's id.
func (s *Service) AcceptHandoff(ctx context.Context, userID, conversationID, handoffID string) (string, error) {
	h, err := s.cfg.Store.Handoff(ctx, userID, conversationID, handoffID)
	if err != nil {
		return "", err
	}
	if h.Status != "pending" {
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
	bc := BuildContext{HandoffID: h.ID, Goal: h.Goal, Plan: h.Plan, Artifacts: []ArtifactSummary{}}
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
		bc.Artifacts = append(bc.Artifacts, ArtifactSummary{ID: a.ID, Title: a.Title, Summary: body.Summary, Assumptions: body.Assumptions, Parameters: body.Parameters})
	}
	data, err := json.Marshal(map[string]any{"build": bc})
	if err != nil {
		return "", fmt.Errorf("chat: encode build context: %w", err)
	}
	pretty, _ := json.MarshalIndent(bc, "", "  ")
	model, err := s.pickModel("", conv.Model)
	if err != nil {
		return "", err
	}
	t := &turn{id: uuid.NewString(), userID: userID, conv: conv, mode: ModeExecute, model: model,
		userMessageID: uuid.NewString(), start: time.Now()}
	st := store.StartTurn{
		UserID: userID, ConversationID: conv.ID, TurnID: t.id, Mode: ModeExecute, Model: model,
		Message: store.NewMessage{ID: t.userMessageID, Role: agent.StoredUser,
			Content: "Build the approved plan:\n```json\n" + string(pretty) + "\n```", Data: data},
		AcceptHandoff: h.ID,
	}
	err = s.begin(ctx, t, st,
		&event.TurnStart{Base: event.Base{TurnID: t.id}, Mode: ModeExecute, Model: model, UserMessageID: t.userMessageID, Message: st.Message.Content, HandoffID: h.ID},
		&event.HandoffAccepted{Base: event.Base{TurnID: t.id}, HandoffID: h.ID, ExecuteTurnID: t.id})
	if err != nil {
		return "", err
	}
	return t.id, nil
}
