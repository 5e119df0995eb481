// Package account manages who may use Strategist: local accounts with
// argon2id password hashes, browser sessions, API tokens for programs, and
// dev mode's single implicit user. Secrets (passwords, session cookies,
// tokens) are never stored; only their hashes are.
package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"sync/atomic"
	"time"

	"strategist/internal/store"
)

// Store is what the account service needs from persistence.
type Store interface {
	CreateUser(ctx context.Context, email, passwordHash string) (store.User, error)
	UserByEmail(ctx context.Context, email string) (store.User, error)
	EnsureUserWithoutPassword(ctx context.Context, email string) (store.User, error)
	CreateAPIToken(ctx context.Context, userID, name string, hash []byte) (store.APIToken, error)
	UserIDByTokenHash(ctx context.Context, hash []byte) (string, error)
	RevokeAPIToken(ctx context.Context, userID, tokenID string) error
	CreateSession(ctx context.Context, hash []byte, userID, csrf string, expires time.Time) error
	SessionByHash(ctx context.Context, hash []byte, now time.Time) (store.Session, error)
	DeleteSession(ctx context.Context, hash []byte) error
}

// DevEmail is the account dev mode signs everyone in as.
const DevEmail = "dev@localhost"

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 10

// Errors the service returns.
var (
	// ErrBadCredentials: unknown email or wrong password (never saying which).
	ErrBadCredentials = errors.New("account: wrong email or password")
	// ErrUnauthenticated: no, expired or revoked session or token.
	ErrUnauthenticated = errors.New("account: not signed in")
	// ErrEmailTaken: an account with this email exists.
	ErrEmailTaken = errors.New("account: an account with this email already exists")
)

// InvalidError is a bad email or password on account creation.
type InvalidError struct {
	Field   string
	Message string
}

func (e *InvalidError) Error() string { return "account: " + e.Field + ": " + e.Message }

// ThrottledError says sign-in is slowed down after repeated failures.
type ThrottledError struct {
	RetryAfter time.Duration
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("account: too many failed sign-ins; try again in %s", e.RetryAfter.Round(time.Second))
}

// Session is a browser session as the server sees it.
type Session struct {
	UserID    string
	CSRFToken string
	ExpiresAt time.Time
}

// Service implements accounts over a Store.
type Service struct {
	store    Store
	ttl      time.Duration
	now      func() time.Time
	throttle *throttle
	gate     *hashGate
	creds    *credCache
	devUser  atomic.Pointer[store.User]
	// dummyHash is checked for unknown emails so that timing does not reveal
	// which emails have accounts.
	dummyHash string
}

// Config configures a Service.
type Config struct {
	Store      Store
	SessionTTL time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// HashConcurrency bounds password hashes computed at once (GOMAXPROCS
	// when 0) and HashQueue how many more may wait (4 per slot when 0);
	// beyond that sign-ins get ErrBusy.
	HashConcurrency int
	HashQueue       int
}

// New returns an account service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil {
		return nil, errors.New("account: nil store")
	}
	if cfg.SessionTTL <= 0 {
		return nil, errors.New("account: session TTL must be positive")
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	dummy, err := hashPassword("strategist-dummy-password")
	if err != nil {
		return nil, err
	}
	return &Service{store: cfg.Store, ttl: cfg.SessionTTL, now: now, throttle: newThrottle(now),
		gate: newHashGate(cfg.HashConcurrency, cfg.HashQueue), creds: newCredCache(), dummyHash: dummy}, nil
}

// NormalizeEmail lower-cases and trims an email address.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// CreateUser adds a local account.
func (s *Service) CreateUser(ctx context.Context, email, password string) (store.User, error) {
	email = NormalizeEmail(email)
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email {
		return store.User{}, &InvalidError{Field: "email", Message: "must be an email address such as ada@example.org"}
	}
	if email == DevEmail {
		return store.User{}, &InvalidError{Field: "email", Message: DevEmail + " is reserved for dev mode"}
	}
	if len([]rune(password)) < MinPasswordLength {
		return store.User{}, &InvalidError{Field: "password", Message: fmt.Sprintf("must be at least %d characters", MinPasswordLength)}
	}
	var (
		hash string
		err  error
	)
	if gerr := s.gate.do(ctx, func() { hash, err = hashPassword(password) }); gerr != nil {
		return store.User{}, gerr
	}
	if err != nil {
		return store.User{}, err
	}
	u, err := s.store.CreateUser(ctx, email, hash)
	if errors.Is(err, store.ErrConflict) {
		return store.User{}, ErrEmailTaken
	}
	return u, err
}

