package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"strategist/internal/catalog"
	"strategist/internal/event"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/telemetry"
)

// Store is the persistence the Service needs; *store.DB satisfies it. Every
// method filters by the owning user, so another user's strategy is
// store.ErrNotFound.
type Store interface {
	CreateConversationStrategy(ctx context.Context, userID, conversationID, recordType string,
		build func(siteID string) (graph, change []byte, err error), events *store.StrategyEvents) (store.Strategy, bool, []store.EventRow, error)
	ConversationStrategy(ctx context.Context, userID, conversationID string) (store.Strategy, error)
	Strategy(ctx context.Context, userID, strategyID string) (store.Strategy, error)
	UpdateStrategy(ctx context.Context, userID, strategyID string,
		fn func(current []byte, version int) (next, change []byte, err error), events *store.StrategyEvents) (store.Strategy, []store.EventRow, error)
	StrategyVersions(ctx context.Context, userID, strategyID string) ([]store.StrategyVersion, error)
	StrategyVersion(ctx context.Context, userID, strategyID string, version int) (store.StrategyVersion, error)
	RecentStrategyVersions(ctx context.Context, userID, strategyID string, before, limit int) ([]store.StrategyVersion, error)
}

// EventLog is the conversations' event log (*eventlog.Log): a change's
// graph_snapshot is written inside the change's own transaction and
// published once it commits. Sync waits for the events turns have queued
// but not yet written, so that the snapshot follows the tool call that made
// the change.
type EventLog interface {
	InTransaction(events func(s store.Strategy, retitled string) ([]event.Event, error)) *store.StrategyEvents
	Published(rows []store.EventRow)
	Sync(ctx context.Context) error
}

// Config holds the Service's dependencies.
type Config struct {
	Store   Store            // required
	Catalog strategy.Catalog // required
	// Counter computes step counts; nil means a counter over Catalog with
	// default settings.
	Counter *strategy.Counter
	// CountTimeout bounds the counting a change does (0 means 30 s). A
	// count that takes longer is recorded as failed and tried again with
	// the next change; the change itself still commits.
	CountTimeout time.Duration
	// OnChange is called after every committed change (creation, mutation,
	// undo) with the new snapshot; the orchestrator appends the
	// graph_snapshot event here. Within a process it sees each strategy's
	// versions in increasing order, one call at a time per strategy. Its
	// context is the caller's without cancellation: a change that committed
	// is always reported. It must not call Apply or Undo.
	OnChange func(ctx context.Context, s strategy.Snapshot)
	// Events, when set, records every change as a graph_snapshot event in
	// the conversation's log, in the change's transaction: after any crash
	// the log's last snapshot is the stored strategy.
	Events EventLog
	Logger *slog.Logger
}

// Service is the one place that changes persisted strategies. Every change
// is applied under the strategy's row lock and stored as a new version
// together with its change record, then reported through OnChange; there
// is no other write path, so every graph_snapshot comes from here. It is
// safe for concurrent use: it holds no mutable state of its own besides
// the Counter's cache and the versions' overlaps (overlapCache).
type Service struct {
	store        Store
	cat          strategy.Catalog
	counter      *strategy.Counter
	countTimeout time.Duration
	report       *reporter
	events       EventLog
	log          *slog.Logger
	overlaps     overlapCache
}

// NewService checks cfg and returns a Service.
func NewService(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Catalog == nil {
		return nil, errors.New("strategy: new service: Store and Catalog are required")
	}
	if cfg.CountTimeout < 0 {
		return nil, errors.New("strategy: new service: negative CountTimeout")
	}
	s := &Service{store: cfg.Store, cat: cfg.Catalog, counter: cfg.Counter, countTimeout: cfg.CountTimeout, events: cfg.Events, log: cfg.Logger}
	if s.countTimeout == 0 {
		s.countTimeout = 30 * time.Second
	}
	if s.counter == nil {
		c, err := strategy.NewCounter(cfg.Catalog, strategy.CounterConfig{})
		if err != nil {
			return nil, fmt.Errorf("strategy: new service: %w", err)
		}
		s.counter = c
	}
	hook := cfg.OnChange
	if hook == nil {
		hook = func(context.Context, strategy.Snapshot) {}
	}
	s.report = newReporter(hook)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.log = s.log.With("component", "strategy")
	return s, nil
}

// Result is a committed change: the new snapshot and what changed (for
// added steps, Change.Step is the new step's id).
type Result struct {
	Snapshot strategy.Snapshot `json:"snapshot"`
	Change   strategy.Change   `json:"change"`
}

// Version is one entry of a strategy's history.
type Version struct {
	Version   int             `json:"version"`
	Change    strategy.Change `json:"change"`
	CreatedAt time.Time       `json:"createdAt"`
}

