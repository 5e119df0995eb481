package wdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"time"

	"strategist/internal/catalog"
)

// DefaultDocTTL is how long a stored catalog document is used before it is
// revalidated: the live catalog changes with releases, months apart.
const DefaultDocTTL = 24 * time.Hour

// ErrNoDoc is what a DocCache returns (wrapped or not) for a document it
// does not hold.
var ErrNoDoc = errors.New("wdk: no stored catalog document")

// Doc is a catalog document as a site sent it, with its validators.
type Doc struct {
	Body []byte
	// ETag and LastModified are the site's validators ("" when it sent
	// none), sent back as If-None-Match and If-Modified-Since when the
	// document has expired.
	ETag         string
	LastModified string
	FetchedAt    time.Time
	ExpiresAt    time.Time
}

// DocCache keeps catalog documents across Clients and restarts (the server
// keeps them in PostgreSQL). Documents are keyed by site and URL and are
// the same for every user: no key or user data is ever put in one. Its
// methods are called concurrently, by every Client sharing it.
type DocCache interface {
	// Get returns a document, expired or not; none is ErrNoDoc.
	Get(ctx context.Context, site, key string) (Doc, error)
	// Put saves or replaces a document.
	Put(ctx context.Context, site, key string, d Doc) error
	// Touch moves a document's expiry (the site answered 304).
	Touch(ctx context.Context, site, key string, expiresAt time.Time) error
	// Delete removes a document the site no longer has.
	Delete(ctx context.Context, site, key string) error
}

// docStore is the Client's second cache level over a DocCache.
type docStore struct {
	cache DocCache
	ttl   time.Duration
}

// docKey names a document: its URL, so a site re-pointed at another WDK
// service never reads the first one's documents.
func docKey(s *siteConn, r request) string {
	k := s.base + r.path
	if len(r.query) > 0 {
		k += "?" + r.query.Encode()
	}
	return k
}

