package store

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// Strategy is a persisted strategy graph. Graph is the strategy package's
// JSON document, opaque here; Name mirrors the graph's name for listings.
// A strategy belongs to its conversation's user.
type Strategy struct {
	ID             string    `db:"id"`
	ConversationID string    `db:"conversation_id"`
	SiteID         string    `db:"site_id"`
	RecordType     string    `db:"record_type"`
	Name           string    `db:"name"`
	Graph          []byte    `db:"graph"`
	Version        int       `db:"version"`
	CreatedAt      time.Time `db:"created_at"`
	UpdatedAt      time.Time `db:"updated_at"`
}

// StrategyVersion is one recorded version of a strategy: the whole graph as
// it was after the change, and the change record (both JSON documents of
// the strategy package). Version 0 is the strategy's creation.
type StrategyVersion struct {
	Version   int       `db:"version"`
	Graph     []byte    `db:"graph"` // nil in StrategyVersions listings
	Change    []byte    `db:"change"`
	CreatedAt time.Time `db:"created_at"`
}

// StrategyEvents asks a strategy write to record itself in the
// conversation's event log in its own transaction, so that the log and the
// stored strategy can never disagree, whatever crashes when. Make builds
// the events from the row as stored; Origin names this process (see
// AppendEvents). The write returns the appended rows for the caller to
// publish after the commit.
//
// Title, when set, gives the title the conversation follows after the
// write (its root step's name; "" for none): a conversation the researcher
// has not named (title_set) takes it in the same transaction, and Make is
// told the new title (retitled, "" when the title stays) to record it.
type StrategyEvents struct {
	Origin string
	Make   func(s Strategy, retitled string) ([]NewEvent, error)
	Title  func(s Strategy) (string, error)
}

// followTitleSQL gives a conversation the researcher has not named the
// title its strategy suggests; no row when it keeps its title.
const followTitleSQL = `
UPDATE conversations SET title = $2, updated_at = now()
WHERE id = $1 AND NOT title_set AND title <> $2
RETURNING title`

// append lets the conversation's title follow the strategy and writes ev's
// events for s inside tx (none when ev is nil).
func (ev *StrategyEvents) append(ctx context.Context, tx pgx.Tx, s Strategy) ([]EventRow, error) {
	if ev == nil {
		return nil, nil
	}
	retitled, err := ev.followTitle(ctx, tx, s)
	if err != nil {
		return nil, err
	}
	batch, err := ev.Make(s, retitled)
	if err != nil || len(batch) == 0 {
		return nil, err
	}
	return appendEventsTx(ctx, tx, ev.Origin, batch)
}

// followTitle retitles s's conversation after ev.Title unless the
// researcher named it, and returns the new title ("" when it stays).
func (ev *StrategyEvents) followTitle(ctx context.Context, tx pgx.Tx, s Strategy) (string, error) {
	if ev.Title == nil {
		return "", nil
	}
	title, err := ev.Title(s)
	if err != nil {
		return "", err
	}
	title = clipTitle(strings.TrimSpace(title))
	if title == "" {
		return "", nil
	}
	var got string
	err = tx.QueryRow(ctx, followTitleSQL, s.ConversationID, title).Scan(&got)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return got, err
}

// maxTitle is the longest title a conversation holds, in characters.
const maxTitle = 200

// clipTitle shortens a title longer than maxTitle, ending it with "…".
func clipTitle(t string) string {
	if utf8.RuneCountInString(t) <= maxTitle {
		return t
	}
	r := []rune(t)
	return strings.TrimSpace(string(r[:maxTitle-1])) + "…"
}

const strategyColumns = `s.id, s.conversation_id, s.site_id, s.record_type, s.name, s.graph, s.version, s.created_at, s.updated_at`

const lockConversationForStrategySQL = `
SELECT site_id, strategy_id FROM conversations WHERE id = $1 AND user_id = $2 FOR UPDATE`

