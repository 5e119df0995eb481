package strategy

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
)

func counts(g *Graph) map[StepID]string {
	out := map[StepID]string{}
	for _, s := range g.Steps {
		v := s.CountStatus.String()
		if s.Count != nil {
			v += " " + strconv.Itoa(*s.Count)
		}
		out[s.ID] = v
	}
	return out
}

func newTestCounter(t *testing.T, cat Answerer, cfg CounterConfig) *Counter {
	t.Helper()
	c, err := NewCounter(cat, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCounterSharesIdenticalSubtrees(t *testing.T) {
	cat := newFakeCatalog()
	c := newTestCounter(t, cat, CounterConfig{})
	// s3 and s6 compute the same thing from different steps.
	g := build(t, cat,
		translation, trna, Combine{Left: "s1", Right: "s2", Operator: Union},
		AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006412"]`}, DisplayName: "Translation again"},
		trna, Combine{Left: "s4", Right: "s5", Operator: "or"})
	g = c.Refresh(context.Background(), g, nil)
	want := map[StepID]string{"s1": "ok 40", "s2": "ok 10", "s3": "ok 50", "s4": "ok 40", "s5": "ok 10", "s6": "ok 50"}
	if diff := cmp.Diff(want, counts(g)); diff != "" {
		t.Errorf("counts mismatch (-want +got):\n%s", diff)
	}
	if n := cat.TotalCalls(); n != 3 {
		t.Errorf("Answer ran %d times for 3 distinct subtrees, want 3", n)
	}
	q3, _ := g.Query("s3")
	if n := cat.CallCount(q3.Key()); n != 1 {
		t.Errorf("the union ran %d times, want 1", n)
	}

	// Changing s4 changes the identity of s6 (but not of s3): only s4 and
	// s6 are asked again.
	g, _, err := g.Apply(context.Background(), cat, UpdateStep{Step: "s4", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}})
	if err != nil {
		t.Fatal(err)
	}
	g = c.Refresh(context.Background(), g, g.downstream("s4"))
	want["s4"], want["s6"] = "ok 30", "ok 40"
	if diff := cmp.Diff(want, counts(g)); diff != "" {
		t.Errorf("counts after the update mismatch (-want +got):\n%s", diff)
	}
	if n := cat.TotalCalls(); n != 5 {
		t.Errorf("Answer ran %d times in all, want 5 (3 + s4 + s6)", n)
	}
	q6, _ := g.Query("s6")
	if n := cat.CallCount(q6.Key()); n != 1 {
		t.Errorf("the new s6 ran %d times, want 1", n)
	}
}

func TestCounterRecordsWhatItCannotCount(t *testing.T) {
	cat := newFakeCatalog()
	c := newTestCounter(t, cat, CounterConfig{})
	mw := AddSearch{SearchName: "GenesByMolecularWeight"}
	g := c.Refresh(context.Background(), build(t, cat, mw, translation, Combine{Left: "s1", Right: "s2", Operator: Intersect}), nil)
	for _, id := range []StepID{"s1", "s3"} {
		s, _ := g.Step(id)
		if s.CountStatus != CountNotEvaluable || s.Count != nil || s.CountMessage == "" {
			t.Errorf("step %s: status %s, count %v, message %q; want not_evaluable with a message and no count", id, s.CountStatus, s.Count, s.CountMessage)
		}
	}
	calls := cat.TotalCalls()
	c.Refresh(context.Background(), build(t, cat, mw), []StepID{"s1"})
	if cat.TotalCalls() != calls {
		t.Error("a not-evaluable answer was asked again instead of cached")
	}

	// Errors are recorded but not cached: the next refresh asks again.
	cat.SetFailing(true)
	g = c.Refresh(context.Background(), build(t, cat, trna), nil)
	if s, _ := g.Step("s1"); s.CountStatus != CountError || s.Count != nil || s.CountMessage == "" {
		t.Fatalf("failing catalog: status %s, count %v, message %q", s.CountStatus, s.Count, s.CountMessage)
	}
	cat.SetFailing(false)
	g = c.Refresh(context.Background(), g, nil)
	if s, _ := g.Step("s1"); s.CountStatus != CountOK || *s.Count != 10 {
		t.Errorf("after recovery: status %s, count %v; want ok 10", s.CountStatus, s.Count)
	}
}

// fakeClock is a controllable clock for TTL tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestCounterEvictsAndExpires(t *testing.T) {
	cat := newFakeCatalog()
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := newTestCounter(t, cat, CounterConfig{MaxEntries: 2, TTL: time.Minute, Now: clock.Now})
	q := func(geneType string) *catalog.Query {
		return &catalog.Query{Search: "GenesByGeneType", Params: map[string]string{"geneType": geneType, "organism": pf3d7JSON}}
	}
	ask := func(geneType string) {
		if res := c.Count(context.Background(), testSite, q(geneType)); res.Status != CountOK {
			t.Fatalf("Count(%s) = %+v", geneType, res)
		}
	}
	ask("tRNA encoding")
	ask("protein coding")
	ask("tRNA encoding") // hit; protein coding is now least recently used
	if res := c.Count(context.Background(), testSite, &catalog.Query{Search: "GenesByTaxon"}); res.Status != CountOK {
		t.Fatalf("Count(GenesByTaxon) = %+v", res) // a third key evicts protein coding
	}
	ask("protein coding")
	if got := cat.CallCount(q("protein coding").Key()); got != 2 {
		t.Errorf("evicted entry asked %d times, want 2", got)
	}
	if got := cat.CallCount(q("tRNA encoding").Key()); got != 1 {
		t.Errorf("recently used entry asked %d times, want 1", got)
	}
	clock.advance(time.Minute)
	ask("protein coding")
	if got := cat.CallCount(q("protein coding").Key()); got != 3 {
		t.Errorf("expired entry asked %d times, want 3", got)
	}
}

func TestCounterConcurrentUse(t *testing.T) {
	cat := newFakeCatalog()
	c := newTestCounter(t, cat, CounterConfig{MaxEntries: 3})
	g := build(t, cat, translation, replication, Combine{Left: "s1", Right: "s2", Operator: Union}, trna, Combine{Left: "s3", Right: "s4", Operator: Minus})
	want := counts(c.Refresh(context.Background(), g, nil))
	var wg sync.WaitGroup
	results := make([]map[StepID]string, 8)
	for i := range results {
		wg.Go(func() {
			results[i] = counts(c.Refresh(context.Background(), g, []StepID{"s1", "s2", "s3", "s4", "s5"}))
		})
	}
	wg.Wait()
	for i, got := range results {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("goroutine %d counts mismatch (-want +got):\n%s", i, diff)
		}
	}
}

func TestNewCounterChecksItsConfig(t *testing.T) {
	if _, err := NewCounter(nil, CounterConfig{}); err == nil {
		t.Error("NewCounter(nil) succeeded")
	}
	if _, err := NewCounter(newFakeCatalog(), CounterConfig{MaxEntries: -1}); err == nil {
		t.Error("NewCounter with MaxEntries -1 succeeded")
	}
}
