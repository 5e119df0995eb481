package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"strategist/internal/catalog"
)

// GeneList is a researcher's named list of genes on a site: the current
// gene ids it resolved to, the identifiers mapped from previous or
// transcript ids, and those that named no gene.
type GeneList struct {
	ID        string              `db:"id" json:"id"`
	UserID    string              `db:"user_id" json:"-"`
	SiteID    string              `db:"site_id" json:"siteId"`
	Name      string              `db:"name" json:"name"`
	Genes     []string            `db:"genes" json:"genes"`
	Unknown   []string            `db:"unknown" json:"unknown"`
	Mapped    []catalog.IDMapping `db:"mapped" json:"mapped"`
	CreatedAt time.Time           `db:"created_at" json:"createdAt"`
	UpdatedAt time.Time           `db:"updated_at" json:"updatedAt"`
}

// GeneListSummary is a list as the researcher's index shows it, without
// its genes.
type GeneListSummary struct {
	ID        string    `db:"id" json:"id"`
	SiteID    string    `db:"site_id" json:"siteId"`
	Name      string    `db:"name" json:"name"`
	Size      int       `db:"size" json:"size"`
	Unknown   int       `db:"unknown" json:"unknownCount"`
	Mapped    int       `db:"mapped" json:"mappedCount"`
	CreatedAt time.Time `db:"created_at" json:"createdAt"`
	UpdatedAt time.Time `db:"updated_at" json:"updatedAt"`
}

const geneListColumns = `l.id, l.user_id, l.site_id, l.name, l.genes, l.unknown, l.mapped, l.created_at, l.updated_at`

const createGeneListSQL = `
INSERT INTO gene_lists AS l (user_id, site_id, name, genes, unknown, mapped) VALUES ($1, $2, $3, $4, $5, $6)
RETURNING ` + geneListColumns

// CreateGeneList stores a resolved list for the user (l's ID, UserID and
// times are set by the database).
func (db *DB) CreateGeneList(ctx context.Context, userID string, l GeneList) (GeneList, error) {
	var out GeneList
	err := db.tx(ctx, "create gene list", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, createGeneListSQL, userID, l.SiteID, l.Name, nonNil(l.Genes), nonNil(l.Unknown), nonNil(l.Mapped))
		var err error
		out, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[GeneList])
		return err
	})
	return out, err
}

// nonNil keeps an empty list an empty array rather than NULL.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

const geneListsSQL = `
SELECT l.id, l.site_id, l.name, cardinality(l.genes) AS size, cardinality(l.unknown) AS unknown,
	jsonb_array_length(l.mapped) AS mapped, l.created_at, l.updated_at
FROM gene_lists l WHERE l.user_id = $1
ORDER BY l.created_at DESC, l.id`

// GeneLists lists the user's gene lists, newest first.
func (db *DB) GeneLists(ctx context.Context, userID string) ([]GeneListSummary, error) {
	ls, err := collect(ctx, db, pgx.RowToStructByName[GeneListSummary], geneListsSQL, userID)
	return ls, translate("gene lists", err)
}

const geneListSQL = `SELECT ` + geneListColumns + ` FROM gene_lists l WHERE l.id = $1 AND l.user_id = $2`

// GeneList returns one of the user's lists with its genes; another user's
// (or a malformed id) is ErrNotFound.
func (db *DB) GeneList(ctx context.Context, userID, id string) (GeneList, error) {
	l, err := collectOne(ctx, db, pgx.RowToStructByName[GeneList], geneListSQL, id, userID)
	return l, translate("gene list", err)
}

const renameGeneListSQL = `
UPDATE gene_lists l SET name = $3, updated_at = now() WHERE l.id = $1 AND l.user_id = $2
RETURNING ` + geneListColumns

// RenameGeneList renames one of the user's lists; another user's is
// ErrNotFound.
func (db *DB) RenameGeneList(ctx context.Context, userID, id, name string) (GeneList, error) {
	var out GeneList
	err := db.tx(ctx, "rename gene list", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, renameGeneListSQL, id, userID, name)
		var err error
		out, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[GeneList])
		return err
	})
	return out, err
}

