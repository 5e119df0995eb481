package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/internal/catalog"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/web"
	"strategist/web/view"
)

type createShareRequest struct {
	Public *bool `json:"public"`
}

// shareView is a share link as the API shows it; URL and Token only when
// it is created (only the token's hash is kept).
type shareView struct {
	ID        string     `json:"id"`
	URL       string     `json:"url,omitempty"`
	Token     string     `json:"token,omitempty"`
	Public    bool       `json:"public"`
	EventSeq  int64      `json:"eventSeq"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt"`
}

func newShareView(sh store.Share) shareView {
	return shareView{ID: sh.ID, Public: sh.Public, EventSeq: sh.EventSeq, CreatedAt: sh.CreatedAt, RevokedAt: sh.RevokedAt}
}

// share makes a share link of the caller's conversation as of its latest
// event and returns it with its URL.
func (s *Server) share(c echo.Context, public bool) (shareView, error) {
	token, hash, err := account.NewShareToken()
	if err != nil {
		return shareView{}, err
	}
	sh, err := s.cfg.Store.CreateShare(c.Request().Context(), userID(c), c.Param("id"), hash, public)
	if err != nil {
		return shareView{}, err
	}
	v := newShareView(sh)
	v.Token, v.URL = token, s.shareURL(token)
	return v, nil
}

// shareURL is the address of a share link, on the server's public URL.
func (s *Server) shareURL(token string) string {
	return s.cfg.PublicURL + "/shared/" + url.PathEscape(token)
}

// createShare is POST /api/v1/conversations/{id}/share with an optional
// body {"public": bool} (default false: the link needs a signed-in
// account).
func (s *Server) createShare(c echo.Context) error {
	// Ownership first: another user's id is a 404 whatever the body says.
	if _, err := s.cfg.Store.Conversation(c.Request().Context(), userID(c), c.Param("id")); err != nil {
		return err
	}
	var req createShareRequest
	if c.Request().ContentLength != 0 {
		if err := decodeJSON(c, &req); err != nil {
			return err
		}
	}
	v, err := s.share(c, req.Public != nil && *req.Public)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, v)
}

// listShares is GET /api/v1/conversations/{id}/share: the conversation's
// links, revoked ones included, without their tokens.
func (s *Server) listShares(c echo.Context) error {
	ctx := c.Request().Context()
	if _, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id")); err != nil {
		return err
	}
	shs, err := s.cfg.Store.Shares(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	out := make([]shareView, 0, len(shs))
	for _, sh := range shs {
		out = append(out, newShareView(sh))
	}
	return c.JSON(http.StatusOK, map[string]any{"shares": out})
}

// revokeShare is DELETE /api/v1/conversations/{id}/share/{shareId}: the
// link opens nothing from then on (410).
func (s *Server) revokeShare(c echo.Context) error {
	if err := s.cfg.Store.RevokeShare(c.Request().Context(), userID(c), c.Param("id"), c.Param("shareId")); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return notFound("share link")
		}
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// sharePanelPage is GET /conversations/{id}/share: the Share control's
// panel (the form and the conversation's links), as the fragment the page
// loads when the control is opened, or as a page of its own.
func (s *Server) sharePanelPage(c echo.Context) error {
	return s.renderSharePanel(c, http.StatusOK, nil)
}

// shareConversationForm is POST /conversations/{id}/share from the Share
// control: it makes a link and redraws the panel with it.
func (s *Server) shareConversationForm(c echo.Context) error {
	// Ownership first: another user's id is a 404 whatever the form says.
	if _, err := s.cfg.Store.Conversation(c.Request().Context(), userID(c), c.Param("id")); err != nil {
		return err
	}
	v, err := s.share(c, c.FormValue("public") == "true")
	if err != nil {
		return err
	}
	return s.renderSharePanel(c, http.StatusCreated, &web.ShareLink{URL: v.URL, Public: v.Public})
}

// revokeShareForm is POST /conversations/{id}/share/{shareId}/revoke from
// the panel's Revoke button.
func (s *Server) revokeShareForm(c echo.Context) error {
	if err := s.cfg.Store.RevokeShare(c.Request().Context(), userID(c), c.Param("id"), c.Param("shareId")); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return notFound("share link")
		}
		return err
	}
	return s.renderSharePanel(c, http.StatusOK, nil)
}

