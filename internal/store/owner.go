package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// A process owns the turns it runs under its owner name: turns.owner, and
// its River client's id in river_job.attempted_by. The name is the
// identity of the first session the process opens ("<backend pid>@<backend
// start, unix µs>"), and it stays the process's name for its whole life:
// every owner session it opens carries it at the end of its
// application_name (ownerAppName), and
// renews the process's lease (owner_leases) while it lasts.
//
// An owner is alive (ownerLiveSQL) while a session carries its name or its
// lease has not expired. A process that dies loses its session at once and
// its lease within five Watches (OwnerSession); one whose session drops (a PostgreSQL
// restart, pg_terminate_backend, an idle-session timeout, a proxy) opens
// another under the same name within the lease, so nothing of its turns
// changes hands. If it cannot, it stops its turns (Lost) before the lease
// expires, and only then may another process rescue them.

// ownerLiveSQL is true when the owner name in the expression %[1]s is alive:
// a session carries it in its application_name (or has it as its identity,
// as processes named their owner sessions before leases), or its lease has
// not expired.
const ownerLiveSQL = `(` + ownerSessionSQL + `
  OR EXISTS (SELECT 1 FROM owner_leases l WHERE l.owner = %[1]s AND l.expires_at > now()))`

// ownerSessionSQL is true when a session carries the owner name in %[1]s.
const ownerSessionSQL = `EXISTS (
    SELECT 1 FROM pg_stat_activity a
    WHERE a.application_name = %[1]s OR right(a.application_name, length(%[1]s) + 1) = ' ' || %[1]s
       OR %[1]s = a.pid::text || '@' || (extract(epoch FROM a.backend_start) * 1000000)::bigint::text)`

// ownerLive returns ownerLiveSQL for the owner name in expr.
func ownerLive(expr string) string { return fmt.Sprintf(ownerLiveSQL, expr) }

// ownerSession returns ownerSessionSQL for the owner name in expr: a
// process claims turns only while it holds its session, not on its lease
// alone, which only keeps others from taking what it runs.
func ownerSession(expr string) string { return fmt.Sprintf(ownerSessionSQL, expr) }

const sessionIdentitySQL = `
SELECT pg_backend_pid()::text || '@' || (extract(epoch FROM backend_start) * 1000000)::bigint::text
FROM pg_stat_activity WHERE pid = pg_backend_pid()`

// renewLeaseSQL names the session after its owner ($3: the owner name after
// the process's own application_name, ownerAppName) and extends the owner's
// lease by $2 from the database's now.
const renewLeaseSQL = `
WITH app AS (SELECT set_config('application_name', $3, false))
INSERT INTO owner_leases (owner, expires_at) SELECT $1, now() + $2::interval FROM app
ON CONFLICT (owner) DO UPDATE SET expires_at = EXCLUDED.expires_at`

// pruneLeasesSQL forgets the leases of processes long gone.
const pruneLeasesSQL = `DELETE FROM owner_leases WHERE expires_at < now() - interval '1 day'`

const dropLeaseSQL = `DELETE FROM owner_leases WHERE owner = $1`

// ownerAppName is the application_name of an owner session: the owner name,
// after the application_name the process's connections carry (so operators
// still tell processes apart), within PostgreSQL's 63 bytes.
func ownerAppName(prefix, owner string) string {
	if prefix == "" {
		return owner
	}
	if room := 63 - len(owner) - 1; len(prefix) > room {
		prefix = prefix[:max(room, 0)]
	}
	return prefix + " " + owner
}

// OwnerSession is how a process holds its owner session.
type OwnerSession struct {
	// Held is called each time the process holds an owner session under its
	// name: when the first opens (owner is then known) and whenever one
	// opens again after a loss.
	Held func(owner string)
	// Lost is called when the process has held no session for
	// OwnerLostAfter(Watch): its turns must stop before its lease expires,
	// as another process may then rescue them. Held follows when a session
	// opens again.
	Lost func(err error)
	// Watch is how often the session is checked and the lease renewed
	// (default 500 ms). The lease lasts five of them.
	Watch  time.Duration
	Logger *slog.Logger
}

// OwnerLostAfter is how long a process goes without renewing its lease
// before it gives up its turns: three Watches, two before the lease (five
// Watches from the renewal's start) expires. A connect or a renewal gives up
// at that moment, so Lost is not late for a database that does not answer.
func OwnerLostAfter(watch time.Duration) time.Duration { return 3 * watch }

// opTimeout bounds one connect or renewal: two Watches, cut at the moment
// Lost is due (but never under a quarter of a Watch).
func (h *ownerHold) opTimeout() time.Duration {
	d := 2 * h.cfg.Watch
	if h.owner != "" && !h.lost {
		d = min(d, time.Until(h.renewed.Add(OwnerLostAfter(h.cfg.Watch))))
	}
	return max(d, h.cfg.Watch/4)
}

// The owner session's reconnect backoff starts here and doubles up to a
// quarter of a Watch.
const ownerRetryMin = 50 * time.Millisecond