// getDoc reads a catalog document (a GET whose answer is the same for
// every user) into r.out. Without a DocCache it asks the site. With one
// the order is: the stored document while it has not expired; once it has,
// the site, conditionally (If-None-Match with the stored ETag,
// If-Modified-Since with its Last-Modified), where 304 moves the expiry and
// keeps the stored body and 200 replaces it.
//
// A refresh that fails because the site is down or overloaded (no answer,
// 5xx, 429, a delayed result) or that outlasts half the caller's remaining
// time serves the stored document, with a warning in the log: an old
// catalog is better than none for a researcher, and the document stays
// expired, so the next load asks again (within one Client, after the
// in-memory TTL). A refused key, a 404 (the document is gone: it is
// deleted) and the caller's own context ending are returned as errors. A
// stored document that does not decode, or a store that fails, counts as
// not stored.
//
// The token is asked for only when the site is, so the documents are
// served like the in-memory cache: to any caller.
func (c *Client) getDoc(ctx context.Context, siteID, op string, r request) error {
	s, err := c.site(siteID)
	if err != nil {
		return err
	}
	if c.docs == nil {
		tok, err := c.token(ctx, s)
		if err != nil {
			return opErr(siteID, "api key", err)
		}
		return opErr(siteID, op, c.do(ctx, s, tok, r))
	}
	key := docKey(s, r)
	out := r.out
	log := c.log.With(slog.String("site", siteID), slog.String("path", r.path))

	stored, err := c.docs.cache.Get(ctx, siteID, key)
	have := err == nil
	if err != nil && !errors.Is(err, ErrNoDoc) && ctx.Err() == nil {
		log.LogAttrs(ctx, slog.LevelWarn, "wdk: catalog document store unavailable; asking the site", slog.Any("error", err))
	}
	if have {
		if err := decodeInto(stored.Body, out); err != nil {
			log.LogAttrs(ctx, slog.LevelWarn, "wdk: stored catalog document does not decode; fetching it again", slog.Any("error", err))
			have = false
		} else if time.Now().Before(stored.ExpiresAt) {
			return nil
		}
	}

	tok, err := c.token(ctx, s)
	if err != nil {
		return opErr(siteID, "api key", err)
	}
	var got answer
	r.out, r.got = nil, &got
	fetch := ctx
	if have {
		r.header = http.Header{}
		if stored.ETag != "" {
			r.header.Set("If-None-Match", stored.ETag)
		}
		if stored.LastModified != "" {
			r.header.Set("If-Modified-Since", stored.LastModified)
		}
		if dl, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			fetch, cancel = context.WithTimeout(ctx, time.Until(dl)/2)
			defer cancel()
		}
	}
	err = c.do(fetch, s, tok, r)
	switch {
	case err != nil && have && ctx.Err() == nil && siteDown(err):
		log.LogAttrs(ctx, slog.LevelWarn, "wdk: serving a stale catalog document: the site did not answer its refresh",
			slog.Time("fetched_at", stored.FetchedAt), slog.Time("expired_at", stored.ExpiresAt), slog.Any("error", err))
		return nil
	case err != nil:
		if errors.Is(err, catalog.ErrNotFound) && have {
			c.dropDocKey(ctx, siteID, key)
		}
		return opErr(siteID, op, err)
	case got.status == http.StatusNotModified:
		if !have {
			return opErr(siteID, op, fmt.Errorf("GET %s: 304 Not Modified to an unconditional request", r.path))
		}
		expires := time.Now().Add(c.docs.ttl)
		if err := c.docs.cache.Touch(ctx, siteID, key, expires); err != nil {
			log.LogAttrs(ctx, slog.LevelWarn, "wdk: could not extend a stored catalog document", slog.Any("error", err))
		}
		log.LogAttrs(ctx, slog.LevelDebug, "wdk: catalog document not modified", slog.Time("expires_at", expires))
		return nil
	case len(bytes.TrimSpace(got.body)) == 0:
		zero(out)
		return nil
	}
	if err := decodeInto(got.body, out); err != nil {
		return opErr(siteID, op, fmt.Errorf("decode GET %s: %w", r.path, err))
	}
	now := time.Now()
	d := Doc{Body: got.body, ETag: got.header.Get("ETag"), LastModified: got.header.Get("Last-Modified"),
		FetchedAt: now, ExpiresAt: now.Add(c.docs.ttl)}
	if err := c.docs.cache.Put(ctx, siteID, key, d); err != nil {
		log.LogAttrs(ctx, slog.LevelWarn, "wdk: could not store a catalog document", slog.Any("error", err))
	}
	return nil
}

// siteDown reports a refresh that failed for the site's reasons, not the
// request's or the user's: the stored document may be served instead.
func siteDown(err error) bool {
	var se *ServerError
	return errors.As(err, &se) || errors.Is(err, catalog.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)
}

// dropDoc removes the stored document of a GET of path (no query) on a
// site: the list that named a search the site no longer has.
func (c *Client) dropDoc(ctx context.Context, siteID, path string) {
	if c.docs == nil {
		return
	}
	s, err := c.site(siteID)
	if err != nil {
		return
	}
	c.dropDocKey(ctx, siteID, docKey(s, request{path: path}))
}

func (c *Client) dropDocKey(ctx context.Context, siteID, key string) {
	if err := c.docs.cache.Delete(ctx, siteID, key); err != nil {
		c.log.LogAttrs(ctx, slog.LevelWarn, "wdk: could not remove a stored catalog document",
			slog.String("site", siteID), slog.String("key", key), slog.Any("error", err))
	}
}

// decodeInto decodes body into out (a pointer) from its zero value, so a
// decode after a failed or replaced one leaves nothing of the earlier.
func decodeInto(body []byte, out any) error {
	zero(out)
	if err := json.Unmarshal(body, out); err != nil {
		zero(out)
		return err
	}
	return nil
}

func zero(out any) {
	if v := reflect.ValueOf(out); v.Kind() == reflect.Pointer && !v.IsNil() {
		v.Elem().SetZero()
	}
}
