package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

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
	b, err := s.prepareBuild(ctx, userID, conversationID, handoffID)
	if err != nil {
		return "", err
	}
	if err := s.begin(ctx, b.t, b.st, spend, b.first...); err != nil {
		return "", err
	}
	return b.t.id, nil
}

// buildStart is the start of a build turn that accepts a handoff, made
// before it is committed: by begin, or with the plan turn's end
// (autoBuild).
type buildStart struct {
	t     *turn
	st    store.StartTurn
	first []event.Event
}

// prepareBuild reads a pending handoff and what its build turn starts
// with: the build message of its goal, plan and the planning artifacts.
func (s *Service) prepareBuild(ctx context.Context, userID, conversationID, handoffID string) (*buildStart, error) {
	h, err := s.cfg.Store.Handoff(ctx, userID, conversationID, handoffID)
	if err != nil {
		return nil, err
	}
	if h.Status != store.HandoffPending {
		return nil, ErrHandoffDecided
	}
	conv, err := s.cfg.Store.Conversation(ctx, userID, conversationID)
	if err != nil {
		return nil, err
	}
	arts, err := s.cfg.Store.Artifacts(ctx, userID, conversationID)
	if err != nil {
		return nil, err
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
		return nil, fmt.Errorf("chat: %w", err)
	}
	model, err := s.pickModel("", conv.Model)
	if err != nil {
		return nil, err
	}
	t := &turn{id: uuid.NewString(), userID: userID, convID: conv.ID, mode: ModeExecute, model: model,
		userMessageID: uuid.NewString(), start: time.Now()}
	st := store.StartTurn{
		UserID: userID, ConversationID: conv.ID, TurnID: t.id, Mode: ModeExecute, Model: model,
		Message: store.NewMessage{ID: t.userMessageID, Role: agent.StoredUser,
			Content: content, Data: data},
		AcceptHandoff: h.ID,
	}
	return &buildStart{t: t, st: st, first: []event.Event{
		&event.TurnStart{Base: event.Base{TurnID: t.id}, Mode: ModeExecute, Model: model, UserMessageID: t.userMessageID, Message: st.Message.Content, HandoffID: h.ID},
		&event.HandoffAccepted{Base: event.Base{TurnID: t.id}, HandoffID: h.ID, ExecuteTurnID: t.id},
	}}, nil
}

// autoBuild prepares, for a plan turn that completed with a handoff
// requested, the start of its build, when the server accepts plans itself
// or the researcher's message of the turn agreed to build it (afterTurn):
// it is committed with the plan turn's end (store.EndTurn.Then), so that
// no moment has the plan ended and its build not started, whatever happens
// to this process then. nil when there is none to start, or it cannot be
// prepared (afterTurn and the sweep try again).
func (s *Service) autoBuild(t *turn, log *slog.Logger) *buildStart {
	t.mu.Lock()
	handoff, confirmed := t.handoff, t.confirmed
	t.mu.Unlock()
	if handoff == "" || t.mode != ModePlan || !s.cfg.AutoApprove && !confirmed {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
	defer cancel()
	b, err := s.prepareBuild(ctx, t.userID, t.convID, handoff)
	if err == nil {
		// The build turn keeps its span (b.t.span); the context it returns
		// would serve only this preparation, which ends here.
		_ = s.startSpan(trace.ContextWithSpan(ctx, t.span), b.t, b.first)
		err = s.encodeStart(b.t, &b.st, b.first)
	}
	if err != nil {
		log.Warn("preparing the build of the plan; it is accepted after the turn's end instead", slog.String("handoff_id", handoff), slog.Any("error", err))
		return nil
	}
	return b
}

// afterTurn accepts a handoff the planner requested, when configured to
// or when the researcher's message of the turn agreed to build it, if the
// turn's end did not (autoBuild: the build starts in the end's own
// transaction when it can). The acceptance is not kept in memory only: a process that stops, dies or
// fails here leaves a pending handoff of a completed plan turn, which the
// sweep of any process accepts when the server auto-approves
// (approveUndecided); a confirmed one stays for the researcher's click.
func (s *Service) afterTurn(t *turn) {
	t.mu.Lock()
	handoff, confirmed := t.handoff, t.confirmed
	t.mu.Unlock()
	if handoff == "" || !s.cfg.AutoApprove && !confirmed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
	defer cancel()
	_, err := s.acceptHandoff(ctx, t.userID, t.convID, handoff, false)
	switch {
	case errors.Is(err, ErrNotServing):
		s.log.Info("auto-approving the handoff is left to the next sweep: this process is stopping", slog.String("handoff_id", handoff))
	case err != nil:
		s.log.Warn("auto-approving the handoff; the next sweep tries again", slog.String("handoff_id", handoff), slog.Any("error", err))
	}
}
