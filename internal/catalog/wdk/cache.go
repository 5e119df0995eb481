package wdk

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// caches holds what the live catalog reads often and WDK changes only
// between releases. Entries expire after a TTL; a 404 for a search drops
// what named it. Entries come from whichever user's token loaded them: the
// catalog is the same for every registered user.
type caches struct {
	service     ttlMap[*ServiceInfo]     // site
	recordTypes ttlMap[[]RecordTypeInfo] // site
	rtNames     ttlMap[[]string]         // site
	recordType  ttlMap[*RecordTypeInfo]  // site, record type
	searches    ttlMap[[]SearchInfo]     // site, record type
	details     ttlMap[*SearchDetails]   // site, record type, search
	searchRT    ttlMap[string]           // site, search -> record type
	index       ttlMap[*searchIndex]     // site, record type ("" for all)
}

func newCaches(ttl time.Duration) *caches {
	return &caches{
		service:     ttlMap[*ServiceInfo]{ttl: ttl},
		recordTypes: ttlMap[[]RecordTypeInfo]{ttl: ttl},
		rtNames:     ttlMap[[]string]{ttl: ttl},
		recordType:  ttlMap[*RecordTypeInfo]{ttl: ttl},
		searches:    ttlMap[[]SearchInfo]{ttl: ttl},
		details:     ttlMap[*SearchDetails]{ttl: ttl},
		searchRT:    ttlMap[string]{ttl: ttl},
		index:       ttlMap[*searchIndex]{ttl: ttl},
	}
}

func key(parts ...string) string { return strings.Join(parts, "\x00") }

// ttlMap is a map whose entries expire; concurrent loads of one key share
// one call. Values are shared between callers and must not be modified.
type ttlMap[V any] struct {
	ttl    time.Duration
	mu     sync.Mutex
	m      map[string]ttlEntry[V]
	flight singleflight.Group
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

func (t *ttlMap[V]) get(k string) (V, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[k]
	if !ok || time.Now().After(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (t *ttlMap[V]) set(k string, v V) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]ttlEntry[V]{}
	}
	now := time.Now()
	if len(t.m) > 4096 {
		for k, e := range t.m {
			if now.After(e.expires) {
				delete(t.m, k)
			}
		}
	}
	t.m[k] = ttlEntry[V]{v: v, expires: now.Add(t.ttl)}
}

func (t *ttlMap[V]) drop(k string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, k)
}

// load returns the cached value or loads it once for all concurrent
// callers. Errors are not cached. A load that failed only because the
// first caller's context ended is retried with this caller's context.
func (t *ttlMap[V]) load(ctx context.Context, k string, fn func(context.Context) (V, error)) (V, error) {
	if v, ok := t.get(k); ok {
		return v, nil
	}
	res, err, _ := t.flight.Do(k, func() (any, error) {
		v, err := fn(ctx)
		if err != nil {
			return v, err
		}
		t.set(k, v)
		return v, nil
	})
	if err != nil && ctx.Err() == nil && errorsIsContext(err) {
		v, err := fn(ctx)
		if err == nil {
			t.set(k, v)
		}
		return v, err
	}
	v, _ := res.(V)
	return v, err
}

// errorsIsContext reports an error that came from a caller's context
// ending, not from a request timing out at the site (a *ServerError).
func errorsIsContext(err error) bool {
	var se *ServerError
	if errors.As(err, &se) {
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
