package wdk

import (
	"context"
	"net/http"
	"net/url"

	"strategist/internal/catalog"
)

// The catalog endpoints are not per user, but the live sites answer only
// registered users, so every call carries the caller's token. The GETs
// among them read through Config.DocCache when one is set (getDoc).

// siteToken resolves a site and the caller's token.
func (c *Client) siteToken(ctx context.Context, siteID string) (*siteConn, string, error) {
	s, err := c.site(siteID)
	if err != nil {
		return nil, "", err
	}
	tok, err := c.token(ctx, s)
	if err != nil {
		return nil, "", opErr(siteID, "api key", err)
	}
	return s, tok, nil
}

// ServiceInfo reads the service root (GET /), whose projectId is the one
// to trust (the portal's differs between deployments).
func (c *Client) ServiceInfo(ctx context.Context, siteID string) (*ServiceInfo, error) {
	var w wireServiceInfo
	if err := c.getDoc(ctx, siteID, "service info", request{method: http.MethodGet, path: "/", out: &w}); err != nil {
		return nil, err
	}
	return &ServiceInfo{
		ProjectID:   string(w.ProjectID),
		DisplayName: string(w.DisplayName),
		BuildNumber: string(w.BuildNumber),
		ReleaseDate: string(w.ReleaseDate),
		AuthMethod:  string(w.Authentication.Method),
	}, nil
}

// CurrentUser returns the account of the caller's token (GET
// /users/current). A guest is returned as such, not refused: use it to show
// the user what their key resolves to.
func (c *Client) CurrentUser(ctx context.Context, siteID string) (*User, error) {
	s, tok, err := c.siteToken(ctx, siteID)
	if err != nil {
		return nil, err
	}
	u, err := c.currentUser(ctx, s, tok)
	return u, opErr(siteID, "current user", err)
}

// CheckToken checks a key a user is about to save: it must belong to a
// registered account. It returns that account (its id is worth storing
// beside the sealed key) and remembers the id for later calls.
func (c *Client) CheckToken(ctx context.Context, siteID, token string) (*User, error) {
	s, err := c.site(siteID)
	if err != nil {
		return nil, err
	}
	u, err := c.currentUser(ctx, s, token)
	if err != nil {
		return nil, opErr(siteID, "check api key", err)
	}
	if u.IsGuest {
		return nil, opErr(siteID, "check api key", &AuthError{Site: siteID, Guest: true})
	}
	c.users.put(userKey(siteID, token), u.ID)
	return u, nil
}

func (c *Client) currentUser(ctx context.Context, s *siteConn, token string) (*User, error) {
	var w wireUser
	if err := c.do(ctx, s, token, request{method: http.MethodGet, path: "/users/current", out: &w}); err != nil {
		return nil, err
	}
	return &User{ID: w.ID.V, IsGuest: bool(w.IsGuest), Email: string(w.Email), Properties: w.Properties}, nil
}

// RecordTypeNames lists the record types' url segments (GET /record-types).
func (c *Client) RecordTypeNames(ctx context.Context, siteID string) ([]string, error) {
	var ns names
	if err := c.getDoc(ctx, siteID, "record types", request{method: http.MethodGet, path: "/record-types", out: &ns}); err != nil {
		return nil, err
	}
	return ns, nil
}

// RecordTypesExpanded lists the record types with their attributes and
// searches (GET /record-types?format=expanded; a large answer).
func (c *Client) RecordTypesExpanded(ctx context.Context, siteID string) ([]RecordTypeInfo, error) {
	var ws []wireRecordType
	q := url.Values{"format": {"expanded"}}
	if err := c.getDoc(ctx, siteID, "record types", request{method: http.MethodGet, path: "/record-types", query: q, out: &ws}); err != nil {
		return nil, err
	}
	out := make([]RecordTypeInfo, 0, len(ws))
	for i := range ws {
		if ws[i].URLSegment != "" {
			out = append(out, ws[i].info())
		}
	}
	return out, nil
}

// RecordType reads one record type, expanded (GET /record-types/{rt}).
func (c *Client) RecordType(ctx context.Context, siteID, recordType string) (*RecordTypeInfo, error) {
	var w wireRecordType
	path := "/record-types/" + url.PathEscape(recordType)
	q := url.Values{"format": {"expanded"}}
	if err := c.getDoc(ctx, siteID, "record type "+recordType, request{method: http.MethodGet, path: path, query: q, out: &w}); err != nil {
		return nil, err
	}
	info := w.info()
	if info.Name == "" {
		info.Name = recordType
	}
	return &info, nil
}

