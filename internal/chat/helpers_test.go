package chat_test

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"strategist/internal/agent"
	"strategist/internal/chat"
	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/eventlog"
	"strategist/internal/llm"
	"strategist/internal/llm/scripted"
	"strategist/internal/pgtest"
	"strategist/internal/store"
	"strategist/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

// testModel is the one model id the tests' registry knows.
const testModel = "scripted:test"

// models resolves testModel to one scripted engine (chat.Models).
type models struct{ engine llm.Engine }

func (m models) Default() string { return testModel }

func (m models) Resolve(id string) (llm.Model, error) {
	if id != testModel {
		return llm.Model{}, &llm.UnknownModelError{ID: id, Reason: "not configured", Valid: []string{testModel}}
	}
	return llm.Model{ID: id, Family: llm.EngineScripted, Name: "test", Engine: m.engine}, nil
}

// role is a plan or execute role for the tests: the scripted engine with the
// tools the test gives it, built per turn like the real roles.
type role struct {
	name  string
	tools func(env agent.Env) []tool.Tool
}

func (r role) Agent(env agent.Env) (*agent.Agent, error) {
	var tools []tool.Tool
	if r.tools != nil {
		tools = r.tools(env)
	}
	ts, err := tool.NewToolset(tools...)
	if err != nil {
		return nil, err
	}
	return agent.New(agent.Config{Engine: env.Engine, Model: env.Model, Agent: r.name,
		System: "You are the " + r.name + " of a test.", Tools: ts})
}

// engine parses a scripted engine from JSON.
func engine(t *testing.T, script string) *scripted.Engine {
	t.Helper()
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	e, err := scripted.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// world is a test database with a user and a conversation.
type world struct {
	t  *testing.T
	db *store.DB
	// sql runs a statement on the test database, for fixtures no store
	// method writes (what a process that died left behind).
	sql func(sql string, args ...any)
	// job describes a turn's job, for a test's failure message.
	job    func(turnID string) string
	userID string
	convID string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	pool := pgtest.New(t)
	db, err := store.New(pool)
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.CreateUser(t.Context(), "ada@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, db: db, userID: u.ID, sql: func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
			t.Fatal(err)
		}
	}, job: func(turnID string) string {
		var out string
		err := pool.QueryRow(context.Background(), `SELECT coalesce(string_agg(format('job %s %s attempt %s by %s errors %s', id, state, attempt, attempted_by, errors), '; '), 'no job')
			FROM river_job WHERE args->>'turnId' = $1`, turnID).Scan(&out)
		if err != nil {
			return err.Error()
		}
		return out
	}}
	w.convID = w.conversation()
	return w
}

// conversation creates another conversation of the user.
func (w *world) conversation() string {
	w.t.Helper()
	c, err := w.db.CreateConversation(w.t.Context(), w.userID, "plasmodb", "", testModel)
	if err != nil {
		w.t.Fatal(err)
	}
	return c.ID
}

// options are what a test process is started with.
type options struct {
	engine      llm.Engine
	planner     chat.Role // default: a planner without tools
	executor    chat.Role // default: an executor without tools
	autoApprove bool
	// store and logStore, when set, wrap what the Service and its event
	// log write through.
	store    func(chat.Store) chat.Store
	logStore func(eventlog.LogStore) eventlog.LogStore
	// watch is the owner session's Watch (store.OwnerSession), sweepEvery
	// the rescue's period (default: an hour, so that orphans are looked
	// for at start and on a conflict only: a test decides when a process
	// dies).
	watch, sweepEvery time.Duration
	// log, when set, is where the process logs.
	log bool
	// budget, when set, changes the per-user turn budget.
	budget func(*chat.Config)
	// retryFor is chat.Config.RetryFor (default its default).
	retryFor time.Duration
}

