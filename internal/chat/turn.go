package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/llm"
	"strategist/internal/store"
	"strategist/internal/telemetry"
)

// turn is one running turn. Its fields are written before its goroutine
// starts and read-only after, except usage and handoff, which its emit
// function updates under mu (tools emit from several goroutines).
type turn struct {
	id            string
	owner         string // the owner name this process claimed the turn under
	userID        string
	convID        string
	siteID        string // set by the start, from the conversation row
	mode          Mode
	model         string
	userMessageID string
	start         time.Time
	cancel        func(cause error)
	// span is the turn's root span (trace.go); it does nothing when the
	// turn is not traced.
	span trace.Span
	// run counts the turn's runs (1, or more once resumed); the stream
	// names a resumed run's tool calls apart (callID), since an engine may
	// number its calls the same way each run.
	run int

	// log appends the turn's events: the agent loop's progress queued, the
	// tools' events (Env.Emit) durably before Emit returns.
	log *eventlog.TurnLog

	mu       sync.Mutex
	subUsage llm.Usage // tokens spent outside the main run: sub-agents, summaries
	handoff  string    // id of a handoff requested in this turn
	// confirmed says the researcher's message agreed to build the
	// handoff: it is accepted at the turn's end without a click.
	confirmed bool
	build     build // what the turn's delegations built
}

// appendTimeout bounds writing an event; appends use a context that is not
// cancelled with the turn, so a cancelled turn still records how it ended.
const appendTimeout = 10 * time.Second

// emit appends events of the turn and returns once they are durable. It is
// given to tools, so they stream artifacts, handoffs, graph snapshots and
// sub-agent progress as they happen.
func (s *Service) emit(t *turn) func(ctx context.Context, evs ...event.Event) error {
	return func(ctx context.Context, evs ...event.Event) error {
		s.note(t, evs)
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), appendTimeout)
		defer cancel()
		_, err := t.log.Append(actx, evs...)
		return err
	}
}

// queue appends the agent loop's own events of the turn (text deltas, tool
// calls, usage) without waiting for each to be durable: what the loop
// produces while one transaction commits goes in the next. A failure shows
// at a later append or at the turn's Sync.
//
// Queue waits only when the turn already has a full batch unwritten, and
// then only until the writer has written what was queued before, each of
// its transactions bounded by the log's WriteTimeout; the turn's
// cancellation must not cut that wait short. So the loop's context is not
// passed, and no timer is made for every event.
func (s *Service) queue(t *turn) func(ctx context.Context, evs ...event.Event) error {
	return func(_ context.Context, evs ...event.Event) error {
		s.note(t, evs)
		return t.log.Queue(context.Background(), evs...)
	}
}

// note records what the turn needs to know of its events (sub-agent usage,
// a requested handoff) and stamps them with the turn's id.
func (s *Service) note(t *turn, evs []event.Event) {
	for _, ev := range evs {
		switch e := ev.(type) {
		case *event.Usage:
			if e.Scope == event.ScopeSubagent {
				t.mu.Lock()
				t.subUsage = t.subUsage.Add(e.Usage)
				t.mu.Unlock()
			}
		case *event.HandoffRequested:
			t.mu.Lock()
			t.handoff, t.confirmed = e.HandoffID, e.Confirmed
			t.mu.Unlock()
		case *event.SubagentPlan, *event.SubagentTaskEnd:
			t.mu.Lock()
			t.build.note(e)
			t.mu.Unlock()
		}
		event.SetTurn(ev, t.id)
	}
}

