package sites

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/catalog/wdk"
	"strategist/internal/store"
)

// KeysOff is why live sites are unavailable without a server key.
const KeysOff = "live sites are off on this server: set STRATEGIST_SECRET_KEY (openssl rand -base64 32) so VEuPathDB API keys can be stored"

// CredentialStore keeps sealed keys (*store.DB).
type CredentialStore interface {
	WDKCredential(ctx context.Context, userID, siteID string) (store.WDKCredential, error)
	WDKCredentials(ctx context.Context, userID string) ([]store.WDKCredential, error)
	PutWDKCredential(ctx context.Context, userID, siteID string, ciphertext []byte, wdkUserID *int64) (store.WDKCredential, error)
	DeleteWDKCredential(ctx context.Context, userID, siteID string) error
}

// StoredKey says that a key is stored for a site, and when; never the key.
type StoredKey struct {
	SiteID   string    `json:"siteId"`
	StoredAt time.Time `json:"storedAt"`
	// WDKUserID is the VEuPathDB account the key belongs to.
	WDKUserID *int64 `json:"wdkUserId,omitempty"`
}

// Keyring reads and writes users' sealed VEuPathDB API keys: it is the live
// catalog's wdk.TokenSource and the registry's Keys.
type Keyring struct {
	db      CredentialStore
	creds   *wdk.Credentials // nil without a server key
	checker *wdk.Client
	timeout time.Duration
	log     *slog.Logger
}

// NewKeyring returns a keyring; a nil creds means keys cannot be stored or
// used (no server key). SetChecker must be called before Save.
func NewKeyring(db CredentialStore, creds *wdk.Credentials, timeout time.Duration, log *slog.Logger) *Keyring {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Keyring{db: db, creds: creds, timeout: timeout, log: log}
}

// SetChecker sets the client that checks keys before they are saved (the
// client itself reads keys from the keyring, hence the two steps).
func (k *Keyring) SetChecker(c *wdk.Client) { k.checker = c }

// Off says why keys cannot be stored ("" when they can).
func (k *Keyring) Off() string {
	if k.creds == nil {
		return KeysOff
	}
	return ""
}

// Token opens the API key of the user the call is made for (the user id
// in ctx) for a live site.
func (k *Keyring) Token(ctx context.Context, siteID string) (string, error) {
	userID := account.UserID(ctx)
	if k.creds == nil || userID == "" {
		return "", wdk.ErrNoToken
	}
	memo, _ := ctx.Value(memoKey{}).(*tokenMemo)
	return memo.load(userID, siteID, func() (string, error) {
		c, err := k.db.WDKCredential(ctx, userID, siteID)
		if errors.Is(err, store.ErrNotFound) {
			return "", wdk.ErrNoToken
		}
		if err != nil {
			return "", err
		}
		return k.creds.Open(userID, siteID, c.Ciphertext)
	})
}

// tokenMemo keeps the keys one routed call opened, so the many requests of
// that call (its steps, the strategy, the report, the clean-up) read and
// open a key once. It lives only as long as the call's context: a key
// deleted or replaced meanwhile counts from the next call. Safe for
// concurrent use: a call creates its steps concurrently, and requests that
// need a key being read wait for that read rather than read it again. A
// failed read is not kept.
type tokenMemo struct {
	mu     sync.Mutex
	tokens map[[2]string]*memoEntry // by user and site
}

// memoEntry is one key; its mutex is held while the key is read.
type memoEntry struct {
	mu  sync.Mutex
	tok string
	ok  bool
}

type memoKey struct{}

// withTokenMemo gives a call its memo of opened keys.
func withTokenMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, memoKey{}, &tokenMemo{tokens: map[[2]string]*memoEntry{}})
}

// load returns the memo's key for user and site, read with read the first
// time (every time without a memo).
func (m *tokenMemo) load(userID, siteID string, read func() (string, error)) (string, error) {
	if m == nil {
		return read()
	}
	m.mu.Lock()
	e, ok := m.tokens[[2]string{userID, siteID}]
	if !ok {
		e = &memoEntry{}
		m.tokens[[2]string{userID, siteID}] = e
	}
	m.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ok {
		return e.tok, nil
	}
	tok, err := read()
	if err == nil {
		e.tok, e.ok = tok, true
	}
	return tok, err
}

// KeyedSites lists the sites the user stored a key for, with when.
func (k *Keyring) KeyedSites(ctx context.Context, userID string) (map[string]time.Time, error) {
	keys, err := k.Stored(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]time.Time, len(keys))
	for _, s := range keys {
		out[s.SiteID] = s.StoredAt
	}
	return out, nil
}

