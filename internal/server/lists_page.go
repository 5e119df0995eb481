package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"strategist/internal/strategy"
	"strategist/web"
)

// listsPanel gathers the results panel's gene-list part for one step: the
// researcher's lists, the conversation's controls, and the step's figures
// against them (computed exactly, for every step; the panel shows one).
func (s *Server) listsPanel(c echo.Context, snap strategy.Snapshot, stepID strategy.StepID) (*web.ListsPanel, error) {
	if s.cfg.GeneLists == nil || s.cfg.StrategyLists == nil {
		return nil, nil
	}
	ctx := c.Request().Context()
	ls, err := s.cfg.GeneLists.Lists(ctx, userID(c))
	if err != nil {
		return nil, err
	}
	p := &web.ListsPanel{}
	for _, l := range ls {
		p.Lists = append(p.Lists, web.ListOption{ID: l.ID, Name: l.Name, Size: l.Size})
	}
	ctl, err := s.cfg.GeneLists.Controls(ctx, userID(c), c.Param("id"))
	if err != nil {
		return nil, err
	}
	if ctl.Positives == nil && ctl.Negatives == nil {
		return p, nil
	}
	var pos, neg []string
	if ctl.Positives != nil {
		p.Positives, pos = ctl.Positives.ID, ctl.Positives.Genes
	}
	if ctl.Negatives != nil {
		p.Negatives, neg = ctl.Negatives.ID, ctl.Negatives.Genes
	}
	rep, err := s.cfg.StrategyLists.Controls(ctx, userID(c), snap.StrategyID, pos, neg)
	if err != nil {
		return nil, err
	}
	for _, sc := range rep.Steps {
		if sc.StepID == stepID {
			p.Controls = &web.StepControlsView{PositivesFound: sc.PositivesFound, NegativesFound: sc.NegativesFound,
				PositivesTotal: sc.PositivesTotal, NegativesTotal: sc.NegativesTotal, Recall: sc.Recall, Precision: sc.Precision,
				Missed: sc.PositivesMissed, Message: sc.Message}
		}
	}
	return p, nil
}

// saveStepGenesForm is the results panel's Save list form.
func (s *Server) saveStepGenesForm(c echo.Context) error {
	conv, snap, err := s.conversationAndStrategy(c)
	if err != nil {
		return err
	}
	if _, err := s.stepGenesList(c, conv, snap, c.FormValue("name")); err != nil {
		return err
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// setControlsForm is the results panel's controls chooser ("" is none).
func (s *Server) setControlsForm(c echo.Context) error {
	ctx := c.Request().Context()
	side := func(name string) *string {
		if v := c.FormValue(name); v != "" {
			return &v
		}
		return nil
	}
	if _, err := s.cfg.GeneLists.SetControls(ctx, userID(c), c.Param("id"), side("positives"), side("negatives")); err != nil {
		return err
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// uploadGeneListForm is the results panel's upload form: the list's text
// (pasted, or a file the page read into the box), resolved like the API's.
func (s *Server) uploadGeneListForm(c echo.Context) error {
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return err
	}
	if _, err := s.cfg.GeneLists.Create(ctx, userID(c), conv.SiteID, c.FormValue("name"), c.FormValue("text")); err != nil {
		return geneListError(err)
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}
