package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"strategist/internal/event"
)

// ArtifactKind says what an artifact is (event.ArtifactKind: the stream
// and the store speak of the same kinds); the artifacts table's CHECK
// constraint lists the same kinds.
type ArtifactKind = event.ArtifactKind

// The artifact kinds.
const (
	ArtifactPlanning        = event.ArtifactPlanning
	ArtifactDelegationDraft = event.ArtifactDelegationDraft
)

// Artifact is a planning artifact or a delegation draft. Body is the
// artifact's JSON (summary, assumptions, parameters, plan, validation).
type Artifact struct {
	ID             string          `db:"id" json:"id"`
	ConversationID string          `db:"conversation_id" json:"conversationId"`
	TurnID         *string         `db:"turn_id" json:"turnId,omitempty"`
	Kind           ArtifactKind    `db:"kind" json:"kind"`
	Title          string          `db:"title" json:"title"`
	Body           json.RawMessage `db:"body" json:"body"`
	Version        int             `db:"version" json:"version"`
	CreatedAt      time.Time       `db:"created_at" json:"createdAt"`
	UpdatedAt      time.Time       `db:"updated_at" json:"updatedAt"`
}

const artifactColumns = `a.id, a.conversation_id, a.turn_id, a.kind, a.title, a.body, a.version, a.created_at, a.updated_at`

// SaveArtifact is what SaveArtifact writes.
type SaveArtifact struct {
	UserID         string
	ConversationID string
	TurnID         string
	// ID names the artifact to revise; "" creates one. A conversation has
	// one delegation draft: saving a draft without an ID revises it.
	ID    string
	Kind  ArtifactKind
	Title string
	Body  json.RawMessage
}

const findArtifactOfKindSQL = `
SELECT id FROM artifacts WHERE conversation_id = $1 AND kind = $2
ORDER BY created_at LIMIT 1`

const insertArtifactSQL = `
INSERT INTO artifacts (conversation_id, turn_id, kind, title, body) VALUES ($1, $2, $3, $4, $5)
RETURNING id`

const reviseArtifactSQL = `
UPDATE artifacts SET title = $3, body = $4, turn_id = $5, version = version + 1, updated_at = now()
WHERE id = $1 AND conversation_id = $2 AND kind = $6
RETURNING id`

const insertArtifactVersionSQL = `
INSERT INTO artifact_versions (artifact_id, version, title, body)
SELECT id, version, title, body FROM artifacts WHERE id = $1`

const artifactByIDSQL = `SELECT ` + artifactColumns + ` FROM artifacts a WHERE a.id = $1`

// SaveArtifact creates or revises an artifact, keeping every version.
func (db *DB) SaveArtifact(ctx context.Context, sa SaveArtifact) (Artifact, error) {
	var out Artifact
	err := db.tx(ctx, "save artifact", func(tx pgx.Tx) error {
		var id string
		if err := tx.QueryRow(ctx, lockConversationSQL, sa.ConversationID, sa.UserID).Scan(&id); err != nil {
			return err
		}
		target := sa.ID
		if target == "" && sa.Kind == ArtifactDelegationDraft {
			err := tx.QueryRow(ctx, findArtifactOfKindSQL, sa.ConversationID, sa.Kind).Scan(&target)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		var turn any
		if sa.TurnID != "" {
			turn = sa.TurnID
		}
		if target == "" {
			if err := tx.QueryRow(ctx, insertArtifactSQL, sa.ConversationID, turn, sa.Kind, sa.Title, sa.Body).Scan(&id); err != nil {
				return err
			}
		} else if err := tx.QueryRow(ctx, reviseArtifactSQL, target, sa.ConversationID, sa.Title, sa.Body, turn, sa.Kind).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, insertArtifactVersionSQL, id); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, artifactByIDSQL, id)
		var err error
		out, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Artifact])
		return err
	})
	return out, err
}

const artifactsSQL = `
SELECT ` + artifactColumns + ` FROM artifacts a JOIN conversations c ON c.id = a.conversation_id
WHERE a.conversation_id = $1 AND c.user_id = $2 ORDER BY a.created_at, a.id`

// Artifacts lists a conversation's artifacts (latest versions), oldest first.
func (db *DB) Artifacts(ctx context.Context, userID, conversationID string) ([]Artifact, error) {
	as, err := collect(ctx, db, pgx.RowToStructByName[Artifact], artifactsSQL, conversationID, userID)
	return as, translate("artifacts", err)
}

const artifactSQL = `
SELECT ` + artifactColumns + ` FROM artifacts a JOIN conversations c ON c.id = a.conversation_id
WHERE a.id = $1 AND a.conversation_id = $2 AND c.user_id = $3`

// Artifact returns one artifact of the user's conversation.
func (db *DB) Artifact(ctx context.Context, userID, conversationID, id string) (Artifact, error) {
	a, err := collectOne(ctx, db, pgx.RowToStructByName[Artifact], artifactSQL, id, conversationID, userID)
	return a, translate("artifact", err)
}