// ForConversation returns the strategy of a conversation, creating an empty
// one of recordType on the conversation's site when it has none (recorded
// as version 0 and reported through OnChange).
func (s *Service) ForConversation(ctx context.Context, userID, conversationID, recordType, name string) (strategy.Snapshot, error) {
	// The site's record types are checked outside the creating
	// transaction: on a live site the check reads the researcher's key
	// from the database and asks the site, which must not happen while the
	// transaction holds a pooled connection and the conversation's row
	// lock (concurrent sub-agents creating the strategy at once would
	// exhaust the pool and wait for one another until the live timeout).
	// The first attempt learns the site, the second creates.
	checked := ""
	for {
		var buildErr error
		needCheck := ""
		build := func(siteID string) ([]byte, []byte, error) {
			if siteID != checked {
				needCheck = siteID
				buildErr = errCheckFirst
				return nil, nil, buildErr
			}
			g, err := strategy.New(siteID, recordType, name)
			if err != nil {
				buildErr = err
				return nil, nil, err
			}
			graph, err := g.Encode()
			if err != nil {
				buildErr = err
				return nil, nil, err
			}
			change, err := json.Marshal(strategy.Change{Op: strategy.OpCreate, Summary: fmt.Sprintf("created an empty %s strategy", recordType)})
			if err != nil {
				buildErr = err
				return nil, nil, err
			}
			return graph, change, nil
		}
		rec, created, rows, err := s.store.CreateConversationStrategy(ctx, userID, conversationID, recordType, build, s.logged(ctx, snapshotOf, nil))
		if needCheck != "" {
			if err := s.checkRecordType(ctx, needCheck, recordType); err != nil {
				return strategy.Snapshot{}, err
			}
			checked = needCheck
			continue
		}
		if buildErr != nil {
			return strategy.Snapshot{}, buildErr
		}
		if err != nil {
			return strategy.Snapshot{}, fmt.Errorf("strategy: strategy for conversation %s: %w", conversationID, err)
		}
		snap, err := snapshotOf(rec)
		if err != nil {
			return strategy.Snapshot{}, err
		}
		if created {
			s.published(rows)
			s.report.report(ctx, snap)
		}
		return snap, nil
	}
}

// errCheckFirst rolls back a strategy's creation until the site's record
// types have been checked outside the transaction.
var errCheckFirst = errors.New("strategy: check the record type first")

// logged is how a change writes its graph_snapshot in the conversation's
// log inside its own transaction; snap gives the snapshot of the row as
// written, and change (when not nil) points at the version's change
// record, set by the time the row is written. nil (no event) without an
// event log.
func (s *Service) logged(ctx context.Context, snap func(rec store.Strategy) (strategy.Snapshot, error), change *strategy.Change) *store.StrategyEvents {
	if s.events == nil {
		return nil
	}
	// Before the change's transaction starts: the writer must not wait for
	// the conversation row that transaction locks. A failure here is a
	// failed append of the turn, which the turn itself reports.
	_ = s.events.Sync(ctx)
	turn := event.TurnFrom(ctx)
	ev := s.events.InTransaction(func(rec store.Strategy, retitled string) ([]event.Event, error) {
		sn, err := snap(rec)
		if err != nil {
			return nil, err
		}
		raw, err := json.Marshal(sn)
		if err != nil {
			return nil, err
		}
		ev := &event.GraphSnapshot{Base: event.Base{TurnID: turn}, StrategyID: sn.StrategyID, Version: sn.Version, Snapshot: raw}
		if change != nil && change.Op != "" {
			if ev.Change, err = json.Marshal(change); err != nil {
				return nil, err
			}
		}
		if retitled == "" {
			return []event.Event{ev}, nil
		}
		return []event.Event{ev, &event.ConversationRenamed{Base: event.Base{TurnID: turn}, Title: retitled}}, nil
	})
	if ev != nil {
		ev.Title = func(rec store.Strategy) (string, error) {
			sn, err := snap(rec)
			if err != nil {
				return "", err
			}
			return rootName(sn), nil
		}
	}
	return ev
}

// rootName is the title a conversation follows while the researcher has
// not named it: the display name of its strategy's single root step ("",
// no title to follow, while the strategy is empty or not one tree yet).
func rootName(sn strategy.Snapshot) string {
	if sn.RootStepID == "" {
		return ""
	}
	st, ok := sn.Step(sn.RootStepID)
	if !ok {
		return ""
	}
	return st.DisplayName
}

// published hands the events a committed change wrote to live streams.
func (s *Service) published(rows []store.EventRow) {
	if s.events != nil && len(rows) > 0 {
		s.events.Published(rows)
	}
}

