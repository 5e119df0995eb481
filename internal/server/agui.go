package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"strategist/internal/protocol"
	"strategist/internal/store"
)

// Strategist as an AG-UI agent (the Agent-User Interaction protocol,
// version 1.0): POST /ag-ui takes a RunAgentInput and answers an SSE
// stream of AG-UI events, over the same runner as the other protocols
// (converse), with an API token as a bearer token.
//
// A thread is a conversation: threadId is the conversation's id (a UUID).
// A thread id that is no conversation yet starts one under that id, on the
// site forwardedProps.site names (default plasmodb); another user's thread
// is not found. A run is one turn, or two with forwardedProps.autoBuild:
// the last message, a user message, starts a plan turn; a plan waiting for
// approval ends the run with an interrupt outcome whose interrupt id is
// the plan's handoff id, and the next run resumes it (resume entry status
// "resolved" builds the plan; "cancelled" leaves it unbuilt). The state is
// the conversation's strategy: a STATE_SNAPSHOT after RUN_STARTED, then a
// STATE_DELTA (JSON Patch) for each change.

// aguiPath is where AG-UI runs start.
const aguiPath = "/ag-ui"

// aguiVersion is the AG-UI protocol version Strategist speaks.
const aguiVersion = "1.0"

// aguiReasonPlan is the reason of the interrupt a plan waiting for
// approval leaves.
const aguiReasonPlan = "plan_approval"

// aguiInput is AG-UI's RunAgentInput, as far as Strategist reads it: the
// client's state and tools are not read (the strategy is the server's, and
// Strategist's agents call only their own tools).
type aguiInput struct {
	ThreadID    string                 `json:"threadId"`
	RunID       string                 `json:"runId"`
	ParentRunID string                 `json:"parentRunId"`
	Messages    []protocol.ChatMessage `json:"messages"`
	Context     []struct {
		Description string `json:"description"`
		Value       string `json:"value"`
	} `json:"context"`
	ForwardedProps json.RawMessage `json:"forwardedProps"`
	Resume         []aguiResume    `json:"resume"`
}

// aguiResume answers one interrupt of an earlier run.
type aguiResume struct {
	InterruptID string `json:"interruptId"`
	Status      string `json:"status"`
}

// aguiProps are the forwardedProps Strategist reads.
type aguiProps struct {
	// Site is a new thread's site (default plasmodb).
	Site string `json:"site"`
	// AutoBuild builds the plan as soon as it is ready, in the same run.
	AutoBuild bool `json:"autoBuild"`
}

func (s *Server) denyAGUI(c echo.Context, msg string) error {
	return &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: msg}
}