// Handoff is the planner's request that a plan be built.
type Handoff struct {
	ID              string          `db:"id" json:"id"`
	ConversationID  string          `db:"conversation_id" json:"conversationId"`
	ArtifactID      *string         `db:"artifact_id" json:"artifactId"`
	RequestedTurnID *string         `db:"requested_turn_id" json:"requestedTurnId"`
	ExecuteTurnID   *string         `db:"execute_turn_id" json:"executeTurnId"`
	Goal            string          `db:"goal" json:"goal"`
	Plan            json.RawMessage `db:"plan" json:"plan"`
	Status          HandoffStatus   `db:"status" json:"status"`
	CreatedAt       time.Time       `db:"created_at" json:"createdAt"`
	DecidedAt       *time.Time      `db:"decided_at" json:"decidedAt,omitempty"`
}

const handoffColumns = `h.id, h.conversation_id, h.artifact_id, h.requested_turn_id, h.execute_turn_id, h.goal, h.plan, h.status, h.created_at, h.decided_at`

const supersedeHandoffsSQL = `
UPDATE handoffs SET status = 'superseded', decided_at = now()
WHERE conversation_id = $1 AND status = 'pending'`

const insertHandoffSQL = `
INSERT INTO handoffs (conversation_id, artifact_id, requested_turn_id, goal, plan) VALUES ($1, $2, $3, $4, $5)
RETURNING id`

const handoffByIDSQL = `SELECT ` + handoffColumns + ` FROM handoffs h WHERE h.id = $1`

// CreateHandoff records a pending handoff, superseding any earlier pending
// one of the conversation: only the latest plan can be approved.
func (db *DB) CreateHandoff(ctx context.Context, userID, conversationID, artifactID, turnID, goal string, plan json.RawMessage) (Handoff, error) {
	var h Handoff
	err := db.tx(ctx, "create handoff", func(tx pgx.Tx) error {
		var id string
		if err := tx.QueryRow(ctx, lockConversationSQL, conversationID, userID).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, supersedeHandoffsSQL, conversationID); err != nil {
			return err
		}
		var turn any
		if turnID != "" {
			turn = turnID
		}
		if err := tx.QueryRow(ctx, insertHandoffSQL, conversationID, artifactID, turn, goal, plan).Scan(&id); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, handoffByIDSQL, id)
		var err error
		h, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Handoff])
		return err
	})
	return h, err
}

const handoffSQL = `
SELECT ` + handoffColumns + ` FROM handoffs h JOIN conversations c ON c.id = h.conversation_id
WHERE h.id = $1 AND h.conversation_id = $2 AND c.user_id = $3`

// Handoff returns one handoff of the user's conversation.
func (db *DB) Handoff(ctx context.Context, userID, conversationID, id string) (Handoff, error) {
	h, err := collectOne(ctx, db, pgx.RowToStructByName[Handoff], handoffSQL, id, conversationID, userID)
	return h, translate("handoff", err)
}

const handoffsSQL = `
SELECT ` + handoffColumns + ` FROM handoffs h JOIN conversations c ON c.id = h.conversation_id
WHERE h.conversation_id = $1 AND c.user_id = $2 ORDER BY h.created_at, h.id`

// Handoffs lists a conversation's handoffs, oldest first.
func (db *DB) Handoffs(ctx context.Context, userID, conversationID string) ([]Handoff, error) {
	hs, err := collect(ctx, db, pgx.RowToStructByName[Handoff], handoffsSQL, conversationID, userID)
	return hs, translate("handoffs", err)
}

// UndecidedHandoff is a pending handoff whose plan turn completed as the
// latest turn of its conversation: with auto-approval, a build that has not
// started yet.
type UndecidedHandoff struct {
	ID             string `db:"id"`
	ConversationID string `db:"conversation_id"`
	UserID         string `db:"user_id"`
}

// undecidedHandoffsSQL finds the pending handoffs requested by plan turns
// that completed within the last hour and are still their conversation's
// latest turn (the researcher has not gone on since).
const undecidedHandoffsSQL = `
SELECT h.id, h.conversation_id, c.user_id
FROM handoffs h
JOIN turns t ON t.id = h.requested_turn_id
JOIN conversations c ON c.id = h.conversation_id
WHERE h.status = 'pending' AND t.mode = 'plan' AND t.status = 'completed'
  AND t.ended_at > now() - interval '1 hour'
  AND NOT EXISTS (SELECT 1 FROM turns l WHERE l.conversation_id = t.conversation_id AND l.started_at > t.started_at)
ORDER BY t.ended_at`

// UndecidedHandoffs lists the handoffs an auto-approving server has not
// accepted yet: the plan turn ended, and the process that ran it stopped or
// failed before it accepted the plan.
func (db *DB) UndecidedHandoffs(ctx context.Context) ([]UndecidedHandoff, error) {
	hs, err := collect(ctx, db, pgx.RowToStructByName[UndecidedHandoff], undecidedHandoffsSQL)
	return hs, translate("undecided handoffs", err)
}
