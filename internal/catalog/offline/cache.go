package offline

import (
	"container/list"
	"sync"
)

// resultCache is a small LRU of evaluated query sub-trees, shared by all
// requests. Results are immutable, so a cached one is handed out as is. A
// capacity of zero or less disables it.
type resultCache struct {
	mu    sync.Mutex
	cap   int
	order *list.List // front = most recently used; values are *cacheEntry
	items map[string]*list.Element
}

type cacheEntry struct {
	key string
	res *result
}

func newResultCache(capacity int) *resultCache {
	return &resultCache{cap: capacity, order: list.New(), items: map[string]*list.Element{}}
}

func (c *resultCache) get(key string) (*result, bool) {
	if c.cap <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).res, true
}

func (c *resultCache) put(key string, r *result) {
	if c.cap <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key: key, res: r})
	for c.order.Len() > c.cap {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

func (c *resultCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