const ownedStrategySQL = `
SELECT ` + strategyColumns + `
FROM strategies s JOIN conversations c ON c.id = s.conversation_id
WHERE s.id = $1 AND c.user_id = $2`

const insertStrategySQL = `
WITH s AS (
    INSERT INTO strategies (conversation_id, site_id, record_type, name, graph, version)
    VALUES ($1, $2, $3, coalesce($4::jsonb->>'name', ''), $4, 0)
    RETURNING *
)
SELECT ` + strategyColumns + ` FROM s`

const insertStrategyVersionSQL = `
INSERT INTO strategy_versions (strategy_id, version, graph, change) VALUES ($1, $2, $3, $4)`

const linkConversationStrategySQL = `
UPDATE conversations SET strategy_id = $2, updated_at = now() WHERE id = $1`

// CreateConversationStrategy returns the strategy of a user's conversation,
// creating it (version 0, recorded in strategy_versions, linked from
// conversations.strategy_id) when the conversation has none. build makes
// the initial graph and change record for the conversation's site; it runs
// inside the transaction, with the conversation row locked so that two
// concurrent callers end up with one strategy. created reports whether this
// call made it. events, when not nil, records a created strategy in the
// log in the same transaction; its rows are returned.
func (db *DB) CreateConversationStrategy(ctx context.Context, userID, conversationID, recordType string,
	build func(siteID string) (graph, change []byte, err error), events *StrategyEvents) (s Strategy, created bool, logged []EventRow, err error) {
	err = db.tx(ctx, "create conversation strategy", func(tx pgx.Tx) error {
		var (
			siteID     string
			strategyID *string
		)
		if err := tx.QueryRow(ctx, lockConversationForStrategySQL, conversationID, userID).Scan(&siteID, &strategyID); err != nil {
			return err
		}
		if strategyID != nil {
			var err error
			s, err = ownedStrategy(ctx, tx, userID, *strategyID)
			return err
		}
		graph, change, err := build(siteID)
		if err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, insertStrategySQL, conversationID, siteID, recordType, graph)
		if s, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Strategy]); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, insertStrategyVersionSQL, s.ID, 0, graph, change); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, linkConversationStrategySQL, conversationID, s.ID); err != nil {
			return err
		}
		created = true
		logged, err = events.append(ctx, tx, s)
		return err
	})
	return s, created, logged, err
}

func ownedStrategy(ctx context.Context, q pgx.Tx, userID, strategyID string) (Strategy, error) {
	rows, _ := q.Query(ctx, ownedStrategySQL, strategyID, userID)
	return pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Strategy])
}

// Strategy returns one of the user's strategies; another user's is
// ErrNotFound.
func (db *DB) Strategy(ctx context.Context, userID, strategyID string) (Strategy, error) {
	s, err := collectOne(ctx, db, pgx.RowToStructByName[Strategy], ownedStrategySQL, strategyID, userID)
	return s, translate("strategy", err)
}

const conversationStrategySQL = `
SELECT ` + strategyColumns + `
FROM conversations c JOIN strategies s ON s.id = c.strategy_id
WHERE c.id = $1 AND c.user_id = $2`

// ConversationStrategy returns the strategy linked to a user's
// conversation; ErrNotFound when it has none yet (or is not the user's).
func (db *DB) ConversationStrategy(ctx context.Context, userID, conversationID string) (Strategy, error) {
	s, err := collectOne(ctx, db, pgx.RowToStructByName[Strategy], conversationStrategySQL, conversationID, userID)
	return s, translate("conversation strategy", err)
}

const lockStrategySQL = `
SELECT s.graph, s.version
FROM strategies s JOIN conversations c ON c.id = s.conversation_id
WHERE s.id = $1 AND c.user_id = $2
FOR UPDATE OF s`

const updateStrategySQL = `
WITH s AS (
    UPDATE strategies
    SET graph = $2, name = coalesce($2::jsonb->>'name', name), version = $3, updated_at = now()
    WHERE id = $1
    RETURNING *
)
SELECT ` + strategyColumns + ` FROM s`

