package eventlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strategist/internal/event"
	"strconv"
	"strings"

	"strategist/internal/store"
)

// FanoutStore is what the fan-out needs from the database: the LISTEN
// connection and the reads of what another process appended
// (store.DB's Listen, EventsRange and LatestEvents).
type FanoutStore interface {
	Listen(ctx context.Context, channels []string, handle func(channel, payload string), onConnect func(lost error)) error
	EventsRange(ctx context.Context, conversationID string, from, to int64) ([]store.EventRow, error)
	LatestEvents(ctx context.Context, conversationIDs []string) ([]store.EventRow, error)
}

// FanoutConfig configures a Fanout.
type FanoutConfig struct {
	// Store listens and reads. Required.
	Store FanoutStore
	// Broker receives the other processes' records. Required.
	Broker *Broker
	// Origin is this process's instance id, the Log's Origin: its own
	// notifications are ignored (the Log published them already). Required.
	Origin string
	// Logger reports lost connections and failed reads. Default: discard.
	Logger *slog.Logger
}

// Fanout brings the events other server processes append into this
// process's broker. Every append notifies on store.EventsChannel with
// "origin|conversation|first|last"; for a conversation someone here
// subscribes to, Fanout reads that range from the table and publishes it.
//
// Notifications sent while the LISTEN connection is down are lost. After
// every (re)connect Fanout therefore publishes, for each watched
// conversation, the table's latest event (the broker drops it if it is not
// newer than what it published): a Stream that receives it sees the gap and
// reads the missing range from the table. Raw subscriptions (without
// Stream) may see gaps; Stream is the consumer that turns them into the
// exact sequence.
//
// Concurrency: Run's goroutine does everything (the store calls handle and
// onConnect on it).
type Fanout struct {
	cfg FanoutConfig
}

// NewFanout returns a fan-out; Run starts it.
func NewFanout(cfg FanoutConfig) (*Fanout, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("eventlog: fanout: no store")
	case cfg.Broker == nil:
		return nil, errors.New("eventlog: fanout: no broker")
	case cfg.Origin == "" || strings.Contains(cfg.Origin, "|"):
		return nil, fmt.Errorf("event: fanout: origin %q must be non-empty and without '|'", cfg.Origin)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Fanout{cfg: cfg}, nil
}

// Run listens until ctx ends, then returns nil.
func (f *Fanout) Run(ctx context.Context) error {
	err := f.cfg.Store.Listen(ctx, []string{store.EventsChannel},
		func(_, payload string) { f.handle(ctx, payload) },
		func(lost error) { f.catchUp(ctx, lost) })
	if err != nil {
		return fmt.Errorf("event: fanout: %w", err)
	}
	return nil
}

// announcement is one parsed notification.
type announcement struct {
	origin, conversationID string
	first, last            int64
}

func parseAnnouncement(payload string) (announcement, error) {
	parts := strings.Split(payload, "|")
	if len(parts) != 4 {
		return announcement{}, fmt.Errorf("event: fanout: malformed notification %q", payload)
	}
	first, err1 := strconv.ParseInt(parts[2], 10, 64)
	last, err2 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || first < 1 || last < first {
		return announcement{}, fmt.Errorf("event: fanout: malformed notification %q", payload)
	}
	return announcement{origin: parts[0], conversationID: parts[1], first: first, last: last}, nil
}

func (f *Fanout) handle(ctx context.Context, payload string) {
	a, err := parseAnnouncement(payload)
	if err != nil {
		f.cfg.Logger.Warn("ignoring event notification", slog.Any("error", err))
		return
	}
	if a.origin == f.cfg.Origin || !f.cfg.Broker.Watching(a.conversationID) {
		// Ours (published by the Log), or nobody here listens: a subscriber
		// that comes later replays from the table.
		return
	}
	rows, err := f.cfg.Store.EventsRange(ctx, a.conversationID, a.first, a.last)
	if err != nil {
		if ctx.Err() == nil {
			f.cfg.Logger.Warn("reading announced events", slog.String("conversation_id", a.conversationID), slog.Any("error", err))
		}
		return
	}
	f.publish(rows)
}

// catchUp wakes the subscribers of watched conversations after the
// notification connection was (re)established.
func (f *Fanout) catchUp(ctx context.Context, lost error) {
	if lost != nil {
		f.cfg.Logger.Warn("event notifications reconnected; waking subscribers", slog.Any("lost", lost))
	}
	watched := f.cfg.Broker.Watched()
	if len(watched) == 0 {
		return
	}
	rows, err := f.cfg.Store.LatestEvents(ctx, slices.Sorted(maps.Keys(watched)))
	if err != nil {
		if ctx.Err() == nil {
			f.cfg.Logger.Warn("reading latest events after reconnect", slog.Any("error", err))
		}
		return
	}
	f.publish(rows) // the broker delivers only those newer than what it published
}

func (f *Fanout) publish(rows []store.EventRow) {
	records := make([]event.Record, len(rows))
	for i, r := range rows {
		records[i] = FromRow(r)
	}
	f.cfg.Broker.Publish(records...)
}
