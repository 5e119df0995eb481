package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// copyShared is POST /api/v1/shared/{token}/copy: a new conversation of
// the caller's own, on the link's site, whose strategy is the shared one
// as the link shows it. It answers 201 with the conversation.
func (s *Server) copyShared(c echo.Context) error {
	conv, err := s.copyOfShare(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, conv)
}

// copySharedForm is the shared page's "Open a copy in Strategist": the
// copy is made as copyShared makes it, and the visitor lands on it.
func (s *Server) copySharedForm(c echo.Context) error {
	conv, err := s.copyOfShare(c)
	if err != nil {
		return err
	}
	return afterForm(c, http.StatusCreated, "/conversations/"+conv.ID)
}

// copyOfShare makes the copy: the shared strategy, in WDK's form, is
// imported into a new conversation as its first version, so its counts,
// undo, controls and follow-ups work as in any conversation of the
// visitor's. The owner's conversation is only read; the messages stay
// theirs and are not copied.
func (s *Server) copyOfShare(c echo.Context) (store.Conversation, error) {
	_, proj, err := s.openShare(c)
	if err != nil {
		return store.Conversation{}, err
	}
	snap := proj.Strategy
	if snap == nil || len(snap.Steps) == 0 {
		return store.Conversation{}, &APIError{Status: http.StatusConflict, Code: "NOTHING_TO_COPY",
			Message: "the shared conversation has no strategy to copy"}
	}
	if err := s.checkSite(c, snap.SiteID); err != nil {
		return store.Conversation{}, err
	}
	g := &strategy.Graph{Name: snap.Name, SiteID: snap.SiteID, RecordType: snap.RecordType, Steps: snap.Steps}
	w, err := g.WDK()
	if err != nil {
		return store.Conversation{}, strategyError(err)
	}
	title := []rune(proj.Title)
	if len(title) > protocol.MaxTitle-len(" (copy)") {
		title = title[:protocol.MaxTitle-len(" (copy)")]
	}
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.CreateConversation(ctx, userID(c), snap.SiteID, string(title)+" (copy)", s.cfg.DefaultModel)
	if err != nil {
		return store.Conversation{}, err
	}
	if _, err := s.cfg.StrategyLists.ImportWDK(ctx, userID(c), conv.ID, w); err != nil {
		return store.Conversation{}, strategyError(err)
	}
	return conv, nil
}
