package server

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/chat"
	"strategist/internal/llm"
)

// turnRequest is the body of POST …/turns. Replaces names the
// conversation's latest turn to replace: with a message, the researcher's
// edited message is sent instead of it; without, its message is sent again
// (regenerate); mode may then be left out to keep the replaced turn's.
type turnRequest struct {
	Message  string `json:"message"`
	Mode     string `json:"mode"`
	Model    string `json:"model"`
	Replaces string `json:"replaces"`
}

func (s *Server) startTurn(c echo.Context) error {
	ctx := c.Request().Context()
	// Ownership before anything else: another user's id is a 404. StartTurn
	// reads the conversation before it looks at the request, so only a body
	// that does not decode needs the check here, which keeps the common
	// path to one read of the conversation.
	var req turnRequest
	if err := decodeJSON(c, &req); err != nil {
		if _, cerr := s.cfg.Store.Conversation(ctx, userID(c), c.Param("id")); cerr != nil {
			return cerr
		}
		return err
	}
	turnID, err := s.cfg.Chat.StartTurn(ctx, chat.TurnRequest{
		UserID: userID(c), ConversationID: c.Param("id"), Message: req.Message, Mode: chat.Mode(req.Mode), Model: req.Model,
		Replaces: req.Replaces,
	})
	if err != nil {
		return chatError(err)
	}
	return c.JSON(http.StatusAccepted, map[string]string{"turnId": turnID})
}

func (s *Server) cancelTurn(c echo.Context) error {
	if err := s.cfg.Chat.Cancel(c.Request().Context(), userID(c), c.Param("id"), c.Param("turnId")); err != nil {
		return chatError(err)
	}
	return c.JSON(http.StatusAccepted, map[string]string{"status": "cancelling"})
}

func (s *Server) acceptHandoff(c echo.Context) error {
	turnID, err := s.cfg.Chat.AcceptHandoff(c.Request().Context(), userID(c), c.Param("id"), c.Param("handoffId"))
	if err != nil {
		return chatError(err)
	}
	return c.JSON(http.StatusAccepted, map[string]string{"turnId": turnID})
}

func (s *Server) listModels(c echo.Context) error {
	return c.JSON(http.StatusOK, s.cfg.Models.Models())
}

// CodeNotReplaceable: the turn a request asks to replace is not the
// conversation's latest, or there is no message to send again.
const CodeNotReplaceable = "NOT_REPLACEABLE"

// chatError maps the orchestrator's errors onto responses.
func chatError(err error) error {
	if be, ok := errors.AsType[*chat.BudgetError](err); ok {
		return budgetError(be)
	}
	if ie, ok := errors.AsType[*chat.InputError](err); ok {
		details := map[string]any{"field": ie.Field}
		if len(ie.Allowed) > 0 {
			details["allowed"] = ie.Allowed
		}
		return &APIError{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: ie.Field + " " + ie.Message, Details: details, Err: err}
	}
	if re, ok := errors.AsType[*chat.ReplaceError](err); ok {
		return &APIError{Status: http.StatusUnprocessableEntity, Code: CodeNotReplaceable, Message: re.Message, Details: map[string]any{"field": "replaces"}, Err: err}
	}
	if um, ok := errors.AsType[*llm.UnknownModelError](err); ok {
		return &APIError{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: um.Error(), Details: map[string]any{"field": "model", "allowed": um.Valid}, Err: err}
	}
	switch {
	case errors.Is(err, chat.ErrTurnRunning):
		return &APIError{Status: http.StatusConflict, Code: "TURN_RUNNING", Message: "a turn of this conversation is still running; wait for it or cancel it", Err: err}
	case errors.Is(err, chat.ErrHandoffDecided):
		return &APIError{Status: http.StatusConflict, Code: "HANDOFF_DECIDED", Message: err.Error(), Err: err}
	case errors.Is(err, chat.ErrNotServing):
		return &APIError{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: "the server is starting or stopping; try again in a moment",
			RetryAfter: time.Second, Err: err}
	}
	return err
}

// budgetError answers a turn refused by the user's turn budget: 429
// RATE_LIMITED with Retry-After, whichever way the turn came in.
func budgetError(be *chat.BudgetError) *APIError {
	msg := "you are starting turns too fast; wait a moment"
	if be.Running {
		msg = fmt.Sprintf("you have %d turns running, the most at once; wait for one to end or cancel one", be.Limit)
	}
	return &APIError{Status: http.StatusTooManyRequests, Code: CodeRateLimited, Message: msg, RetryAfter: be.RetryAfter,
		Details: map[string]any{"limit": be.Limit, "running": be.Running, "retryAfterSeconds": retrySeconds(be.RetryAfter)}, Err: be}
}

// retrySeconds is a Retry-After in whole seconds, at least one.
func retrySeconds(d time.Duration) int { return max(1, int((d+time.Second-1)/time.Second)) }
