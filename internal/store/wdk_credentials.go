package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// WDKCredential is a user's VEuPathDB API key for one site, sealed by the
// server before it gets here: the store keeps bytes and never sees the token.
type WDKCredential struct {
	UserID     string `db:"user_id"`
	SiteID     string `db:"site_id"`
	Ciphertext []byte `db:"ciphertext"`
	// WDKUserID is the numeric VEuPathDB account id the token resolved to
	// when it was saved (nil if it was not checked).
	WDKUserID *int64    `db:"wdk_user_id"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

const putWDKCredentialSQL = `
INSERT INTO wdk_credentials (user_id, site_id, ciphertext, wdk_user_id)
VALUES ($1, $2, $3, $4)
ON CONFLICT (user_id, site_id) DO UPDATE
SET ciphertext = EXCLUDED.ciphertext, wdk_user_id = EXCLUDED.wdk_user_id, updated_at = now()
RETURNING user_id, site_id, ciphertext, wdk_user_id, created_at, updated_at`

// PutWDKCredential saves (or replaces) the user's sealed token for a site.
// wdkUserID is the VEuPathDB account the token belongs to, nil if unknown.
func (db *DB) PutWDKCredential(ctx context.Context, userID, siteID string, ciphertext []byte, wdkUserID *int64) (WDKCredential, error) {
	var c WDKCredential
	err := db.tx(ctx, "put wdk credential", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, putWDKCredentialSQL, userID, siteID, ciphertext, wdkUserID)
		var err error
		c, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[WDKCredential])
		return err
	})
	return c, err
}

const wdkCredentialSQL = `
SELECT user_id, site_id, ciphertext, wdk_user_id, created_at, updated_at
FROM wdk_credentials WHERE user_id = $1 AND site_id = $2`

// WDKCredential returns the user's sealed token for a site; none is
// ErrNotFound.
func (db *DB) WDKCredential(ctx context.Context, userID, siteID string) (WDKCredential, error) {
	var c WDKCredential
	err := db.tx(ctx, "get wdk credential", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, wdkCredentialSQL, userID, siteID)
		var err error
		c, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[WDKCredential])
		return err
	})
	return c, err
}

const listWDKCredentialsSQL = `
SELECT user_id, site_id, ciphertext, wdk_user_id, created_at, updated_at
FROM wdk_credentials WHERE user_id = $1 ORDER BY site_id`

// WDKCredentials lists the user's sealed tokens, one per site, so a
// settings page can show which sites have a key.
func (db *DB) WDKCredentials(ctx context.Context, userID string) ([]WDKCredential, error) {
	var cs []WDKCredential
	err := db.tx(ctx, "list wdk credentials", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, listWDKCredentialsSQL, userID)
		var err error
		cs, err = pgx.CollectRows(rows, pgx.RowToStructByName[WDKCredential])
		return err
	})
	return cs, err
}

const deleteWDKCredentialSQL = `DELETE FROM wdk_credentials WHERE user_id = $1 AND site_id = $2`

// DeleteWDKCredential removes the user's token for a site; none is
// ErrNotFound.
func (db *DB) DeleteWDKCredential(ctx context.Context, userID, siteID string) error {
	return db.tx(ctx, "delete wdk credential", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, deleteWDKCredentialSQL, userID, siteID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return nil
	})
}
