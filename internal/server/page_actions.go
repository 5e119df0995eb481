package server

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog"
	"strategist/internal/chat"
	"strategist/internal/strategy"
	"strategist/web"
)

// The conversation page's form posts. Each calls the service the JSON API
// calls; what it changes reaches the page through the live stream, so an
// htmx request gets no content, and a plain browser is sent back to the
// conversation page, which is drawn with the change.

func conversationURL(c echo.Context) string { return "/conversations/" + c.Param("id") }

// sendMessageForm is POST /conversations/{id}/turns from the composer, and
// from the Retry, Edit and Regenerate forms (the last two name the turn
// they replace). The new turn's id is in the X-Turn-Id header, so the
// page's script knows which turn_start and turn_end are its own.
func (s *Server) sendMessageForm(c echo.Context) error {
	if err := s.ownConversation(c); err != nil {
		return err
	}
	turnID, err := s.cfg.Chat.StartTurn(c.Request().Context(), chat.TurnRequest{
		UserID: userID(c), ConversationID: c.Param("id"),
		Message: c.FormValue("message"), Mode: chat.Mode(c.FormValue("mode")), Model: c.FormValue("model"),
		Replaces: c.FormValue("replaces"),
	})
	if err != nil {
		return chatError(err)
	}
	c.Response().Header().Set("X-Turn-Id", turnID)
	return afterForm(c, http.StatusAccepted, conversationURL(c))
}

// ownConversation answers 404 unless the conversation is the caller's.
func (s *Server) ownConversation(c echo.Context) error {
	_, err := s.cfg.Store.Conversation(c.Request().Context(), userID(c), c.Param("id"))
	return err
}

// cancelTurnForm is the Stop button.
func (s *Server) cancelTurnForm(c echo.Context) error {
	if err := s.ownConversation(c); err != nil {
		return err
	}
	if err := s.cfg.Chat.Cancel(c.Request().Context(), userID(c), c.Param("id"), c.Param("turnId")); err != nil {
		return chatError(err)
	}
	return afterForm(c, http.StatusAccepted, conversationURL(c))
}

// acceptHandoffForm is the Build this plan button.
func (s *Server) acceptHandoffForm(c echo.Context) error {
	if err := s.ownConversation(c); err != nil {
		return err
	}
	turnID, err := s.cfg.Chat.AcceptHandoff(c.Request().Context(), userID(c), c.Param("id"), c.Param("handoffId"))
	if err != nil {
		return chatError(err)
	}
	c.Response().Header().Set("X-Turn-Id", turnID)
	return afterForm(c, http.StatusAccepted, conversationURL(c))
}

