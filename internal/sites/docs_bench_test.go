package sites_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"strategist/internal/catalog/wdk"
)

// loadCatalog reads what a planner's first turn on a live site reads: the
// record types, every search, and the parameters (with vocabularies) of
// ten searches: 13 documents, 1.4 MB of JSON.
func loadCatalog(b *testing.B, c *wdk.Client) {
	ctx := context.Background()
	if _, err := c.RecordTypes(ctx, docSiteID); err != nil {
		b.Fatal(err)
	}
	list, err := c.Searches(ctx, docSiteID, "")
	if err != nil || len(list) != 360 {
		b.Fatalf("Searches: %d, %v", len(list), err)
	}
	for i := range 10 {
		s, err := c.Search(ctx, docSiteID, "transcript", fmt.Sprintf("GenesByEvidence%d", i*30))
		if err != nil || len(s.Params[0].Vocabulary) != 2000 {
			b.Fatalf("Search: %v", err)
		}
	}
}

// BenchmarkCatalogLoad compares a catalog load by a new client with nothing
// stored (cold: every document from the site), by a new client over the
// stored documents (a second server, or after a restart), and by a client
// that has them in memory. The cold case is measured against a loopback
// site and against one that takes 100ms an answer, as a remote site does at
// best.
func BenchmarkCatalogLoad(b *testing.B) {
	for _, latency := range []time.Duration{0, 100 * time.Millisecond} {
		b.Run(fmt.Sprintf("cold/site=%v", latency), func(b *testing.B) {
			site := newDocSite(360, 2000)
			site.latency = latency
			db := newDocEnv(b, site).db
			for b.Loop() {
				b.StopTimer()
				c := newDocEnvOn(b, db, site).client(b) // a new address: nothing stored
				b.StartTimer()
				loadCatalog(b, c)
			}
		})
	}
	b.Run("postgres", func(b *testing.B) {
		e := newDocEnv(b, newDocSite(360, 2000))
		loadCatalog(b, e.client(b))
		served, _ := e.site.counts()
		for b.Loop() {
			b.StopTimer()
			c := e.client(b)
			b.StartTimer()
			loadCatalog(b, c)
		}
		if now, _ := e.site.counts(); now != served {
			b.Fatalf("warm loads asked the site for %d documents", now-served)
		}
	})
	b.Run("memory", func(b *testing.B) {
		e := newDocEnv(b, newDocSite(360, 2000))
		c := e.client(b)
		loadCatalog(b, c)
		for b.Loop() {
			loadCatalog(b, c)
		}
	})
}
