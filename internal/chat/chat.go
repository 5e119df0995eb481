// Package chat is Strategist's orchestrator: it starts each turn of a
// conversation on the server, detached from the HTTP request that asked for
// it, routes it to the planner (plan mode) or the executor (execute mode),
// hands an approved plan from one to the other, streams everything the turn
// does as durable events, and cancels and recovers turns.
//
// Turns are durable jobs (store.RunTurnQueue): starting a turn commits its
// row and its job together, and whichever server process takes the job runs
// the turn, here or in another replica. A process that stops hands its
// turns back, and another continues them; a process that dies has its turns
// rescued by the survivors' sweep, which makes their jobs available again.
// A turn that resumes closes what the previous run left open and says so
// with turn_resumed before its agent runs again.
//
// Concurrency: Run (started by main) is the service's lifetime: it runs the
// job queue, whose workers (goroutines of the queue) each run one turn
// through work, and returns only after the queue has stopped and every
// worker has returned. A turn started before Run or after it returned is
// refused. The running map (turn id -> cancel) is guarded by mu; everything
// else of a turn belongs to its worker.
package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/llm"
	"strategist/internal/store"
	"strategist/internal/telemetry"
)

// Store is what the orchestrator needs from persistence.
type Store interface {
	Conversation(ctx context.Context, userID, id string) (store.Conversation, error)
	RenameConversation(ctx context.Context, userID, id, title string) (store.Conversation, error)
	Messages(ctx context.Context, userID, conversationID string) ([]store.Message, error)
	StartTurnTx(ctx context.Context, st store.StartTurn) (store.StartedTurn, error)
	EndTurnTx(ctx context.Context, et store.EndTurn) ([]store.EventRow, error)
	AddMessages(ctx context.Context, conversationID, turnID string, msgs []store.NewMessage) error
	Turn(ctx context.Context, userID, conversationID, turnID string) (store.Turn, error)
	Turns(ctx context.Context, userID, conversationID string) ([]store.Turn, error)
	DeleteConversation(ctx context.Context, userID, id string) error
	RunTurnQueue(ctx context.Context, cfg store.TurnQueueConfig) error
	ClaimTurn(ctx context.Context, turnID, owner string) (store.Claim, error)
	ReleaseTurn(ctx context.Context, turnID, owner string) error
	RequestCancel(ctx context.Context, channel, turnID string) error
	RescueTurns(ctx context.Context) (int, error)
	OrphanTurns(ctx context.Context) ([]store.OrphanTurn, error)
	InterruptDelegations(ctx context.Context, turnIDs []string) (int, error)
	TurnEvents(ctx context.Context, turnID string) ([]store.EventRow, error)
	Handoff(ctx context.Context, userID, conversationID, id string) (store.Handoff, error)
	UndecidedHandoffs(ctx context.Context) ([]store.UndecidedHandoff, error)
	Artifacts(ctx context.Context, userID, conversationID string) ([]store.Artifact, error)
	Notify(ctx context.Context, channel, payload string) error
	Listen(ctx context.Context, channels []string, handle func(channel, payload string), onConnect func(lost error)) error
}

// Log appends events durably and publishes them (eventlog.Log). A running
// turn appends through its own TurnLog.
type Log interface {
	Append(ctx context.Context, conversationID string, events ...event.Event) ([]event.Record, error)
	Turn(conversationID string) (*eventlog.TurnLog, error)
}

// Publisher delivers already durable records to live subscribers
// (eventlog.Broker).
type Publisher interface {
	Publish(records ...event.Record)
}

// Role builds the agent that runs one turn of its mode, bound to the turn's
// Env: *planner.Planner for plan mode, *executor.Executor for execute mode.
type Role interface {
	Agent(env agent.Env) (*agent.Agent, error)
}

// Models resolves model ids to engines (llm.Registry).
type Models interface {
	Resolve(id string) (llm.Model, error)
	Default() string
}

// cancelChannel carries turn ids to cancel across server processes.
const cancelChannel = "strategist_cancel"