// renderSharePanel draws the caller's conversation's share panel, with the
// link just made if any.
func (s *Server) renderSharePanel(c echo.Context, status int, made *web.ShareLink) error {
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	shs, err := s.cfg.Store.Shares(ctx, userID(c), conv.ID)
	if err != nil {
		return err
	}
	v := web.SharePanelView{ConversationID: conv.ID, CSRFToken: currentIdentity(c).csrf, New: made}
	for _, sh := range shs {
		v.Links = append(v.Links, web.ShareItem{ID: sh.ID, Public: sh.Public, CreatedAt: sh.CreatedAt, Revoked: sh.RevokedAt != nil})
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	if isHTMX(c) {
		return s.render(c, status, web.SharePanel(v))
	}
	return s.render(c, status, web.SharePanelPage(s.page(c, "Share · "+conv.Title), v))
}

// sharedPage is GET /shared/{token}: the conversation as it was when the
// link was made (its log up to the link's event), read-only: no composer,
// no actions, no stream, nothing of the owner's other conversations. A
// public link opens for anyone; another needs a signed-in account (else
// the sign-in page, then back here). An unknown token is 404, a revoked
// link 410. The page sends no Referer, so the token in its address does
// not leave for the sites it links to.
func (s *Server) sharedPage(c echo.Context) error {
	sh, proj, err := s.openShare(c)
	if err != nil {
		return signInFirst(c, err)
	}
	p := &web.ConversationPage{Conv: proj, Now: time.Now(), MD: s.md, ReadOnly: true, ShareToken: c.Param("token")}
	p.Overlaps = s.overlaps(c.Request().Context(), proj)
	info := web.SharedInfo{SharedAt: sh.CreatedAt, Public: sh.Public,
		CanCopy: s.cfg.StrategyLists != nil && proj.Strategy != nil && len(proj.Strategy.Steps) > 0}
	return s.render(c, http.StatusOK, web.SharedView(s.page(c, proj.Title+" (shared)"), p, info))
}

// sharedStepGenes is GET /shared/{token}/steps/{stepId}/genes?format=tsv
// (or csv, json, ids): all genes of a step of the strategy as the link
// shows it (the snapshot at the link's event, not the owner's later
// versions), written as the owner's own download is. Whoever may open the
// link may download its genes; nobody else.
func (s *Server) sharedStepGenes(c echo.Context) error {
	format := c.QueryParam("format")
	if _, err := downloadType(format); err != nil {
		return err
	}
	sh, proj, err := s.openShare(c)
	if err != nil {
		return signInFirst(c, err)
	}
	snap := proj.Strategy
	stepID := strategy.StepID(c.Param("stepId"))
	if snap == nil {
		return notFound("step")
	}
	if _, ok := snap.Step(stepID); !ok {
		return notFound("step")
	}
	g := &strategy.Graph{Name: snap.Name, SiteID: snap.SiteID, RecordType: snap.RecordType, Steps: snap.Steps}
	q, err := g.Query(stepID)
	if err != nil {
		return strategyError(err)
	}
	ctx := c.Request().Context()
	return s.writeStepGenes(c, format, sh.ConversationID, stepID, func(page catalog.Page) (*catalog.Answer, error) {
		ans, err := s.cfg.Catalog.Answer(ctx, snap.SiteID, q, page)
		if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
			return nil, strategyError(fmt.Errorf("shared step %s: %w: %w", stepID, strategy.ErrNotEvaluable, ne))
		}
		if ve, ok := errors.AsType[*catalog.ValidationError](err); ok {
			return nil, validationError("the parameters of step "+string(stepID)+" are not valid", map[string]any{"byKey": ve.ByKey, "general": ve.General})
		}
		return ans, err
	})
}

// errSignInFirst is openShare's answer to a visitor without a session at a
// link that is not public: the sign-in page, then back (signInFirst).
var errSignInFirst = errors.New("server: the share link needs a signed-in account")

// signInFirst sends a visitor who must sign in to the sign-in page, back
// to the link afterwards; any other error is returned as it is.
func signInFirst(c echo.Context, err error) error {
	if errors.Is(err, errSignInFirst) {
		return c.Redirect(http.StatusSeeOther, "/signin?next="+url.QueryEscape(c.Request().URL.RequestURI()))
	}
	return err
}

// openShare resolves the request's share link to the conversation as it
// was when the link was made (its log up to the link's event), for
// whoever may open it: anyone for a public link; a signed-in account
// otherwise (else the sign-in page, then back). An unknown token is 404, a
// revoked link 410. It sets the headers every answer of a link carries.
func (s *Server) openShare(c echo.Context) (store.SharedConversation, *view.Conversation, error) {
	h := c.Response().Header()
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Robots-Tag", "noindex, nofollow")
	hash, ok := account.ShareTokenHash(c.Param("token"))
	if !ok {
		return store.SharedConversation{}, nil, notFound("share link")
	}
	ctx := c.Request().Context()
	sh, err := s.cfg.Store.ShareByTokenHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return sh, nil, notFound("share link")
	}
	if err != nil {
		return sh, nil, err
	}
	if sh.RevokedAt != nil {
		return sh, nil, &APIError{Status: http.StatusGone, Code: CodeGone, Message: "This link was revoked by the person who shared it."}
	}
	id, signedIn, err := s.authenticate(c)
	if err != nil {
		return sh, nil, err
	}
	if signedIn {
		s.setIdentity(c, id)
	} else if !sh.Public {
		return sh, nil, errSignInFirst
	}
	conv, err := s.cfg.Store.Conversation(ctx, sh.OwnerID, sh.ConversationID)
	if err != nil {
		return sh, nil, err
	}
	// The title it had then: a later rename is not part of what was shared.
	conv.Title = sh.Title
	proj, err := s.project(ctx, sh.OwnerID, conv, sh.EventSeq)
	return sh, proj, err
}
