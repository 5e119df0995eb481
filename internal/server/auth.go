package server

import (
	"crypto/subtle"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/internal/config"
	"strategist/web"
)

// sessionCookie names the browser session cookie.
const sessionCookie = "strategist_session"

// identity is who is calling, stored on the echo context by the auth
// middleware (the user id also travels in the request context).
type identity struct {
	userID string
	// csrf is the session's form token; "" for bearer-token and dev callers.
	csrf string
	// viaSession is true for browser sessions (forms must carry csrf).
	viaSession bool
	// cred names the session or token (account.CredentialKey); "" in dev
	// mode. Streams opened with it end when it is revoked.
	cred string
}

const identityKey = "strategist.identity"

func currentIdentity(c echo.Context) identity {
	id, _ := c.Get(identityKey).(identity)
	return id
}

// authenticate resolves the caller: a bearer token, else a session cookie,
// else dev mode's implicit user. ok is false when nobody is signed in.
func (s *Server) authenticate(c echo.Context) (identity, bool, error) {
	ctx := c.Request().Context()
	if h := c.Request().Header.Get(echo.HeaderAuthorization); h != "" {
		token, found := strings.CutPrefix(h, "Bearer ")
		if !found {
			return identity{}, false, &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: `the Authorization header must be "Bearer <token>"`}
		}
		userID, err := s.cfg.Accounts.TokenUser(ctx, strings.TrimSpace(token))
		if errors.Is(err, account.ErrUnauthenticated) {
			return identity{}, false, &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: "unknown or revoked API token"}
		}
		if err != nil {
			return identity{}, false, err
		}
		return identity{userID: userID, cred: account.CredentialKey(strings.TrimSpace(token))}, true, nil
	}
	if ck, err := c.Cookie(sessionCookie); err == nil && ck.Value != "" {
		sess, err := s.cfg.Accounts.SessionFor(ctx, ck.Value)
		switch {
		case err == nil:
			return identity{userID: sess.UserID, csrf: sess.CSRFToken, viaSession: true, cred: account.CredentialKey(ck.Value)}, true, nil
		case !errors.Is(err, account.ErrUnauthenticated):
			return identity{}, false, err
		}
	}
	if s.cfg.Auth == config.AuthDev {
		u, err := s.cfg.Accounts.DevUser(ctx)
		if err != nil {
			return identity{}, false, err
		}
		return identity{userID: u.ID}, true, nil
	}
	return identity{}, false, nil
}

func (s *Server) setIdentity(c echo.Context, id identity) {
	c.Set(identityKey, id)
	c.SetRequest(c.Request().WithContext(account.WithUser(c.Request().Context(), id.userID)))
}

// requireAPIUser answers 401 JSON to anonymous API calls.
func (s *Server) requireAPIUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, ok, err := s.authenticate(c)
		if err != nil {
			return err
		}
		if !ok {
			return &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: "sign in or send an API token (Authorization: Bearer <token>)"}
		}
		if err := checkAPIWrite(c, id); err != nil {
			return err
		}
		s.setIdentity(c, id)
		return next(c)
	}
}

// checkAPIWrite guards the JSON API's writes against requests a web page
// can make without the server's consent: a body must be JSON (a form or
// text/plain post from another site is refused), and a browser session
// must send its token in X-CSRF-Token (a header no other site can set).
// Bearer tokens are not ambient, so they need no CSRF token.
func checkAPIWrite(c echo.Context, id identity) error {
	r := c.Request()
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if r.ContentLength != 0 {
		mt, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
		if mt != echo.MIMEApplicationJSON {
			return &APIError{Status: http.StatusUnsupportedMediaType, Code: CodeMediaType, Message: "send the body as JSON with Content-Type: application/json"}
		}
	}
	if id.viaSession {
		got := r.Header.Get("X-CSRF-Token")
		if id.csrf == "" || subtle.ConstantTimeCompare([]byte(got), []byte(id.csrf)) != 1 {
			return &APIError{Status: http.StatusForbidden, Code: CodeForbidden,
				Message: "a signed-in browser must send the page's csrf-token (the meta tag) as X-CSRF-Token, or use an API token"}
		}
	}
	return nil
}