// SearchList lists a record type's searches, internal ones included (GET
// /record-types/{rt}/searches).
func (c *Client) SearchList(ctx context.Context, siteID, recordType string) ([]SearchInfo, error) {
	var ws []wireSearch
	if err := c.getDoc(ctx, siteID, "searches of "+recordType, request{method: http.MethodGet, path: searchesPath(recordType), out: &ws}); err != nil {
		return nil, err
	}
	out := make([]SearchInfo, 0, len(ws))
	for i := range ws {
		if ws[i].URLSegment != "" {
			out = append(out, ws[i].info(recordType))
		}
	}
	return out, nil
}

func searchesPath(recordType string) string {
	return "/record-types/" + url.PathEscape(recordType) + "/searches"
}

func searchPath(recordType, name string) string {
	return searchesPath(recordType) + "/" + url.PathEscape(name)
}

// SearchDetails reads a search with its parameters and their defaults
// (GET /record-types/{rt}/searches/{s}).
func (c *Client) SearchDetails(ctx context.Context, siteID, recordType, name string) (*SearchDetails, error) {
	var w wireSearchResponse
	if err := c.getDoc(ctx, siteID, "search "+name, request{method: http.MethodGet, path: searchPath(recordType, name), out: &w, search: name}); err != nil {
		return nil, err
	}
	d, err := w.details(recordType)
	return d, opErr(siteID, "search "+name, err)
}

// ReviseSearch asks WDK to validate parameter values and recompute
// vocabularies for them (POST /record-types/{rt}/searches/{s} with
// contextParamValues). The values' validity is in the result's Validation
// (level SEMANTIC), not an error; searchData keeps defaults in place of
// invalid values so it stays displayable. An unknown parameter name is a
// *catalog.ValidationError keyed by that name.
func (c *Client) ReviseSearch(ctx context.Context, siteID, recordType, name string, values map[string]string) (*SearchDetails, error) {
	s, tok, err := c.siteToken(ctx, siteID)
	if err != nil {
		return nil, err
	}
	if values == nil {
		values = map[string]string{}
	}
	body := struct {
		ContextParamValues map[string]string `json:"contextParamValues"`
	}{values}
	var w wireSearchResponse
	if err := c.do(ctx, s, tok, request{method: http.MethodPost, path: searchPath(recordType, name), body: body, out: &w, search: name}); err != nil {
		return nil, opErr(siteID, "validate "+name, err)
	}
	d, err := w.details(recordType)
	return d, opErr(siteID, "validate "+name, err)
}

// RefreshDependentParams returns the parameters that depend on changed,
// with vocabularies recomputed for its new value (POST
// .../refreshed-dependent-params).
func (c *Client) RefreshDependentParams(ctx context.Context, siteID, recordType, name, changed, value string, values map[string]string) ([]Param, error) {
	s, tok, err := c.siteToken(ctx, siteID)
	if err != nil {
		return nil, err
	}
	if values == nil {
		values = map[string]string{}
	}
	type changedParam struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	body := struct {
		ChangedParam       changedParam      `json:"changedParam"`
		ContextParamValues map[string]string `json:"contextParamValues"`
	}{changedParam{changed, value}, values}
	var ws []wireParam
	path := searchPath(recordType, name) + "/refreshed-dependent-params"
	if err := c.do(ctx, s, tok, request{method: http.MethodPost, path: path, body: body, out: &ws, search: name}); err != nil {
		return nil, opErr(siteID, "refresh dependent parameters of "+name, err)
	}
	out := make([]Param, 0, len(ws))
	for i := range ws {
		p, err := ws[i].param()
		if err != nil {
			return nil, opErr(siteID, "refresh dependent parameters of "+name, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// SearchReport runs a search without creating a step or strategy (POST
// /record-types/{rt}/searches/{s}/reports/standard): the leaf count and a
// page of records. A search with input steps cannot run this way.
func (c *Client) SearchReport(ctx context.Context, siteID, recordType, name string, cfg SearchConfig, rc ReportConfig) (*Report, error) {
	s, tok, err := c.siteToken(ctx, siteID)
	if err != nil {
		return nil, err
	}
	if cfg.Parameters == nil {
		cfg.Parameters = map[string]string{}
	}
	body := struct {
		SearchConfig SearchConfig `json:"searchConfig"`
		ReportConfig ReportConfig `json:"reportConfig"`
	}{cfg, rc}
	var w wireReport
	path := searchPath(recordType, name) + "/reports/standard"
	if err := c.do(ctx, s, tok, request{method: http.MethodPost, path: path, body: body, out: &w, search: name}); err != nil {
		return nil, opErr(siteID, "report of "+name, err)
	}
	r := w.report()
	return &r, nil
}

// compile-time check that Client is a catalog.
var _ catalog.Catalog = (*Client)(nil)
