package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"strategist/web"
)

func (s *Server) homePage(c echo.Context) error {
	ctx := c.Request().Context()
	convs, err := s.cfg.Store.Conversations(ctx, userID(c), 500)
	if err != nil {
		return err
	}
	sites, err := s.cfg.Catalog.Sites(ctx)
	if err != nil {
		return err
	}
	view := web.HomeView{}
	for _, conv := range convs {
		view.Conversations = append(view.Conversations, web.ConversationItem{
			ID: conv.ID, Title: conv.Title, SiteID: conv.SiteID, Mode: conv.Mode, UpdatedAt: conv.UpdatedAt,
		})
	}
	for _, site := range sites {
		view.Sites = append(view.Sites, web.SiteOption{ID: site.ID, Name: site.DisplayName, Offline: site.Offline})
	}
	return s.render(c, http.StatusOK, web.Home(s.page(c, "Conversations"), view))
}