// Config is what a Service is built from.
type Config struct {
	Store     Store
	Log       Log
	Publisher Publisher
	Models    Models
	// Planner runs plan turns and Executor execute turns.
	Planner  Role
	Executor Role
	Logger   *slog.Logger
	// Origin names this process in the event fan-out.
	Origin string
	// AutoApprove accepts the planner's handoffs without a click.
	AutoApprove bool
	// Estimator counts prompt tokens for compaction (shared, calibrated).
	Estimator *agent.Estimator
	// HistoryBudget is the prompt size, in tokens, above which history is
	// compacted (default 60,000).
	HistoryBudget int
	// SweepEvery is how often the turns of dead processes are looked for and
	// handed to a live one (default 5 s): it bounds how long a turn waits
	// after its process died.
	SweepEvery time.Duration
	// Tracer starts each turn's trace (nil: turns are not traced).
	// TraceContent lets the turn's spans record messages and prompts.
	Tracer       trace.TracerProvider
	TraceContent bool
	// Metrics records turns, tokens and tool calls (nil: none).
	Metrics *telemetry.Metrics
	// Workers is how many turns the process runs at once (default 100).
	Workers int
	// RetryFor bounds how long a turn's end is written again while the
	// database is unavailable (default 30 s, as the event log's); past it
	// the turn is handed back, to end once the database answers.
	RetryFor time.Duration
	// The per-user turn budget (budget.go): TurnRate starts a second with
	// bursts of TurnBurst (defaults DefaultTurnRate, DefaultTurnBurst), and
	// at most MaxRunning turns running at once (default DefaultMaxRunning).
	TurnRate   float64
	TurnBurst  int
	MaxRunning int
}

// Service runs turns.
type Service struct {
	cfg Config
	log *slog.Logger

	mu    sync.Mutex
	base  context.Context // Run's context; nil before Run and after it ends
	owner string          // this process's owner name (its DB session)
	// ownerErr is why the owner session is lost (OwnerLost), nil while
	// it is held.
	ownerErr error
	// queueUp is set once the turn queue works jobs (Run), cleared when
	// Run ends.
	queueUp bool
	running map[string]*turn
	// spans are the root spans of turns started here whose job has not
	// yet been taken (trace.go).
	spans map[string]keptSpan
	// starts is the start-rate part of each user's turn budget (budget.go);
	// it has its own lock.
	starts *starts
}

// New checks cfg and returns a Service; call Run to start serving turns.
func New(cfg Config) (*Service, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("chat: nil store")
	case cfg.Log == nil || cfg.Publisher == nil:
		return nil, errors.New("chat: nil event log or publisher")
	case cfg.Models == nil:
		return nil, errors.New("chat: nil model registry")
	case cfg.Planner == nil || cfg.Executor == nil:
		return nil, errors.New("chat: nil planner or executor")
	case cfg.Origin == "":
		return nil, errors.New("chat: empty origin")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Estimator == nil {
		cfg.Estimator = agent.NewEstimator(0)
	}
	if cfg.HistoryBudget == 0 {
		cfg.HistoryBudget = 60_000
	}
	if cfg.SweepEvery == 0 {
		cfg.SweepEvery = 5 * time.Second
	}
	if cfg.RetryFor == 0 {
		cfg.RetryFor = 30 * time.Second
	}
	if cfg.TurnRate == 0 {
		cfg.TurnRate = DefaultTurnRate
	}
	if cfg.TurnBurst == 0 {
		cfg.TurnBurst = DefaultTurnBurst
	}
	if cfg.MaxRunning == 0 {
		cfg.MaxRunning = DefaultMaxRunning
	}
	if cfg.TurnRate < 0 || cfg.TurnBurst < 0 || cfg.MaxRunning < 0 {
		return nil, errors.New("chat: negative turn budget")
	}
	return &Service{cfg: cfg, log: cfg.Logger.With("component", "chat"), running: map[string]*turn{}, spans: map[string]keptSpan{},
		starts: newStarts(cfg.TurnRate, cfg.TurnBurst)}, nil
}

// Errors callers map onto responses.
var (
	// ErrTurnRunning: the conversation already has a running turn (409).
	ErrTurnRunning = errors.New("chat: a turn of this conversation is running")
	// ErrNotServing: the service is not running (starting up or shutting
	// down).
	ErrNotServing = errors.New("chat: not accepting turns")
	// ErrHandoffDecided: the handoff was already accepted or superseded.
	ErrHandoffDecided = errors.New("chat: this plan was already accepted or replaced by a newer one")
)

// InputError is a bad turn request, naming the field.
type InputError struct {
	Field   string
	Message string
	// Allowed lists valid values when there are few (models, modes).
	Allowed []string
}

func (e *InputError) Error() string { return "chat: " + e.Field + ": " + e.Message }

// Mode is a turn's mode (the store's vocabulary).
type Mode = store.Mode

// Modes of a turn.
const (
	ModePlan    = store.ModePlan
	ModeExecute = store.ModeExecute
)

// MaxMessage is the longest user message accepted, in characters.
const MaxMessage = 20_000

