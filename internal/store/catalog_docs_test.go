package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/pgtest"
	"strategist/internal/store"
)

func TestCatalogDocs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	const key = "https://plasmodb.org/plasmo/service/record-types/transcript/searches"
	if _, err := db.CatalogDoc(ctx, "plasmodb-live", key); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("CatalogDoc of nothing = %v, want ErrNotFound", err)
	}

	// Times at microseconds: what timestamptz keeps.
	fetched := time.Date(2026, 11, 2, 9, 30, 0, 123000, time.UTC)
	first := store.CatalogDoc{SiteID: "plasmodb-live", Key: key, Body: []byte(`[{"urlSegment":"GenesByTaxon"}]`),
		ETag: `"v1"`, LastModified: "Mon, 02 Nov 2026 09:00:00 GMT", FetchedAt: fetched, ExpiresAt: fetched.Add(24 * time.Hour)}
	if err := db.PutCatalogDoc(ctx, first); err != nil {
		t.Fatal(err)
	}
	// Another site's document under the same key is another row.
	other := first
	other.SiteID, other.Body, other.ETag = "toxodb-live", []byte(`[]`), ""
	if err := db.PutCatalogDoc(ctx, other); err != nil {
		t.Fatal(err)
	}
	got, err := db.CatalogDoc(ctx, "plasmodb-live", key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, got, timesEqual); diff != "" {
		t.Errorf("CatalogDoc() mismatch (-want +got):\n%s", diff)
	}

	// A 304 moves the expiry only.
	later := fetched.Add(48 * time.Hour)
	if err := db.TouchCatalogDoc(ctx, "plasmodb-live", key, later); err != nil {
		t.Fatal(err)
	}
	touched := first
	touched.ExpiresAt = later
	got, _ = db.CatalogDoc(ctx, "plasmodb-live", key)
	if diff := cmp.Diff(touched, got, timesEqual); diff != "" {
		t.Errorf("after Touch, CatalogDoc() mismatch (-want +got):\n%s", diff)
	}

	// A 200 replaces the row, validators included.
	second := store.CatalogDoc{SiteID: "plasmodb-live", Key: key, Body: []byte(`[]`), FetchedAt: later, ExpiresAt: later.Add(time.Hour)}
	if err := db.PutCatalogDoc(ctx, second); err != nil {
		t.Fatal(err)
	}
	got, _ = db.CatalogDoc(ctx, "plasmodb-live", key)
	if diff := cmp.Diff(second, got, timesEqual); diff != "" {
		t.Errorf("after a second Put, CatalogDoc() mismatch (-want +got):\n%s", diff)
	}

	if err := db.DeleteCatalogDoc(ctx, "plasmodb-live", key); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteCatalogDoc(ctx, "plasmodb-live", key); err != nil {
		t.Errorf("deleting a deleted document = %v, want nil", err)
	}
	if _, err := db.CatalogDoc(ctx, "plasmodb-live", key); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CatalogDoc after Delete = %v, want ErrNotFound", err)
	}
	if err := db.TouchCatalogDoc(ctx, "plasmodb-live", key, later); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TouchCatalogDoc of a deleted document = %v, want ErrNotFound", err)
	}
	if _, err := db.CatalogDoc(ctx, "toxodb-live", key); err != nil {
		t.Errorf("the other site's document went too: %v", err)
	}
}

// timesEqual compares instants, not locations.
var timesEqual = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })
