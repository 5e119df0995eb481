package server

import (
	"context"
	"maps"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog"
	"strategist/internal/catalog/catalogtool"
	"strategist/web"
)

// maxTermChoices is how many terms the typeahead offers at once.
const maxTermChoices = 10

// maxTermQuery bounds the typeahead's query, in characters.
const maxTermQuery = 100

// stepTermsPage is GET /conversations/{id}/strategy/steps/{stepId}/terms
// ?param=…&terms_q=…: the parameter editor's typeahead over a vocabulary
// too large to list (GO terms). It matches the query against each term's
// id, name and synonyms as the agents' vocabulary query does, offers the
// nearest spellings when nothing matches, and on an offline site counts
// the step's genes with each term alone, so the researcher sees what a
// term would give before choosing it.
func (s *Server) stepTermsPage(c echo.Context) error {
	snap, st, err := s.conversationStep(c)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(c.QueryParam("terms_q"))
	if utf8.RuneCountInString(q) > maxTermQuery {
		return badRequest("the term query is longer than 100 characters")
	}
	name := c.QueryParam("param")
	search := s.stepSearch(c, snap, st)
	if search == nil {
		return badRequest("step " + string(st.ID) + " has no parameters to change here")
	}
	p, ok := search.Param(name)
	if !ok || len(p.Vocabulary) == 0 {
		return badRequest("step " + string(st.ID) + "'s search has no parameter " + quote(name) + " with a vocabulary")
	}
	out := web.TermSuggestions{Param: name, Query: q}
	if q != "" {
		found := catalogtool.MatchTerms(p.Vocabulary, q)
		if len(found) == 0 {
			found, out.Near = catalogtool.NearTerms(p.Vocabulary, q), true
		}
		if len(found) > maxTermChoices {
			out.More = len(found) - maxTermChoices
			found = found[:maxTermChoices]
		}
		ctx := c.Request().Context()
		offline := s.siteOffline(ctx, snap.SiteID)
		for _, t := range found {
			choice := web.TermChoice{Term: t.Term, Label: web.TermLabel(t)}
			if len(t.Synonyms) == 1 { // the synonym the term was found by
				choice.Synonym = t.Synonyms[0]
			}
			if offline {
				choice.Count = s.countWith(ctx, snap.SiteID, search.Name, st.Parameters, name, t.Term)
			}
			out.Terms = append(out.Terms, choice)
		}
	}
	return s.render(c, http.StatusOK, web.TermSuggestionsList(out))
}

// siteOffline reports whether site is answered by the offline snapshot.
func (s *Server) siteOffline(ctx context.Context, site string) bool {
	list, err := s.cfg.Catalog.Sites(ctx)
	if err != nil {
		return false
	}
	for _, x := range list {
		if x.ID == site {
			return x.Offline
		}
	}
	return false
}

// countWith counts a search's genes with the step's parameters and param
// set to term alone; nil when the catalog refuses or cannot count it.
func (s *Server) countWith(ctx context.Context, site, search string, params map[string]string, param, term string) *int {
	with := maps.Clone(params)
	if with == nil {
		with = map[string]string{}
	}
	with[param] = catalog.EncodeTerms([]string{term})
	valid, err := s.cfg.Catalog.Validate(ctx, site, search, with)
	if err != nil {
		return nil
	}
	ans, err := s.cfg.Catalog.Answer(ctx, site, &catalog.Query{Search: search, Params: valid}, catalog.Page{})
	if err != nil {
		return nil
	}
	return &ans.Count
}