func (o options) logger(t *testing.T) *slog.Logger {
	if !o.log {
		return nil
	}
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

// process is one server process as main wires it, reduced to what chat
// needs: its own owner session, event log and broker, and the Service, all
// stopped (turns first, then the log, then the session) when the test ends.
type process struct {
	*chat.Service
	owner string
	// stop stops the process as main does on a signal (its turns first);
	// it is also run when the test ends.
	stop func()
}

func (w *world) start(o options) *process {
	w.t.Helper()
	if o.planner == nil {
		o.planner = role{name: "planner"}
	}
	if o.executor == nil {
		o.executor = role{name: "executor"}
	}
	origin := uuid.NewString()
	broker := eventlog.NewBroker(0)
	var logStore eventlog.LogStore = w.db
	if o.logStore != nil {
		logStore = o.logStore(logStore)
	}
	var st chat.Store = w.db
	if o.store != nil {
		st = o.store(st)
	}
	log, err := eventlog.NewLog(eventlog.LogConfig{Store: logStore, Broker: broker, Origin: origin})
	if err != nil {
		w.t.Fatal(err)
	}
	cfg := chat.Config{Store: st, Log: log, Publisher: broker, Models: models{o.engine},
		Planner: o.planner, Executor: o.executor, Origin: origin, AutoApprove: o.autoApprove,
		SweepEvery: cmp.Or(o.sweepEvery, time.Hour), Logger: o.logger(w.t), RetryFor: o.retryFor}
	if o.budget != nil {
		o.budget(&cfg)
	}
	svc, err := chat.New(cfg)
	if err != nil {
		w.t.Fatal(err)
	}

	backCtx, stopBack := context.WithCancel(context.Background())
	frontCtx, stopFront := context.WithCancel(context.Background())
	var back, front sync.WaitGroup
	owners := make(chan string, 1)
	back.Go(func() {
		if err := log.Run(backCtx); err != nil && !errors.Is(err, context.Canceled) {
			w.t.Errorf("event log: %v", err)
		}
	})
	back.Go(func() {
		if err := w.db.HoldOwnerSession(backCtx, store.OwnerSession{Watch: o.watch, Logger: o.logger(w.t),
			Held: func(o string) {
				select {
				case owners <- o:
				default:
				}
			},
			Lost: func(err error) { svc.OwnerLost(err) }}); err != nil && backCtx.Err() == nil {
			w.t.Errorf("owner session: %v", err)
		}
	})
	var owner string
	select {
	case owner = <-owners:
	case <-time.After(30 * time.Second):
		w.t.Fatal("the owner session did not open")
	}
	front.Go(func() {
		if err := svc.Run(frontCtx, owner); err != nil {
			w.t.Errorf("chat: %v", err)
		}
	})
	stop := sync.OnceFunc(func() {
		stopFront()
		front.Wait()
		stopBack()
		back.Wait()
	})
	w.t.Cleanup(stop)
	return &process{Service: svc, owner: owner, stop: stop}
}

// startTurn starts a turn, waiting out the moment before Run serves.
func (p *process) startTurn(t *testing.T, req chat.TurnRequest) (string, error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		id, err := p.StartTurn(t.Context(), req)
		if !errors.Is(err, chat.ErrNotServing) || time.Now().After(deadline) {
			return id, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitOwned waits until one of procs runs a turn and returns it.
func (w *world) waitOwned(convID, turnID string, procs ...*process) *process {
	w.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tr, err := w.db.Turn(context.Background(), w.userID, convID, turnID)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, p := range procs {
			if tr.Owner == p.owner {
				return p
			}
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("turn %s not taken by any process after 30 s (owner %q)", turnID, tr.Owner)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// queued commits a plan turn as a process's StartTurn does, its job held
// back (scheduled far ahead) until the test makes it available.
func (w *world) queued(convID, message string) string {
	w.t.Helper()
	id, msgID := uuid.NewString(), uuid.NewString()
	st := store.StartTurn{UserID: w.userID, ConversationID: convID, TurnID: id, Mode: chat.ModePlan, Model: testModel,
		Origin: "another-process", Message: store.NewMessage{ID: msgID, Role: agent.StoredUser, Content: message},
		Events: []store.NewEvent{newEvent(w.t, convID, &event.TurnStart{Base: event.Base{TurnID: id}, Mode: chat.ModePlan,
			Model: testModel, UserMessageID: msgID, Message: message})}}
	if _, err := w.db.StartTurnTx(w.t.Context(), st); err != nil {
		w.t.Fatal(err)
	}
	w.sql(`UPDATE river_job SET state = 'scheduled', scheduled_at = now() + interval '1 hour' WHERE args->>'turnId' = $1`, id)
	return id
}

// mustStart starts a plan turn with message and returns its id.
func (w *world) mustStart(p *process, convID, message string) string {
	w.t.Helper()
	id, err := p.startTurn(w.t, chat.TurnRequest{UserID: w.userID, ConversationID: convID, Message: message, Mode: chat.ModePlan})
	if err != nil {
		w.t.Fatalf("StartTurn: %v", err)
	}
	return id
}

// waitEnd waits for a turn to leave running and returns its row.
func (w *world) waitEnd(convID, turnID string) store.Turn {
	w.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tr, err := w.db.Turn(context.Background(), w.userID, convID, turnID)
		if err != nil {
			w.t.Fatal(err)
		}
		if tr.Status != "running" {
			return tr
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("turn %s still running after 30 s, owned by %q; %s", turnID, tr.Owner, w.job(turnID))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFor waits until a conversation's log holds an event of type typ and
// returns the log.
func (w *world) waitFor(convID, typ string) []event.Record {
	w.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		recs := w.events(convID)
		for _, r := range recs {
			if r.Type == typ {
				return recs
			}
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("no %s event after 30 s; log: %v", typ, types(recs))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// events reads a conversation's whole log.
func (w *world) events(convID string) []event.Record {
	w.t.Helper()
	rows, err := w.db.EventsAfter(context.Background(), w.userID, convID, 0, 10_000)
	if err != nil {
		w.t.Fatal(err)
	}
	recs := make([]event.Record, len(rows))
	for i, r := range rows {
		recs[i] = eventlog.FromRow(r)
	}
	return recs
}

// checkLog asserts the stream invariants on a conversation's log, every
// turn of it ended.
func (w *world) checkLog(convID string) []event.Record {
	w.t.Helper()
	recs := w.events(convID)
	eventtest.Check(w.t, recs)
	return recs
}

// turnEvents returns the types of one turn's events, in order.
func turnEvents(recs []event.Record, turnID string) []string {
	var out []string
	for _, r := range recs {
		if r.TurnID == turnID {
			out = append(out, r.Type)
		}
	}
	return out
}

func types(recs []event.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Type
	}
	return out
}

// decode returns the event of the first record of type typ in turnID.
func decode[E event.Event](t *testing.T, recs []event.Record, turnID, typ string) E {
	t.Helper()
	var zero E
	for _, r := range recs {
		if r.TurnID == turnID && r.Type == typ {
			ev, err := r.Decode()
			if err != nil {
				t.Fatal(err)
			}
			e, ok := ev.(E)
			if !ok {
				t.Fatalf("%s decodes to %T", typ, ev)
			}
			return e
		}
	}
	t.Fatalf("turn %s has no %s event", turnID, typ)
	return zero
}

// newEvent encodes an event for the store, as a dead process wrote it.
func newEvent(t *testing.T, convID string, ev event.Event) store.NewEvent {
	t.Helper()
	typ, payload, err := event.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	return store.NewEvent{ConversationID: convID, TurnID: ev.Turn(), Type: typ, Payload: payload}
}