// checkRecordType refuses a record type the site does not have.
func (s *Service) checkRecordType(ctx context.Context, siteID, recordType string) error {
	rts, err := s.cat.RecordTypes(ctx, siteID)
	if err != nil {
		return fmt.Errorf("strategy: record types of %s: %w", siteID, err)
	}
	for _, rt := range rts {
		if rt.Name == recordType {
			return nil
		}
	}
	return fmt.Errorf("strategy: new strategy: %w: site %s has no record type %q", strategy.ErrRecordTypeMismatch, siteID, recordType)
}

// Conversation returns the strategy of a conversation; store.ErrNotFound
// when it has none yet.
func (s *Service) Conversation(ctx context.Context, userID, conversationID string) (strategy.Snapshot, error) {
	rec, err := s.store.ConversationStrategy(ctx, userID, conversationID)
	if err != nil {
		return strategy.Snapshot{}, fmt.Errorf("strategy: strategy of conversation %s: %w", conversationID, err)
	}
	return snapshotOf(rec)
}

// Get returns a strategy's current snapshot.
func (s *Service) Get(ctx context.Context, userID, strategyID string) (strategy.Snapshot, error) {
	snap, _, _, err := s.load(ctx, userID, strategyID)
	return snap, err
}

func (s *Service) load(ctx context.Context, userID, strategyID string) (strategy.Snapshot, *strategy.Graph, store.Strategy, error) {
	rec, err := s.store.Strategy(ctx, userID, strategyID)
	if err != nil {
		return strategy.Snapshot{}, nil, rec, fmt.Errorf("strategy: load %s: %w", strategyID, err)
	}
	g, err := strategy.Decode(rec.Graph)
	if err != nil {
		return strategy.Snapshot{}, nil, rec, err
	}
	return snapshotAt(g, rec), g, rec, nil
}

func snapshotOf(rec store.Strategy) (strategy.Snapshot, error) {
	g, err := strategy.Decode(rec.Graph)
	if err != nil {
		return strategy.Snapshot{}, err
	}
	return snapshotAt(g, rec), nil
}

// snapshotAt is g as the stored strategy rec (its id, version and
// conversation).
func snapshotAt(g *strategy.Graph, rec store.Strategy) strategy.Snapshot {
	snap := g.Snapshot(rec.ID, rec.Version)
	snap.ConversationID = rec.ConversationID
	return snap
}

// Apply changes a strategy: it validates m against the catalog, applies it
// to the current graph under the strategy's row lock, counts the steps the
// change affects, stores the result as the next version with its change
// record, and reports the new snapshot through OnChange. A refused mutation
// changes nothing and returns a *StepError.
//
// The catalog work and a first round of counting happen before the lock,
// against the graph as read, so the lock is held for a pure graph update
// and cache hits; only when a concurrent change invalidated what was read
// (an update of the same step) is the mutation prepared again under the
// lock, and a count that failed before the lock is not waited for again
// under it.
func (s *Service) Apply(ctx context.Context, userID, strategyID string, m strategy.Mutation) (Result, error) {
	ctx, span := telemetry.Start(ctx, "strategy.mutate")
	if !span.IsRecording() {
		return s.apply(ctx, userID, strategyID, m)
	}
	span.SetAttributes(telemetry.KeyStrategyID.String(strategyID), telemetry.KeyMutation.String(strings.TrimPrefix(fmt.Sprintf("%T", m), "strategy.")))
	res, err := s.apply(ctx, userID, strategyID, m)
	endMutationSpan(span, res, err)
	return res, err
}

// endMutationSpan records what a mutation changed (or why it was refused)
// and ends its span.
func endMutationSpan(span trace.Span, res Result, err error) {
	if err == nil {
		span.SetName("strategy " + string(res.Change.Op))
		span.SetAttributes(telemetry.KeyVersion.Int(res.Snapshot.Version), attribute.String("strategist.strategy.op", string(res.Change.Op)))
		if res.Change.Step != "" {
			span.SetAttributes(attribute.String("strategist.strategy.step", string(res.Change.Step)))
		}
	}
	telemetry.Fail(span, err)
	span.End()
}

