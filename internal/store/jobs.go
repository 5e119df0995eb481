package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// Turns run as durable jobs of River, a job queue on PostgreSQL: a turn's
// start inserts its job in the same transaction as the turn row (a
// statement of its pipeline, queueTurnJob), and any
// server process's workers pick it up. The job, not the process that took
// the request, starts the turn. A process that stops hands its turns back
// (the job is snoozed, at once available to another process); a process that
// dies leaves jobs running under its name, which RescueTurns makes available
// again as soon as its database session is gone.
//
// River's packages take a pgx pool, so they live here with the rest of
// Strategist's PostgreSQL code; the orchestrator sees TurnJob, ClaimTurn and
// RunTurnQueue.

// turnQueue is the River queue turns run on.
const turnQueue = "turns"

// turnJobKind names turn jobs in river_job.kind.
const turnJobKind = "turn"

// turnArgs is a turn job's arguments (river_job.args).
type turnArgs struct {
	TurnID         string `json:"turnId"`
	ConversationID string `json:"conversationId"`
	UserID         string `json:"userId"`
	UserMessageID  string `json:"userMessageId"`
}

func (turnArgs) Kind() string { return turnJobKind }

// InsertOpts: turn jobs run on their own queue. A turn ends itself (failed,
// cancelled) whatever happens in it, so a job error is only a database
// failure before the turn could start: a few attempts are plenty.
func (turnArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: turnQueue, MaxAttempts: 5}
}

// TurnJob is one turn to run, as a worker receives it.
type TurnJob struct {
	TurnID         string
	ConversationID string
	UserID         string
	UserMessageID  string
	// Attempt counts the times a process took this job (1 the first time;
	// a hand-back does not count, a process that died does).
	Attempt int
}

// ErrHandBack is returned by a turn's work when its process stops before the
// turn ended: the job becomes available at once, to any other process.
var ErrHandBack = errors.New("store: turn handed back")

// ErrBusy is returned by ClaimTurn when a live process runs the turn.
var ErrBusy = errors.New("store: the turn runs in another process")

// ErrOwnerLost is returned by ClaimTurn when the claiming process does not
// hold its owner session: it claims nothing until its session is back, and the job waits ownerLostRetry for it or another
// process.
var ErrOwnerLost = errors.New("store: this process has lost its owner session")

const ownerLostRetry = time.Second

// unavailableRetry is how long a turn whose work met an unreachable database
// before it could start waits before it is tried again.
const unavailableRetry = 2 * time.Second

// busyRetry is how long a job whose turn a live process runs waits before it
// looks again (River rescued it as stuck while its owner is alive).
const busyRetry = 10 * time.Second

type turnWorker struct {
	river.WorkerDefaults[turnArgs]
	work func(ctx context.Context, job TurnJob) error
}

// Timeout: none from River. A turn bounds itself (model rounds, the
// delegation's deadline), and a process that dies is noticed through its
// database session, not through a running time.
func (w *turnWorker) Timeout(*river.Job[turnArgs]) time.Duration { return -1 }

func (w *turnWorker) Work(ctx context.Context, job *river.Job[turnArgs]) error {
	err := w.work(ctx, TurnJob{TurnID: job.Args.TurnID, ConversationID: job.Args.ConversationID,
		UserID: job.Args.UserID, UserMessageID: job.Args.UserMessageID, Attempt: job.Attempt})
	switch {
	case errors.Is(err, ErrHandBack):
		return river.JobSnooze(0)
	case errors.Is(err, ErrBusy):
		return river.JobSnooze(busyRetry)
	case errors.Is(err, ErrOwnerLost):
		return river.JobSnooze(ownerLostRetry)
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		// River stopped the job (its process stops): the turn is worked
		// again, by this process or another, without spending an attempt.
		return river.JobSnooze(unavailableRetry)
	case Unavailable(err):
		// No connection to be had (the pool's limit, the server's
		// max_connections, a restart): the turn waits for one rather
		// than failing, and its job does not spend an attempt.
		return river.JobSnooze(unavailableRetry)
	}
	return err
}

