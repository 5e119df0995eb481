package account_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"strategist/internal/account"
	"strategist/internal/pgtest"
	"strategist/internal/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newService(t *testing.T) (*account.Service, *store.DB, *clock) {
	t.Helper()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now()}
	svc, err := account.New(account.Config{Store: db, SessionTTL: time.Hour, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	return svc, db, clk
}

func TestCreateUserValidation(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	tests := []struct {
		email, password, field string
	}{
		{"not-an-email", "long enough password", "email"},
		{"ada@example.org", "short", "password"},
		{account.DevEmail, "long enough password", "email"},
	}
	for _, tt := range tests {
		_, err := svc.CreateUser(ctx, tt.email, tt.password)
		ie, ok := errors.AsType[*account.InvalidError](err)
		if !ok || ie.Field != tt.field {
			t.Errorf("CreateUser(%q, %q) = %v, want an InvalidError on %s", tt.email, tt.password, err, tt.field)
		}
	}
	u, err := svc.CreateUser(ctx, "  Ada@Example.ORG ", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if u.Email != "ada@example.org" {
		t.Errorf("email stored as %q, want it normalised", u.Email)
	}
	if strings.Contains(u.PasswordHash, "correct horse") || !strings.HasPrefix(u.PasswordHash, "$argon2id$") {
		t.Errorf("password hash %q is not an argon2id hash", u.PasswordHash)
	}
	if _, err := svc.CreateUser(ctx, "ada@example.org", "another long password"); !errors.Is(err, account.ErrEmailTaken) {
		t.Errorf("second account with the same email: %v, want ErrEmailTaken", err)
	}
}

func TestSignInSessionsAndExpiry(t *testing.T) {
	t.Parallel()
	svc, _, clk := newService(t)
	ctx := context.Background()
	if _, err := svc.CreateUser(ctx, "ada@example.org", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.SignIn(ctx, "ada@example.org", "wrong password!", "10.0.0.1"); !errors.Is(err, account.ErrBadCredentials) {
		t.Errorf("wrong password: %v", err)
	}
	if _, _, err := svc.SignIn(ctx, "nobody@example.org", "correct horse battery", "10.0.0.1"); !errors.Is(err, account.ErrBadCredentials) {
		t.Errorf("unknown email: %v (must not differ from a wrong password)", err)
	}
	cookie, sess, err := svc.SignIn(ctx, "ADA@example.org", "correct horse battery", "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := svc.SessionFor(ctx, cookie)
	if err != nil || got.UserID != sess.UserID || got.CSRFToken == "" {
		t.Fatalf("SessionFor = %+v, %v", got, err)
	}
	clk.t = clk.t.Add(2 * time.Hour)
	if _, err := svc.SessionFor(ctx, cookie); !errors.Is(err, account.ErrUnauthenticated) {
		t.Errorf("expired session: %v, want ErrUnauthenticated", err)
	}
	clk.t = clk.t.Add(-2 * time.Hour)
	if err := svc.SignOut(ctx, cookie); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SessionFor(ctx, cookie); !errors.Is(err, account.ErrUnauthenticated) {
		t.Errorf("after sign-out: %v, want ErrUnauthenticated", err)
	}
}

func TestSignInThrottle(t *testing.T) {
	t.Parallel()
	svc, _, clk := newService(t)
	ctx := context.Background()
	if _, err := svc.CreateUser(ctx, "ada@example.org", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, _, err := svc.SignIn(ctx, "ada@example.org", "guess", "10.0.0.9"); !errors.Is(err, account.ErrBadCredentials) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	_, _, err := svc.SignIn(ctx, "ada@example.org", "correct horse battery", "10.0.0.9")
	te, ok := errors.AsType[*account.ThrottledError](err)
	if !ok || te.RetryAfter <= 0 {
		t.Fatalf("sixth attempt: %v, want a ThrottledError", err)
	}
	// The lock-out is per (email, address): the same address may still
	// try another account, and the owner may sign in from elsewhere.
	if _, _, err := svc.SignIn(ctx, "bob@example.org", "guess", "10.0.0.9"); !errors.Is(err, account.ErrBadCredentials) {
		t.Errorf("other email from the same address: %v, want a plain wrong password", err)
	}
	if _, _, err := svc.SignIn(ctx, "ada@example.org", "correct horse battery", "10.0.0.10"); err != nil {
		t.Errorf("the owner from another address: %v", err)
	}
	clk.t = clk.t.Add(te.RetryAfter)
	// Once the wait has passed, the right password works again.
	if _, _, err := svc.SignIn(ctx, "ada@example.org", "correct horse battery", "10.0.0.9"); err != nil {
		t.Errorf("after waiting %s: %v", te.RetryAfter, err)
	}
}

// TestSignInParallelGuesses: guesses sent at once are counted as they
// arrive, so only the free allowance reaches the password check; the rest
// are refused unchecked, the right password among them.
func TestSignInParallelGuesses(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreateUser(ctx, "ada@example.org", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	const guesses = 60
	errs := make([]error, guesses)
	var wg sync.WaitGroup
	for i := range guesses {
		wg.Go(func() {
			pw := "guess " + strconv.Itoa(i)
			if i == guesses-1 {
				pw = "correct horse battery"
			}
			_, _, errs[i] = svc.SignIn(ctx, "ada@example.org", pw, "10.0.0.9")
		})
	}
	wg.Wait()
	checked, throttled := 0, 0
	for i, err := range errs {
		switch {
		case errors.Is(err, account.ErrBadCredentials), err == nil:
			checked++
		case errors.As(err, new(*account.ThrottledError)):
			throttled++
		default:
			t.Errorf("guess %d: %v", i, err)
		}
	}
	if checked != 5 || throttled != guesses-5 {
		t.Errorf("%d guesses reached the password check and %d were throttled, want 5 and %d", checked, throttled, guesses-5)
	}
}

// TestSignInOwnerNotLockedOut: guessing one account from many addresses
// slows every address down, but never for longer than a few seconds, and
// the owner's sign-in clears it.
func TestSignInOwnerNotLockedOut(t *testing.T) {
	t.Parallel()
	svc, _, clk := newService(t)
	ctx := context.Background()
	if _, err := svc.CreateUser(ctx, "ada@example.org", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	var longest time.Duration
	for i := range 200 {
		_, _, err := svc.SignIn(ctx, "ada@example.org", "guess", "10.1.0."+strconv.Itoa(i))
		if te, ok := errors.AsType[*account.ThrottledError](err); ok {
			longest = max(longest, te.RetryAfter)
			clk.t = clk.t.Add(te.RetryAfter)
		}
	}
	if longest == 0 || longest > 10*time.Second {
		t.Errorf("a distributed guesser waited at most %s, want a wait of at most 10s", longest)
	}
	_, _, err := svc.SignIn(ctx, "ada@example.org", "correct horse battery", "192.168.7.7")
	if te, ok := errors.AsType[*account.ThrottledError](err); ok {
		if te.RetryAfter > 10*time.Second {
			t.Fatalf("the owner from a new address must wait %s", te.RetryAfter)
		}
		clk.t = clk.t.Add(te.RetryAfter)
		_, _, err = svc.SignIn(ctx, "ada@example.org", "correct horse battery", "192.168.7.7")
	}
	if err != nil {
		t.Fatalf("the owner from a new address: %v", err)
	}
	// Signing in cleared the account's ceiling: the owner's next sign-in
	// elsewhere is not slowed.
	if _, _, err := svc.SignIn(ctx, "ada@example.org", "correct horse battery", "192.168.7.8"); err != nil {
		t.Errorf("after a successful sign-in, another address: %v", err)
	}
}

func TestAPITokens(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, "ada@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	token, tok, err := svc.CreateAPIToken(ctx, u.ID, "notebook")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(token, "stg_") || len(token) < 40 {
		t.Errorf("token %q looks weak", token)
	}
	if id, err := svc.TokenUser(ctx, token); err != nil || id != u.ID {
		t.Errorf("TokenUser = %q, %v", id, err)
	}
	for _, bad := range []string{"", "stg_nope", token + "x", "Bearer " + token} {
		if _, err := svc.TokenUser(ctx, bad); !errors.Is(err, account.ErrUnauthenticated) {
			t.Errorf("TokenUser(%q) = %v, want ErrUnauthenticated", bad, err)
		}
	}
	if err := svc.RevokeAPIToken(ctx, u.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.TokenUser(ctx, token); !errors.Is(err, account.ErrUnauthenticated) {
		t.Errorf("revoked token: %v, want ErrUnauthenticated", err)
	}
}

func TestDevUser(t *testing.T) {
	t.Parallel()
	svc, _, _ := newService(t)
	ctx := context.Background()
	u1, err := svc.DevUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u2, err := svc.DevUser(ctx)
	if err != nil || u1.ID != u2.ID {
		t.Errorf("DevUser twice: %v %v (%v)", u1.ID, u2.ID, err)
	}
	if _, _, err := svc.SignIn(ctx, account.DevEmail, "", "127.0.0.1"); !errors.Is(err, account.ErrBadCredentials) {
		t.Errorf("signing in to the dev account with a password: %v, want refused", err)
	}
}

// TestCredentialEndedElsewhere: a process remembers a resolved credential
// for a few seconds; a revocation or sign-out made by another process
// reaches it as Forget (the server's listener calls it for each announced
// key), and without that announcement the credential is asked for again
// once its few seconds are over.
func TestCredentialEndedElsewhere(t *testing.T) {
	t.Parallel()
	here, db, _ := newService(t)
	clk := &clock{t: time.Now()}
	there, err := account.New(account.Config{Store: db, SessionTTL: time.Hour, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u, err := here.CreateUser(ctx, "ada@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	announced, tok1, err := here.CreateAPIToken(ctx, u.ID, "announced")
	if err != nil {
		t.Fatal(err)
	}
	unannounced, tok2, err := here.CreateAPIToken(ctx, u.ID, "unannounced")
	if err != nil {
		t.Fatal(err)
	}
	cookie, _, err := here.SignIn(ctx, "ada@example.org", "correct horse battery", "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{announced, unannounced} {
		if id, err := there.TokenUser(ctx, token); err != nil || id != u.ID {
			t.Fatalf("TokenUser elsewhere = %q, %v", id, err)
		}
	}
	if _, err := there.SessionFor(ctx, cookie); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{tok1.ID, tok2.ID} {
		if err := here.RevokeAPIToken(ctx, u.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := here.SignOut(ctx, cookie); err != nil {
		t.Fatal(err)
	}

	there.Forget(account.CredentialKey(announced))
	there.Forget(account.CredentialKey(cookie))
	if _, err := there.TokenUser(ctx, announced); !errors.Is(err, account.ErrUnauthenticated) {
		t.Errorf("announced revoked token elsewhere: %v, want ErrUnauthenticated", err)
	}
	if _, err := there.SessionFor(ctx, cookie); !errors.Is(err, account.ErrUnauthenticated) {
		t.Errorf("announced sign-out elsewhere: %v, want ErrUnauthenticated", err)
	}
	// The unannounced one is still remembered for a few seconds, and no
	// longer after.
	if _, err := there.TokenUser(ctx, unannounced); err != nil {
		t.Errorf("unannounced revoked token within its seconds: %v, want it remembered", err)
	}
	clk.t = clk.t.Add(6 * time.Second)
	if _, err := there.TokenUser(ctx, unannounced); !errors.Is(err, account.ErrUnauthenticated) {
		t.Errorf("unannounced revoked token after its seconds: %v, want ErrUnauthenticated", err)
	}
}
