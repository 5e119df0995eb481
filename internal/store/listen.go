package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ListenerAppName is the application_name of the connection Listen holds,
// so that operators (and tests) can find it in pg_stat_activity.
const ListenerAppName = "strategist-listen"

// The listener's reconnect backoff and health-check period.
const (
	listenRetryMin = 100 * time.Millisecond
	listenRetryMax = 5 * time.Second
	listenPing     = 30 * time.Second
)

// Listen receives the notifications of channels until ctx ends, then
// returns nil. It holds one dedicated connection (opened from the pool's
// configuration, outside the pool, so that pool health checks and limits
// never touch it), LISTENs on every channel and calls handle for each
// notification, in order, on the calling goroutine. When the connection is
// lost it reconnects with backoff (100 ms doubling up to 5 s).
//
// Notifications sent while no connection listens are lost, so onConnect
// (optional) is called after every successful LISTEN, the first included:
// the caller catches up there on whatever it may have missed. lost is the
// last error since the previous connection (the one that ended it, or a
// failed reconnect); nil the first time.
func (db *DB) Listen(ctx context.Context, channels []string, handle func(channel, payload string), onConnect func(lost error)) error {
	if len(channels) == 0 || handle == nil {
		return errors.New("store: listen: no channel or no handler")
	}
	var lost error
	retry := listenRetryMin
	for {
		lost = db.listenOnce(ctx, channels, handle, func() {
			retry = listenRetryMin
			if onConnect != nil {
				onConnect(lost)
			}
		})
		if ctx.Err() != nil {
			return nil
		}
		t := time.NewTimer(retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		retry = min(retry*2, listenRetryMax)
	}
}

// listenOnce connects, listens and dispatches until the connection fails or
// ctx ends. connected is called once LISTEN succeeded.
func (db *DB) listenOnce(ctx context.Context, channels []string, handle func(channel, payload string), connected func()) error {
	cfg := db.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = ListenerAppName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("store: listen: connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	for _, ch := range channels {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return fmt.Errorf("store: listen %s: %w", ch, err)
		}
	}
	connected()
	for {
		waitCtx, cancel := context.WithTimeout(ctx, listenPing)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			handle(n.Channel, n.Payload)
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, context.DeadlineExceeded):
			// Quiet for a while: make sure the connection is still alive.
			if err := conn.Ping(ctx); err != nil {
				return fmt.Errorf("store: listen: ping: %w", err)
			}
		default:
			return fmt.Errorf("store: listen: wait: %w", err)
		}
	}
}

// Notify sends a notification on channel; it is delivered when the
// statement commits (at once, outside a transaction).
func (db *DB) Notify(ctx context.Context, channel, payload string) error {
	err := db.retry(ctx, func() error {
		_, err := db.pool.Exec(ctx, "SELECT pg_notify($1, $2)", channel, payload)
		return err
	})
	return translate("notify", err)
}
