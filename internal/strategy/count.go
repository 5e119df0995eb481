package strategy

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"strategist/internal/catalog"
)

// CountResult is what is known about one step's count.
type CountResult struct {
	Status     CountStatus
	Count      int // meaningful only with CountOK
	Message    string
	Provenance *catalog.Provenance
}

// CounterConfig tunes a Counter; the zero value is usable.
type CounterConfig struct {
	// MaxEntries bounds the cache (least recently used entries go first);
	// 0 means 4096.
	MaxEntries int
	// TTL expires entries, for live catalogs whose data changes; 0 keeps
	// them until evicted (the offline snapshot never changes).
	TTL time.Duration
	// Now is the clock for TTL; nil means time.Now.
	Now func() time.Time
}

// Counter computes step counts through a catalog and caches them by the
// identity of the step's whole subtree: search, canonical parameters and,
// recursively, its inputs (catalog.Query.Key). Two steps that compute the
// same thing share one answer, and changing an input changes the key of
// every step downstream, so stale counts are never served.
//
// Only definite outcomes are cached: a count and "not evaluable". Errors
// (a timeout, a cancelled request) are recorded on the step but asked
// again next time. Safe for concurrent use: the mutex guards the cache and
// is never held while the catalog answers, so two callers may compute the
// same key at once; both get the same answer.
type Counter struct {
	cat Answerer
	max int
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex               // guards entries and order
	entries map[string]*list.Element // key -> element of order holding *countEntry
	order   *list.List               // most recently used first
}

type countEntry struct {
	key     string
	res     CountResult
	expires time.Time // zero: never
}

// NewCounter returns a counter over cat.
func NewCounter(cat Answerer, cfg CounterConfig) (*Counter, error) {
	if cat == nil {
		return nil, errors.New("strategy: new counter: nil catalog")
	}
	if cfg.MaxEntries < 0 || cfg.TTL < 0 {
		return nil, errors.New("strategy: new counter: negative MaxEntries or TTL")
	}
	if cfg.MaxEntries == 0 {
		cfg.MaxEntries = 4096
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Counter{cat: cat, max: cfg.MaxEntries, ttl: cfg.TTL, now: cfg.Now,
		entries: map[string]*list.Element{}, order: list.New()}, nil
}

// Count returns the count of a query tree on site, from the cache when it
// can.
func (c *Counter) Count(ctx context.Context, site string, q *catalog.Query) CountResult {
	key := countKey(site, q)
	if res, ok := c.lookup(key); ok {
		return res
	}
	res := c.compute(ctx, site, q)
	if res.Status == CountOK || res.Status == CountNotEvaluable {
		c.store(key, res)
	}
	return res
}

func (c *Counter) compute(ctx context.Context, site string, q *catalog.Query) CountResult {
	ans, err := c.cat.Answer(ctx, site, q, catalog.Page{Offset: 0, Limit: 0})
	if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
		return CountResult{Status: CountNotEvaluable, Message: ne.Error()}
	}
	if err != nil {
		return CountResult{Status: CountError, Message: fmt.Sprintf("count failed: %v", err)}
	}
	prov := ans.Provenance
	return CountResult{Status: CountOK, Count: ans.Count, Provenance: &prov}
}

func (c *Counter) lookup(key string) (CountResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return CountResult{}, false
	}
	e := el.Value.(*countEntry)
	if !e.expires.IsZero() && !c.now().Before(e.expires) {
		c.order.Remove(el)
		delete(c.entries, key)
		return CountResult{}, false
	}
	c.order.MoveToFront(el)
	return e.res, true
}

func (c *Counter) store(key string, res CountResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var expires time.Time
	if c.ttl > 0 {
		expires = c.now().Add(c.ttl)
	}
	if el, ok := c.entries[key]; ok {
		el.Value = &countEntry{key: key, res: res, expires: expires}
		c.order.MoveToFront(el)
		return
	}
	c.entries[key] = c.order.PushFront(&countEntry{key: key, res: res, expires: expires})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*countEntry).key)
	}
}

// countKey is the cache identity of a count.
func countKey(site string, q *catalog.Query) string { return site + "\x00" + q.Key() }

// Refresh returns a copy of g with the counts of ids computed, inputs
// before the steps that consume them. Steps whose count is unknown or
// failed are counted again too, so a count that could not be had before
// (a timeout, the site down) is filled in by the next change. A failure is
// recorded on its step with a message, never turned into a number.
func (c *Counter) Refresh(ctx context.Context, g *Graph, ids []StepID) *Graph {
	return c.RefreshSkipping(ctx, g, ids, nil)
}

// RefreshSkipping is Refresh with failures remembered in failed (by cache
// key, when failed is not nil) and not asked again: the service counts
// once before taking a strategy's lock and once under it, and must not
// wait twice for a catalog that is down.
func (c *Counter) RefreshSkipping(ctx context.Context, g *Graph, ids []StepID, failed map[string]CountResult) *Graph {
	next := g.Clone()
	want := make(map[StepID]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	for i := range next.Steps { // creation order puts inputs first
		s := &next.Steps[i]
		if !want[s.ID] && s.CountStatus != CountUnknown && s.CountStatus != CountError {
			continue
		}
		q, err := next.Query(s.ID)
		var res CountResult
		switch {
		case err != nil:
			res = CountResult{Status: CountError, Message: err.Error()}
		case failed != nil:
			key := countKey(next.SiteID, q)
			var seen bool
			if res, seen = failed[key]; !seen {
				res = c.Count(ctx, next.SiteID, q)
				if res.Status == CountError {
					failed[key] = res
				}
			}
		default:
			res = c.Count(ctx, next.SiteID, q)
		}
		s.setCount(res)
	}
	return next
}

// setCount records a count result on the step.
func (s *Step) setCount(res CountResult) {
	s.Count, s.CountStatus, s.CountMessage, s.CountProvenance = nil, res.Status, res.Message, nil
	if res.Status == CountOK {
		n := res.Count
		s.Count = &n
	}
	if res.Provenance != nil {
		p := *res.Provenance
		s.CountProvenance = &p
	}
}