// River's fetch timing: a new turn's job is fetched within fetchCooldown of
// its insert notification (notifyTurnJobsSQL), and polling finds one whose notification was
// missed (or a job made available again) within fetchPoll.
const (
	fetchCooldown = 10 * time.Millisecond
	fetchPoll     = 250 * time.Millisecond
)

// TurnQueueConfig is how a process works turn jobs.
type TurnQueueConfig struct {
	// Owner is this process's owner name (HoldOwnerSession); River names
	// the process with it in every job it takes, which is how RescueTurns
	// recognises the jobs of a process that died.
	Owner string
	// Workers is how many turns the process runs at once (default 100).
	Workers int
	// StuckAfter is River's own rescue of jobs running longer than this
	// (default 2 h: longer than any turn runs). Dead processes are found
	// sooner, by RescueTurns.
	StuckAfter time.Duration
	// StopTimeout bounds waiting for handed-back turns to return when ctx
	// ends (default 30 s).
	StopTimeout time.Duration
	Logger      *slog.Logger
	// Work runs one turn; ErrHandBack hands it to another process.
	Work func(ctx context.Context, job TurnJob) error
	// Started, when set, is called once the queue works jobs: the process
	// can run turns from then on.
	Started func()
}

// RunTurnQueue works turn jobs until ctx ends, then cancels the turns it runs
// (their Work returns ErrHandBack) and returns once they have.
func (db *DB) RunTurnQueue(ctx context.Context, cfg TurnQueueConfig) error {
	if cfg.Owner == "" || cfg.Work == nil {
		return errors.New("store: turn queue: owner and work are required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 100
	}
	if cfg.StuckAfter <= 0 {
		cfg.StuckAfter = 2 * time.Hour
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &turnWorker{work: cfg.Work})
	client, err := river.NewClient(riverpgxv5.New(db.pool), &river.Config{
		ID:                   cfg.Owner,
		Queues:               map[string]river.QueueConfig{turnQueue: {MaxWorkers: cfg.Workers}},
		Workers:              workers,
		FetchCooldown:        fetchCooldown,
		FetchPollInterval:    fetchPoll,
		JobTimeout:           -1,
		RescueStuckJobsAfter: cfg.StuckAfter,
		Logger:               cfg.Logger.With("component", "river"),
	})
	if err != nil {
		return fmt.Errorf("store: turn queue: %w", err)
	}
	// The client stops when asked below, not when ctx ends: its turns must
	// be handed back while the database is still there.
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("store: turn queue: start: %w", err)
	}
	if cfg.Started != nil {
		cfg.Started()
	}
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), cfg.StopTimeout)
	defer cancel()
	if err := client.StopAndCancel(sctx); err != nil {
		return fmt.Errorf("store: turn queue: stop: %w", err)
	}
	return nil
}

// insertTurnJobSQL inserts a turn's job as River's own insert does (the
// job's arguments, kind, queue and attempts; River's defaults for the
// rest), so that it can be a statement of the turn start's pipeline: River's
// InsertTx needs its query's rows before the transaction goes on, which a
// pipeline cannot give, and would cost the start round trips.
var insertTurnJobSQL = `
INSERT INTO river_job (args, kind, max_attempts, priority, queue, state, scheduled_at, tags, metadata)
VALUES ($1, '` + turnJobKind + `', $2, 1, '` + turnQueue + `', 'available', now(), '{}', '{}')`

// queueTurnJob queues a turn's job and the notification that wakes the
// queue's fetchers (delivered when the start commits) on b.
func queueTurnJob(b *pgx.Batch, st StartTurn) error {
	args, err := json.Marshal(turnArgs{TurnID: st.TurnID, ConversationID: st.ConversationID,
		UserID: st.UserID, UserMessageID: st.Message.ID})
	if err != nil {
		return err
	}
	b.Queue(insertTurnJobSQL, args, turnArgs{}.InsertOpts().MaxAttempts)
	b.Queue(notifyTurnJobsSQL)
	return nil
}

