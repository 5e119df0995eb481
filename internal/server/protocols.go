package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/chat"
	"strategist/internal/config"
	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/llm"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// The agent protocols (MCP at /mcp, the OpenAI-compatible API under /v1,
// A2A at /a2a, AG-UI at /ag-ui) are served by the same orchestrator, tools and event log as the app: a
// protocol request starts turns through Chat, follows them on the
// conversation's stream (Streamer) and mutates strategies through the
// strategy service. This file holds what they share: who is calling, and
// following a turn to its end.

// requireTokenUser authenticates a protocol client: an API token sent as a
// bearer token (strategist user token), or dev mode's implicit user. A
// browser session cookie is not enough: these routes serve programs, and
// their writes carry no CSRF token. deny writes the protocol's own 401.
func (s *Server) requireTokenUser(deny func(c echo.Context, msg string) error) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			const want = "send a Strategist API token as Authorization: Bearer <token> (strategist user token --email you@example.org)"
			if c.Request().Header.Get(echo.HeaderAuthorization) == "" && s.cfg.Auth != config.AuthDev {
				c.Response().Header().Set("WWW-Authenticate", `Bearer realm="strategist"`)
				return deny(c, want)
			}
			id, ok, err := s.authenticate(c)
			if ae, isAPI := errors.AsType[*APIError](err); isAPI && ae.Status == http.StatusUnauthorized {
				c.Response().Header().Set("WWW-Authenticate", `Bearer realm="strategist", error="invalid_token"`)
				return deny(c, ae.Message)
			}
			if err != nil {
				return err
			}
			if !ok || id.viaSession {
				c.Response().Header().Set("WWW-Authenticate", `Bearer realm="strategist"`)
				return deny(c, want)
			}
			s.setIdentity(c, id)
			return next(c)
		}
	}
}

// conversationURL is the absolute address of a conversation's page, on
// the server's public URL.
func (s *Server) conversationURL(conversationID string) string {
	return s.cfg.PublicURL + "/conversations/" + url.PathEscape(conversationID)
}

// defaultProtocolSite is the site of conversations a protocol client starts
// without naming one: the offline PlasmoDB snapshot, always available.
const defaultProtocolSite = protocol.DefaultSite

// converseRequest is one message of a protocol client to a conversation.
type converseRequest struct {
	userID string
	conv   store.Conversation
	// message is the researcher's text; an approval word accepts the
	// pending plan if there is one.
	message string
	// accept, when set, is the id of the pending plan to accept instead
	// of starting a turn (message is then unused): an AG-UI client
	// resuming the interrupt a plan left.
	accept string
	// autoBuild accepts the planner's handoff as soon as the plan turn
	// completes, and follows the build turn too.
	autoBuild bool
	// heartbeat is how long the stream may be silent before onRecord is
	// called with a nil record (a keep-alive).
	heartbeat time.Duration
	// follow, when set, is a running turn of the conversation to follow
	// instead of starting one (message is then unused); the stream is
	// read from conv.LastEventSeq.
	follow string
	// created says the request made conv for this message: a refused
	// start deletes it again, so a refused request leaves nothing.
	created bool
}

// converseOutcome is how the followed turns ended.
type converseOutcome struct {
	// turnIDs are the turns followed, in order.
	turnIDs []string
	status  event.TurnStatus
	errText string
	// pendingHandoff is the plan waiting for approval, when the last turn
	// asked for a build that was not accepted.
	pendingHandoff string
	usage          llm.Usage
}

// converse starts the turn msg asks for (or accepts the pending plan) and
// calls onRecord with each event of the turns it follows, in stream order,
// until the last of them ends. The turn runs on the server whatever
// happens to the caller: a client that goes away only stops following it.
func (s *Server) converse(ctx context.Context, req converseRequest, onRecord func(r *event.Record, e event.Event) error) (converseOutcome, error) {
	var out converseOutcome
	after := req.conv.LastEventSeq
	turnID := req.follow
	if turnID == "" {
		var err error
		if turnID, err = s.startOrAccept(ctx, req); err != nil {
			if req.created {
				s.discardConversation(ctx, req.userID, req.conv.ID)
			}
			return out, err
		}
	}
	out.turnIDs = append(out.turnIDs, turnID)
	for {
		restart := false
		for batch, err := range s.cfg.Streamer.Batches(ctx, req.userID, req.conv.ID, after, req.heartbeat) {
			if errors.Is(err, eventlog.ErrSlowSubscriber) {
				restart = true // resume from the last record read
				break
			}
			if err != nil {
				return out, err
			}
			if len(batch) == 0 {
				if err := onRecord(nil, nil); err != nil {
					return out, err
				}
				continue
			}
			for _, p := range batch {
				after = p.Seq
				if p.TurnID != turnID {
					continue
				}
				e, err := p.Decode()
				if err != nil {
					return out, fmt.Errorf("server: decode %s: %w", p.Type, err)
				}
				if err := onRecord(&p.Record, e); err != nil {
					return out, err
				}
				switch e := e.(type) {
				case *event.HandoffRequested:
					out.pendingHandoff = e.HandoffID
				case *event.TurnEnd:
					out.status, out.errText, out.usage = e.Status, e.Error, out.usage.Add(e.Usage)
					if out.status != event.TurnCompleted || !req.autoBuild || out.pendingHandoff == "" {
						return out, nil
					}
					next, err := s.cfg.Chat.AcceptHandoff(ctx, req.userID, req.conv.ID, out.pendingHandoff)
					if errors.Is(err, chat.ErrHandoffDecided) || errors.Is(err, chat.ErrTurnRunning) {
						// The server accepts plans itself (STRATEGIST_AUTO_APPROVE)
						// and was first: follow the build turn it started.
						next, err = s.acceptedBy(ctx, req.userID, req.conv.ID, out.pendingHandoff)
					}
					if err != nil {
						return out, err
					}
					out.pendingHandoff = ""
					turnID = next
					out.turnIDs = append(out.turnIDs, turnID)
				}
			}
		}
		if !restart {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			return out, errors.New("server: the conversation's stream ended before its turn")
		}
	}
}

