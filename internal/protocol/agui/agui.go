// Package agui serves Strategist as an AG-UI agent (the Agent-User
// Interaction protocol, version 1.0): POST /ag-ui takes a RunAgentInput and
// answers an SSE stream of AG-UI events, over the same runner as the other
// protocols (the host's Converse), with an API token as a bearer token.
//
// A thread is a conversation: threadId is the conversation's id (a UUID).
// A thread id that is no conversation yet starts one under that id, on the
// site forwardedProps.site names (default plasmodb); another user's thread
// is not found. A run is one turn, or two with forwardedProps.autoBuild:
// the last message, a user message, starts a plan turn; a plan waiting for
// approval ends the run with an interrupt outcome whose interrupt id is
// the plan's handoff id, and the next run resumes it (resume entry status
// "resolved" builds the plan; "cancelled" leaves it unbuilt). A question
// the planner asked ends the run with an input_required interrupt whose id
// is the question's; resolved with the payload {option: n} or {text}, the
// next run sends that option's message (or the text) as the researcher's
// next message. The state is
// the conversation's strategy: a STATE_SNAPSHOT after RUN_STARTED, then a
// STATE_DELTA (JSON Patch) for each change. Errors before the stream
// starts are the API's JSON error body.
package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// Path is where AG-UI runs start.
const Path = "/ag-ui"

// headerConversation names the run's conversation in the response.
const headerConversation = "X-Strategist-Conversation"

// Host is what AG-UI needs of the server hosting it (*server.Host).
type Host interface {
	Logger() *slog.Logger
	// Conversation is one of the user's conversations (store.ErrNotFound
	// for another's or none).
	Conversation(ctx context.Context, userID, conversationID string) (store.Conversation, error)
	// CreateConversationWithID starts a conversation of the user's on
	// site under id (store.ErrConflict when the id is taken).
	CreateConversationWithID(ctx context.Context, id, userID, site, title string) (store.Conversation, error)
	// DiscardConversation deletes a conversation made for a run that was
	// then refused.
	DiscardConversation(ctx context.Context, userID, conversationID string)
	// CheckSite refuses (422 VALIDATION_ERROR) a site the catalog does
	// not know or the user cannot use.
	CheckSite(ctx context.Context, userID, site string) error
	// PendingHandoff is the conversation's newest plan waiting for
	// approval.
	PendingHandoff(ctx context.Context, userID, conversationID string) (store.Handoff, bool, error)
	// PendingQuestion is the question waiting for the researcher's
	// answer (nil for none): the one the conversation's latest turn ended
	// with, when that turn completed.
	PendingQuestion(ctx context.Context, userID, conversationID string) (*event.QuestionAsked, error)
	// Strategy is the conversation's strategy (an error when nothing is
	// built yet).
	Strategy(ctx context.Context, userID, conversationID string) (strategy.Snapshot, error)
	// Converse starts the turn a message asks for and calls onRecord with
	// the events of the turns it follows until the last ends; the
	// orchestrator's refusals come back as *protocol.APIError.
	Converse(ctx context.Context, m protocol.Message, onRecord func(r *event.Record, e event.Event) error) (protocol.Outcome, error)
	// APIError is what a client is told of err (status, code, message).
	APIError(err error) *protocol.APIError
	// RootSummary describes the conversation's strategy in one line, with
	// its root step (nil when there is no single one).
	RootSummary(ctx context.Context, userID, conversationID string) (string, *strategy.Step)
	// ConversationURL is the absolute address of a conversation's page.
	ConversationURL(conversationID string) string
	// StreamContext is the context of a request that follows a
	// conversation's turns: it ends with the request, at shutdown, when
	// the caller's credential is revoked or the conversation deleted.
	StreamContext(c echo.Context, conversationID string) (context.Context, context.CancelFunc)
}

// Protocol is the AG-UI agent, a protocol.Protocol.
type Protocol struct {
	host Host
	log  *slog.Logger
}

var _ protocol.Protocol = (*Protocol)(nil)

// New builds the AG-UI agent over host.
func New(host Host) (*Protocol, error) {
	if host == nil {
		return nil, errors.New("agui: nil host")
	}
	return &Protocol{host: host, log: host.Logger()}, nil
}

// Routes is POST /ag-ui, which follows turns.
func (p *Protocol) Routes() []protocol.Route {
	return []protocol.Route{{Method: http.MethodPost, Path: Path, Handler: p.run, Stream: true}}
}

// Deny answers a caller without an API token 401 UNAUTHENTICATED.
func (p *Protocol) Deny(_ echo.Context, msg string) error {
	return protocol.Unauthenticated(msg)
}

