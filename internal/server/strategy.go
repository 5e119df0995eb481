package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
)

// conversationStrategy returns the snapshot of the conversation's strategy,
// after checking the conversation is the caller's.
func (s *Server) conversationStrategy(c echo.Context) (strategy.Snapshot, error) {
	_, snap, err := s.conversationAndStrategy(c)
	return snap, err
}

// conversationStep reads the caller's conversation's strategy and the step
// the route's :stepId names in it (a step that is not there is
// STEP_NOT_FOUND).
func (s *Server) conversationStep(c echo.Context) (strategy.Snapshot, strategy.Step, error) {
	snap, err := s.conversationStrategy(c)
	if err != nil {
		return strategy.Snapshot{}, strategy.Step{}, err
	}
	st, ok := snap.Step(strategy.StepID(c.Param("stepId")))
	if !ok {
		return strategy.Snapshot{}, strategy.Step{}, strategyError(strategy.ErrStepNotFound)
	}
	return snap, st, nil
}

// conversationAndStrategy reads the caller's conversation (another user's
// is not found) and its strategy (none is NO_STRATEGY).
func (s *Server) conversationAndStrategy(c echo.Context) (store.Conversation, strategy.Snapshot, error) {
	ctx := c.Request().Context()
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id"))
	if err != nil {
		return store.Conversation{}, strategy.Snapshot{}, err
	}
	snap, err := s.cfg.Strategies.Conversation(ctx, userID(c), c.Param("id"))
	if errors.Is(err, store.ErrNotFound) {
		return conv, strategy.Snapshot{}, &APIError{Status: http.StatusNotFound, Code: "NO_STRATEGY", Message: "this conversation has no strategy yet", Err: err}
	}
	return conv, snap, err
}

// strategyToRewind is the conversation's strategy for Undo, Redo and the
// history, refused while a turn of the conversation runs: that turn is
// still changing the strategy, so going back under it would leave its
// half-built steps on screen and put its next change on an older version.
// The page disables these controls while a turn runs; this answers the
// click that raced the turn's start, and API clients.
func (s *Server) strategyToRewind(c echo.Context) (strategy.Snapshot, error) {
	snap, err := s.conversationStrategy(c)
	if err != nil {
		return strategy.Snapshot{}, err
	}
	turns, err := s.cfg.Store.Turns(c.Request().Context(), userID(c), c.Param("id"))
	if err != nil {
		return strategy.Snapshot{}, err
	}
	for _, t := range turns {
		if t.Status == store.TurnRunning {
			return strategy.Snapshot{}, &APIError{Status: http.StatusConflict, Code: "TURN_RUNNING",
				Message: "a turn is still changing this strategy; wait for it to end or stop it, then go back"}
		}
	}
	return snap, nil
}

func (s *Server) getStrategy(c echo.Context) error {
	snap, err := s.conversationStrategy(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, snap)
}

func (s *Server) strategyVersions(c echo.Context) error {
	snap, err := s.conversationStrategy(c)
	if err != nil {
		return err
	}
	versions, err := s.cfg.Strategies.Versions(c.Request().Context(), userID(c), snap.StrategyID)
	if err != nil {
		return err
	}
	if versions == nil {
		versions = []strategies.Version{}
	}
	return c.JSON(http.StatusOK, map[string]any{"strategyId": snap.StrategyID, "versions": versions})
}

func (s *Server) undoStrategy(c echo.Context) error {
	snap, err := s.strategyToRewind(c)
	if err != nil {
		return err
	}
	res, err := s.cfg.Strategies.Undo(c.Request().Context(), userID(c), snap.StrategyID)
	if err != nil {
		return strategyError(err)
	}
	return c.JSON(http.StatusOK, res.Snapshot)
}

// combineRequest is a researcher's combine of two steps.
type combineRequest struct {
	Left     string `json:"left" form:"left"`
	Right    string `json:"right" form:"right"`
	Operator string `json:"operator" form:"operator"`
}

// applyEdit applies a researcher's edit of the conversation's strategy
// through the strategy service, as the agents' tools do: the same checks,
// the same version history and Undo, the same graph_snapshot on the stream.
func (s *Server) applyEdit(c echo.Context, m strategy.Mutation) (strategies.Result, error) {
	snap, err := s.conversationStrategy(c)
	if err != nil {
		return strategies.Result{}, err
	}
	res, err := s.cfg.Strategies.Apply(c.Request().Context(), userID(c), snap.StrategyID, m)
	if err != nil {
		return strategies.Result{}, strategyError(err)
	}
	return res, nil
}

func (req combineRequest) mutation() (strategy.Mutation, error) {
	if req.Left == "" || req.Right == "" || req.Operator == "" {
		return nil, badRequest(`left, right and operator are required (operator: UNION, INTERSECT or MINUS)`)
	}
	return strategy.Combine{Left: strategy.StepID(req.Left), Right: strategy.StepID(req.Right), Operator: strategy.Operator(req.Operator)}, nil
}