// SignIn checks a password and opens a browser session, returning the
// cookie value (shown once, stored hashed). Repeated failures for an email or
// a client address are slowed down with a *ThrottledError, counted before
// the password is checked (see throttle).
func (s *Service) SignIn(ctx context.Context, email, password, clientIP string) (string, Session, error) {
	email = NormalizeEmail(email)
	keys := signInKeys(email, clientIP)
	if wait := s.throttle.reserve(keys); wait > 0 {
		return "", Session{}, &ThrottledError{RetryAfter: wait}
	}
	u, err := s.store.UserByEmail(ctx, email)
	hash := u.PasswordHash
	if errors.Is(err, store.ErrNotFound) {
		hash = s.dummyHash
	} else if err != nil {
		return "", Session{}, fmt.Errorf("account: sign in: %w", err)
	}
	var ok bool
	if gerr := s.gate.do(ctx, func() { ok, err = checkPassword(hash, password) }); gerr != nil {
		return "", Session{}, gerr
	}
	if err != nil && !errors.Is(err, errBadHash) {
		return "", Session{}, err
	}
	if u.ID == "" || !ok {
		return "", Session{}, ErrBadCredentials
	}
	s.throttle.succeed(keys)
	return s.openSession(ctx, u.ID)
}

// DevUser returns (creating it on first use) dev mode's implicit user.
//
// The account is created once and never removed, so the first answer is
// kept: dev mode's requests cost no database write each.
func (s *Service) DevUser(ctx context.Context) (store.User, error) {
	if u := s.devUser.Load(); u != nil {
		return *u, nil
	}
	u, err := s.store.EnsureUserWithoutPassword(ctx, DevEmail)
	if err != nil {
		return store.User{}, err
	}
	s.devUser.Store(&u)
	return u, nil
}

func (s *Service) openSession(ctx context.Context, userID string) (string, Session, error) {
	token, err := randomToken(32)
	if err != nil {
		return "", Session{}, err
	}
	csrf, err := randomToken(24)
	if err != nil {
		return "", Session{}, err
	}
	sess := Session{UserID: userID, CSRFToken: csrf, ExpiresAt: s.now().Add(s.ttl)}
	if err := s.store.CreateSession(ctx, hashSecret(token), userID, csrf, sess.ExpiresAt); err != nil {
		return "", Session{}, fmt.Errorf("account: open session: %w", err)
	}
	return token, sess, nil
}

// SessionFor resolves a session cookie; expired or unknown ones are
// ErrUnauthenticated.
func (s *Service) SessionFor(ctx context.Context, cookie string) (Session, error) {
	if cookie == "" {
		return Session{}, ErrUnauthenticated
	}
	hash := hashSecret(cookie)
	key, now := hex.EncodeToString(hash), s.now()
	e, gen, ok := s.creds.get(key, now)
	if ok {
		return Session{UserID: e.userID, CSRFToken: e.csrf, ExpiresAt: e.expires}, nil
	}
	row, err := s.store.SessionByHash(ctx, hash, now)
	if errors.Is(err, store.ErrNotFound) {
		return Session{}, ErrUnauthenticated
	}
	if err != nil {
		return Session{}, fmt.Errorf("account: session: %w", err)
	}
	s.creds.put(key, gen, credEntry{userID: row.UserID, csrf: row.CSRFToken, expires: row.ExpiresAt}, now)
	return Session{UserID: row.UserID, CSRFToken: row.CSRFToken, ExpiresAt: row.ExpiresAt}, nil
}

