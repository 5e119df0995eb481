// Package protocoltest is the agent protocols' one fake of the server's
// Host (*server.Host): conversations, turns, messages, plans and
// strategies in memory, the offline catalog, and turns answered by a
// function (Converse) or played from a script (Play). It satisfies the
// host interface of every protocol package (mcp, openai, a2a, agui), so
// each tests its wire format in its own package; Serve mounts a protocol
// over it for one user, as the server does after authenticating a token.
package protocoltest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"strategist/internal/catalog"
	"strategist/internal/catalog/offline"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// PublicURL is the fake server's public URL.
const PublicURL = "https://strategist.test"

// NoStrategy is RootSummary's line for a conversation with no strategy.
const NoStrategy = "No strategy has been built yet."

// ConverseFunc answers a message as Host.Converse does.
type ConverseFunc func(ctx context.Context, m protocol.Message, onRecord func(*event.Record, event.Event) error) (protocol.Outcome, error)

// Host is a fake of the server's Host. Set its fields before serving;
// read what it was sent with Sent, Cancelled and Discarded.
type Host struct {
	// Cat is the catalog (the offline one unless replaced).
	Cat catalog.Catalog
	// Statuses, when set, say which sites the caller can use; nil means
	// every site of Cat is available.
	Statuses protocol.SiteStatuses
	// CreateErr, when set, fails every new conversation (the store
	// refusing it, as for a user deleted after their token was checked).
	CreateErr error
	// Run answers the messages sent to Converse; nil answers 503, the
	// orchestrator not serving. Play makes one that plays events.
	Run ConverseFunc
	// CancelErr, when set, is what CancelTurn answers.
	CancelErr error
	// URL, when set, is the public URL instead of PublicURL (a test that
	// follows the addresses the protocol gives out sets its server's).
	URL string

	mu         sync.Mutex
	convs      map[string]store.Conversation
	turns      map[string]store.Turn
	messages   map[string][]store.Message
	handoffs   map[string][]store.Handoff
	questions  map[string]*event.QuestionAsked // by turn
	strategies map[string]strategy.Snapshot
	wdk        map[string]*strategy.WDKStrategy
	sent       []protocol.Message
	cancelled  []string
	discarded  []string
}