// Owns says whether r is on /ag-ui.
func (p *Protocol) Owns(r *http.Request) bool { return r.URL.Path == Path }

// WriteError writes the API's JSON error body (a run's errors once its
// stream began are RUN_ERROR events).
func (p *Protocol) WriteError(c echo.Context, ae *protocol.APIError) error {
	return protocol.WriteJSONError(c, ae)
}

// aguiVersion is the AG-UI protocol version Strategist speaks.
const aguiVersion = "1.0"

// aguiReasonPlan is the reason of the interrupt a plan waiting for
// approval leaves.
const aguiReasonPlan = "plan_approval"

// aguiReasonQuestion is the reason of the interrupt a question leaves:
// AG-UI's own for an agent that needs input, with a response schema.
const aguiReasonQuestion = "input_required"

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

// aguiResume answers one interrupt of an earlier run; Payload is the
// answer to a question.
type aguiResume struct {
	InterruptID string          `json:"interruptId"`
	Status      string          `json:"status"`
	Payload     json.RawMessage `json:"payload"`
}

// aguiProps are the forwardedProps Strategist reads.
type aguiProps struct {
	// Site is a new thread's site (default plasmodb).
	Site string `json:"site"`
	// AutoBuild builds the plan as soon as it is ready, in the same run.
	AutoBuild bool `json:"autoBuild"`
}