// Owner names of a running turn that no live process runs: "" while its
// job waits for its first process, OwnerReleased after a process handed it
// back, ownerCancel when a researcher cancelled it meanwhile.
const (
	OwnerReleased = "released"
	ownerCancel   = "cancel"
)

// Claim is a turn as the process that claimed it runs it.
type Claim struct {
	UserID         string    `db:"user_id"`
	ConversationID string    `db:"conversation_id"`
	SiteID         string    `db:"site_id"`
	Mode           Mode      `db:"mode"`
	Model          string    `db:"model"`
	StartedAt      time.Time `db:"started_at"`
	// PreviousOwner is who had the turn before: "" for a turn that never
	// ran, else it resumes where another run left it.
	PreviousOwner string `db:"previous_owner"`
}

// Resumed reports whether a run of the turn came before this one.
func (c Claim) Resumed() bool { return c.PreviousOwner != "" }

// CancelRequested reports whether a researcher cancelled the turn while no
// process ran it: it ends cancelled at once.
func (c Claim) CancelRequested() bool { return c.PreviousOwner == ownerCancel }

// claimTurnSQL makes $2 the process running a turn, if the turn is still
// running and no live process runs it (nobody yet, handed back, cancelled
// meanwhile, this process, or an owner that is not alive: ownerLiveSQL), and
// $2 holds its owner session: a process without it claims nothing.
var claimTurnSQL = `
WITH prev AS (SELECT id, owner FROM turns WHERE id = $1 AND status = 'running' FOR UPDATE)
UPDATE turns t SET owner = $2
FROM prev, conversations c
WHERE t.id = prev.id AND c.id = t.conversation_id
  AND (prev.owner IN ('', '` + OwnerReleased + `', '` + ownerCancel + `') OR prev.owner = $2
       OR NOT ` + ownerLive("prev.owner") + `)
  AND ` + ownerSession("$2::text") + `
RETURNING c.user_id, t.conversation_id, c.site_id, t.mode, t.model, t.started_at, prev.owner AS previous_owner`

// claimRefusedSQL says why a claim took nothing: whether the turn runs,
// whether another live process runs it, whether the claimant is alive.
var claimRefusedSQL = `
SELECT coalesce(t.status = 'running', false),
       coalesce(t.owner NOT IN ('', '` + OwnerReleased + `', '` + ownerCancel + `') AND t.owner <> $2 AND ` + ownerLive("t.owner") + `, false),
       ` + ownerSession("$2::text") + `
FROM (SELECT 1) one LEFT JOIN turns t ON t.id = $1`

// ClaimTurn makes owner the one process that runs a turn. A turn that ended
// (or was deleted) is ErrNotFound; one a live process runs is ErrBusy; an
// owner without its session and lease (OwnerSession) is ErrOwnerLost.
func (db *DB) ClaimTurn(ctx context.Context, turnID, owner string) (Claim, error) {
	var c Claim
	err := db.retry(ctx, func() error {
		rows, _ := db.pool.Query(ctx, claimTurnSQL, turnID, owner)
		var err error
		c, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Claim])
		// A claim that may have committed is not made again: the
		// second would read this owner as the turn's previous one.
		return ambiguous(err)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		var running, busy, live bool
		if err := db.retry(ctx, func() error {
			return db.pool.QueryRow(ctx, claimRefusedSQL, turnID, owner).Scan(&running, &busy, &live)
		}); err != nil {
			return Claim{}, translate("claim turn", err)
		}
		switch {
		case !running:
			return Claim{}, translate("claim turn", ErrNotFound)
		case busy || live:
			return Claim{}, ErrBusy
		}
		return Claim{}, ErrOwnerLost
	}
	return c, translate("claim turn", err)
}