// runAGUI serves one AG-UI run.
func (s *Server) runAGUI(c echo.Context) error {
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		if he, ok := errors.AsType[*echo.HTTPError](err); ok {
			return he
		}
		return fmt.Errorf("read body: %w", err)
	}
	var in aguiInput
	// Clients send what their framework holds (tools, state, ...):
	// unknown fields are ignored, as for the OpenAI-compatible API.
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&in); err != nil {
		return badRequest(describeJSONError(err))
	}
	if strings.TrimSpace(in.ThreadID) == "" || strings.TrimSpace(in.RunID) == "" {
		return badRequest("threadId and runId are required")
	}
	var props aguiProps
	if len(in.ForwardedProps) > 0 && in.ForwardedProps[0] == '{' {
		if err := json.Unmarshal(in.ForwardedProps, &props); err != nil {
			return badRequest("forwardedProps: " + describeJSONError(err))
		}
	}
	ctx := c.Request().Context()
	user := userID(c)
	message := ""
	if n := len(in.Messages); n > 0 && in.Messages[n-1].Role == "user" {
		message = strings.TrimSpace(in.Messages[n-1].Text())
	}
	if message != "" {
		for _, x := range in.Context {
			if strings.TrimSpace(x.Value) != "" {
				message += "\n\n" + strings.TrimSpace(x.Description) + ": " + strings.TrimSpace(x.Value)
			}
		}
	}
	conv, created, err := s.aguiThread(c, in.ThreadID, props.Site, message, len(in.Resume) == 0)
	if err != nil {
		return err
	}
	// A run refused before its turn starts leaves no thread behind: the
	// conversation made for it goes again.
	started := false
	if created {
		defer func() {
			if !started {
				s.discardConversation(ctx, user, conv.ID)
			}
		}()
	}
	req := converseRequest{userID: user, conv: conv, message: message, autoBuild: props.AutoBuild, heartbeat: s.cfg.KeepAlive}
	if len(in.Resume) > 0 {
		h, ok, err := s.pendingHandoff(ctx, user, conv.ID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(in.Resume, func(r aguiResume) bool { return ok && strings.EqualFold(r.InterruptID, h.ID) })
		if i < 0 {
			return &APIError{Status: http.StatusConflict, Code: "HANDOFF_DECIDED",
				Message: "no plan of this thread waits under the interrupts resumed: it was built or replaced; start a run without resume"}
		}
		switch in.Resume[i].Status {
		case "resolved":
			req.accept = h.ID
		case "cancelled":
			// The plan stays unbuilt; a new user message plans again.
		default:
			return badRequest("resume status must be resolved or cancelled")
		}
	}
	if req.accept == "" && message == "" && len(in.Resume) == 0 {
		return badRequest("messages must end with a user message that has text")
	}

	st := &aguiStream{s: s, c: c, in: in, conv: conv, open: map[string]bool{}, steps: map[string]string{}, labels: map[string]string{}}
	if st.state, err = s.aguiState(c, conv.ID); err != nil {
		return err
	}
	sctx, cancel := s.conversationStreamContext(c, conv.ID)
	defer cancel()
	if req.accept == "" && message == "" {
		// A plan declined with nothing new to say: a run with no turn.
		started = true // of an existing thread: nothing to take back
		if err := st.start(); err != nil {
			return nil
		}
		_ = st.send("RUN_FINISHED", map[string]any{"threadId": in.ThreadID, "runId": in.RunID, "outcome": map[string]any{"type": "success"}})
		return nil
	}
	out, err := s.converse(sctx, req, st.record)
	started = len(out.turnIDs) > 0
	if err != nil {
		switch {
		case !st.started && sctx.Err() == nil:
			return chatError(err)
		case sctx.Err() != nil || errors.Is(err, errFollowStopped):
			return nil // nobody is left to answer; the turn runs on
		default:
			// A refusal after the stream began (the build a run with
			// autoBuild asks for, refused by the turn budget) is the
			// run's error, with its code; anything else is internal.
			ae := toAPIError(chatError(err))
			if ae.Status >= 500 {
				s.log.ErrorContext(ctx, "ag-ui run failed", slog.String("conversation_id", conv.ID), slog.Any("error", err))
			}
			if st.closeAll() == nil {
				_ = st.send("RUN_ERROR", map[string]any{"message": ae.Message, "code": ae.Code})
			}
			return nil
		}
	}
	st.finish(sctx, out)
	return nil
}

// aguiThread finds the conversation a thread id names, or starts one
// under that id (create) on site with a title from the message.
// It reports whether it created the conversation.
func (s *Server) aguiThread(c echo.Context, threadID, site, message string, create bool) (store.Conversation, bool, error) {
	ctx := c.Request().Context()
	if !isUUID(threadID) {
		return store.Conversation{}, false, badRequest("threadId must be a UUID: a conversation id of yours, or a new one to start a conversation under")
	}
	id := strings.ToLower(threadID)
	conv, err := s.cfg.Store.Conversation(ctx, userID(c), id)
	if !errors.Is(err, store.ErrNotFound) || !create {
		if errors.Is(err, store.ErrNotFound) {
			return conv, false, notFound("thread " + threadID)
		}
		return conv, false, err
	}
	if site = strings.TrimSpace(site); site == "" {
		site = defaultProtocolSite
	}
	if err := s.checkSite(c, site); err != nil {
		return conv, false, err
	}
	conv, err = s.cfg.Store.CreateConversationWithID(ctx, id, userID(c), site, titleFrom(message), s.cfg.DefaultModel)
	if errors.Is(err, store.ErrConflict) {
		// Another user's conversation, or this user's created meanwhile.
		conv, err = s.cfg.Store.Conversation(ctx, userID(c), id)
		if errors.Is(err, store.ErrNotFound) {
			return conv, false, notFound("thread " + threadID)
		}
		return conv, false, err
	}
	return conv, err == nil, err
}

// aguiState is a thread's AG-UI state: its conversation and strategy
// (strategy.Snapshot's JSON; null before anything is built), decoded.
func (s *Server) aguiState(c echo.Context, conversationID string) (map[string]any, error) {
	st := map[string]any{"conversationId": conversationID, "conversationUrl": s.conversationURL(conversationID), "strategy": nil}
	snap, err := s.cfg.Strategies.Conversation(c.Request().Context(), userID(c), conversationID)
	if err != nil {
		return st, nil // nothing built yet
	}
	raw, err := json.Marshal(snap)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	st["strategy"] = v
	return st, nil
}