// run serves one AG-UI run.
func (p *Protocol) run(c echo.Context) error {
	var in aguiInput
	// Clients send what their framework holds (tools, state, ...):
	// unknown fields are ignored, as for the OpenAI-compatible API.
	if err := protocol.DecodeLenient(c, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.ThreadID) == "" || strings.TrimSpace(in.RunID) == "" {
		return protocol.BadRequest("threadId and runId are required")
	}
	var props aguiProps
	if len(in.ForwardedProps) > 0 && in.ForwardedProps[0] == '{' {
		if err := json.Unmarshal(in.ForwardedProps, &props); err != nil {
			return protocol.BadRequest("forwardedProps: " + protocol.DescribeJSONError(err))
		}
	}
	ctx := c.Request().Context()
	user := account.UserID(ctx)
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
	conv, created, err := p.thread(c, in.ThreadID, props.Site, message, len(in.Resume) == 0)
	if err != nil {
		return err
	}
	// A run refused before its turn starts leaves no thread behind: the
	// conversation made for it goes again.
	started := false
	if created {
		defer func() {
			if !started {
				p.host.DiscardConversation(ctx, user, conv.ID)
			}
		}()
	}
	req := protocol.Message{UserID: user, Conversation: conv, Text: message, AutoBuild: props.AutoBuild}
	if len(in.Resume) > 0 {
		h, ok, err := p.host.PendingHandoff(ctx, user, conv.ID)
		if err != nil {
			return err
		}
		q, err := p.host.PendingQuestion(ctx, user, conv.ID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(in.Resume, func(r aguiResume) bool { return ok && strings.EqualFold(r.InterruptID, h.ID) })
		j := slices.IndexFunc(in.Resume, func(r aguiResume) bool { return q != nil && strings.EqualFold(r.InterruptID, q.QuestionID) })
		switch {
		case i >= 0:
			switch in.Resume[i].Status {
			case "resolved":
				req.Accept = h.ID
			case "cancelled":
				// The plan stays unbuilt; a new user message plans again.
			default:
				return protocol.BadRequest("resume status must be resolved or cancelled")
			}
		case j >= 0:
			switch in.Resume[j].Status {
			case "resolved":
				answer, err := questionAnswer(q, in.Resume[j].Payload)
				if err != nil {
					return err
				}
				if answer != "" {
					message, req.Text = answer, answer
				} else if message == "" {
					return protocol.BadRequest(`resume the question with the payload {"option": n} or {"text": "..."}, or a user message`)
				}
			case "cancelled":
				// The question stays unanswered; a new user message is
				// the researcher's next word.
			default:
				return protocol.BadRequest("resume status must be resolved or cancelled")
			}
		default:
			return &protocol.APIError{Status: http.StatusConflict, Code: "HANDOFF_DECIDED",
				Message: "no plan or question of this thread waits under the interrupts resumed: it was built, answered or replaced; start a run without resume"}
		}
	}
	if req.Accept == "" && message == "" && len(in.Resume) == 0 {
		return protocol.BadRequest("messages must end with a user message that has text")
	}

	st := &aguiStream{p: p, c: c, in: in, conv: conv, open: map[string]bool{}, steps: map[string]string{}, labels: map[string]string{}}
	if st.state, err = p.state(c, conv.ID); err != nil {
		return err
	}
	sctx, cancel := p.host.StreamContext(c, conv.ID)
	defer cancel()
	if req.Accept == "" && message == "" {
		// A plan declined with nothing new to say: a run with no turn.
		started = true // of an existing thread: nothing to take back
		if err := st.start(); err != nil {
			return nil
		}
		_ = st.send("RUN_FINISHED", map[string]any{"threadId": in.ThreadID, "runId": in.RunID, "outcome": map[string]any{"type": "success"}})
		return nil
	}
	out, err := p.host.Converse(sctx, req, st.record)
	started = len(out.TurnIDs) > 0
	if err != nil {
		switch {
		case !st.started && sctx.Err() == nil:
			return err
		case sctx.Err() != nil || errors.Is(err, protocol.ErrStopped):
			return nil // nobody is left to answer; the turn runs on
		default:
			// A refusal after the stream began (the build a run with
			// autoBuild asks for, refused by the turn budget) is the
			// run's error, with its code; anything else is internal.
			ae := p.host.APIError(err)
			if ae.Status >= 500 {
				p.log.ErrorContext(ctx, "ag-ui run failed", slog.String("conversation_id", conv.ID), slog.Any("error", err))
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

// questionAnswer is the message a question's resume payload answers with:
// {"option": n} is the n-th option's message, {"text": "..."} (or a bare
// string) the researcher's own words; "" for no payload.
func questionAnswer(q *event.QuestionAsked, payload json.RawMessage) (string, error) {
	if len(payload) == 0 || string(payload) == "null" {
		return "", nil
	}
	var answer struct {
		Option *int    `json:"option"`
		Text   *string `json:"text"`
	}
	if err := json.Unmarshal(payload, &answer.Text); err != nil {
		answer.Text = nil
		if err := json.Unmarshal(payload, &answer); err != nil {
			return "", protocol.BadRequest(`a question's resume payload is {"option": n} or {"text": "..."}: ` + protocol.DescribeJSONError(err))
		}
	}
	switch {
	case answer.Option != nil:
		if n := *answer.Option; n < 1 || n > len(q.Options) {
			return "", protocol.BadRequest(fmt.Sprintf("the question has options 1 to %d, not %d", len(q.Options), n))
		}
		return q.Options[*answer.Option-1].Message, nil
	case answer.Text != nil && strings.TrimSpace(*answer.Text) != "":
		return strings.TrimSpace(*answer.Text), nil
	}
	return "", protocol.BadRequest(`a question's resume payload is {"option": n} or {"text": "..."}`)
}

// thread finds the conversation a thread id names, or starts one under
// that id (create) on site with a title from the message. It reports
// whether it created the conversation.
func (p *Protocol) thread(c echo.Context, threadID, site, message string, create bool) (store.Conversation, bool, error) {
	ctx := c.Request().Context()
	user := account.UserID(ctx)
	if !protocol.IsUUID(threadID) {
		return store.Conversation{}, false, protocol.BadRequest("threadId must be a UUID: a conversation id of yours, or a new one to start a conversation under")
	}
	id := strings.ToLower(threadID)
	conv, err := p.host.Conversation(ctx, user, id)
	if !errors.Is(err, store.ErrNotFound) || !create {
		if errors.Is(err, store.ErrNotFound) {
			return conv, false, protocol.NotFound("thread " + threadID)
		}
		return conv, false, err
	}
	if site = strings.TrimSpace(site); site == "" {
		site = protocol.DefaultSite
	}
	if err := p.host.CheckSite(ctx, user, site); err != nil {
		return conv, false, err
	}
	conv, err = p.host.CreateConversationWithID(ctx, id, user, site, protocol.TitleFrom(message))
	if errors.Is(err, store.ErrConflict) {
		// Another user's conversation, or this user's created meanwhile.
		conv, err = p.host.Conversation(ctx, user, id)
		if errors.Is(err, store.ErrNotFound) {
			return conv, false, protocol.NotFound("thread " + threadID)
		}
		return conv, false, err
	}
	return conv, err == nil, err
}

// state is a thread's AG-UI state: its conversation and strategy
// (strategy.Snapshot's JSON; null before anything is built), decoded.
func (p *Protocol) state(c echo.Context, conversationID string) (map[string]any, error) {
	ctx := c.Request().Context()
	st := map[string]any{"conversationId": conversationID, "conversationUrl": p.host.ConversationURL(conversationID), "strategy": nil}
	snap, err := p.host.Strategy(ctx, account.UserID(ctx), conversationID)
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
