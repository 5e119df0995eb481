package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"strategist/internal/sites"
	"strategist/internal/strategy"
	"strategist/web"
)

// StrategySaver saves a built strategy into the researcher's account on a
// live site, and reads strategies from it: one of the account's by its id,
// one shared by its link (*sites.Registry).
type StrategySaver interface {
	SaveStrategy(ctx context.Context, site string, ws *strategy.WDKStrategy) (*sites.Saved, error)
	ImportStrategy(ctx context.Context, site string, strategyID int64) (*strategy.WDKStrategy, error)
	ImportShared(ctx context.Context, site, link string) (*strategy.WDKStrategy, error)
}

// saveStrategy exports the conversation's strategy and saves it on the
// conversation's live site.
func (s *Server) saveStrategy(c echo.Context) (*sites.Saved, error) {
	ctx := c.Request().Context()
	conv, snap, err := s.conversationAndStrategy(c)
	if err != nil {
		return nil, err
	}
	if s.cfg.Saver == nil {
		return nil, &APIError{Status: http.StatusConflict, Code: "NOT_LIVE", Message: sites.ErrNotLive.Error()}
	}
	w, err := s.cfg.Strategies.WDK(ctx, userID(c), snap.StrategyID)
	if err != nil {
		return nil, strategyError(err)
	}
	// The researcher knows the work by the conversation's title, which is
	// what the strategy is called in the VEuPathDB account too; the
	// strategy's own name is a generic one the executor gives it.
	if conv.Title != "" && conv.Title != "New conversation" {
		w.Name = conv.Title
	}
	saved, err := s.cfg.Saver.SaveStrategy(ctx, conv.SiteID, w)
	if errors.Is(err, sites.ErrNotLive) {
		return nil, &APIError{Status: http.StatusConflict, Code: "NOT_LIVE", Message: err.Error() + "; this conversation is about the offline snapshot (" + conv.SiteID + "): use Export for VEuPathDB instead", Err: err}
	}
	if err != nil {
		return nil, strategyError(err)
	}
	s.log.InfoContext(ctx, "strategy saved to VEuPathDB", "conversation_id", conv.ID, "site", conv.SiteID, "wdk_strategy_id", saved.StrategyID)
	return saved, nil
}

// saveStrategyAPI is POST /api/v1/conversations/{id}/strategy/veupathdb.
func (s *Server) saveStrategyAPI(c echo.Context) error {
	saved, err := s.saveStrategy(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, saved)
}

// saveStrategyForm is the page's "Save to VEuPathDB" button: htmx gets the
// link (or why it failed) in place; a plain browser gets a page.
func (s *Server) saveStrategyForm(c echo.Context) error {
	saved, err := s.saveStrategy(c)
	v := web.SavedStrategyView{ConversationURL: conversationURL(c)}
	if err != nil {
		// The site's answer and "not a live site" are shown in place;
		// anything else (another user's conversation, no strategy) is the
		// usual error response.
		ae := toAPIError(err)
		switch ae.Code {
		case CodeSiteAccount, CodeSiteUnavailable, CodeSiteError, "NOT_LIVE":
			v.Error = ae.Message
		default:
			return err
		}
	} else {
		v.URL, v.StrategyID = saved.URL, saved.StrategyID
	}
	if isHTMX(c) {
		return s.render(c, http.StatusOK, web.SavedStrategy(v))
	}
	status := http.StatusCreated
	if err != nil {
		status = toAPIError(err).Status
	}
	return s.render(c, status, web.SavedStrategyPage(s.page(c, "Save to VEuPathDB"), v))
}
