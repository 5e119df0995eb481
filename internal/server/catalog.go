package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog"
	"strategist/internal/sites"
)

func (s *Server) listSites(c echo.Context) error {
	all, err := s.siteStatuses(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"sites": all})
}

// siteStatuses lists every site with whether the caller can use it.
func (s *Server) siteStatuses(c echo.Context) ([]sites.Status, error) {
	return s.userSiteStatuses(c.Request().Context(), userID(c))
}

// userSiteStatuses lists every site with whether a user can use it.
func (s *Server) userSiteStatuses(ctx context.Context, userID string) ([]sites.Status, error) {
	if s.cfg.Sites != nil {
		return s.cfg.Sites.Statuses(ctx, userID)
	}
	list, err := s.cfg.Catalog.Sites(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]sites.Status, 0, len(list))
	for _, x := range list {
		kind := "live"
		if x.Offline {
			kind = "offline"
		}
		out = append(out, sites.Status{ID: x.ID, Name: x.DisplayName, DisplayName: x.DisplayName, ProjectID: x.ProjectID,
			Kind: kind, Offline: x.Offline, Live: !x.Offline, Available: true})
	}
	return out, nil
}

func (s *Server) searchSearches(c echo.Context) error {
	ctx := c.Request().Context()
	site := c.Param("site")
	if err := s.checkSiteExists(c, site); err != nil {
		return err
	}
	q, recordType := strings.TrimSpace(c.QueryParam("q")), c.QueryParam("recordType")
	var (
		found []catalog.SearchSummary
		err   error
	)
	if q == "" {
		found, err = s.cfg.Catalog.Searches(ctx, site, recordType)
	} else {
		found, err = s.cfg.Catalog.SearchForSearches(ctx, site, q, recordType, 50)
	}
	if errors.Is(err, catalog.ErrNotFound) {
		return notFound("record type " + quote(recordType))
	}
	if err != nil {
		return err
	}
	if found == nil {
		found = []catalog.SearchSummary{}
	}
	return c.JSON(http.StatusOK, map[string]any{"searches": found})
}

func (s *Server) getSearch(c echo.Context) error {
	site := c.Param("site")
	if err := s.checkSiteExists(c, site); err != nil {
		return err
	}
	search, err := s.cfg.Catalog.Search(c.Request().Context(), site, c.QueryParam("recordType"), c.Param("name"))
	if errors.Is(err, catalog.ErrNotFound) {
		return notFound("search " + quote(c.Param("name")))
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, search)
}

type countRequest struct {
	Parameters map[string]string `json:"parameters"`
}

type countResponse struct {
	Count      *int               `json:"count"`
	Evaluable  bool               `json:"evaluable"`
	Message    string             `json:"message,omitempty"`
	Parameters map[string]string  `json:"parameters"`
	Provenance catalog.Provenance `json:"provenance"`
}

func (s *Server) countSearch(c echo.Context) error {
	ctx := c.Request().Context()
	site, name := c.Param("site"), c.Param("name")
	if err := s.checkSiteExists(c, site); err != nil {
		return err
	}
	if _, err := s.cfg.Catalog.Search(ctx, site, "", name); errors.Is(err, catalog.ErrNotFound) {
		return notFound("search " + quote(name))
	} else if err != nil {
		return err
	}
	var req countRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	params, err := s.cfg.Catalog.Validate(ctx, site, name, req.Parameters)
	if ve, ok := errors.AsType[*catalog.ValidationError](err); ok {
		return validationError("the parameters are not valid for "+name, map[string]any{"byKey": ve.ByKey, "general": ve.General})
	}
	if err != nil {
		return err
	}
	ans, err := s.cfg.Catalog.Answer(ctx, site, &catalog.Query{Search: name, Params: params}, catalog.Page{})
	if ne, ok := errors.AsType[*catalog.NotEvaluableError](err); ok {
		return c.JSON(http.StatusOK, countResponse{Evaluable: false, Message: ne.Error(), Parameters: params,
			Provenance: catalog.Provenance{Offline: true, Note: "count unavailable offline"}})
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, countResponse{Count: &ans.Count, Evaluable: true, Parameters: params, Provenance: ans.Provenance})
}

// checkSiteExists answers 404 for an unknown site in a path.
func (s *Server) checkSiteExists(c echo.Context, site string) error {
	ok, _, err := s.siteKnown(c, site)
	if err != nil {
		return err
	}
	if !ok {
		return notFound("site " + quote(site))
	}
	return nil
}

// siteKnown reports whether the catalog has a site, and which it has.
func (s *Server) siteKnown(c echo.Context, site string) (bool, []string, error) {
	sites, err := s.cfg.Catalog.Sites(c.Request().Context())
	if err != nil {
		return false, nil, err
	}
	known := make([]string, 0, len(sites))
	for _, x := range sites {
		if x.ID == site {
			return true, nil, nil
		}
		known = append(known, x.ID)
	}
	return false, known, nil
}