// UpdateStrategy is the locked read-modify-write of a strategy: in one
// transaction it locks the strategy row (SELECT ... FOR UPDATE), passes the
// current graph and version to fn, and stores fn's graph as version+1 with
// a strategy_versions row holding the graph and fn's change record.
// Concurrent writers, in this process or another, queue on the lock, so
// versions are contiguous and no change is lost. An error from fn rolls
// everything back and is returned wrapped. events, when not nil, records
// the new version in the log in the same transaction; its rows are
// returned.
func (db *DB) UpdateStrategy(ctx context.Context, userID, strategyID string,
	fn func(current []byte, version int) (next, change []byte, err error), events *StrategyEvents) (Strategy, []EventRow, error) {
	var (
		s      Strategy
		logged []EventRow
	)
	err := db.tx(ctx, "update strategy", func(tx pgx.Tx) error {
		var (
			current []byte
			version int
		)
		if err := tx.QueryRow(ctx, lockStrategySQL, strategyID, userID).Scan(&current, &version); err != nil {
			return err
		}
		next, change, err := fn(current, version)
		if err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, updateStrategySQL, strategyID, next, version+1)
		if s, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Strategy]); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, insertStrategyVersionSQL, strategyID, version+1, next, change); err != nil {
			return err
		}
		logged, err = events.append(ctx, tx, s)
		return err
	})
	return s, logged, err
}

const strategyVersionsSQL = `
SELECT v.version, v.change, v.created_at
FROM strategy_versions v
JOIN strategies s ON s.id = v.strategy_id
JOIN conversations c ON c.id = s.conversation_id
WHERE v.strategy_id = $1 AND c.user_id = $2
ORDER BY v.version`

// StrategyVersions lists a strategy's versions, oldest first, without their
// graphs. Every strategy has version 0, so an empty list means the strategy
// is not the user's: ErrNotFound.
func (db *DB) StrategyVersions(ctx context.Context, userID, strategyID string) ([]StrategyVersion, error) {
	vs, err := collect(ctx, db, pgx.RowToStructByNameLax[StrategyVersion], strategyVersionsSQL, strategyID, userID)
	if err == nil && len(vs) == 0 {
		err = ErrNotFound
	}
	return vs, translate("strategy versions", err)
}

const strategyVersionSQL = `
SELECT v.version, v.graph, v.change, v.created_at
FROM strategy_versions v
JOIN strategies s ON s.id = v.strategy_id
JOIN conversations c ON c.id = s.conversation_id
WHERE v.strategy_id = $1 AND c.user_id = $2 AND v.version = $3`

// StrategyVersion returns one version of a user's strategy with its graph.
func (db *DB) StrategyVersion(ctx context.Context, userID, strategyID string, version int) (StrategyVersion, error) {
	v, err := collectOne(ctx, db, pgx.RowToStructByName[StrategyVersion], strategyVersionSQL, strategyID, userID, version)
	return v, translate("strategy version", err)
}

const recentStrategyVersionsSQL = `
SELECT v.version, v.graph, v.change, v.created_at
FROM strategy_versions v
JOIN strategies s ON s.id = v.strategy_id
JOIN conversations c ON c.id = s.conversation_id
WHERE v.strategy_id = $1 AND c.user_id = $2 AND v.version < $3
ORDER BY v.version DESC
LIMIT $4`

// RecentStrategyVersions returns, in one query, up to limit versions of a
// user's strategy from before version before, newest first, with their
// graphs. The list is empty when there are none, or when the strategy is
// not the user's.
func (db *DB) RecentStrategyVersions(ctx context.Context, userID, strategyID string, before, limit int) ([]StrategyVersion, error) {
	vs, err := collect(ctx, db, pgx.RowToStructByName[StrategyVersion], recentStrategyVersionsSQL, strategyID, userID, before, limit)
	return vs, translate("recent strategy versions", err)
}