func (s *Service) apply(ctx context.Context, userID, strategyID string, m strategy.Mutation) (Result, error) {
	_, base, _, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return Result{}, err
	}
	p, err := strategy.Prepare(ctx, s.cat, base, m)
	if err != nil {
		return Result{}, err
	}
	failed := map[string]strategy.CountResult{}
	if next, change, err := p.Apply(base); err == nil {
		s.refresh(ctx, next, change.Affected(next), failed) // warms the cache; the result is recomputed under the lock
	}
	var (
		res    Result
		next   *strategy.Graph
		mutErr error
	)
	st := s.report.stripe(strategyID)
	st.mu.Lock()
	defer st.mu.Unlock()
	rec, rows, err := s.store.UpdateStrategy(ctx, userID, strategyID, func(current []byte, version int) ([]byte, []byte, error) {
		g, err := strategy.Decode(current)
		if err != nil {
			mutErr = err
			return nil, nil, err
		}
		if !p.Holds(g) {
			if p, mutErr = strategy.Prepare(ctx, s.cat, g, m); mutErr != nil {
				return nil, nil, mutErr
			}
		}
		var change strategy.Change
		if next, change, mutErr = p.Apply(g); mutErr != nil {
			return nil, nil, mutErr
		}
		next = s.refresh(ctx, next, change.Affected(next), failed)
		change.Turn = event.TurnFrom(ctx)
		res.Change = change
		return encodePair(next, change, &mutErr)
	}, s.logged(ctx, func(rec store.Strategy) (strategy.Snapshot, error) { return snapshotAt(next, rec), nil }, &res.Change))
	if mutErr != nil {
		return Result{}, mutErr
	}
	if err != nil {
		return Result{}, fmt.Errorf("strategy: apply to %s: %w", strategyID, err)
	}
	res.Snapshot = snapshotAt(next, rec)
	s.logCounts(ctx, strategyID, rec.Version, next, res.Change.Affected(next))
	s.published(rows)
	s.report.deliver(ctx, st, res.Snapshot)
	return res, nil
}

// refresh counts ids (and steps without a count) within CountTimeout,
// not asking again for what already failed during this change.
func (s *Service) refresh(ctx context.Context, g *strategy.Graph, ids []strategy.StepID, failed map[string]strategy.CountResult) *strategy.Graph {
	ctx, cancel := context.WithTimeout(ctx, s.countTimeout)
	defer cancel()
	return s.counter.RefreshSkipping(ctx, g, ids, failed)
}

// encodePair encodes a graph and its change record for the store, noting
// an encoding failure in *errp.
func encodePair(g *strategy.Graph, c strategy.Change, errp *error) ([]byte, []byte, error) {
	graph, err := g.Encode()
	if err != nil {
		*errp = err
		return nil, nil, err
	}
	change, err := json.Marshal(c)
	if err != nil {
		*errp = fmt.Errorf("strategy: encode change: %w", err)
		return nil, nil, *errp
	}
	return graph, change, nil
}

func (s *Service) logCounts(ctx context.Context, strategyID string, version int, g *strategy.Graph, ids []strategy.StepID) {
	for _, id := range ids {
		if st, ok := g.Step(id); ok && st.CountStatus == strategy.CountError {
			s.log.WarnContext(ctx, "step count failed", "strategy_id", strategyID, "version", version,
				"step_id", string(id), "message", st.CountMessage)
		}
	}
}

// Rename sets a strategy's name (a versioned change like any other).
func (s *Service) Rename(ctx context.Context, userID, strategyID, name string) (Result, error) {
	return s.Apply(ctx, userID, strategyID, strategy.Rename{Name: name})
}

// Versions lists a strategy's history, oldest first.
func (s *Service) Versions(ctx context.Context, userID, strategyID string) ([]Version, error) {
	vs, err := s.store.StrategyVersions(ctx, userID, strategyID)
	if err != nil {
		return nil, fmt.Errorf("strategy: versions of %s: %w", strategyID, err)
	}
	out := make([]Version, len(vs))
	for i, v := range vs {
		out[i] = Version{Version: v.Version, CreatedAt: v.CreatedAt}
		if err := json.Unmarshal(v.Change, &out[i].Change); err != nil {
			return nil, fmt.Errorf("strategy: versions of %s: decode change %d: %w", strategyID, v.Version, err)
		}
	}
	return out, nil
}

// WDK exports a strategy to WDK's step bodies and stepTree; a strategy
// that is not complete is an *InvalidGraphError listing its problems.
func (s *Service) WDK(ctx context.Context, userID, strategyID string) (*strategy.WDKStrategy, error) {
	_, g, _, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return nil, err
	}
	return g.WDK()
}

// Validate lists every problem of a strategy (an empty list means it is
// complete) along with its snapshot.
func (s *Service) Validate(ctx context.Context, userID, strategyID string) ([]strategy.Problem, strategy.Snapshot, error) {
	snap, g, _, err := s.load(ctx, userID, strategyID)
	if err != nil {
		return nil, strategy.Snapshot{}, err
	}
	return g.Validate(), snap, nil
}

// interface check: the live and offline catalogs satisfy Catalog.
var _ strategy.Catalog = catalog.Catalog(nil)