// TurnRequest asks for a turn.
type TurnRequest struct {
	UserID         string
	ConversationID string
	Message        string
	Mode           Mode
	// Model is a model id; "" keeps the conversation's.
	Model string
	// Replaces, when set, names the conversation's latest turn, which the
	// new turn replaces (replace.go): Message is the edited message, or
	// "" to send the replaced turn's message again (regenerate); Mode ""
	// keeps the replaced turn's mode.
	Replaces string
}

// Run serves turns until ctx ends: it works the turn queue, hands the turns
// of dead processes to the living (now and every SweepEvery), and takes
// cancel requests from other processes. On shutdown it hands every turn it
// runs back to the queue, for another process to continue, and returns once
// they have stopped here.
func (s *Service) Run(ctx context.Context, owner string) error {
	if owner == "" {
		return errors.New("chat: empty owner")
	}
	s.mu.Lock()
	s.base, s.owner = ctx, owner
	s.mu.Unlock()
	listenDone := make(chan error, 1)
	go func() {
		listenDone <- s.cfg.Store.Listen(ctx, []string{cancelChannel}, func(_, payload string) { s.cancelLocal(payload, errCancelled) }, nil)
	}()
	queueDone := make(chan error, 1)
	go func() {
		queueDone <- s.cfg.Store.RunTurnQueue(ctx, store.TurnQueueConfig{Owner: owner, Workers: s.cfg.Workers,
			Logger: s.cfg.Logger, Work: s.work, Started: func() {
				s.mu.Lock()
				s.queueUp = true
				s.mu.Unlock()
			}})
	}()
	s.recoverOrphans(ctx)
	s.approveUndecided(ctx)
	t := time.NewTicker(s.cfg.SweepEvery)
	defer t.Stop()
	var queueErr error
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case queueErr = <-queueDone:
			done = true
			queueDone = nil
		case <-t.C:
			s.recoverOrphans(ctx)
			s.approveUndecided(ctx)
		}
	}
	s.mu.Lock()
	s.base, s.queueUp = nil, false
	s.mu.Unlock()
	if queueDone != nil {
		queueErr = <-queueDone
	}
	listenErr := <-listenDone
	if queueErr != nil {
		return fmt.Errorf("chat: %w", queueErr)
	}
	if listenErr != nil && ctx.Err() == nil {
		return fmt.Errorf("chat: listen: %w", listenErr)
	}
	return nil
}

// Causes of a turn's cancellation. A turn whose context ends for another
// cause (its process stops) is handed back, not ended.
var (
	errCancelled = errors.New("cancelled by the researcher")
	errDeleted   = errors.New("the conversation was deleted")
)

// StartTurn validates a request and commits the user message and the running
// turn with its turn_start event and its job: a worker of any process starts
// it. Another user's conversation is ErrNotFound whatever the request holds.
// A request that names a turn to replace is completed from that turn, which
// must be the conversation's latest and have ended (replace.go).
func (s *Service) StartTurn(ctx context.Context, req TurnRequest) (string, error) {
	var data json.RawMessage
	if req.Replaces != "" {
		if err := uuid.Validate(req.ConversationID); err != nil || len(req.ConversationID) != 36 {
			return "", fmt.Errorf("chat: conversation %q: %w", req.ConversationID, store.ErrNotFound)
		}
		var err error
		if req, data, err = s.replacement(ctx, req); err != nil {
			return "", err
		}
	}
	model, err := s.checkTurn(ctx, req)
	if err != nil {
		return "", err
	}
	t := &turn{
		id: uuid.NewString(), userID: req.UserID, convID: strings.ToLower(req.ConversationID), mode: req.Mode, model: model,
		userMessageID: uuid.NewString(), start: time.Now(),
	}
	st := store.StartTurn{
		UserID: req.UserID, ConversationID: t.convID, TurnID: t.id, Mode: t.mode, Model: t.model,
		Message: store.NewMessage{ID: t.userMessageID, Role: agent.StoredUser, Content: req.Message, Data: data},
	}
	if err := s.begin(ctx, t, st, true, &event.TurnStart{Base: event.Base{TurnID: t.id}, Mode: t.mode, Model: t.model,
		UserMessageID: t.userMessageID, Message: req.Message, ReplacesTurnID: req.Replaces}); err != nil {
		return "", err
	}
	return t.id, nil
}