// runTurn runs the agent of t's mode and ends the turn, unless its process
// is stopping: then it reports handedBack and the turn stays running, for
// another process to continue.
func (s *Service) runTurn(ctx context.Context, t *turn) (handedBack bool) {
	log := telemetry.Logger(ctx, s.log.With(slog.String("turn_id", t.id), slog.String("conversation_id", t.convID)))
	emit := s.emit(t)
	end, runErr := s.runAgent(ctx, t, emit, s.queue(t))
	if errors.Is(runErr, eventlog.ErrUnavailable) || store.Unavailable(runErr) {
		// The database stayed away past the log's or the store's bound:
		// what the turn did since is not recorded (its events, or its
		// messages), and ending it would need the database too. It is
		// handed back and resumed from what was recorded, here or
		// elsewhere, once the database is back. What the turn queued
		// is written, or given up by the log (its RetryFor), first: the
		// next run must find nothing of this one arriving after it.
		sctx, cancel := context.WithTimeout(context.Background(), s.cfg.RetryFor+appendTimeout)
		defer cancel()
		if err := t.log.Sync(sctx); err != nil {
			log.Warn("writing a handed-back turn's last events", slog.Any("error", err))
		}
		log.Warn("handing the turn back: the database was unavailable", slog.Any("error", runErr))
		handBackSpan(t)
		return true
	}
	if stopping(ctx) && (runErr != nil || end.Reason != agent.StopCompleted) {
		sctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
		defer cancel()
		if err := t.log.Sync(sctx); err != nil {
			log.Warn("writing a handed-back turn's last events", slog.Any("error", err))
		}
		reason := "this process is stopping"
		if errors.Is(context.Cause(ctx), errOwnerLost) {
			reason = "this process lost its owner session"
		}
		log.Info("handing the turn back: " + reason)
		handBackSpan(t)
		return true
	}
	status, msg := outcome(ctx, end, runErr)
	if status == event.TurnCompleted {
		t.mu.Lock()
		why := t.build.failed()
		t.mu.Unlock()
		if why != "" {
			// Its model answered, but the build built nothing: the turn
			// is no completed build.
			status, msg = event.TurnFailed, why
		}
	}
	if msg != "" && status == event.TurnFailed {
		code, retryable := "TURN_FAILED", false
		if errors.Is(runErr, errEngine) || end.Reason == agent.StopEngineError {
			code, retryable = "MODEL_ERROR", llm.Retryable(end.Err)
		}
		if err := emit(ctx, &event.Error{Code: code, Message: msg, Retryable: retryable}); err != nil {
			log.Warn("appending the error event", slog.Any("error", err))
		}
	}
	t.mu.Lock()
	usage := end.Usage.Add(t.subUsage)
	t.mu.Unlock()
	// turn_end is written by a transaction of its own: everything queued
	// before must be in the log first.
	sctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
	if err := t.log.Sync(sctx); err != nil {
		log.Warn("writing the turn's last events", slog.Any("error", err))
	}
	cancel()
	var build *buildStart
	if status == event.TurnCompleted {
		build = s.autoBuild(t, log)
	}
	if !s.endTurnWith(t, status, msg, usage, log, build) {
		// The end is not recorded and the database is still away: the
		// turn is handed back rather than left running with its job
		// done, and its next run ends it.
		handBackSpan(t)
		return true
	}
	s.cfg.Metrics.TurnEnded(ctx, string(t.mode), string(status), time.Since(t.start))
	endSpan(ctx, t, status, msg, end, usage)
	return false
}

// stopping reports whether a turn's context ended because its process is
// stopping (the queue cancelled its work), not because it was cancelled.
func stopping(ctx context.Context) bool {
	if ctx.Err() == nil {
		return false
	}
	cause := context.Cause(ctx)
	return !errors.Is(cause, errCancelled) && !errors.Is(cause, errDeleted)
}

// errEngine marks failures to set up the model.
var errEngine = errors.New("model unavailable")

