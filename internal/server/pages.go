package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"strategist/internal/store"
	"strategist/web"
)

// The browser pages follow one shape: a thin handler reads the form, calls
// the same services the JSON API calls, and answers an htmx request with
// the fragment that changed (or nothing, when the live stream brings the
// change) and a plain form post with a redirect to the page to show.

// isHTMX reports whether htmx sent the request (it sets HX-Request).
func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

// afterForm answers a successful form post: nothing for htmx (the stream or
// the response's own fragment shows the result), a redirect for a plain
// browser.
func afterForm(c echo.Context, status int, redirect string) error {
	if isHTMX(c) {
		return c.NoContent(status)
	}
	return c.Redirect(http.StatusSeeOther, redirect)
}

// homePage is GET /: the conversation list, or with q the conversations
// matching a search; the search box's htmx requests get the results alone.
func (s *Server) homePage(c echo.Context) error {
	q, err := searchQuery(c)
	if err != nil {
		return err
	}
	v, err := s.homeView(c, q)
	if err != nil {
		return err
	}
	if isHTMX(c) {
		return s.render(c, http.StatusOK, web.ConversationResults(v))
	}
	return s.render(c, http.StatusOK, web.Home(s.page(c, "Conversations"), v))
}

// homeView gathers the conversation list (all, or those matching q) and
// the sites a new one can be about.
func (s *Server) homeView(c echo.Context, q string) (web.HomeView, error) {
	ctx := c.Request().Context()
	v := web.HomeView{CSRFToken: currentIdentity(c).csrf, Query: q}
	if q == "" {
		convs, err := s.cfg.Store.Conversations(ctx, userID(c), 500)
		if err != nil {
			return web.HomeView{}, err
		}
		for _, conv := range convs {
			v.Conversations = append(v.Conversations, web.ConversationItem{
				ID: conv.ID, Title: conv.Title, SiteID: conv.SiteID, Mode: string(conv.Mode), UpdatedAt: conv.UpdatedAt,
			})
		}
	} else {
		hits, err := s.cfg.Store.SearchConversations(ctx, userID(c), q, searchLimit)
		if err != nil {
			return web.HomeView{}, err
		}
		for _, h := range hits {
			item := web.ConversationItem{
				ID: h.ID, Title: h.Title, SiteID: h.SiteID, Mode: string(h.Mode), UpdatedAt: h.UpdatedAt,
			}
			for _, p := range store.HeadlineParts(h.Headline) {
				item.Snippet = append(item.Snippet, web.SnippetPart{Text: p.Text, Match: p.Match})
			}
			v.Conversations = append(v.Conversations, item)
		}
	}
	sites, err := s.siteStatuses(c)
	if err != nil {
		return web.HomeView{}, err
	}
	for _, site := range sites {
		opt := web.SiteOption{ID: site.ID, Name: site.Name, Offline: site.Offline, Available: site.Available}
		if !site.Available {
			opt.Reason = site.Message
		}
		v.Sites = append(v.Sites, opt)
	}
	return v, nil
}

// listAfterForm answers a rename or delete: htmx gets the list redrawn, a
// plain browser goes back to it.
func (s *Server) listAfterForm(c echo.Context) error {
	if !isHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	v, err := s.homeView(c, "")
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, web.ConversationList(v))
}

// createConversationForm is POST /conversations from the new-conversation
// form; it opens the new conversation.
func (s *Server) createConversationForm(c echo.Context) error {
	siteID := c.FormValue("siteId")
	if siteID == "" {
		return validationError("choose a site", map[string]string{"siteId": "required"})
	}
	if err := s.checkSite(c, siteID); err != nil {
		return err
	}
	title := "New conversation"
	if raw := c.FormValue("title"); raw != "" {
		t, err := checkTitle(raw)
		if err != nil {
			return err
		}
		title = t
	}
	conv, err := s.cfg.Store.CreateConversation(c.Request().Context(), userID(c), siteID, title, s.cfg.DefaultModel)
	if err != nil {
		return err
	}
	to := "/conversations/" + conv.ID
	if isHTMX(c) {
		c.Response().Header().Set("HX-Redirect", to)
		return c.NoContent(http.StatusCreated)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

func (s *Server) renameConversationForm(c echo.Context) error {
	// Ownership first: another user's id is a 404 whatever the form says.
	if _, err := s.cfg.Store.Conversation(c.Request().Context(), userID(c), c.Param("id")); err != nil {
		return err
	}
	title, err := checkTitle(c.FormValue("title"))
	if err != nil {
		return err
	}
	if _, err := s.cfg.Chat.Rename(c.Request().Context(), userID(c), c.Param("id"), title); err != nil {
		return err
	}
	return s.listAfterForm(c)
}

func (s *Server) deleteConversationForm(c echo.Context) error {
	if err := s.cfg.Chat.Delete(c.Request().Context(), userID(c), c.Param("id")); err != nil {
		return err
	}
	return s.listAfterForm(c)
}
