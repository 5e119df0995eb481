package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"strategist/internal/event"
	"strategist/internal/planner"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

type createConversationRequest struct {
	SiteID string  `json:"siteId"`
	Title  *string `json:"title"`
}

type renameConversationRequest struct {
	Title *string `json:"title"`
}

// conversationDetail is GET /conversations/{id}: the conversation with what
// a client needs to draw it, and the event sequence to resume the stream from.
type conversationDetail struct {
	store.Conversation
	Messages   []store.Message    `json:"messages"`
	Artifacts  []event.Artifact   `json:"artifacts"`
	Handoffs   []store.Handoff    `json:"handoffs"`
	Turns      []store.Turn       `json:"turns"`
	Delegation *store.Delegation  `json:"delegation"`
	Strategy   *strategy.Snapshot `json:"strategy"`
}

func (s *Server) createConversation(c echo.Context) error {
	var req createConversationRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if req.SiteID == "" {
		return validationError("siteId is required", map[string]string{"siteId": "required"})
	}
	if err := s.checkSite(c, req.SiteID); err != nil {
		return err
	}
	title := store.DefaultTitle
	if req.Title != nil {
		t, err := checkTitle(*req.Title)
		if err != nil {
			return err
		}
		title = t
	}
	conv, err := s.cfg.Store.CreateConversation(ctx, userID(c), req.SiteID, title, s.cfg.DefaultModel)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, conv)
}

// checkSite answers 422 for a site the catalog does not know or the caller
// cannot use (a live site without their VEuPathDB API key).
func (s *Server) checkSite(c echo.Context, siteID string) error {
	return s.checkUserSite(c.Request().Context(), userID(c), siteID)
}

// checkUserSite is checkSite for a user.
func (s *Server) checkUserSite(ctx context.Context, userID, siteID string) error {
	all, err := s.userSiteStatuses(ctx, userID)
	if err != nil {
		return err
	}
	known := make([]string, 0, len(all))
	for _, st := range all {
		if st.ID != siteID {
			known = append(known, st.ID)
			continue
		}
		if !st.Available {
			return validationError(st.Name+" is not available: "+st.Message, map[string]any{"siteId": "unavailable"})
		}
		return nil
	}
	return validationError("unknown site "+quote(siteID), map[string]any{"siteId": "unknown", "known": known})
}

// listConversations is GET /api/v1/conversations: the caller's
// conversations, most recently active first; with q, those whose title,
// messages or step names match it, most relevant first, each with a
// snippet of the matching text.
func (s *Server) listConversations(c echo.Context) error {
	q, err := searchQuery(c)
	if err != nil {
		return err
	}
	if q != "" {
		hits, err := s.searchConversations(c, q)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"conversations": hits})
	}
	convs, err := s.cfg.Store.Conversations(c.Request().Context(), userID(c), 500)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"conversations": nonNil(convs)})
}

func (s *Server) getConversation(c echo.Context) error {
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	d, err := s.detail(ctx, userID(c), conv)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

func (s *Server) renameConversation(c echo.Context) error {
	ctx := c.Request().Context()
	// Ownership first: another user's id is a 404 whatever the body says.
	if _, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id")); err != nil {
		return err
	}
	var req renameConversationRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Title == nil {
		return validationError("title is required", map[string]string{"title": "required"})
	}
	title, err := checkTitle(*req.Title)
	if err != nil {
		return err
	}
	conv, err := s.cfg.Chat.Rename(ctx, userID(c), c.Param("id"), title)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, conv)
}

func (s *Server) deleteConversation(c echo.Context) error {
	if err := s.cfg.Chat.Delete(c.Request().Context(), userID(c), c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// detail gathers everything a client needs to draw a conversation; its
// lastEventSeq is where the live stream resumes.
func (s *Server) detail(ctx context.Context, uid string, conv store.Conversation) (*conversationDetail, error) {
	d := &conversationDetail{Conversation: conv, Artifacts: []event.Artifact{}}
	var err error
	if d.Messages, err = s.cfg.Store.Messages(ctx, uid, conv.ID); err != nil {
		return nil, err
	}
	arts, err := s.cfg.Store.Artifacts(ctx, uid, conv.ID)
	if err != nil {
		return nil, err
	}
	for _, a := range arts {
		d.Artifacts = append(d.Artifacts, planner.View(a))
	}
	if d.Handoffs, err = s.cfg.Store.Handoffs(ctx, uid, conv.ID); err != nil {
		return nil, err
	}
	if d.Turns, err = s.cfg.Store.Turns(ctx, uid, conv.ID); err != nil {
		return nil, err
	}
	if del, err := s.cfg.Store.LatestDelegation(ctx, uid, conv.ID); err == nil {
		d.Delegation = &del
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if snap, err := s.cfg.Strategies.Conversation(ctx, uid, conv.ID); err == nil {
		d.Strategy = &snap
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	d.Messages = nonNil(d.Messages)
	d.Handoffs = nonNil(d.Handoffs)
	d.Turns = nonNil(d.Turns)
	return d, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
