package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/store"
)

// compact shrinks the turn's history when the prompt would exceed the
// budget. Language models summarise the whole history (one call without
// tools); the offline and scripted engines keep the last messages, since a
// summary written without a model would only be a truncation in disguise.
// A summary is stored, so later turns start from it.
func (s *Service) compact(ctx context.Context, t *turn, ag *agent.Agent, engine llm.Engine, model string, h *agent.History) error {
	system, tools := ag.Prompt()
	c := agent.Compactor{Budget: s.cfg.HistoryBudget, Estimator: s.cfg.Estimator, Engine: engine, Model: model}
	if strings.HasPrefix(t.model, "gemini:") || strings.HasPrefix(t.model, "openai:") {
		c.Strategy = agent.WholeHistory{}
	} else {
		c.Strategy = agent.KeepLastN{N: 40}
	}
	res, err := c.Compact(ctx, h, system, tools)
	if err != nil {
		return fmt.Errorf("compact history: %w", err)
	}
	if !res.Compacted {
		return nil
	}
	s.log.Info("history compacted", slog.String("turn_id", t.id), slog.String("strategy", res.Strategy),
		slog.Int("before_tokens", res.Before), slog.Int("after_tokens", res.After))
	if res.Usage.TotalTokens > 0 {
		t.mu.Lock()
		t.subUsage = t.subUsage.Add(res.Usage)
		t.mu.Unlock()
		if err := s.emit(t)(ctx, &event.Usage{Scope: event.ScopeMain, Usage: res.Usage}); err != nil {
			return err
		}
	}
	if res.Summary == nil {
		return nil
	}
	return s.cfg.Store.AddMessages(ctx, t.convID, t.id, []store.NewMessage{{
		Role: res.Summary.Role, Content: res.Summary.Content, Data: json.RawMessage(res.Summary.Data),
	}})
}