// combineSteps is POST …/strategy/combine: {"left","right","operator"}.
func (s *Server) combineSteps(c echo.Context) error {
	var req combineRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	m, err := req.mutation()
	if err != nil {
		return err
	}
	res, err := s.applyEdit(c, m)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res.Snapshot)
}

// deleteStep is DELETE …/strategy/steps/{stepId}: a step no other step
// takes as input.
func (s *Server) deleteStep(c echo.Context) error {
	res, err := s.applyEdit(c, strategy.DeleteStep{Step: strategy.StepID(c.Param("stepId"))})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res.Snapshot)
}

// stepUpdate is a researcher's change of one step: its name, parameters
// (merged into the step's and validated by the catalog, with its
// vocabularies) or a combine's operator.
type stepUpdate struct {
	DisplayName *string           `json:"displayName"`
	Parameters  map[string]string `json:"parameters"`
	Operator    *string           `json:"operator"`
}

// updateStep is PATCH …/strategy/steps/{stepId}.
func (s *Server) updateStep(c echo.Context) error {
	var req stepUpdate
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	m := strategy.UpdateStep{Step: strategy.StepID(c.Param("stepId")), DisplayName: req.DisplayName, Parameters: req.Parameters}
	if req.Operator != nil {
		op := strategy.Operator(*req.Operator)
		m.Operator = &op
	}
	res, err := s.applyEdit(c, m)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res.Snapshot)
}

func (s *Server) redoStrategy(c echo.Context) error {
	snap, err := s.strategyToRewind(c)
	if err != nil {
		return err
	}
	res, err := s.cfg.Strategies.Redo(c.Request().Context(), userID(c), snap.StrategyID)
	if err != nil {
		return strategyError(err)
	}
	return c.JSON(http.StatusOK, res.Snapshot)
}

func (s *Server) stepResults(c echo.Context) error {
	if format := c.QueryParam("format"); format != "" {
		return s.downloadStepResults(c, format)
	}
	limit, err := queryInt(c, "limit", 50, 0, 1000)
	if err != nil {
		return err
	}
	offset, err := queryInt(c, "offset", 0, 0, 1_000_000)
	if err != nil {
		return err
	}
	snap, err := s.conversationStrategy(c)
	if err != nil {
		return err
	}
	ans, err := s.cfg.Strategies.StepResults(c.Request().Context(), userID(c), snap.StrategyID,
		strategy.StepID(c.Param("stepId")), catalog.Page{Offset: offset, Limit: limit})
	if err != nil {
		return strategyError(err)
	}
	if ans.Records == nil {
		ans.Records = []catalog.Record{}
	}
	return c.JSON(http.StatusOK, ans)
}

func (s *Server) strategyWDK(c echo.Context) error {
	snap, err := s.conversationStrategy(c)
	if err != nil {
		return err
	}
	w, err := s.cfg.Strategies.WDK(c.Request().Context(), userID(c), snap.StrategyID)
	if err != nil {
		return strategyError(err)
	}
	return c.JSON(http.StatusOK, w)
}

// strategyError maps graph and catalog errors onto responses.
func strategyError(err error) error {
	if _, ok := errors.AsType[*catalog.SiteError](err); ok {
		return toAPIError(err)
	}
	if ae, ok := enrichmentError(err); ok {
		return ae
	}
	switch {
	case errors.Is(err, strategy.ErrNothingToUndo):
		return &APIError{Status: http.StatusConflict, Code: "NOTHING_TO_UNDO", Message: "there is no earlier version to go back to", Err: err}
	case errors.Is(err, strategy.ErrNothingToRedo):
		return &APIError{Status: http.StatusConflict, Code: "NOTHING_TO_REDO", Message: "there is no undo to take back", Err: err}
	case errors.Is(err, strategy.ErrVersionNotFound):
		return &APIError{Status: http.StatusNotFound, Code: "VERSION_NOT_FOUND", Message: "no such earlier version of this strategy", Err: err}
	case errors.Is(err, strategy.ErrStepNotFound):
		return &APIError{Status: http.StatusNotFound, Code: "STEP_NOT_FOUND", Message: "no such step in this strategy", Err: err}
	case errors.Is(err, strategy.ErrNotEvaluable):
		return &APIError{Status: http.StatusUnprocessableEntity, Code: "NOT_EVALUABLE", Message: err.Error(), Err: err}
	case errors.Is(err, strategy.ErrInvalidPage):
		return badRequest(err.Error())
	case errors.Is(err, catalog.ErrUnavailable):
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: err.Error(), Err: err}
	}
	if code := strategy.Code(err); code != "" {
		return &APIError{Status: http.StatusUnprocessableEntity, Code: code, Message: err.Error(), Err: err}
	}
	return err
}

func queryInt(c echo.Context, name string, def, lo, hi int) (int, error) {
	raw := c.QueryParam(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || n > hi {
		return 0, badRequest(name + " must be a whole number from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi))
	}
	return n, nil
}
