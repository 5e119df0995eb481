package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/llm"
	"strategist/internal/store"
)

// errOwnerLost ends the turns of a process that lost its owner session: they
// are handed back, as on a stop, before another process may rescue them.
var errOwnerLost = errors.New("this process lost its owner session")

// Ready reports whether this process runs turns: Run serves, its turn
// queue works jobs, and the owner session is held (OwnerHeld since the
// last OwnerLost). A replica that is not ready answers /readyz 503, so that
// a balancer sends it no turn.
func (s *Service) Ready() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.base == nil:
		return ErrNotServing
	case !s.queueUp:
		return errQueueNotUp
	case s.ownerErr != nil:
		return fmt.Errorf("chat: no owner session: %w", s.ownerErr)
	}
	return nil
}

// errQueueNotUp: Run serves, but its turn queue has not started working
// jobs yet (its start waits for the database).
var errQueueNotUp = errors.New("chat: the turn queue is not running yet")

// OwnerHeld records that the owner session is held again after a loss.
func (s *Service) OwnerHeld() {
	s.mu.Lock()
	s.ownerErr = nil
	s.mu.Unlock()
}

// OwnerLost hands back every turn this process runs: its owner session has
// been gone too long (store.OwnerSession.Lost), and once its lease expires
// another process may take the turns up. Until the session is back, this
// process claims no turn (store.ErrOwnerLost).
func (s *Service) OwnerLost(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ownerErr = err
	if len(s.running) > 0 {
		s.log.Warn("handing back every turn: the owner session is lost", slog.Int("turns", len(s.running)), slog.Any("error", err))
	}
	for _, t := range s.running {
		t.cancel(errOwnerLost)
	}
}

func (s *Service) cancelLocal(turnID string, cause error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.running[turnID]
	if ok {
		t.cancel(cause)
	}
	return ok
}

// recoverOrphans hands the turns of dead processes to the living (their jobs
// become available to any process, which resumes them), and ends as
// interrupted the running turns nothing will run again (no live process, no
// job left); it returns how many turns it rescued or ended.
func (s *Service) recoverOrphans(ctx context.Context) int {
	rescued, err := s.cfg.Store.RescueTurns(ctx)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("rescuing the turns of dead processes", slog.Any("error", err))
	}
	if rescued > 0 {
		s.log.Info("rescued the turns of a process that died", slog.Int("turns", rescued))
	}
	return rescued + s.interruptOrphans(ctx)
}

// approveUndecided accepts, when the server auto-approves, the handoffs of
// plan turns that completed without their acceptance: their process
// stopped, died or failed a query between the turn's end and the accept
// (afterTurn). Whichever process accepts first starts the build; the others
// find the handoff decided.
func (s *Service) approveUndecided(ctx context.Context) {
	if !s.cfg.AutoApprove {
		return
	}
	hs, err := s.cfg.Store.UndecidedHandoffs(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("looking for plans to auto-approve", slog.Any("error", err))
		}
		return
	}
	for _, h := range hs {
		id, err := s.acceptHandoff(ctx, h.UserID, h.ConversationID, h.ID, false)
		switch {
		case err == nil:
			s.log.Info("auto-approved a plan its turn's process left pending", slog.String("handoff_id", h.ID), slog.String("turn_id", id))
		case errors.Is(err, ErrHandoffDecided), errors.Is(err, store.ErrNotFound), errors.Is(err, ErrTurnRunning), errors.Is(err, ErrNotServing):
			// Another process accepted it first, or the researcher went on.
		default:
			s.log.Warn("auto-approving a plan", slog.String("handoff_id", h.ID), slog.Any("error", err))
		}
	}
}

// interruptOrphans ends running turns that nothing will run again, as
// interrupted, and returns how many it ended.
func (s *Service) interruptOrphans(ctx context.Context) int {
	orphans, err := s.cfg.Store.OrphanTurns(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("looking for orphaned turns", slog.Any("error", err))
		}
		return 0
	}
	n := 0
	for _, o := range orphans {
		past, err := s.cfg.Store.TurnEvents(ctx, o.ID)
		if err != nil {
			s.log.Warn("reading an orphaned turn", slog.String("turn_id", o.ID), slog.Any("error", err))
			continue
		}
		end := &event.TurnEnd{Status: event.TurnInterrupted,
			Error:      "the server stopped while this turn was running; what was saved before is kept",
			DurationMs: time.Since(o.StartedAt).Milliseconds()}
		var batch []store.NewEvent
		for _, ev := range append(closingEvents(records(past), interruptedMessage), end) {
			event.SetTurn(ev, o.ID)
			ne, err := eventlog.EncodeRow(o.ConversationID, ev)
			if err != nil {
				continue
			}
			batch = append(batch, ne)
		}
		// The delegation ends first, so a reader who sees the turn's end
		// never finds its delegation still running.
		if _, err := s.cfg.Store.InterruptDelegations(ctx, []string{o.ID}); err != nil {
			s.log.Warn("interrupting an orphaned turn's delegation", slog.String("turn_id", o.ID), slog.Any("error", err))
		}
		usage, _ := json.Marshal(llm.Usage{})
		rows, err := s.cfg.Store.EndTurnTx(ctx, store.EndTurn{TurnID: o.ID, Status: event.TurnInterrupted,
			Error: end.Error, Usage: usage, Events: batch, Origin: s.cfg.Origin})
		if errors.Is(err, store.ErrNotFound) {
			continue // another process recovered it first
		}
		if err != nil {
			s.log.Warn("interrupting an orphaned turn", slog.String("turn_id", o.ID), slog.Any("error", err))
			continue
		}
		s.cfg.Publisher.Publish(records(rows)...)
		s.log.Info("interrupted an orphaned turn", slog.String("turn_id", o.ID), slog.String("conversation_id", o.ConversationID))
		s.traceRecovery(ctx, o.ID, records(past))
		n++
	}
	return n
}

func records(rows []store.EventRow) []event.Record {
	out := make([]event.Record, len(rows))
	for i, r := range rows {
		out[i] = eventlog.FromRow(r)
	}
	return out
}
