package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog/wdk"
	"strategist/internal/sites"
	"strategist/internal/store"
	"strategist/web"
)

// VEuPathDBKeys keeps researchers' VEuPathDB API keys, sealed, one per live
// site (cmd/server's keyStore).
type VEuPathDBKeys interface {
	// Off says why no key can be stored ("" when keys can be stored).
	Off() string
	// Save checks the key against the site, then seals and stores it.
	Save(ctx context.Context, userID, siteID, apiKey string) (StoredKey, error)
	// SaveAll checks the key against checkSite and stores it for every
	// site listed.
	SaveAll(ctx context.Context, userID, checkSite string, siteIDs []string, apiKey string) ([]StoredKey, error)
	// Delete removes the user's key for a site; none is store.ErrNotFound.
	Delete(ctx context.Context, userID, siteID string) error
}

// StoredKey says that a key is stored for a site, and when; never the key.
type StoredKey = sites.StoredKey

// maxAPIKey bounds a VEuPathDB API key (theirs are a few hundred bytes).
const maxAPIKey = 4096

type keyView struct {
	SiteID   string     `json:"siteId"`
	SiteName string     `json:"siteName"`
	Stored   bool       `json:"stored"`
	StoredAt *time.Time `json:"storedAt,omitempty"`
}

type accountResponse struct {
	Enabled bool      `json:"enabled"`
	Message string    `json:"message,omitempty"`
	Sites   []keyView `json:"sites"`
}

// keyViews lists the live sites with whether the user stored a key for each.
func (s *Server) keyViews(c echo.Context) (accountResponse, error) {
	all, err := s.siteStatuses(c)
	if err != nil {
		return accountResponse{}, err
	}
	out := accountResponse{Sites: []keyView{}, Message: s.keysOff().Message}
	if s.cfg.Keys != nil && s.cfg.Keys.Off() == "" {
		out.Enabled, out.Message = true, ""
	}
	for _, st := range all {
		if !st.Live {
			continue
		}
		// The site statuses already say when the user's key was stored.
		v := keyView{SiteID: st.ID, SiteName: st.Name}
		if out.Enabled && st.KeyStoredAt != nil {
			v.Stored, v.StoredAt = true, st.KeyStoredAt
		}
		out.Sites = append(out.Sites, v)
	}
	return out, nil
}

func (s *Server) getVEuPathDBAccount(c echo.Context) error {
	v, err := s.keyViews(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

type putKeyRequest struct {
	SiteID string `json:"siteId"`
	APIKey string `json:"apiKey"`
	// AllSites stores the key for every live site (checked with SiteID).
	AllSites bool `json:"allSites"`
}

func (s *Server) putVEuPathDBKey(c echo.Context) error {
	var req putKeyRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	keys, err := s.saveKey(c, req.SiteID, req.APIKey, req.AllSites)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"stored": keys})
}