// undoStrategyForm is the strategy panel's Undo button.
func (s *Server) undoStrategyForm(c echo.Context) error {
	snap, err := s.strategyToRewind(c)
	if err != nil {
		return err
	}
	if _, err := s.cfg.Strategies.Undo(c.Request().Context(), userID(c), snap.StrategyID); err != nil {
		return strategyError(err)
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// restoreStrategyForm is an entry of the strategy panel's history: it
// returns the strategy to that version.
func (s *Server) restoreStrategyForm(c echo.Context) error {
	version, err := strconv.Atoi(c.FormValue("version"))
	if err != nil {
		return badRequest("version must be a version number of this strategy")
	}
	snap, err := s.strategyToRewind(c)
	if err != nil {
		return err
	}
	if _, err := s.cfg.Strategies.Restore(c.Request().Context(), userID(c), snap.StrategyID, version); err != nil {
		return strategyError(err)
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// combineStepsForm is the strategy panel's form that combines two results.
func (s *Server) combineStepsForm(c echo.Context) error {
	m, err := combineRequest{Left: c.FormValue("left"), Right: c.FormValue("right"), Operator: c.FormValue("operator")}.mutation()
	if err != nil {
		return err
	}
	if _, err := s.applyEdit(c, m); err != nil {
		return err
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// deleteStepForm is the strategy panel's Delete button of a result step.
func (s *Server) deleteStepForm(c echo.Context) error {
	if _, err := s.applyEdit(c, strategy.DeleteStep{Step: strategy.StepID(c.Param("stepId"))}); err != nil {
		return err
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// renameStepForm is the results panel's Rename form of a step.
func (s *Server) renameStepForm(c echo.Context) error {
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" {
		return badRequest("the step's name must not be empty")
	}
	if _, err := s.applyEdit(c, strategy.UpdateStep{Step: strategy.StepID(c.Param("stepId")), DisplayName: &name}); err != nil {
		return err
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// stepOperatorForm is the results panel's operator of a combine step: the
// new operator goes through the strategy service (the step and those after
// it are counted again, its name follows unless the researcher named it,
// Undo takes it back); htmx gets the step's results drawn again.
func (s *Server) stepOperatorForm(c echo.Context) error {
	op, err := strategy.ParseOperator(c.FormValue("operator"))
	if err != nil || op == strategy.Colocate {
		return badRequest("operator must be one of INTERSECT, UNION, MINUS, RMINUS, LONLY or RONLY")
	}
	stepID := strategy.StepID(c.Param("stepId"))
	res, err := s.applyEdit(c, strategy.UpdateStep{Step: stepID, Operator: &op})
	if err != nil {
		return err
	}
	if isHTMX(c) {
		return s.renderResults(c, res.Snapshot, stepID, web.GeneQuery{}, 0, web.DefaultPageSize)
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// stepParamsForm is the results panel's parameter editor of a step: the
// parameters the researcher changed (web.ParamValues reads the form) go
// through the strategy service, which has the catalog check them and counts
// the step and those after it again. htmx gets the step's results drawn
// with the new version; a refused value is the catalog's message, which
// the page shows by the form.
func (s *Server) stepParamsForm(c echo.Context) error {
	snap, st, err := s.conversationStep(c)
	if err != nil {
		return err
	}
	stepID := st.ID
	search := s.stepSearch(c, snap, st)
	if search == nil {
		return badRequest("step " + string(stepID) + " has no parameters to change here")
	}
	form, err := c.FormParams()
	if err != nil {
		return badRequest("the form could not be read")
	}
	changed := web.ParamValues(search, st.Parameters, form)
	if len(changed) == 0 {
		return badRequest("no parameter of step " + string(stepID) + " was changed")
	}
	res, err := s.cfg.Strategies.Apply(c.Request().Context(), userID(c), snap.StrategyID, strategy.UpdateStep{Step: stepID, Parameters: changed})
	if ve, ok := errors.AsType[*catalog.ValidationError](err); ok {
		return &APIError{Status: http.StatusUnprocessableEntity, Code: strategy.Code(err), Message: paramProblems(search, ve), Err: err}
	}
	if err != nil {
		return strategyError(err)
	}
	if isHTMX(c) {
		return s.renderResults(c, res.Snapshot, stepID, web.GeneQuery{}, 0, web.DefaultPageSize)
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}

// paramProblems is the catalog's refusal as the editor's fields name
// the parameters: "GO Term or GO ID: Invalid value 'GO:9999999'. …".
func paramProblems(search *catalog.Search, ve *catalog.ValidationError) string {
	parts := slices.Clone(ve.General)
	keys := slices.Sorted(maps.Keys(ve.ByKey))
	for _, k := range keys {
		name := k
		if p, ok := search.Param(k); ok && p.DisplayName != "" {
			name = p.DisplayName
		}
		parts = append(parts, name+": "+strings.Join(ve.ByKey[k], " "))
	}
	return strings.Join(parts, " ")
}

// redoStrategyForm is the strategy panel's Redo button.
func (s *Server) redoStrategyForm(c echo.Context) error {
	snap, err := s.strategyToRewind(c)
	if err != nil {
		return err
	}
	if _, err := s.cfg.Strategies.Redo(c.Request().Context(), userID(c), snap.StrategyID); err != nil {
		return strategyError(err)
	}
	return afterForm(c, http.StatusOK, conversationURL(c))
}