// runAgent builds the turn's history and agent and runs it, streaming its
// events and persisting its messages.
func (s *Service) runAgent(ctx context.Context, t *turn, emit, queue func(context.Context, ...event.Event) error) (agent.RunEnd, error) {
	m, err := s.cfg.Models.Resolve(t.model)
	if err != nil {
		return agent.RunEnd{}, fmt.Errorf("%w: %w", errEngine, err)
	}
	engine, model := m.Engine, m.Name
	stored, err := s.cfg.Store.Messages(ctx, t.userID, t.convID)
	if err != nil {
		return agent.RunEnd{}, fmt.Errorf("load messages: %w", err)
	}
	history, err := agent.BuildHistory(toStored(withoutReplaced(stored)), t.userMessageID)
	if err != nil {
		return agent.RunEnd{}, fmt.Errorf("build history: %w", err)
	}
	env := agent.Env{
		UserID: t.userID, ConversationID: t.convID, TurnID: t.id, SiteID: t.siteID,
		Engine: engine, Model: model, Emit: emit,
	}
	var ag *agent.Agent
	if t.mode == ModePlan {
		ag, err = s.cfg.Planner.Agent(env)
	} else {
		ag, err = s.cfg.Executor.Agent(env)
	}
	if err != nil {
		return agent.RunEnd{}, fmt.Errorf("build %s agent: %w", t.mode, err)
	}
	if err := s.compact(ctx, t, ag, engine, model, history); err != nil {
		return agent.RunEnd{}, err
	}
	var end agent.RunEnd
	// Each round that ran tools is persisted as it completes, so a run
	// that is cut short (its process dies or hands the turn back) leaves
	// them for the next run to go on from (history.Continue): the rounds
	// already done are not asked of the model again, nor their tools run
	// again. persisted counts the run's messages stored so far.
	persisted := 0
	for ev := range ag.Run(ctx, agent.Input{History: history.Messages, User: history.Current, Continue: history.Continue}) {
		s.observe(ctx, model, ev)
		if re, ok := ev.(agent.RoundEnd); ok {
			if err := s.persistRound(t, re.Messages, re.Results); err != nil {
				return end, err
			}
			persisted += len(re.Messages)
			continue
		}
		if err := s.forward(ctx, queue, ev, &end, t.run); err != nil {
			return end, fmt.Errorf("record events: %w", err)
		}
	}
	if err := t.log.Err(); err != nil {
		return end, fmt.Errorf("record events: %w", err)
	}
	if stopping(ctx) && end.Reason != agent.StopCompleted {
		// Handed back: the next run goes on from the rounds persisted so
		// far; the one cut short is not stored.
		return end, nil
	}
	if err := s.persist(t, end.Messages[min(persisted, len(end.Messages)):]); err != nil {
		return end, err
	}
	return end, nil
}

// forward maps one agent event onto the stream.
func (s *Service) forward(ctx context.Context, emit func(context.Context, ...event.Event) error, ev agent.Event, end *agent.RunEnd, run int) error {
	switch e := ev.(type) {
	case agent.TextDelta:
		return emit(ctx, &event.AssistantDelta{MessageID: e.MessageID, Delta: e.Delta})
	case agent.AssistantMessage:
		if e.Message.Text == "" {
			return nil
		}
		return emit(ctx, &event.AssistantMessage{MessageID: e.MessageID, Content: e.Message.Text})
	case agent.ToolCallStart:
		return emit(ctx, &event.ToolCallStart{CallID: callID(e.CallID, run), Name: e.Name, Args: e.Args})
	case agent.ToolCallEnd:
		end := &event.ToolCallEnd{CallID: callID(e.CallID, run), Name: e.Name, OK: e.OK, Result: e.Result, DurationMs: e.Duration.Milliseconds()}
		if e.Error != nil {
			end.Error = &event.ToolError{Code: e.Error.Code, Message: e.Error.Message}
		}
		return emit(ctx, end)
	case agent.CallUsage:
		return emit(ctx, &event.Usage{Scope: event.ScopeMain, Usage: e.Usage})
	case agent.RunEnd:
		*end = e
	}
	return nil
}

