package account

import (
	"sync"
	"time"
)

// credentialTTL is how long a resolved session cookie or API token is
// trusted without asking the database again. Ending a credential (sign-out,
// revocation, from any server process or the command line) announces its
// key on store.EndStreamsChannel, and each process forgets it on receipt;
// the TTL bounds how long a credential could outlive its end if that
// announcement were lost.
const credentialTTL = 5 * time.Second

// credentialCacheMax bounds the cache; when full it starts over, which
// costs a database read per credential and nothing else.
const credentialCacheMax = 10_000

// credCache remembers resolved credentials by account.CredentialKey, so that
// an API call or a page costs no database read for its credential within
// credentialTTL. A mutex guards the map and the generation; the generation
// moves on every forget, so that a lookup which read the database before a
// credential ended cannot put the ended credential back.
type credCache struct {
	mu    sync.Mutex
	gen   uint64
	byKey map[string]credEntry
}

type credEntry struct {
	userID string
	csrf   string
	// expires is the session's own expiry (zero for tokens).
	expires time.Time
	until   time.Time
}

func newCredCache() *credCache { return &credCache{byKey: make(map[string]credEntry)} }

// get returns the entry for key if it is still to be trusted at now, and
// the generation to hand to put after a database read.
func (c *credCache) get(key string, now time.Time) (credEntry, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if ok && (now.After(e.until) || (!e.expires.IsZero() && !now.Before(e.expires))) {
		delete(c.byKey, key)
		ok = false
	}
	return e, c.gen, ok
}

// put remembers e under key unless a credential was forgotten since gen.
func (c *credCache) put(key string, gen uint64, e credEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if len(c.byKey) >= credentialCacheMax {
		clear(c.byKey)
	}
	e.until = now.Add(credentialTTL)
	c.byKey[key] = e
}

// forget drops key, or every entry when key is "".
func (c *credCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if key == "" {
		clear(c.byKey)
		return
	}
	delete(c.byKey, key)
}