// requirePageUser sends anonymous browsers to the sign-in page, and checks
// the form token of state-changing form posts.
func (s *Server) requirePageUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, ok, err := s.authenticate(c)
		if err != nil {
			return err
		}
		if !ok {
			return c.Redirect(http.StatusSeeOther, "/signin?next="+url.QueryEscape(c.Request().URL.RequestURI()))
		}
		if c.Request().Method == http.MethodPost && id.viaSession {
			if err := checkFormToken(c, id.csrf); err != nil {
				return err
			}
		}
		s.setIdentity(c, id)
		return next(c)
	}
}

// checkFormToken compares a form's csrf_token (or the X-CSRF-Token header
// htmx sends) with the session's. It backs up the cross-origin check for
// browsers that send neither Sec-Fetch-Site nor Origin.
func checkFormToken(c echo.Context, want string) error {
	got := c.Request().Header.Get("X-CSRF-Token")
	if got == "" {
		got = c.FormValue("csrf_token")
	}
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return &APIError{Status: http.StatusForbidden, Code: CodeForbidden, Message: "the form expired; reload the page and try again"}
	}
	return nil
}

func (s *Server) signInPage(c echo.Context) error {
	if _, ok, err := s.authenticate(c); err == nil && ok {
		return c.Redirect(http.StatusSeeOther, safeNext(c.QueryParam("next")))
	}
	return s.render(c, http.StatusOK, web.SignIn(web.Page{Title: "Sign in"}, web.SignInPage{Next: c.QueryParam("next")}))
}

func (s *Server) signIn(c echo.Context) error {
	email, password, next := c.FormValue("email"), c.FormValue("password"), c.FormValue("next")
	token, sess, err := s.cfg.Accounts.SignIn(c.Request().Context(), email, password, c.RealIP())
	if err != nil {
		status, msg := http.StatusUnauthorized, "Wrong email or password."
		if te, ok := errors.AsType[*account.ThrottledError](err); ok {
			status, msg = http.StatusTooManyRequests, "Too many failed sign-ins. Wait a moment and try again."
			c.Response().Header().Set("Retry-After", retryAfterSeconds(te.RetryAfter))
		} else if errors.Is(err, account.ErrBusy) {
			status, msg = http.StatusServiceUnavailable, "Too many people are signing in at once. Try again in a moment."
			c.Response().Header().Set("Retry-After", "1")
		} else if !errors.Is(err, account.ErrBadCredentials) {
			return err
		}
		return s.render(c, status, web.SignIn(web.Page{Title: "Sign in"}, web.SignInPage{Email: email, Error: msg, Next: next}))
	}
	c.SetCookie(&http.Cookie{
		Name: sessionCookie, Value: token, Path: "/", Expires: sess.ExpiresAt,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.cfg.SecureCookies,
	})
	return c.Redirect(http.StatusSeeOther, safeNext(next))
}

func (s *Server) signOut(c echo.Context) error {
	if ck, err := c.Cookie(sessionCookie); err == nil {
		sess, err := s.cfg.Accounts.SessionFor(c.Request().Context(), ck.Value)
		if err == nil {
			if err := checkFormToken(c, sess.CSRFToken); err != nil {
				return err
			}
		}
		if err := s.cfg.Accounts.SignOut(c.Request().Context(), ck.Value); err != nil {
			return err
		}
	}
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.cfg.SecureCookies})
	return c.Redirect(http.StatusSeeOther, "/signin")
}

// safeNext keeps post-sign-in redirects on this site: it returns next only
// when it is a path of this origin, and "/" otherwise. Browsers strip tabs
// and newlines from a Location and read a backslash as a slash, so
// "/\t/evil.example" or "/\\evil.example" would take the visitor to
// another host: any whitespace, control or invisible character, any
// backslash, a scheme, a host, or a start other than one "/" is refused,
// whatever its spelling.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || !utf8.ValidString(next) {
		return "/"
	}
	for _, r := range next {
		// unicode.IsPrint is false for controls, format characters (zero
		// width, bidirectional overrides) and every space but U+0020.
		if r == ' ' || r == '\\' || !unicode.IsPrint(r) {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.EscapedPath(), "/") || strings.HasPrefix(u.EscapedPath(), "//") {
		return "/"
	}
	return next
}

// userID returns the authenticated user of a request.
func userID(c echo.Context) string { return currentIdentity(c).userID }