// Stored lists the user's stored keys (never the keys themselves).
func (k *Keyring) Stored(ctx context.Context, userID string) ([]StoredKey, error) {
	cs, err := k.db.WDKCredentials(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]StoredKey, 0, len(cs))
	for _, c := range cs {
		out = append(out, StoredKey{SiteID: c.SiteID, StoredAt: c.UpdatedAt, WDKUserID: c.WDKUserID})
	}
	return out, nil
}

// Save checks the key with the site (it must belong to a registered
// account), then seals it for the user and site and stores it. A key the
// site refuses is a *wdk.AuthError and nothing is stored.
func (k *Keyring) Save(ctx context.Context, userID, siteID, apiKey string) (StoredKey, error) {
	if k.creds == nil {
		return StoredKey{}, errors.New(KeysOff)
	}
	if k.checker == nil {
		return StoredKey{}, errors.New("sites: keyring has no checker")
	}
	cctx, cancel := context.WithTimeoutCause(ctx, k.timeout, &TimeoutError{Site: siteID, After: k.timeout})
	defer cancel()
	u, err := k.checker.CheckToken(cctx, siteID, apiKey)
	if err != nil {
		return StoredKey{}, classify(siteID, siteID, bound(ctx, cctx, err))
	}
	sealed, err := k.creds.Seal(userID, siteID, apiKey)
	if err != nil {
		return StoredKey{}, err
	}
	id := u.ID
	c, err := k.db.PutWDKCredential(ctx, userID, siteID, sealed, &id)
	if err != nil {
		return StoredKey{}, err
	}
	k.log.Info("VEuPathDB API key stored", slog.String("user_id", userID), slog.String("site", siteID))
	return StoredKey{SiteID: c.SiteID, StoredAt: c.UpdatedAt, WDKUserID: c.WDKUserID}, nil
}

// SaveAll checks the key with one site, then stores it for every site
// listed: one VEuPathDB account (and its key) serves all the sites. A key
// that does not work on another site is reported there when it is used.
func (k *Keyring) SaveAll(ctx context.Context, userID, checkSite string, siteIDs []string, apiKey string) ([]StoredKey, error) {
	first, err := k.Save(ctx, userID, checkSite, apiKey)
	if err != nil {
		return nil, err
	}
	out := []StoredKey{first}
	for _, site := range siteIDs {
		if site == checkSite {
			continue
		}
		sealed, err := k.creds.Seal(userID, site, apiKey)
		if err != nil {
			return nil, err
		}
		c, err := k.db.PutWDKCredential(ctx, userID, site, sealed, first.WDKUserID)
		if err != nil {
			return nil, err
		}
		out = append(out, StoredKey{SiteID: c.SiteID, StoredAt: c.UpdatedAt, WDKUserID: c.WDKUserID})
	}
	k.log.Info("VEuPathDB API key stored for every live site", slog.String("user_id", userID), slog.Int("sites", len(out)))
	return out, nil
}

// Delete removes the user's key for a site; none is store.ErrNotFound.
func (k *Keyring) Delete(ctx context.Context, userID, siteID string) error {
	if err := k.db.DeleteWDKCredential(ctx, userID, siteID); err != nil {
		return err
	}
	k.log.Info("VEuPathDB API key deleted", slog.String("user_id", userID), slog.String("site", siteID))
	return nil
}

// LiveConfig configures NewLive. Offline and Keys are required.
type LiveConfig struct {
	Offline catalog.Catalog
	Keys    *Keyring
	// BaseURL re-points every live site ("" = each site's own).
	BaseURL string
	// Timeout bounds one live call (default DefaultTimeout).
	Timeout time.Duration
	// Docs keeps the live sites' catalog documents across restarts and
	// server processes (a DocCache over the store); nil keeps them in
	// memory only.
	Docs wdk.DocCache
	// DocTTL is how long a stored document is used before it is
	// revalidated (default wdk.DefaultDocTTL).
	DocTTL time.Duration
	Logger *slog.Logger
}

// NewLive builds the live WDK client over the keyring and the registry over
// both catalogs: the whole wiring of sites, for main and tests.
func NewLive(cfg LiveConfig) (*Registry, error) {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	wdkSites := WDKSites(cfg.BaseURL)
	live, err := wdk.New(wdk.Config{
		Tokens: cfg.Keys, Sites: wdkSites, Logger: cfg.Logger,
		RequestTimeout: timeout, BackoffMax: timeout / 4,
		DocCache: cfg.Docs, DocTTL: cfg.DocTTL,
	})
	if err != nil {
		return nil, err
	}
	cfg.Keys.SetChecker(live)
	apps := map[string]string{}
	for _, s := range wdkSites {
		apps[s.ID] = strings.TrimSuffix(strings.TrimRight(s.BaseURL, "/"), "/service")
	}
	return New(context.Background(), Config{Offline: cfg.Offline, Live: live, Timeout: timeout, Keys: cfg.Keys, LiveOff: cfg.Keys.Off(), AppURLs: apps, Logger: cfg.Logger})
}
