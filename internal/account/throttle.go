package account

import (
	"sync"
	"time"
)

// throttle slows down repeated failed sign-ins. After freeFailures failures
// for a key (an email or a client address) within window, each further
// attempt must wait twice as long as the last, up to maxDelay. A success
// clears the email's record.
//
// It is in memory, per server process: enough to make password guessing
// slow; several replicas each keep their own count.
type throttle struct {
	mu      sync.Mutex
	entries map[string]*failures
	now     func() time.Time
}

type failures struct {
	count int
	last  time.Time
}

const (
	freeFailures   = 5
	throttleWindow = 15 * time.Minute
	maxDelay       = 15 * time.Minute
	maxEntries     = 100_000
)

func newThrottle(now func() time.Time) *throttle {
	return &throttle{entries: map[string]*failures{}, now: now}
}

// wait returns how long the caller must still wait before trying keys again
// (0 when it may try now).
func (t *throttle) wait(keys ...string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	var longest time.Duration
	for _, k := range keys {
		f, ok := t.entries[k]
		if !ok {
			continue
		}
		if now.Sub(f.last) > throttleWindow {
			delete(t.entries, k)
			continue
		}
		if d := f.last.Add(delay(f.count)).Sub(now); d > longest {
			longest = d
		}
	}
	return longest
}

// fail records a failed attempt for keys.
func (t *throttle) fail(keys ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.entries) >= maxEntries {
		t.pruneLocked(now)
	}
	for _, k := range keys {
		f, ok := t.entries[k]
		if !ok || now.Sub(f.last) > throttleWindow {
			f = &failures{}
			t.entries[k] = f
		}
		f.count++
		f.last = now
	}
}

// succeed forgets the failures of key.
func (t *throttle) succeed(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, key)
}

func (t *throttle) pruneLocked(now time.Time) {
	for k, f := range t.entries {
		if now.Sub(f.last) > throttleWindow {
			delete(t.entries, k)
		}
	}
}

// delay is the wait imposed after n failures: none for the first few, then
// 1 s, 2 s, 4 s ... up to maxDelay.
func delay(n int) time.Duration {
	if n < freeFailures {
		return 0
	}
	d := time.Second << min(n-freeFailures, 20)
	return min(d, maxDelay)
}