const deleteGeneListSQL = `DELETE FROM gene_lists WHERE id = $1 AND user_id = $2`

// listControlsSQL finds the user's conversations that use a list as a
// control, before it is deleted.
const listControlsSQL = `
SELECT cc.conversation_id FROM conversation_controls cc
JOIN conversations c ON c.id = cc.conversation_id AND c.user_id = $2
WHERE $1::uuid IN (cc.positives, cc.negatives)
ORDER BY cc.conversation_id`

// DeleteGeneList deletes one of the user's lists; conversations that used
// it as a control no longer have that control, and their ids are returned
// so their streams can say so. Another user's list is ErrNotFound.
func (db *DB) DeleteGeneList(ctx context.Context, userID, id string) ([]string, error) {
	var convs []string
	err := db.tx(ctx, "delete gene list", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, listControlsSQL, id, userID)
		var err error
		if convs, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, deleteGeneListSQL, id, userID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return convs, nil
}

// Controls are a conversation's control lists; nil means none.
type Controls struct {
	Positives *GeneList
	Negatives *GeneList
}

// setControlsSQL sets the controls of the user's conversation, only when
// each list given is also the user's.
const setControlsSQL = `
INSERT INTO conversation_controls (conversation_id, positives, negatives)
SELECT c.id, $3::uuid, $4::uuid FROM conversations c
WHERE c.id = $1 AND c.user_id = $2
	AND ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM gene_lists WHERE id = $3::uuid AND user_id = $2))
	AND ($4::uuid IS NULL OR EXISTS (SELECT 1 FROM gene_lists WHERE id = $4::uuid AND user_id = $2))
ON CONFLICT (conversation_id) DO UPDATE SET positives = EXCLUDED.positives, negatives = EXCLUDED.negatives, updated_at = now()`

// SetControls sets the positive and negative control lists of the user's
// conversation (nil: none) and returns them. A conversation or list that
// is not the user's is ErrNotFound and changes nothing.
func (db *DB) SetControls(ctx context.Context, userID, conversationID string, positives, negatives *string) (Controls, error) {
	var out Controls
	err := db.tx(ctx, "set controls", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, setControlsSQL, conversationID, userID, positives, negatives)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		out, err = controls(ctx, tx, userID, conversationID)
		return err
	})
	return out, err
}

// ConversationControls returns the control lists of the user's
// conversation; a conversation without any has none (not an error).
func (db *DB) ConversationControls(ctx context.Context, userID, conversationID string) (Controls, error) {
	var out Controls
	err := db.tx(ctx, "conversation controls", func(tx pgx.Tx) error {
		var err error
		out, err = controls(ctx, tx, userID, conversationID)
		return err
	})
	return out, err
}

const controlListsSQL = `
SELECT ` + geneListColumns + `, side.positive
FROM conversation_controls cc
JOIN conversations c ON c.id = cc.conversation_id AND c.user_id = $2
CROSS JOIN LATERAL (VALUES (cc.positives, true), (cc.negatives, false)) AS side (list_id, positive)
JOIN gene_lists l ON l.id = side.list_id AND l.user_id = $2
WHERE cc.conversation_id = $1`

// controlList is a control list with the side it is on.
type controlList struct {
	GeneList
	Positive bool `db:"positive"`
}

func controls(ctx context.Context, tx pgx.Tx, userID, conversationID string) (Controls, error) {
	rows, _ := tx.Query(ctx, controlListsSQL, conversationID, userID)
	ls, err := pgx.CollectRows(rows, pgx.RowToStructByName[controlList])
	if err != nil {
		return Controls{}, err
	}
	var out Controls
	for i := range ls {
		if ls[i].Positive {
			out.Positives = &ls[i].GeneList
		} else {
			out.Negatives = &ls[i].GeneList
		}
	}
	return out, nil
}