func (s *Server) deleteVEuPathDBKey(c echo.Context) error {
	if err := s.deleteKey(c, c.QueryParam("siteId")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// keysOff answers when keys cannot be stored on this server.
func (s *Server) keysOff() *APIError {
	msg := "this server does not store VEuPathDB API keys"
	if s.cfg.Keys != nil {
		msg = s.cfg.Keys.Off()
	}
	return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: msg}
}

// checkLiveSite answers 422 unless siteID names a live site; it returns
// the ids of every live site.
func (s *Server) checkLiveSite(c echo.Context, siteID string) ([]string, error) {
	if siteID == "" {
		return nil, validationError("choose a live site", map[string]string{"siteId": "required"})
	}
	all, err := s.siteStatuses(c)
	if err != nil {
		return nil, err
	}
	var live []string
	for _, st := range all {
		if st.Live {
			live = append(live, st.ID)
		}
	}
	if !slices.Contains(live, siteID) {
		return nil, validationError(quote(siteID)+" is not a live VEuPathDB site", map[string]string{"siteId": "not a live site"})
	}
	return live, nil
}

// saveKey checks and stores a key, for one live site or all of them. A
// key the site refuses is the researcher's input to fix: 422 with what the
// site said.
func (s *Server) saveKey(c echo.Context, siteID, apiKey string, all bool) ([]StoredKey, error) {
	if s.cfg.Keys == nil || s.cfg.Keys.Off() != "" {
		return nil, s.keysOff()
	}
	live, err := s.checkLiveSite(c, siteID)
	if err != nil {
		return nil, err
	}
	apiKey = strings.TrimSpace(apiKey)
	switch {
	case apiKey == "":
		return nil, validationError("paste the API key of your VEuPathDB account", map[string]string{"apiKey": "required"})
	case len(apiKey) > maxAPIKey:
		return nil, validationError("that is too long for a VEuPathDB API key", map[string]string{"apiKey": "too long"})
	case strings.ContainsFunc(apiKey, func(r rune) bool { return r <= ' ' || r > '~' }):
		// Keys are printable ASCII without spaces; anything else (a line
		// break pasted inside) cannot be sent in a header, and is not the
		// site's fault.
		return nil, validationError("a VEuPathDB API key has no spaces, line breaks or other special characters; copy it again from your VEuPathDB account", map[string]string{"apiKey": "invalid characters"})
	}
	var keys []StoredKey
	if all {
		keys, err = s.cfg.Keys.SaveAll(c.Request().Context(), userID(c), siteID, live, apiKey)
	} else {
		var k StoredKey
		k, err = s.cfg.Keys.Save(c.Request().Context(), userID(c), siteID, apiKey)
		keys = []StoredKey{k}
	}
	if ae, ok := errors.AsType[*wdk.AuthError](err); ok {
		return nil, validationError("the site refused this key, so it was not saved: "+ae.Error(), map[string]string{"apiKey": "refused by the site"})
	}
	if err != nil {
		return nil, err
	}
	return keys, nil
}

func (s *Server) deleteKey(c echo.Context, siteID string) error {
	if s.cfg.Keys == nil || s.cfg.Keys.Off() != "" {
		return s.keysOff()
	}
	if _, err := s.checkLiveSite(c, siteID); err != nil {
		return err
	}
	err := s.cfg.Keys.Delete(c.Request().Context(), userID(c), siteID)
	if errors.Is(err, store.ErrNotFound) {
		return notFound("a stored API key for " + siteID)
	}
	return err
}

// settingsPage is GET /settings: the VEuPathDB API keys.
func (s *Server) settingsPage(c echo.Context) error {
	return s.renderSettings(c, http.StatusOK, c.QueryParam("done"), "")
}

func (s *Server) renderSettings(c echo.Context, status int, notice, problem string) error {
	v, err := s.keyViews(c)
	if err != nil {
		return err
	}
	view := web.SettingsView{Enabled: v.Enabled, Off: v.Message, Notice: notice, Error: problem, CSRFToken: currentIdentity(c).csrf}
	for _, k := range v.Sites {
		view.Sites = append(view.Sites, web.KeySite{ID: k.SiteID, Name: k.SiteName, Stored: k.Stored, StoredAt: k.StoredAt})
	}
	return s.render(c, status, web.Settings(s.page(c, "Settings"), view))
}

// formProblem turns an API error of a form post into the page's message,
// or returns the error for the error page.
func (s *Server) formProblem(c echo.Context, err error) error {
	ae := toAPIError(err)
	if ae.Status >= 500 && ae.Status != http.StatusBadGateway && ae.Status != http.StatusServiceUnavailable {
		return err
	}
	if ae.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", retryAfterSeconds(ae.RetryAfter))
	}
	return s.renderSettings(c, ae.Status, "", ae.Message)
}

// saveKeyForm is POST /settings/veupathdb.
func (s *Server) saveKeyForm(c echo.Context) error {
	siteID, all := c.FormValue("siteId"), c.FormValue("allSites") != ""
	if _, err := s.saveKey(c, siteID, c.FormValue("apiKey"), all); err != nil {
		return s.formProblem(c, err)
	}
	done := "API key stored for " + siteID
	if all {
		done = "API key checked with " + siteID + " and stored for every live site"
	}
	return c.Redirect(http.StatusSeeOther, "/settings?done="+urlQuery(done))
}

// deleteKeyForm is POST /settings/veupathdb/delete.
func (s *Server) deleteKeyForm(c echo.Context) error {
	siteID := c.FormValue("siteId")
	if err := s.deleteKey(c, siteID); err != nil {
		return s.formProblem(c, err)
	}
	return c.Redirect(http.StatusSeeOther, "/settings?done="+urlQuery("API key deleted for "+siteID))
}

func urlQuery(s string) string { return url.QueryEscape(s) }
