package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"strategist/internal/catalog"
	"strategist/internal/config"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

// ProtocolFunc builds an agent protocol over the server's Host; main wires
// one for each protocol package (internal/protocol/...) in
// Config.Protocols. The server imports none of them, nor their SDKs.
type ProtocolFunc func(h *Host) (protocol.Protocol, error)

// Host is what the server offers the protocol packages: turns followed to
// their end, the conversations and strategies of the caller, the catalog,
// the public URL and the server's lifetime. Each protocol package declares
// the part of it it uses as an interface of its own.
type Host struct{ s *Server }

// Logger is the server's logger.
func (h *Host) Logger() *slog.Logger { return h.s.log }

// Version is the server's version.
func (h *Host) Version() string { return h.s.cfg.Version }

// Catalog is the server's catalog.
func (h *Host) Catalog() catalog.Catalog { return h.s.cfg.Catalog }

// UsableSite refuses, as a tool error, a site the catalog does not know or
// the user cannot use (a live site without their VEuPathDB API key).
func (h *Host) UsableSite(ctx context.Context, userID, site string) error {
	return h.s.usableSite(ctx, userID, site)
}

// Conversation is one of the user's conversations (store.ErrNotFound for
// another's or none).
func (h *Host) Conversation(ctx context.Context, userID, conversationID string) (store.Conversation, error) {
	return h.s.cfg.Store.Conversation(ctx, userID, conversationID)
}

// CreateConversation starts a conversation of the user's on site, with the
// server's default model.
func (h *Host) CreateConversation(ctx context.Context, userID, site, title string) (store.Conversation, error) {
	return h.s.cfg.Store.CreateConversation(ctx, userID, site, title, h.s.cfg.DefaultModel)
}

// CreateConversationWithID starts a conversation of the user's on site
// under id, with the server's default model (store.ErrConflict when the id
// is taken).
func (h *Host) CreateConversationWithID(ctx context.Context, id, userID, site, title string) (store.Conversation, error) {
	return h.s.cfg.Store.CreateConversationWithID(ctx, id, userID, site, title, h.s.cfg.DefaultModel)
}

// DiscardConversation deletes a conversation a protocol request made for
// a turn that was then refused (no turn of it ever started).
func (h *Host) DiscardConversation(ctx context.Context, userID, conversationID string) {
	h.s.discardConversation(ctx, userID, conversationID)
}

// PendingHandoff is the conversation's newest plan waiting for approval.
func (h *Host) PendingHandoff(ctx context.Context, userID, conversationID string) (store.Handoff, bool, error) {
	return h.s.pendingHandoff(ctx, userID, conversationID)
}

// PendingQuestion is the question waiting for the researcher's answer
// (nil for none): the one the conversation's latest turn ended with, when
// that turn completed.
func (h *Host) PendingQuestion(ctx context.Context, userID, conversationID string) (*event.QuestionAsked, error) {
	return h.s.pendingQuestion(ctx, userID, conversationID)
}

// Strategy is the conversation's strategy (an error when nothing is built
// yet).
func (h *Host) Strategy(ctx context.Context, userID, conversationID string) (strategy.Snapshot, error) {
	return h.s.cfg.Strategies.Conversation(ctx, userID, conversationID)
}

// APIError is what a client is told of err: the status, code and message
// the server's error handler would answer (the orchestrator's refusals
// included).
func (h *Host) APIError(err error) *protocol.APIError {
	return toAPIError(chatError(err))
}

// Converse starts the turn m asks for (or accepts the pending plan) and
// calls onRecord with each event of the turns it follows, in stream order,
// until the last of them ends (converse). The orchestrator's refusals come
// back as *protocol.APIError (chatError).
func (h *Host) Converse(ctx context.Context, m protocol.Message, onRecord func(r *event.Record, e event.Event) error) (protocol.Outcome, error) {
	heartbeat := m.Heartbeat
	if heartbeat == 0 {
		heartbeat = h.s.cfg.KeepAlive
	}
	m.Heartbeat = heartbeat
	out, err := h.s.converse(ctx, m, onRecord)
	if err != nil {
		return out, chatError(err)
	}
	return out, nil
}

// RootSummary describes the conversation's strategy in one line: its root
// step's count (with where it comes from), or why there is none. root is
// the root step, nil when there is no single one.
func (h *Host) RootSummary(ctx context.Context, userID, conversationID string) (summary string, root *strategy.Step) {
	return h.s.rootSummary(ctx, userID, conversationID)
}

// ConversationURL is the absolute address of a conversation's page, on the
// server's public URL.
func (h *Host) ConversationURL(conversationID string) string {
	return h.s.conversationURL(conversationID)
}

