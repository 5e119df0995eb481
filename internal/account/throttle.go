package account

import (
	"sync"
	"time"
)

// throttle slows down password guessing. Every sign-in attempt reserves a
// place under three keys before its password is checked, atomically, so
// parallel guesses are counted as they arrive and not after they are
// judged:
//
//   - the (email, address) pair: one address guessing one account. After
//     five attempts each further one waits twice as long as the last, up to
//     15 minutes. This is the lock-out.
//   - the address alone: one address trying many accounts, with a larger
//     allowance (an office or a campus shares one address).
//   - the email alone, from every address together: a ceiling that slows a
//     distributed guesser to one attempt every few seconds but never waits
//     longer than emailLimit.max, so nobody can lock the owner out. A
//     successful sign-in clears it.
//
// A successful sign-in gives back its reservation: it clears the pair and
// the email and takes its attempt off the address count.
//
// It is in memory, per server process: enough to make password guessing
// slow; several replicas each keep their own count.
type throttle struct {
	mu      sync.Mutex
	entries map[throttleKey]*attempts
	now     func() time.Time
}

// throttleKey is one counter: its kind decides its limit.
type throttleKey struct {
	kind  *limit
	value string
}

type attempts struct {
	count int
	last  time.Time
}

// limit is how many attempts a key is allowed freely within the window,
// and the longest wait it can impose after that.
type limit struct {
	free int
	max  time.Duration
}

var (
	pairLimit  = limit{free: 5, max: 15 * time.Minute}
	addrLimit  = limit{free: 20, max: 15 * time.Minute}
	emailLimit = limit{free: 20, max: 10 * time.Second}
)

const (
	throttleWindow = 15 * time.Minute
	maxEntries     = 100_000
)

func newThrottle(now func() time.Time) *throttle {
	return &throttle{entries: map[throttleKey]*attempts{}, now: now}
}

// signInKeys are the counters of one sign-in attempt.
func signInKeys(email, clientIP string) []throttleKey {
	return []throttleKey{
		{&pairLimit, email + "\x00" + clientIP},
		{&addrLimit, clientIP},
		{&emailLimit, email},
	}
}

// reserve counts an attempt under every key, or, when any key must still
// wait, counts nothing and returns the longest wait.
func (t *throttle) reserve(keys []throttleKey) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	var longest time.Duration
	for _, k := range keys {
		a, ok := t.entries[k]
		if !ok {
			continue
		}
		if now.Sub(a.last) > throttleWindow {
			delete(t.entries, k)
			continue
		}
		if d := a.last.Add(k.kind.delay(a.count)).Sub(now); d > longest {
			longest = d
		}
	}
	if longest > 0 {
		return longest
	}
	if len(t.entries) >= maxEntries {
		t.pruneLocked(now)
	}
	for _, k := range keys {
		a, ok := t.entries[k]
		if !ok {
			a = &attempts{}
			t.entries[k] = a
		}
		a.count++
		a.last = now
	}
	return 0
}

// succeed gives back a reserved attempt that signed in.
func (t *throttle) succeed(keys []throttleKey) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		if k.kind != &addrLimit {
			delete(t.entries, k)
			continue
		}
		if a, ok := t.entries[k]; ok {
			a.count--
			if a.count <= 0 {
				delete(t.entries, k)
			}
		}
	}
}

func (t *throttle) pruneLocked(now time.Time) {
	for k, a := range t.entries {
		if now.Sub(a.last) > throttleWindow {
			delete(t.entries, k)
		}
	}
}

// delay is the wait imposed after n attempts: none for the free ones, then
// 1 s, 2 s, 4 s ... up to the limit's maximum.
func (l *limit) delay(n int) time.Duration {
	if n < l.free {
		return 0
	}
	d := time.Second << min(n-l.free, 20)
	return min(d, l.max)
}
