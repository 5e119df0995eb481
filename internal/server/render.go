package server

import (
	"context"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/web"
)

// render writes a templ component as an HTML response.
func (s *Server) render(c echo.Context, status int, comp templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return comp.Render(c.Request().Context(), c.Response())
}

func (s *Server) renderErrorPage(c echo.Context, ae *APIError) error {
	// The error page is owed even when the request's context is over: the
	// timeout middleware cancels it as soon as the handler returns, before
	// this runs, and templ renders nothing under a cancelled context.
	c.SetRequest(c.Request().WithContext(context.WithoutCancel(c.Request().Context())))
	// A browser's request refused before the auth middleware ran (a path
	// that does not decode, an unknown route) still shows who is signed in:
	// the header is the way back, and a page that looks signed out is
	// wrong. Only a session cookie counts here (never dev mode's implicit
	// user, whose refusals include requests from a host it does not serve).
	if ck, err := c.Cookie(sessionCookie); err == nil && ck.Value != "" && currentIdentity(c).userID == "" {
		if sess, err := s.cfg.Accounts.SessionFor(c.Request().Context(), ck.Value); err == nil {
			s.setIdentity(c, identity{userID: sess.UserID, csrf: sess.CSRFToken, viaSession: true, cred: account.CredentialKey(ck.Value)})
		}
	}
	msg := ae.Message
	if ae.Status == http.StatusNotFound {
		msg = "This page does not exist, or it belongs to someone else."
	}
	return s.render(c, ae.Status, web.ErrorPage(s.page(c, web.StatusTitle(ae.Status)), ae.Status, ae.Code, msg))
}

// page fills the layout fields every page shares.
func (s *Server) page(c echo.Context, title string) web.Page {
	id := currentIdentity(c)
	p := web.Page{Title: title, CSRFToken: id.csrf}
	if id.userID != "" {
		if u, err := s.cfg.Store.UserByID(c.Request().Context(), id.userID); err == nil {
			p.UserEmail = u.Email
		}
	}
	return p
}