// CheckSite refuses (422 VALIDATION_ERROR) a site the catalog does not
// know or the user cannot use (a live site without their VEuPathDB API
// key), as the JSON API does.
func (h *Host) CheckSite(ctx context.Context, userID, site string) error {
	return h.s.checkUserSite(ctx, userID, site)
}

// StreamContext is the context of a request that follows a
// conversation's turns without naming it in its address: it ends with the
// request, when the server begins shutting down, or when the caller's
// credential is revoked or the conversation deleted, as a stream's does.
func (h *Host) StreamContext(c echo.Context, conversationID string) (context.Context, context.CancelFunc) {
	return h.s.conversationStreamContext(c, conversationID)
}

// PublicURL is the server's public URL (the base of the addresses it
// gives out).
func (h *Host) PublicURL() string { return h.s.cfg.PublicURL }

// KeepAlive is how long a stream may be silent before a keep-alive.
func (h *Host) KeepAlive() time.Duration { return h.s.cfg.KeepAlive }

// Conversations are the user's latest conversations, at most limit.
func (h *Host) Conversations(ctx context.Context, userID string, limit int) ([]store.Conversation, error) {
	return h.s.cfg.Store.Conversations(ctx, userID, limit)
}

// UserTurn is one of the user's turns (store.ErrNotFound for another's or
// none).
func (h *Host) UserTurn(ctx context.Context, userID, turnID string) (store.Turn, error) {
	return h.s.cfg.Store.UserTurn(ctx, userID, turnID)
}

// Turns are a conversation's turns.
func (h *Host) Turns(ctx context.Context, userID, conversationID string) ([]store.Turn, error) {
	return h.s.cfg.Store.Turns(ctx, userID, conversationID)
}

// Messages are a conversation's messages.
func (h *Host) Messages(ctx context.Context, userID, conversationID string) ([]store.Message, error) {
	return h.s.cfg.Store.Messages(ctx, userID, conversationID)
}

// Handoffs are a conversation's plans, decided or waiting.
func (h *Host) Handoffs(ctx context.Context, userID, conversationID string) ([]store.Handoff, error) {
	return h.s.cfg.Store.Handoffs(ctx, userID, conversationID)
}

// CancelTurn cancels a running turn, as Cancel on the page does; the
// orchestrator's refusals come back as *protocol.APIError (chatError).
func (h *Host) CancelTurn(ctx context.Context, userID, conversationID, turnID string) error {
	return chatError(h.s.cfg.Chat.Cancel(ctx, userID, conversationID, turnID))
}

// WDK is a strategy's VEuPathDB (WDK) export.
func (h *Host) WDK(ctx context.Context, userID, strategyID string) (*strategy.WDKStrategy, error) {
	return h.s.cfg.Strategies.WDK(ctx, userID, strategyID)
}

// Hold registers a request that may follow turns for a long time: cancel
// is called at shutdown or when the caller's credential is revoked, like a
// stream's. release forgets it; call it when the request ends.
func (h *Host) Hold(c echo.Context, cancel context.CancelFunc) (release func()) {
	stop := context.AfterFunc(h.s.stopping, cancel)
	forget := h.s.streams.add(currentIdentity(c).cred, cancel)
	return func() {
		forget()
		stop()
	}
}

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

// usableSite refuses a site the catalog does not know or the caller cannot
// use (a live site without their VEuPathDB API key).
func (s *Server) usableSite(ctx context.Context, userID, site string) error {
	return protocol.UsableSite(ctx, s.cfg.Catalog, s.cfg.Sites, userID, site)
}

// mountProtocols builds the protocols of Config.Protocols and adds their
// routes behind API-token authentication (but for their public routes)
// and a stream slot for the routes that follow turns.
func (s *Server) mountProtocols(e *echo.Echo) error {
	for _, build := range s.cfg.Protocols {
		p, err := build(&Host{s: s})
		if err != nil {
			return err
		}
		s.protocols = append(s.protocols, p)
		for _, r := range p.Routes() {
			var mw []echo.MiddlewareFunc
			if !r.Public {
				mw = append(mw, s.requireTokenUser(p.Deny))
			}
			if r.Stream {
				mw = append(mw, s.streamRoute)
				s.streamPaths[r.Path] = true
			}
			if r.Method == "" {
				e.Any(r.Path, r.Handler, mw...)
			} else {
				e.Add(r.Method, r.Path, r.Handler, mw...)
			}
		}
	}
	return nil
}

// protocolOf is the protocol whose route r is on, nil for none.
func (s *Server) protocolOf(r *http.Request) protocol.Protocol {
	for _, p := range s.protocols {
		if p.Owns(r) {
			return p
		}
	}
	return nil
}