// discardConversation deletes a conversation a protocol request made for
// a turn that was then refused (no turn of it ever started).
func (s *Server) discardConversation(ctx context.Context, userID, conversationID string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.cfg.Store.DeleteConversation(ctx, userID, conversationID); err != nil && !errors.Is(err, store.ErrNotFound) {
		s.log.WarnContext(ctx, "deleting the conversation of a refused turn", slog.String("conversation_id", conversationID), slog.Any("error", err))
	}
}

// startOrAccept accepts the plan req.accept names, or the conversation's
// pending plan when the message is an approval word and a plan waits, and
// otherwise starts a plan turn.
func (s *Server) startOrAccept(ctx context.Context, req converseRequest) (string, error) {
	if req.accept != "" {
		return s.cfg.Chat.AcceptHandoff(ctx, req.userID, req.conv.ID, req.accept)
	}
	if protocol.IsApproval(req.message) {
		if h, ok, err := s.pendingHandoff(ctx, req.userID, req.conv.ID); err != nil {
			return "", err
		} else if ok {
			return s.cfg.Chat.AcceptHandoff(ctx, req.userID, req.conv.ID, h.ID)
		}
	}
	return s.cfg.Chat.StartTurn(ctx, chat.TurnRequest{UserID: req.userID, ConversationID: req.conv.ID, Message: req.message, Mode: chat.ModePlan})
}

// pendingHandoff returns the conversation's newest plan waiting for
// approval.
func (s *Server) pendingHandoff(ctx context.Context, userID, conversationID string) (store.Handoff, bool, error) {
	hs, err := s.cfg.Store.Handoffs(ctx, userID, conversationID)
	if err != nil {
		return store.Handoff{}, false, err
	}
	var best store.Handoff
	found := false
	for _, h := range hs {
		if h.Status == store.HandoffPending && (!found || h.CreatedAt.After(best.CreatedAt)) {
			best, found = h, true
		}
	}
	return best, found, nil
}

// acceptedBy returns the build turn that accepted a handoff.
func (s *Server) acceptedBy(ctx context.Context, userID, conversationID, handoffID string) (string, error) {
	hs, err := s.cfg.Store.Handoffs(ctx, userID, conversationID)
	if err != nil {
		return "", err
	}
	for _, h := range hs {
		if h.ID == handoffID && h.ExecuteTurnID != nil {
			return *h.ExecuteTurnID, nil
		}
	}
	return "", chat.ErrHandoffDecided
}

// rootSummary describes the conversation's strategy as the answer's last
// line: its root step's count (with where it comes from), or why there is
// none. root is the root step, nil when there is no single one.
func (s *Server) rootSummary(ctx context.Context, userID, conversationID string) (summary string, root *strategy.Step) {
	snap, err := s.cfg.Strategies.Conversation(ctx, userID, conversationID)
	if err != nil {
		return "No strategy has been built yet.", nil
	}
	root = rootStep(snap)
	if root == nil {
		return fmt.Sprintf("The strategy has %d steps and %d roots; it has no single result yet.", len(snap.Steps), len(snap.Roots)), nil
	}
	if root.Count == nil {
		msg := root.CountMessage
		if msg == "" {
			msg = root.CountStatus.String()
		}
		return fmt.Sprintf("Root step %s (%s): count unavailable (%s).", root.ID, root.DisplayName, msg), root
	}
	src := ""
	if p := root.CountProvenance; p != nil && p.Source != "" {
		src = " (" + p.Source + ")"
	}
	return fmt.Sprintf("Root step %s (%s): %d genes%s.", root.ID, root.DisplayName, *root.Count, src), root
}

func rootStep(snap strategy.Snapshot) *strategy.Step {
	if snap.RootStepID == "" {
		return nil
	}
	for i := range snap.Steps {
		if snap.Steps[i].ID == snap.RootStepID {
			return &snap.Steps[i]
		}
	}
	return nil
}
