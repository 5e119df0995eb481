package wdk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/singleflight"
)

// userIDs caches the numeric WDK user id of each (site, token), keyed by a
// hash so the map holds no token.
type userIDs struct {
	mu     sync.Mutex
	m      map[[32]byte]int64
	flight singleflight.Group
}

// maxCachedUsers bounds the user-id cache; when full it starts over.
const maxCachedUsers = 10000

func userKey(site, token string) [32]byte { return sha256.Sum256([]byte(site + "\x00" + token)) }

func (u *userIDs) get(k [32]byte) (int64, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	id, ok := u.m[k]
	return id, ok
}

func (u *userIDs) put(k [32]byte, id int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.m) >= maxCachedUsers {
		clear(u.m)
	}
	u.m[k] = id
}

func (u *userIDs) forget(k [32]byte) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.m, k)
}

// scope is what a /users/{id}/... call needs.
type scope struct {
	site  *siteConn
	token string
	user  int64
}

// userScope resolves the caller's token and numeric user id for a site.
func (c *Client) userScope(ctx context.Context, siteID string) (scope, error) {
	s, err := c.site(siteID)
	if err != nil {
		return scope{}, err
	}
	tok, err := c.token(ctx, s)
	if err != nil {
		return scope{}, err
	}
	id, err := c.resolveUser(ctx, s, tok)
	if err != nil {
		return scope{}, err
	}
	return scope{site: s, token: tok, user: id}, nil
}

// resolveUser returns the numeric id of the token's registered user, from
// GET /users/current once per token; a guest is refused.
func (c *Client) resolveUser(ctx context.Context, s *siteConn, token string) (int64, error) {
	k := userKey(s.ID, token)
	if id, ok := c.users.get(k); ok {
		return id, nil
	}
	lookup := func(ctx context.Context) (int64, error) {
		u, err := c.currentUser(ctx, s, token)
		if err != nil {
			return 0, err
		}
		if u.IsGuest {
			return 0, &AuthError{Site: s.ID, Guest: true}
		}
		if u.ID <= 0 {
			return 0, errors.New("GET /users/current: no numeric user id in the answer")
		}
		c.users.put(k, u.ID)
		return u.ID, nil
	}
	v, err, _ := c.users.flight.Do(hex.EncodeToString(k[:]), func() (any, error) { return lookup(ctx) })
	id, _ := v.(int64)
	if err != nil && ctx.Err() == nil && errorsIsContext(err) {
		// The shared lookup ran under another caller's context, which ended.
		id, err = lookup(ctx)
	}
	if err != nil {
		return 0, fmt.Errorf("resolve user: %w", err)
	}
	return id, nil
}

// doUser runs a /users/{id}/... call; a refused credential forgets the
// cached user id so the next call resolves it again.
func (c *Client) doUser(ctx context.Context, sc scope, r request) error {
	err := c.do(ctx, sc.site, sc.token, r)
	var ae *AuthError
	if errors.As(err, &ae) {
		c.users.forget(userKey(sc.site.ID, sc.token))
	}
	return err
}

func (sc scope) path(format string, args ...any) string {
	return fmt.Sprintf("/users/%d", sc.user) + fmt.Sprintf(format, args...)
}