// HoldOwnerSession holds this process's owner session until ctx ends: one
// dedicated connection, opened outside the pool, named after the owner, that
// renews the owner's lease every Watch. A session that ends (or cannot be
// opened) is opened again with backoff, and the log says why; Lost is
// called once the process has gone OwnerLostAfter without one. When ctx
// ends the lease is dropped (the process's turns were handed back) and
// HoldOwnerSession returns nil.
func (db *DB) HoldOwnerSession(ctx context.Context, cfg OwnerSession) error {
	if cfg.Held == nil {
		return errors.New("store: owner session: Held is required")
	}
	if cfg.Watch <= 0 {
		cfg.Watch = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	log := cfg.Logger.With("component", "owner_session")
	h := &ownerHold{db: db, cfg: cfg, log: log}
	retry := ownerRetryMin
	var lastErr error
	for {
		held, err := h.hold(ctx)
		if ctx.Err() != nil {
			h.drop()
			return nil
		}
		if held {
			retry = ownerRetryMin
		}
		if err != nil && (lastErr == nil || held || err.Error() != lastErr.Error()) {
			if h.owner == "" {
				log.Warn("cannot open the owner session; trying again", slog.Any("error", err))
			} else {
				log.Warn("the owner session is gone; opening another", slog.String("owner", h.owner), slog.Any("error", err))
			}
		}
		lastErr = err
		if !h.lost && h.owner != "" && time.Since(h.renewed) >= OwnerLostAfter(cfg.Watch) {
			h.lost = true
			log.Error("no owner session: this process stops its turns before its lease expires", slog.String("owner", h.owner), slog.Any("error", err))
			if cfg.Lost != nil {
				cfg.Lost(fmt.Errorf("store: owner session: %w", err))
			}
		}
		t := time.NewTimer(retry)
		select {
		case <-ctx.Done():
			t.Stop()
			h.drop()
			return nil
		case <-t.C:
		}
		retry = min(retry*2, cfg.Watch/4)
	}
}

// ownerHold is HoldOwnerSession's state, owned by its goroutine.
type ownerHold struct {
	db    *DB
	cfg   OwnerSession
	log   *slog.Logger
	owner string // "" until the first session opened
	// renewed is when the last renewal that succeeded was sent: the lease
	// lasts at least five Watches from then.
	renewed time.Time
	lost    bool // Lost was called and no session opened since
}

// hold opens a session, renews the lease every Watch until the session
// fails or ctx ends, and reports whether it held one at all.
func (h *ownerHold) hold(ctx context.Context) (held bool, err error) {
	cfg := h.db.pool.Config().ConnConfig.Copy()
	prefix := cfg.RuntimeParams["application_name"]
	if h.owner != "" {
		cfg.RuntimeParams["application_name"] = ownerAppName(prefix, h.owner)
	}
	// The first session may take its time; a later one must open before
	// Lost is due.
	connectFor := h.opTimeout()
	if h.owner == "" {
		connectFor = 10 * time.Second
	}
	cctx, cancel := context.WithTimeout(ctx, connectFor)
	conn, err := pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if h.owner == "" {
		if err := conn.QueryRow(ctx, sessionIdentitySQL).Scan(&h.owner); err != nil {
			return false, fmt.Errorf("read the session's identity: %w", err)
		}
		if _, err := conn.Exec(ctx, pruneLeasesSQL); err != nil {
			return false, fmt.Errorf("prune leases: %w", err)
		}
	}
	lease := (5 * h.cfg.Watch).String()
	renew := func() error {
		sent := time.Now()
		rctx, cancel := context.WithTimeout(ctx, h.opTimeout())
		defer cancel()
		if _, err := conn.Exec(rctx, renewLeaseSQL, h.owner, lease, ownerAppName(prefix, h.owner)); err != nil {
			return fmt.Errorf("renew the lease: %w", err)
		}
		h.renewed = sent
		return nil
	}
	if err := renew(); err != nil {
		return false, err
	}
	if h.lost {
		h.log.Info("the owner session is back", slog.String("owner", h.owner))
	}
	h.lost = false
	h.cfg.Held(h.owner)
	for {
		// A terminated session ends the wait at once (the server says so
		// before it closes the connection); a silent drop shows at the
		// next renewal.
		wctx, cancel := context.WithTimeout(ctx, h.cfg.Watch)
		_, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return true, nil
		case err != nil && !errors.Is(err, context.DeadlineExceeded):
			return true, fmt.Errorf("wait: %w", err)
		}
		if err := renew(); err != nil {
			return true, err
		}
	}
}

// drop gives up the lease of a process that stops: its turns were handed
// back, and a turn it could not hand back is any process's to rescue at
// once.
func (h *ownerHold) drop() {
	if h.owner == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := h.db.pool.Exec(ctx, dropLeaseSQL, h.owner); err != nil {
		h.log.Warn("dropping the owner's lease", slog.String("owner", h.owner), slog.Any("error", err))
	}
}