// callID is a tool call's id on the stream: the engine's, with the run's
// number after the first run, so a resumed run's calls never reuse the id
// of a call the stream already ended.
func callID(id string, run int) string {
	if run <= 1 {
		return id
	}
	return id + "~run" + strconv.Itoa(run)
}

// persist stores the run's messages (assistant messages with their tool
// calls, tool result digests) so the next turn's history has them.
func (s *Service) persist(t *turn, msgs []llm.Message) error {
	return s.persistRound(t, msgs, nil)
}

// persistRound stores a round's messages as persist does, its tool results
// also as the run saw them (agent.StoredRound): a run of the turn resumed
// after this round goes on from what this one saw, not from the digests.
func (s *Service) persistRound(t *turn, msgs []llm.Message, results []llm.ToolResult) error {
	stored, err := agent.StoredRound(msgs, results)
	if err != nil {
		return fmt.Errorf("persist messages: %w", err)
	}
	rows := make([]store.NewMessage, 0, len(stored))
	for _, sm := range stored {
		rows = append(rows, store.NewMessage{Role: sm.Role, Content: sm.Content, Data: sm.Data})
	}
	ctx, cancel := context.WithTimeout(trace.ContextWithSpan(context.Background(), t.span), appendTimeout)
	defer cancel()
	// The round's events (its tool calls' ends) are durable first: a run
	// resumed after these messages must not find those calls open in the
	// stream and end them as interrupted when the model saw their results.
	if err := t.log.Sync(ctx); err != nil {
		return fmt.Errorf("persist messages: %w", err)
	}
	if err := s.cfg.Store.AddMessages(ctx, t.convID, t.id, rows); err != nil {
		return fmt.Errorf("persist messages: %w", err)
	}
	return nil
}

// outcome decides a turn's status and the message a researcher sees.
func outcome(ctx context.Context, end agent.RunEnd, runErr error) (event.TurnStatus, string) {
	if cause := context.Cause(ctx); cause != nil {
		return event.TurnCancelled, "cancelled"
	}
	if runErr != nil {
		if store.Unavailable(runErr) {
			// The researcher reads a sentence, not the driver's text.
			return event.TurnFailed, "the database was unavailable; what was saved before is kept, and the turn can be sent again"
		}
		return event.TurnFailed, runErr.Error()
	}
	switch end.Reason {
	case agent.StopCompleted:
		return event.TurnCompleted, ""
	case agent.StopMaxRounds:
		return event.TurnFailed, fmt.Sprintf("stopped after %d model rounds without a final answer", end.Rounds)
	case agent.StopBudget:
		return event.TurnFailed, "stopped: the turn's token budget is spent"
	case agent.StopDeadline:
		return event.TurnFailed, "stopped: the turn took too long"
	case agent.StopCancelled:
		return event.TurnCancelled, "cancelled"
	case agent.StopEngineError:
		var le *llm.Error
		if errors.As(end.Err, &le) {
			return event.TurnFailed, le.Error()
		}
		return event.TurnFailed, "the model failed: " + errString(end.Err)
	}
	return event.TurnFailed, "the turn ended for an unknown reason"
}

// endTurn commits the turn's status with its turn_end event, and reports
// whether it is recorded (here, or by another process that ended the turn
// first). A database that is unavailable is waited for, with backoff, for
// up to RetryFor: a turn must not stay "running" because of a database
// blip. Past that, or for another failure after five tries, the turn is
// not recorded as ended, and the caller hands it back.
func (s *Service) endTurn(t *turn, status event.TurnStatus, msg string, usage llm.Usage, log *slog.Logger) bool {
	return s.endTurnWith(t, status, msg, usage, log, nil)
}