// checkTurn validates a turn request and picks its model. The conversation
// is read first only when the request names no model (the conversation's
// own is then the choice); otherwise the start's statement checks
// ownership, and a refused request reads the conversation so that another
// user's is ErrNotFound rather than a complaint about the request.
func (s *Service) checkTurn(ctx context.Context, req TurnRequest) (string, error) {
	if err := uuid.Validate(req.ConversationID); err != nil || len(req.ConversationID) != 36 {
		return "", fmt.Errorf("chat: conversation %q: %w", req.ConversationID, store.ErrNotFound)
	}
	var current string
	if req.Model == "" {
		conv, err := s.cfg.Store.Conversation(ctx, req.UserID, req.ConversationID)
		if err != nil {
			return "", err
		}
		current = conv.Model
	}
	var model string
	err := checkTurnInput(req)
	if err == nil {
		model, err = s.pickModel(req.Model, current)
	}
	if err != nil && req.Model != "" {
		if _, cerr := s.cfg.Store.Conversation(ctx, req.UserID, req.ConversationID); cerr != nil {
			return "", cerr
		}
	}
	return model, err
}

// checkTurnInput checks a turn request's mode and message.
func checkTurnInput(req TurnRequest) error {
	if req.Mode != ModePlan && req.Mode != ModeExecute {
		return &InputError{Field: "mode", Message: `must be "plan" or "execute"`, Allowed: []string{string(ModePlan), string(ModeExecute)}}
	}
	n := utf8.RuneCountInString(req.Message)
	if n == 0 || strings.TrimSpace(req.Message) == "" {
		return &InputError{Field: "message", Message: "must not be empty"}
	}
	if n > MaxMessage {
		return &InputError{Field: "message", Message: fmt.Sprintf("must be at most %d characters (got %d)", MaxMessage, n)}
	}
	return nil
}

func (s *Service) pickModel(requested, current string) (string, error) {
	model := requested
	if model == "" {
		model = current
	}
	if model == "" {
		model = s.cfg.Models.Default()
	}
	if _, err := s.cfg.Models.Resolve(model); err != nil {
		if requested == "" {
			// The conversation's model is no longer configured: use the default.
			return s.cfg.Models.Default(), nil
		}
		return "", err
	}
	return model, nil
}

// begin commits a turn's start with its job; the job runs it. A turn the
// researcher asked for (spend) spends their budget: a start of their rate
// here, a place among their running turns in the start's transaction.
func (s *Service) begin(ctx context.Context, t *turn, st store.StartTurn, spend bool, first ...event.Event) (err error) {
	s.mu.Lock()
	serving := s.base != nil
	s.mu.Unlock()
	if !serving {
		return ErrNotServing
	}
	if spend {
		if err := s.starts.take(t.userID, time.Now()); err != nil {
			return err
		}
		st.MaxRunning = s.cfg.MaxRunning
	}
	ctx = s.startSpan(ctx, t, first)
	defer func() {
		if err != nil {
			telemetry.Fail(t.span, err)
			t.span.End()
		}
	}()
	if err := s.encodeStart(t, &st, first); err != nil {
		return err
	}
	started, err := s.cfg.Store.StartTurnTx(ctx, st)
	if errors.Is(err, store.ErrConflict) {
		// The running turn may belong to a process that died: recover, then
		// try once more.
		if s.recoverOrphans(ctx) > 0 {
			started, err = s.cfg.Store.StartTurnTx(ctx, st)
		}
		if errors.Is(err, store.ErrConflict) {
			return ErrTurnRunning
		}
	}
	if errors.Is(err, store.ErrTooManyTurns) {
		return &BudgetError{Running: true, Limit: s.cfg.MaxRunning, RetryAfter: runningRetry}
	}
	if err != nil {
		return err
	}
	if t.span.IsRecording() {
		// The site is known once the start has read the conversation.
		t.span.SetAttributes(telemetry.KeySite.String(started.SiteID))
		s.keepSpan(t.id, t.span)
	}
	s.cfg.Publisher.Publish(records(started.Events)...)
	return nil
}

// encodeStart puts a turn's first events on its start, as this process's.
func (s *Service) encodeStart(t *turn, st *store.StartTurn, first []event.Event) error {
	st.Origin = s.cfg.Origin
	st.Events = st.Events[:0]
	for _, ev := range first {
		ne, err := eventlog.EncodeRow(t.convID, ev)
		if err != nil {
			return err
		}
		st.Events = append(st.Events, ne)
	}
	return nil
}

// Rename retitles a conversation and records the new title in its stream,
// so every open page follows, as it does when the planner names it.
func (s *Service) Rename(ctx context.Context, userID, conversationID, title string) (store.Conversation, error) {
	conv, err := s.cfg.Store.RenameConversation(ctx, userID, conversationID, title)
	if err != nil {
		return conv, err
	}
	if _, err := s.cfg.Log.Append(ctx, conversationID, &event.ConversationRenamed{Title: conv.Title}); err != nil {
		return conv, fmt.Errorf("chat: rename: %w", err)
	}
	return conv, nil
}
