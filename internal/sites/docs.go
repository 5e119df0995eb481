package sites

import (
	"context"
	"errors"
	"fmt"
	"time"

	"strategist/internal/catalog/wdk"
	"strategist/internal/store"
)

// CatalogDocStore keeps the live sites' catalog documents (*store.DB).
type CatalogDocStore interface {
	CatalogDoc(ctx context.Context, siteID, key string) (store.CatalogDoc, error)
	PutCatalogDoc(ctx context.Context, d store.CatalogDoc) error
	TouchCatalogDoc(ctx context.Context, siteID, key string, expiresAt time.Time) error
	DeleteCatalogDoc(ctx context.Context, siteID, key string) error
}

// DocCache is the WDK client's wdk.DocCache over the store, so every server
// process (and the next start) shares the catalog documents one fetched.
type DocCache struct {
	db CatalogDocStore
}

// NewDocCache returns the document cache over db.
func NewDocCache(db CatalogDocStore) *DocCache { return &DocCache{db: db} }

var _ wdk.DocCache = (*DocCache)(nil)

// Get returns a stored document; none is wdk.ErrNoDoc.
func (c *DocCache) Get(ctx context.Context, site, key string) (wdk.Doc, error) {
	d, err := c.db.CatalogDoc(ctx, site, key)
	if errors.Is(err, store.ErrNotFound) {
		return wdk.Doc{}, fmt.Errorf("%w: %w", wdk.ErrNoDoc, err)
	}
	if err != nil {
		return wdk.Doc{}, err
	}
	return wdk.Doc{Body: d.Body, ETag: d.ETag, LastModified: d.LastModified, FetchedAt: d.FetchedAt, ExpiresAt: d.ExpiresAt}, nil
}

// Put saves or replaces a document.
func (c *DocCache) Put(ctx context.Context, site, key string, d wdk.Doc) error {
	return c.db.PutCatalogDoc(ctx, store.CatalogDoc{SiteID: site, Key: key, Body: d.Body, ETag: d.ETag,
		LastModified: d.LastModified, FetchedAt: d.FetchedAt, ExpiresAt: d.ExpiresAt})
}

// Touch moves a document's expiry. A document removed meanwhile (another
// server found it gone) is no error: there is nothing left to extend.
func (c *DocCache) Touch(ctx context.Context, site, key string, expiresAt time.Time) error {
	if err := c.db.TouchCatalogDoc(ctx, site, key, expiresAt); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// Delete removes a document.
func (c *DocCache) Delete(ctx context.Context, site, key string) error {
	return c.db.DeleteCatalogDoc(ctx, site, key)
}
