package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// CatalogDoc is one catalog document of a live site as WDK sent it: the
// same for every registered user, so it is shared by all of them and by
// every server process. It never holds anything of a user's.
type CatalogDoc struct {
	SiteID string `db:"site_id"`
	// Key names the document within the site (the WDK client uses its URL).
	Key  string `db:"doc_key"`
	Body []byte `db:"body"`
	// ETag and LastModified are the site's validators, "" when it sent none.
	ETag         string    `db:"etag"`
	LastModified string    `db:"last_modified"`
	FetchedAt    time.Time `db:"fetched_at"`
	ExpiresAt    time.Time `db:"expires_at"`
}

const putCatalogDocSQL = `
INSERT INTO catalog_docs (site_id, doc_key, body, etag, last_modified, fetched_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (site_id, doc_key) DO UPDATE
SET body = EXCLUDED.body, etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified,
    fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at`

// PutCatalogDoc saves (or replaces) a catalog document.
func (db *DB) PutCatalogDoc(ctx context.Context, d CatalogDoc) error {
	return db.tx(ctx, "put catalog doc", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, putCatalogDocSQL, d.SiteID, d.Key, d.Body, d.ETag, d.LastModified, d.FetchedAt, d.ExpiresAt)
		return err
	})
}

const catalogDocSQL = `
SELECT site_id, doc_key, body, etag, last_modified, fetched_at, expires_at
FROM catalog_docs WHERE site_id = $1 AND doc_key = $2`

// CatalogDoc returns a stored catalog document, expired or not (the caller
// revalidates an expired one with its ETag); none is ErrNotFound.
func (db *DB) CatalogDoc(ctx context.Context, siteID, key string) (CatalogDoc, error) {
	var d CatalogDoc
	err := db.tx(ctx, "get catalog doc", func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, catalogDocSQL, siteID, key)
		var err error
		d, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[CatalogDoc])
		return err
	})
	return d, err
}

const touchCatalogDocSQL = `UPDATE catalog_docs SET expires_at = $3 WHERE site_id = $1 AND doc_key = $2`

// TouchCatalogDoc moves a document's expiry, when the site said it has not
// changed (304); none is ErrNotFound.
func (db *DB) TouchCatalogDoc(ctx context.Context, siteID, key string, expiresAt time.Time) error {
	return db.tx(ctx, "touch catalog doc", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, touchCatalogDocSQL, siteID, key, expiresAt)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return nil
	})
}

const deleteCatalogDocSQL = `DELETE FROM catalog_docs WHERE site_id = $1 AND doc_key = $2`

// DeleteCatalogDoc removes a document the site no longer has (or one that
// names what it no longer has). Removing one that is not stored is not an
// error: two servers may both notice.
func (db *DB) DeleteCatalogDoc(ctx context.Context, siteID, key string) error {
	return db.tx(ctx, "delete catalog doc", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, deleteCatalogDocSQL, siteID, key)
		return err
	})
}