// Forget drops what this process remembers of a credential
// (CredentialKey), or of every credential when key is "": the server calls
// it for each key announced on store.EndStreamsChannel, and with "" when
// it may have missed announcements (its listener reconnected).
func (s *Service) Forget(key string) { s.creds.forget(key) }

// SignOut ends the session of a cookie.
func (s *Service) SignOut(ctx context.Context, cookie string) error {
	if cookie == "" {
		return nil
	}
	// Forgotten here at once, before the announcement reaches this
	// process's listener.
	defer s.creds.forget(CredentialKey(cookie))
	return s.store.DeleteSession(ctx, hashSecret(cookie))
}

// tokenPrefix marks Strategist API tokens so they are recognisable in
// secret scanners and logs.
const tokenPrefix = "stg_"

// CreateAPIToken issues a token for a program acting as userID. The
// plaintext is returned once; only its hash is kept.
func (s *Service) CreateAPIToken(ctx context.Context, userID, name string) (string, store.APIToken, error) {
	raw, err := randomToken(32)
	if err != nil {
		return "", store.APIToken{}, err
	}
	token := tokenPrefix + raw
	t, err := s.store.CreateAPIToken(ctx, userID, name, hashSecret(token))
	if err != nil {
		return "", store.APIToken{}, fmt.Errorf("account: create token: %w", err)
	}
	return token, t, nil
}

// RevokeAPIToken revokes one of a user's tokens.
func (s *Service) RevokeAPIToken(ctx context.Context, userID, tokenID string) error {
	// Only the token's id is known here, not its key: forget every
	// credential (revocations are rare), after the revocation committed.
	defer s.creds.forget("")
	return s.store.RevokeAPIToken(ctx, userID, tokenID)
}

// TokenUser returns the user of a bearer token; unknown or revoked tokens
// are ErrUnauthenticated.
func (s *Service) TokenUser(ctx context.Context, token string) (string, error) {
	if !strings.HasPrefix(token, tokenPrefix) {
		return "", ErrUnauthenticated
	}
	hash := hashSecret(token)
	key, now := hex.EncodeToString(hash), s.now()
	e, gen, ok := s.creds.get(key, now)
	if ok {
		return e.userID, nil
	}
	id, err := s.store.UserIDByTokenHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return "", ErrUnauthenticated
	}
	if err != nil {
		return "", fmt.Errorf("account: token: %w", err)
	}
	s.creds.put(key, gen, credEntry{userID: id}, now)
	return id, nil
}

// hashSecret is how session cookies and tokens are stored: they are 256-bit
// random values, so a plain SHA-256 is enough (no salt or stretching needed).
// CredentialKey names a session cookie or API token without revealing it:
// the hex SHA-256 the store keeps and announces on store.EndStreamsChannel
// when the credential is signed out or revoked.
func CredentialKey(secret string) string { return hex.EncodeToString(hashSecret(secret)) }

func hashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

func randomToken(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("account: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// shareTokenPrefix marks conversation share-link tokens.
const shareTokenPrefix = "shr_"

// NewShareToken makes the secret of a conversation's share link: 256 bits
// from crypto/rand, and the hash that is all the store keeps of it (like an
// API token's). The token is shown once, in the link.
func NewShareToken() (token string, hash []byte, err error) {
	raw, err := randomToken(32)
	if err != nil {
		return "", nil, err
	}
	token = shareTokenPrefix + raw
	return token, hashSecret(token), nil
}

// LooksLikeToken reports whether s has the form of a secret this package
// makes (an API token or a share link's token), so that logs and traces
// can leave it out wherever a client put it.
func LooksLikeToken(s string) bool {
	return strings.HasPrefix(s, tokenPrefix) || strings.HasPrefix(s, shareTokenPrefix)
}

// ShareTokenHash is the stored form of a share link's token; ok is false
// for a string that cannot be one (so it is not looked up).
func ShareTokenHash(token string) (hash []byte, ok bool) {
	if !strings.HasPrefix(token, shareTokenPrefix) || len(token) > 128 {
		return nil, false
	}
	return hashSecret(token), true
}
