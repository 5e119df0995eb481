package offline

import (
	"context"
	"runtime"
	"testing"

	"strategist/internal/catalog"
)

// BenchmarkLoad measures reading and indexing the gene data; retained-MB is
// the heap the loaded snapshot keeps alive.
func BenchmarkLoad(b *testing.B) {
	dir := testDataDir(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, _ := Load(dir)
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "retained-MB")
	runtime.KeepAlive(d)
}

// BenchmarkNew measures building the catalog (vocabularies, text index,
// ranking index) from loaded data.
func BenchmarkNew(b *testing.B) {
	d, err := Load(testDataDir(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(Config{Data: d}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchForSearches(b *testing.B) {
	c, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	queries := []string{"GO term", "gene type tRNA", "molecular weight", "orthologs", "signal peptide", "genes on a chromosome"}
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := c.SearchForSearches(ctx, site, queries[i%len(queries)], "", 10); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// tenStepStrategy is a 10-step strategy over the whole genome: GO unions with
// weights, a chromosome subtraction, a text intersection and a weight filter.
func tenStepStrategy() *catalog.Query {
	text := &catalog.Query{Search: "GenesByText", Params: map[string]string{"text_search_organism": testOrg, "text_expression": "protein OR putative"}}
	union := boolQuery(opUnion, boolQuery(opUnion, goQuery(10, "GO:0006412"), goQuery(5, "GO:0006260")), goQuery(2, "GO:0006281"))
	tree := boolQuery(opIntersect, boolQuery(opMinus, union, chromosomeQuery("Pf3D7_14_v3")), text)
	return &catalog.Query{Search: "GenesByWeightFilter", Params: map[string]string{"min_weight": "5", "max_weight": "100"}, Inputs: []*catalog.Query{tree}}
}

func benchmarkStrategy(b *testing.B, cacheEntries int) {
	d, err := Load(testDataDir(b))
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(Config{Data: d, CacheEntries: cacheEntries})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	q := tenStepStrategy()
	if _, err := c.Answer(ctx, site, q, catalog.Page{Limit: 50}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Answer(ctx, site, q, catalog.Page{Limit: 50}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStrategyCold evaluates every step on every run (no shared cache).
func BenchmarkStrategyCold(b *testing.B) { benchmarkStrategy(b, -1) }

// BenchmarkStrategyCached answers from the shared cache after a first run
// (validation and key building still happen each time).
func BenchmarkStrategyCached(b *testing.B) { benchmarkStrategy(b, defaultCacheEntries) }