// New is a fake host over the offline catalog (the embedded searches;
// no gene data is read until a count is asked for).
func New(t testing.TB) *Host {
	t.Helper()
	cat, err := offline.New(offline.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &Host{Cat: cat, convs: map[string]store.Conversation{}, turns: map[string]store.Turn{},
		messages: map[string][]store.Message{}, handoffs: map[string][]store.Handoff{}, questions: map[string]*event.QuestionAsked{},
		strategies: map[string]strategy.Snapshot{}, wdk: map[string]*strategy.WDKStrategy{}}
}

// Logger discards.
func (h *Host) Logger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Version is "test".
func (h *Host) Version() string { return "test" }

// PublicURL is URL, or PublicURL.
func (h *Host) PublicURL() string {
	if h.URL != "" {
		return h.URL
	}
	return PublicURL
}

// KeepAlive is a keep-alive no test waits for.
func (h *Host) KeepAlive() time.Duration { return time.Minute }

// Catalog is Cat.
func (h *Host) Catalog() catalog.Catalog { return h.Cat }

// UsableSite refuses, as a tool error, a site Cat does not know or
// Statuses says is unavailable.
func (h *Host) UsableSite(ctx context.Context, userID, site string) error {
	return protocol.UsableSite(ctx, h.Cat, h.Statuses, userID, site)
}

// CheckSite refuses the same sites as UsableSite, as the server does:
// 422 VALIDATION_ERROR.
func (h *Host) CheckSite(ctx context.Context, userID, site string) error {
	err := h.UsableSite(ctx, userID, site)
	if te, ok := errors.AsType[*tool.ToolError](err); ok {
		return protocol.ValidationError(te.Message, map[string]any{"siteId": site})
	}
	return err
}

// Conversation is one of the user's conversations.
func (h *Host) Conversation(_ context.Context, userID, id string) (store.Conversation, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.convs[id]
	if !ok || c.UserID != userID {
		return store.Conversation{}, store.ErrNotFound
	}
	return c, nil
}

// CreateConversation starts a conversation under a new id.
func (h *Host) CreateConversation(ctx context.Context, userID, site, title string) (store.Conversation, error) {
	return h.CreateConversationWithID(ctx, uuid.NewString(), userID, site, title)
}

// CreateConversationWithID starts a conversation under id
// (store.ErrConflict when it is taken).
func (h *Host) CreateConversationWithID(_ context.Context, id, userID, site, title string) (store.Conversation, error) {
	if h.CreateErr != nil {
		return store.Conversation{}, h.CreateErr
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, taken := h.convs[id]; taken {
		return store.Conversation{}, store.ErrConflict
	}
	now := time.Now()
	c := store.Conversation{ID: id, UserID: userID, SiteID: site, Title: title, Mode: store.ModePlan, CreatedAt: now, UpdatedAt: now}
	h.convs[id] = c
	return c, nil
}

// Conversations are the user's conversations, newest first, at most
// limit.
func (h *Host) Conversations(_ context.Context, userID string, limit int) ([]store.Conversation, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []store.Conversation
	for _, c := range h.convs {
		if c.UserID == userID {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b store.Conversation) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return out[:min(limit, len(out))], nil
}

// DiscardConversation deletes a conversation and records it.
func (h *Host) DiscardConversation(_ context.Context, _, id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.convs, id)
	h.discarded = append(h.discarded, id)
}

// owned says whether the user owns the conversation; h.mu is held.
func (h *Host) owned(userID, conversationID string) bool {
	c, ok := h.convs[conversationID]
	return ok && c.UserID == userID
}

// UserTurn is one of the user's turns.
func (h *Host) UserTurn(_ context.Context, userID, id string) (store.Turn, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.turns[id]
	if !ok || !h.owned(userID, t.ConversationID) {
		return store.Turn{}, store.ErrNotFound
	}
	return t, nil
}

// Turns are a conversation's turns, oldest first.
func (h *Host) Turns(_ context.Context, userID, conversationID string) ([]store.Turn, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.owned(userID, conversationID) {
		return nil, store.ErrNotFound
	}
	var out []store.Turn
	for _, t := range h.turns {
		if t.ConversationID == conversationID {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b store.Turn) int { return a.StartedAt.Compare(b.StartedAt) })
	return out, nil
}

// Messages are a conversation's messages in order.
func (h *Host) Messages(_ context.Context, userID, conversationID string) ([]store.Message, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.owned(userID, conversationID) {
		return nil, store.ErrNotFound
	}
	return slices.Clone(h.messages[conversationID]), nil
}

// Handoffs are a conversation's plans.
func (h *Host) Handoffs(_ context.Context, userID, conversationID string) ([]store.Handoff, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.owned(userID, conversationID) {
		return nil, store.ErrNotFound
	}
	return slices.Clone(h.handoffs[conversationID]), nil
}

// PendingHandoff is the conversation's newest plan waiting for approval.
func (h *Host) PendingHandoff(ctx context.Context, userID, conversationID string) (store.Handoff, bool, error) {
	hs, err := h.Handoffs(ctx, userID, conversationID)
	if err != nil {
		return store.Handoff{}, false, err
	}
	var best store.Handoff
	found := false
	for _, hd := range hs {
		if hd.Status == store.HandoffPending && (!found || hd.CreatedAt.After(best.CreatedAt)) {
			best, found = hd, true
		}
	}
	return best, found, nil
}

// PendingQuestion is the question the conversation's latest turn ended
// with, when that turn completed (nil for none).
func (h *Host) PendingQuestion(_ context.Context, userID, conversationID string) (*event.QuestionAsked, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.owned(userID, conversationID) {
		return nil, store.ErrNotFound
	}
	return h.pendingQuestion(conversationID), nil
}

// pendingQuestion is PendingQuestion; h.mu is held.
func (h *Host) pendingQuestion(conv string) *event.QuestionAsked {
	var last *store.Turn
	for _, t := range h.turns {
		if t.ConversationID == conv && (last == nil || t.StartedAt.After(last.StartedAt)) {
			last = &t
		}
	}
	if last == nil || last.Status != store.TurnCompleted {
		return nil
	}
	return h.questions[last.ID]
}

// CancelTurn records the turn and marks it cancelled (or answers
// CancelErr).
func (h *Host) CancelTurn(_ context.Context, userID, conversationID, turnID string) error {
	if h.CancelErr != nil {
		return h.CancelErr
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.turns[turnID]
	if !ok || t.ConversationID != conversationID || !h.owned(userID, conversationID) {
		return store.ErrNotFound
	}
	h.cancelled = append(h.cancelled, turnID)
	now := time.Now()
	t.Status, t.EndedAt = store.TurnCancelled, &now
	h.turns[turnID] = t
	return nil
}

// Strategy is the conversation's strategy (store.ErrNotFound for none).
func (h *Host) Strategy(_ context.Context, userID, conversationID string) (strategy.Snapshot, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	snap, ok := h.strategies[conversationID]
	if !ok || !h.owned(userID, conversationID) {
		return strategy.Snapshot{}, store.ErrNotFound
	}
	return snap, nil
}

// WDK is a strategy's WDK export (store.ErrNotFound for none).
func (h *Host) WDK(_ context.Context, _, strategyID string) (*strategy.WDKStrategy, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w, ok := h.wdk[strategyID]
	if !ok {
		return nil, store.ErrNotFound
	}
	return w, nil
}

// RootSummary describes the conversation's strategy by its root step, as
// the server does in shorter words.
func (h *Host) RootSummary(ctx context.Context, userID, conversationID string) (string, *strategy.Step) {
	snap, err := h.Strategy(ctx, userID, conversationID)
	if err != nil {
		return NoStrategy, nil
	}
	for i := range snap.Steps {
		if s := &snap.Steps[i]; s.ID == snap.RootStepID && s.Count != nil {
			return "Root step " + string(s.ID) + " (" + s.DisplayName + ").", s
		}
	}
	return "The strategy has no single result yet.", nil
}

// ConversationURL is the conversation's page on the public URL.
func (h *Host) ConversationURL(id string) string { return h.PublicURL() + "/conversations/" + id }

// StreamContext ends with the request.
func (h *Host) StreamContext(c echo.Context, _ string) (context.Context, context.CancelFunc) {
	return context.WithCancel(c.Request().Context())
}

// Hold holds nothing: the fake never shuts down.
func (h *Host) Hold(echo.Context, context.CancelFunc) func() { return func() {} }

// APIError is what a client is told of err: an *protocol.APIError as it
// is, a store's not found as 404, anything else a 500 that says nothing.
func (h *Host) APIError(err error) *protocol.APIError {
	if ae, ok := errors.AsType[*protocol.APIError](err); ok {
		return ae
	}
	if errors.Is(err, store.ErrNotFound) {
		return protocol.NotFound("")
	}
	return &protocol.APIError{Status: http.StatusInternalServerError, Code: protocol.CodeInternal, Message: "internal error", Err: err}
}

// Converse records m and answers it with Run.
func (h *Host) Converse(ctx context.Context, m protocol.Message, onRecord func(*event.Record, event.Event) error) (protocol.Outcome, error) {
	h.mu.Lock()
	h.sent = append(h.sent, m)
	h.mu.Unlock()
	if h.Run == nil {
		return protocol.Outcome{}, &protocol.APIError{Status: http.StatusServiceUnavailable, Code: protocol.CodeUnavailable,
			Message: "the server is starting or stopping; try again in a moment"}
	}
	return h.Run(ctx, m, onRecord)
}

// Sent are the messages sent to Converse, in order.
func (h *Host) Sent() []protocol.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sent)
}

// Cancelled are the turns CancelTurn cancelled.
func (h *Host) Cancelled() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.cancelled)
}

// Discarded are the conversations DiscardConversation deleted.
func (h *Host) Discarded() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.discarded)
}

// SetStrategy gives a conversation a strategy, and its WDK export when w
// is not nil.
func (h *Host) SetStrategy(conversationID string, snap strategy.Snapshot, w *strategy.WDKStrategy) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.strategies[conversationID] = snap
	if w != nil {
		h.wdk[snap.StrategyID] = w
	}
}