const releaseTurnSQL = `UPDATE turns SET owner = '` + OwnerReleased + `' WHERE id = $1 AND owner = $2 AND status = 'running'`

// ReleaseTurn gives up owner's claim on a running turn, so the process that
// takes its job next may run it.
func (db *DB) ReleaseTurn(ctx context.Context, turnID, owner string) error {
	return translate("release turn", db.retry(ctx, func() error {
		_, err := db.pool.Exec(ctx, releaseTurnSQL, turnID, owner)
		return err
	}))
}

// requestCancelSQL notifies the process running a turn on $2, and marks a
// turn that no live process runs (queued, handed back, or its process died)
// to end cancelled when a process claims it, in one statement.
var requestCancelSQL = `
WITH t AS (
  UPDATE turns SET owner = CASE
      WHEN owner IN ('', '` + OwnerReleased + `') OR NOT ` + ownerLive("owner") + ` THEN '` + ownerCancel + `'
      ELSE owner END
  WHERE id = $1 AND status = 'running' RETURNING id)
SELECT pg_notify($2, id::text) FROM t`

// RequestCancel asks for a running turn's cancellation wherever it is: the
// process running it hears it on channel, and a turn no process runs now
// ends cancelled when one claims it.
func (db *DB) RequestCancel(ctx context.Context, channel, turnID string) error {
	return translate("request cancel", db.retry(ctx, func() error {
		_, err := db.pool.Exec(ctx, requestCancelSQL, turnID, channel)
		return err
	}))
}

// rescueTurnsSQL makes available again the turn jobs running under a River
// client whose owner is not alive (no session, lease expired): the client's
// id is its process's owner name, the last of the job's attempted_by.
var rescueTurnsSQL = `
WITH dead AS (
  UPDATE river_job j SET state = 'available', scheduled_at = now()
  WHERE j.state = 'running' AND j.kind = '` + turnJobKind + `'
    AND NOT ` + ownerLive("j.attempted_by[cardinality(j.attempted_by)]") + `
  RETURNING j.id)
SELECT count(*)::int FROM dead`

// notifyTurnJobsSQL wakes the turn queue's fetchers in every process, as
// River's own insert notification does (delivered at commit).
const notifyTurnJobsSQL = `SELECT pg_notify(current_schema() || '.river_insert', '{"queue": "turns"}')`

// RescueTurns hands the turns of processes that died to the living: their
// jobs become available to any process, which resumes them. It returns how
// many it rescued.
func (db *DB) RescueTurns(ctx context.Context) (int, error) {
	var n int
	if err := db.retry(ctx, func() error { return db.pool.QueryRow(ctx, rescueTurnsSQL).Scan(&n) }); err != nil {
		return 0, translate("rescue turns", err)
	}
	if n > 0 {
		if _, err := db.pool.Exec(ctx, notifyTurnJobsSQL); err != nil {
			return n, translate("rescue turns: notify", err)
		}
	}
	return n, nil
}

// riverLock serialises River's migrations across processes starting at once.
const riverLock = 724312

// migrateRiver brings River's tables (river_job, river_leader, ...) to the
// version of the River this binary is built with, under an advisory lock.
func migrateRiver(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate jobs: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", riverLock); err != nil {
		return fmt.Errorf("store: migrate jobs: lock: %w", err)
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", riverLock) //nolint:errcheck // the session ends the lock anyway
	// Each of River's migrations commits on its own (a later one uses an
	// enum value an earlier one adds); the lock above keeps other
	// processes out meanwhile.
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("store: migrate jobs: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("store: migrate jobs: %w", err)
	}
	return nil
}

// JobSchemaVersion is the version of River's tables this binary migrates
// to; the test database template is rebuilt when it changes.
func JobSchemaVersion() int {
	m, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		return 0
	}
	all := m.AllVersions()
	return all[len(all)-1].Version
}
