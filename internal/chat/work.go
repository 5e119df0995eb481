package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"strategist/internal/account"
	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/store"
	"strategist/internal/telemetry"
)

// maxRuns bounds the runs of one turn that its processes did not survive: a
// turn whose processes keep dying (one that kills them, say) ends failed
// rather than going round the replicas for ever. A hand-back on a deploy
// does not count.
const maxRuns = 3

// work runs one turn job: it claims the turn (one process runs a turn at a
// time), resumes it if another run came before, runs it, and ends it, or,
// when this process stops first, hands it back (store.ErrHandBack) for
// another process to continue. A turn that ended or whose conversation is
// gone completes the job with nothing to do.
func (s *Service) work(ctx context.Context, job store.TurnJob) error {
	s.mu.Lock()
	owner := s.owner
	s.mu.Unlock()
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	t := &turn{id: job.TurnID, owner: owner, userID: job.UserID, userMessageID: job.UserMessageID, cancel: cancel, run: 1}
	// Registered before the claim, so a cancel that arrives while it
	// claims is not lost: the claim reads a cancel made before it, the
	// notification reaches this entry after it.
	s.mu.Lock()
	if _, ok := s.running[t.id]; ok {
		// The job came back while this process runs its turn (it was
		// rescued while the owner was taken for dead): the run going on
		// is the turn's one run.
		s.mu.Unlock()
		return store.ErrBusy
	}
	s.running[t.id] = t
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, t.id)
		s.mu.Unlock()
	}()

	claim, err := s.cfg.Store.ClaimTurn(ctx, t.id, owner)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	t.convID, t.siteID, t.mode, t.model, t.start = claim.ConversationID, claim.SiteID, claim.Mode, claim.Model, claim.StartedAt
	if t.log, err = s.cfg.Log.Turn(t.convID); err != nil {
		return s.handBack(t.id, owner, err)
	}
	if claim.CancelRequested() {
		cancel(errCancelled)
	}
	tctx = s.runSpan(tctx, t, claim.Resumed())
	log := telemetry.Logger(tctx, s.log.With(slog.String("turn_id", t.id), slog.String("conversation_id", t.convID)))
	if claim.Resumed() {
		if err := s.resume(ctx, t, claim, log); err != nil {
			return s.handBack(t.id, owner, err)
		}
		if job.Attempt > maxRuns {
			msg := fmt.Sprintf("the server stopped %d times while running this turn; it was not continued again", job.Attempt-1)
			if err := s.emit(t)(ctx, &event.Error{Code: "TURN_FAILED", Message: msg}); err != nil {
				log.Warn("appending the error event", slog.Any("error", err))
			}
			if !s.endTurn(t, event.TurnFailed, msg, llm.Usage{}, log) {
				return s.handBack(t.id, owner, store.ErrHandBack)
			}
			endSpan(tctx, t, event.TurnFailed, msg, agent.RunEnd{}, llm.Usage{})
			return nil
		}
	}
	if s.runGuarded(event.WithTurn(account.WithUser(tctx, t.userID), t.id), t, log) {
		return s.handBack(t.id, owner, store.ErrHandBack)
	}
	s.afterTurn(t)
	return nil
}

// handBack releases this process's claim on a turn it is not going to
// finish and returns err for the queue: ErrHandBack makes the job available
// at once; another error retries it later.
func (s *Service) handBack(turnID, owner string, err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
	defer cancel()
	if rerr := s.cfg.Store.ReleaseTurn(ctx, turnID, owner); rerr != nil {
		s.log.Warn("releasing a turn", slog.String("turn_id", turnID), slog.Any("error", rerr))
	}
	return err
}

// resume closes what the previous run of t left open (a process that died
// ended nothing; one that stopped ended what it could) and appends
// turn_resumed: its calls end INTERRUPTED, its delegation's unfinished
// nodes cancelled (the delegation row interrupted), so the stream keeps its
// invariants before the agent runs again.
func (s *Service) resume(ctx context.Context, t *turn, claim store.Claim, log *slog.Logger) error {
	t.run = 2
	past, err := s.cfg.Store.TurnEvents(ctx, t.id)
	if err != nil {
		return fmt.Errorf("chat: resume: %w", err)
	}
	recs := records(past)
	for _, r := range recs {
		if r.Type == "turn_resumed" {
			t.run++
		}
	}
	reason := "the server running this turn stopped; it continues here"
	if claim.PreviousOwner == store.OwnerReleased {
		reason = "the server running this turn was stopping and handed it over; it continues here"
	}
	if _, err := s.cfg.Store.InterruptDelegations(ctx, []string{t.id}); err != nil {
		return fmt.Errorf("chat: resume: %w", err)
	}
	evs := closingEvents(recs, resumedMessage)
	if !claim.CancelRequested() {
		// A turn cancelled while no process ran it only ends.
		evs = append(evs, &event.TurnResumed{Run: t.run, Reason: reason})
	}
	if len(evs) == 0 {
		return nil
	}
	if err := s.emit(t)(ctx, evs...); err != nil {
		return fmt.Errorf("chat: resume: %w", err)
	}
	log.Info("resuming a turn", slog.Int("run", t.run), slog.String("previous_owner", claim.PreviousOwner))
	return nil
}

// panicMessage is what a researcher reads on a turn whose code panicked.
const panicMessage = "an internal error ended this turn; the conversation can go on"

// runGuarded runs the turn (runTurn) and recovers a panic of its code: the
// turn is logged with its trace and ends failed, what it left open closed,
// so the conversation takes its next turn. Without it the queue would
// record the panic and run the turn again, and the turn would stay running
// until then.
func (s *Service) runGuarded(ctx context.Context, t *turn, log *slog.Logger) (handedBack bool) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		log.ErrorContext(ctx, "turn panicked", slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
		handedBack = !s.failPanicked(ctx, t, log)
	}()
	return s.runTurn(ctx, t)
}

// failPanicked ends a turn whose code panicked: its queued events are
// written, the calls and tasks it left open end INTERRUPTED, an error
// event says what happened, and turn_end closes it failed. It reports
// whether the end is recorded (endTurn).
func (s *Service) failPanicked(ctx context.Context, t *turn, log *slog.Logger) bool {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), appendTimeout)
	defer cancel()
	if err := t.log.Sync(wctx); err != nil {
		log.Warn("writing a panicked turn's events", slog.Any("error", err))
	}
	if _, err := s.cfg.Store.InterruptDelegations(wctx, []string{t.id}); err != nil {
		log.Warn("interrupting a panicked turn's delegation", slog.Any("error", err))
	}
	var evs []event.Event
	if past, err := s.cfg.Store.TurnEvents(wctx, t.id); err != nil {
		log.Warn("reading a panicked turn's events", slog.Any("error", err))
	} else {
		evs = closingEvents(records(past), panicMessage)
	}
	evs = append(evs, &event.Error{Code: "INTERNAL", Message: panicMessage})
	if err := s.emit(t)(wctx, evs...); err != nil {
		log.Warn("closing a panicked turn", slog.Any("error", err))
	}
	t.mu.Lock()
	usage := t.subUsage
	t.mu.Unlock()
	if !s.endTurn(t, event.TurnFailed, panicMessage, usage, log) {
		return false
	}
	s.cfg.Metrics.TurnEnded(ctx, string(t.mode), string(event.TurnFailed), time.Since(t.start))
	endSpan(ctx, t, event.TurnFailed, panicMessage, agent.RunEnd{}, usage)
	return true
}
