package chat

import (
	"context"
	"log/slog"
	"time"

	"strategist/internal/store"
)

// Cancel stops a running turn wherever it runs: locally at once, else
// through a notification to the process that owns it. Cancelling a turn that
// already ended is not an error.
func (s *Service) Cancel(ctx context.Context, userID, conversationID, turnID string) error {
	tr, err := s.cfg.Store.Turn(ctx, userID, conversationID, turnID)
	if err != nil {
		return err
	}
	if tr.Status != store.TurnRunning {
		return nil
	}
	return s.stop(ctx, turnID, errCancelled)
}

// stop cancels a running turn with cause: here at once, else through a
// notification to the process that runs it; a turn no process runs at this
// moment (its job is queued, or between two processes) ends cancelled as
// soon as a process takes it.
func (s *Service) stop(ctx context.Context, turnID string, cause error) error {
	if s.cancelLocal(turnID, cause) {
		return nil
	}
	return s.cfg.Store.RequestCancel(ctx, cancelChannel, turnID)
}

// deleteWait bounds how long Delete waits for a cancelled turn to end.
const deleteWait = 15 * time.Second

// Delete removes a conversation. A running turn is cancelled first and
// waited for, so its sub-agents stop, its last writes land and its streams
// get turn_end before the rows go. A turn that has not ended by deleteWait
// (its process is stuck) is deleted with the rest.
func (s *Service) Delete(ctx context.Context, userID, conversationID string) error {
	turns, err := s.cfg.Store.Turns(ctx, userID, conversationID)
	if err != nil {
		return err
	}
	for _, tr := range turns {
		if tr.Status != store.TurnRunning {
			continue
		}
		if err := s.stop(ctx, tr.ID, errDeleted); err != nil {
			return err
		}
		s.waitEnded(ctx, userID, conversationID, tr.ID)
	}
	return s.cfg.Store.DeleteConversation(ctx, userID, conversationID)
}

// waitEnded polls a turn until it is no longer running, deleteWait passes
// or ctx ends.
func (s *Service) waitEnded(ctx context.Context, userID, conversationID, turnID string) {
	deadline := time.Now().Add(deleteWait)
	for time.Now().Before(deadline) {
		tr, err := s.cfg.Store.Turn(ctx, userID, conversationID, turnID)
		if err != nil || tr.Status != store.TurnRunning {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	s.log.Warn("deleting a conversation whose turn did not end", slog.String("turn", turnID))
}