// endTurnWith is endTurn, starting build in the same transaction when it
// is set (autoBuild); a build that cannot start there is left to afterTurn
// and the sweep, and the end is written alone.
func (s *Service) endTurnWith(t *turn, status event.TurnStatus, msg string, usage llm.Usage, log *slog.Logger, build *buildStart) bool {
	built := false
	defer func() {
		if build != nil && !built {
			build.t.span.End() // its start was not written
		}
	}()
	end := &event.TurnEnd{Base: event.Base{TurnID: t.id}, Status: status, Error: msg,
		DurationMs: time.Since(t.start).Milliseconds(), Usage: usage}
	ne, err := eventlog.EncodeRow(t.convID, end)
	if err != nil {
		log.Error("encoding turn_end", slog.Any("error", err))
		return true // nothing could record it; its next run would fail alike
	}
	usageJSON, _ := json.Marshal(usage)
	et := store.EndTurn{TurnID: t.id, Owner: t.owner, Status: status, Error: msg, Usage: usageJSON, Events: []store.NewEvent{ne}, Origin: s.cfg.Origin}
	if status != event.TurnCompleted {
		// A turn that failed or was cancelled may have left calls and
		// nodes open (its log failed, or its tools were cut short):
		// their ends go in the same transaction, before turn_end.
		et.Events = append(s.closing(t, log), ne)
	}
	if build != nil {
		et.Then = &build.st
	}
	since, wait, failures := time.Now(), 100*time.Millisecond, 0
	for {
		ctx, cancel := context.WithTimeout(trace.ContextWithSpan(context.Background(), t.span), appendTimeout)
		rows, err := s.cfg.Store.EndTurnTx(ctx, et)
		cancel()
		if err == nil {
			s.cfg.Publisher.Publish(records(rows)...)
			log.Info("turn ended", slog.String("status", string(status)), slog.Int("total_tokens", usage.TotalTokens))
			if build != nil {
				built = true
				log.Info("auto-approved the plan: its build started with the turn's end", slog.String("build_turn_id", build.t.id))
				t.mu.Lock()
				t.handoff = "" // accepted
				t.mu.Unlock()
				if build.t.span.IsRecording() {
					s.keepSpan(build.t.id, build.t.span)
				}
			}
			return true
		}
		if build != nil && errors.Is(err, store.ErrStartRefused) {
			log.Warn("the plan's build could not start with the turn's end; ending the turn alone", slog.Any("error", err))
			telemetry.Fail(build.t.span, err)
			build.t.span.End()
			build, et.Then = nil, nil
			continue
		}
		if errors.Is(err, store.ErrNotFound) {
			log.Warn("the turn was no longer this process's to end: another process ended it, or runs it since this one was taken for dead")
			return true
		}
		if !store.Unavailable(err) {
			failures++
		}
		if failures >= 5 || time.Since(since)+wait > s.cfg.RetryFor {
			log.Error("could not record the end of the turn; handing it back, to be ended by its next run", slog.Any("error", err))
			return false
		}
		log.Warn("ending turn", slog.Any("error", err))
		time.Sleep(wait)
		wait = min(2*wait, 2*time.Second)
	}
}

// closing returns the events that close what t's recorded events left
// open (closingEvents), nil when nothing is or the log cannot be read.
func (s *Service) closing(t *turn, log *slog.Logger) []store.NewEvent {
	ctx, cancel := context.WithTimeout(context.Background(), appendTimeout)
	defer cancel()
	past, err := s.cfg.Store.TurnEvents(ctx, t.id)
	if err != nil {
		log.Warn("reading the turn's events to close what is open", slog.Any("error", err))
		return nil
	}
	var out []store.NewEvent
	for _, ev := range closingEvents(records(past), "the turn ended before this finished") {
		event.SetTurn(ev, t.id)
		if ne, err := eventlog.EncodeRow(t.convID, ev); err == nil {
			out = append(out, ne)
		}
	}
	return out
}

func toStored(ms []store.Message) []agent.StoredMessage {
	out := make([]agent.StoredMessage, len(ms))
	for i, m := range ms {
		out[i] = agent.StoredMessage{ID: m.ID, Role: m.Role, Content: m.Content, Data: m.Data}
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}
