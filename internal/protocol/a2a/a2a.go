// Package a2a serves Strategist as an A2A agent (protocol v1.0, JSON-RPC
// binding at /a2a; the v0.3 JSON-RPC binding at /a2a/v0.3 for older
// clients). The agent card is public at /.well-known/agent-card.json; the
// JSON-RPC endpoints take an API token as a bearer token, as MCP and the
// OpenAI API do. Only this package imports the A2A SDK.
//
// An A2A context is a conversation (contextId = conversation id; a
// message without one starts a conversation) and a task is one turn
// (taskId = turn id). Each message starts a plan turn through the shared
// runner (the host's Converse); a plan waiting for approval leaves its task
// input-required, and the message "build" (or "approve") in that context
// accepts it, which is a new task: the build turn. A question the planner
// asked leaves its task input-required too, with the question and its
// options in the status message; the reply in that context answers it. Tasks are read from
// Strategist's own rows and event log, never from an A2A task store, so
// GetTask and ListTasks answer after a restart and on any replica, and
// another user's task is not found.
package a2a

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/labstack/echo/v4"

	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// Where A2A answers.
const (
	Path          = "/a2a"
	V0Path        = "/a2a/v0.3"
	AgentCardPath = "/.well-known/agent-card.json"
)

// Host is what A2A needs of the server hosting it (*server.Host).
type Host interface {
	Logger() *slog.Logger
	Version() string
	// PublicURL is the server's public URL, the agent card's base.
	PublicURL() string
	// KeepAlive is how long a stream may be silent before a keep-alive.
	KeepAlive() time.Duration
	// UsableSite refuses, as a tool error, a site the catalog does not
	// know or the user cannot use.
	UsableSite(ctx context.Context, userID, site string) error
	// Conversation is one of the user's conversations (store.ErrNotFound
	// for another's or none).
	Conversation(ctx context.Context, userID, conversationID string) (store.Conversation, error)
	// CreateConversation starts a conversation of the user's on site.
	CreateConversation(ctx context.Context, userID, site, title string) (store.Conversation, error)
	// Conversations are the user's latest conversations, at most limit.
	Conversations(ctx context.Context, userID string, limit int) ([]store.Conversation, error)
	// UserTurn is one of the user's turns (store.ErrNotFound for
	// another's or none); Turns are a conversation's.
	UserTurn(ctx context.Context, userID, turnID string) (store.Turn, error)
	Turns(ctx context.Context, userID, conversationID string) ([]store.Turn, error)
	// Messages and Handoffs are a conversation's messages and plans.
	Messages(ctx context.Context, userID, conversationID string) ([]store.Message, error)
	Handoffs(ctx context.Context, userID, conversationID string) ([]store.Handoff, error)
	// PendingQuestion is the question waiting for the researcher's
	// answer (nil for none): the one the conversation's latest turn ended
	// with, when that turn completed.
	PendingQuestion(ctx context.Context, userID, conversationID string) (*event.QuestionAsked, error)
	// CancelTurn cancels a running turn, as Cancel on the page does; the
	// orchestrator's refusals come back as *protocol.APIError.
	CancelTurn(ctx context.Context, userID, conversationID, turnID string) error
	// Strategy is the conversation's strategy (an error when nothing is
	// built yet); WDK is a strategy's VEuPathDB (WDK) export.
	Strategy(ctx context.Context, userID, conversationID string) (strategy.Snapshot, error)
	WDK(ctx context.Context, userID, strategyID string) (*strategy.WDKStrategy, error)
	// Converse starts the turn a message asks for and calls onRecord with
	// the events of the turns it follows until the last ends; the
	// orchestrator's refusals come back as *protocol.APIError.
	Converse(ctx context.Context, m protocol.Message, onRecord func(r *event.Record, e event.Event) error) (protocol.Outcome, error)
	// RootSummary describes the conversation's strategy in one line, with
	// its root step (nil when there is no single one).
	RootSummary(ctx context.Context, userID, conversationID string) (string, *strategy.Step)
	// ConversationURL is the absolute address of a conversation's page.
	ConversationURL(conversationID string) string
	// Hold registers a request that may follow turns for long: cancel is
	// called at shutdown or when the caller's credential is revoked.
	Hold(c echo.Context, cancel context.CancelFunc) (release func())
}

// Protocol is the A2A agent, a protocol.Protocol.
type Protocol struct {
	host Host
	log  *slog.Logger
}

var _ protocol.Protocol = (*Protocol)(nil)

// New builds the A2A agent over host.
func New(host Host) (*Protocol, error) {
	if host == nil {
		return nil, errors.New("a2a: nil host")
	}
	return &Protocol{host: host, log: host.Logger()}, nil
}

// a2aBearerScheme names the card's security scheme.
const a2aBearerScheme a2a.SecuritySchemeName = "bearer"

// Artifact ids of a task.
const (
	artifactAnswer   = "answer"
	artifactPlan     = "plan"
	artifactStrategy = "strategy"
	artifactWDK      = "wdk-strategy"
)

// Routes are the public agent card and the JSON-RPC endpoints, which
// follow turns.
func (p *Protocol) Routes() []protocol.Route {
	h := &handler{p: p}
	// The card is v1.0's: the SDK's union of the v1.0 and v0.3 card
	// formats words securitySchemes the v0.3 way, which v1.0 clients
	// refuse. v0.3 clients find the v0.3 endpoint among its interfaces.
	card := a2asrv.NewAgentCardHandler(a2asrv.AgentCardProducerFn(func(context.Context) (*a2a.AgentCard, error) {
		return p.agentCard(p.host.PublicURL()), nil
	}))
	// The SDK runs a streaming request's handler on a goroutine of its
	// own and re-panics what it recovers unless given a panic handler: each
	// request gets one that logs with the request's trace and answers an
	// internal error. held ends a request at shutdown or on revocation,
	// as for a stream.
	return []protocol.Route{
		{Method: http.MethodGet, Path: AgentCardPath, Handler: echo.WrapHandler(card), Public: true},
		{Method: http.MethodPost, Path: Path, Stream: true, Handler: p.held(p.transport(func(opts ...a2asrv.TransportOption) http.Handler {
			return a2asrv.NewJSONRPCHandler(h, opts...)
		}))},
		{Method: http.MethodPost, Path: V0Path, Stream: true, Handler: p.held(p.transport(func(opts ...a2asrv.TransportOption) http.Handler {
			return a2av0.NewJSONRPCHandler(h, opts...)
		}))},
	}
}

// Deny answers a caller without an API token 401 UNAUTHENTICATED.
func (p *Protocol) Deny(_ echo.Context, msg string) error {
	return protocol.Unauthenticated(msg)
}

// Owns says whether r is on a JSON-RPC endpoint (the card's errors are
// the server's).
func (p *Protocol) Owns(r *http.Request) bool { return r.URL.Path == Path || r.URL.Path == V0Path }

// WriteError writes the API's JSON error body: the HTTP errors of the
// endpoints (authentication, limits) are the API's; a method's failures
// are JSON-RPC errors.
func (p *Protocol) WriteError(c echo.Context, ae *protocol.APIError) error {
	return protocol.WriteJSONError(c, ae)
}

// held runs h for a request that may follow turns for long
// (message/stream): it ends at shutdown or when the caller's credential is
// revoked, like a stream; the turn runs on.
func (p *Protocol) held(h http.Handler) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer p.host.Hold(c, cancel)()
		h.ServeHTTP(c.Response(), r.WithContext(ctx))
		return nil
	}
}

// transport builds an A2A transport for each request, with the
// keep-alive and a panic handler that logs the panic with the request's
// trace id and answers an internal error (the transports are small).
func (p *Protocol) transport(build func(opts ...a2asrv.TransportOption) http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		build(a2asrv.WithTransportKeepAlive(p.host.KeepAlive()), a2asrv.WithTransportPanicHandler(func(v any) error {
			p.log.ErrorContext(ctx, "a2a handler panicked", slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
			return a2a.NewError(a2a.ErrInternalError, "internal error")
		})).ServeHTTP(w, r)
	})
}

// agentCard describes Strategist to A2A clients; base is the server's
// public URL.
func (p *Protocol) agentCard(base string) *a2a.AgentCard {
	version := p.host.Version()
	if version == "" {
		version = "dev"
	}
	return &a2a.AgentCard{
		Name: "Strategist",
		Description: "Builds VEuPathDB search strategies from a research question in words: its planner finds the searches " +
			"and proposes a plan, and on \"build\" sub-agents build the strategy, counting each step's genes. " +
			"Each context is a Strategist conversation, each task a turn; the built strategy (root step, gene count, " +
			"where the count comes from, and its VEuPathDB (WDK) export) comes back as task artifacts.",
		Version: version,
		SupportedInterfaces: []*a2a.AgentInterface{
			{URL: base + Path, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version},
			{URL: base + V0Path, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
		},
		Provider:           &a2a.AgentProvider{Org: "Strategist", URL: base},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		SecuritySchemes: a2a.NamedSecuritySchemes{
			a2aBearerScheme: a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "Strategist API token",
				Description: "a Strategist API token (strategist user token --email you@example.org prints one)"},
		},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{a2aBearerScheme: a2a.SecuritySchemeScopes{}}},
		Skills: []a2a.AgentSkill{
			{ID: "plan-strategy", Name: "Plan a strategy",
				Description: "Plans a VEuPathDB search strategy for a research question: which searches, parameters and set " +
					"operations. The task ends input-required with the plan as an artifact; reply \"build\" to build it. When a phrase " +
					"could mean several things, the task ends input-required with a question and its options instead; reply with an " +
					"option's number or message, or in words of your own.",
				Tags:     []string{"veupathdb", "search strategy", "genes", "planning"},
				Examples: []string{"Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14"}},
			{ID: "build-strategy", Name: "Build a strategy",
				Description: "Builds the plan waiting in the context (message \"build\" or \"approve\") with sub-agents; the task's " +
					"artifacts are the strategy (root step, gene count, provenance) and its VEuPathDB (WDK) export.",
				Tags: []string{"veupathdb", "search strategy", "build"}, Examples: []string{"build"},
				OutputModes: []string{"text/plain", "application/json"}},
			{ID: "explain-count", Name: "Explain a count",
				Description: "Answers questions about the strategy of the context: why a step has the count it has, " +
					"which searches and operations lead to it, and where the count comes from.",
				Tags:     []string{"veupathdb", "counts", "provenance"},
				Examples: []string{"Why does the root step have 89 genes?"}},
		},
	}
}

// a2aError words Strategist's errors as A2A errors.
func a2aError(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return a2a.NewError(a2a.ErrTaskNotFound, "no such task of yours")
	}
	if te, ok := errors.AsType[*tool.ToolError](err); ok {
		return a2a.NewError(a2a.ErrInvalidParams, te.Message).WithDetails(map[string]any{"code": te.Code})
	}
	ae, ok := errors.AsType[*protocol.APIError](err)
	if !ok {
		return err
	}
	switch {
	case ae.Status == http.StatusTooManyRequests:
		// A2A has no error for a spent budget: an invalid request, with
		// the code and when to retry in its details.
		details := map[string]any{"code": ae.Code}
		if d, ok := ae.Details.(map[string]any); ok {
			maps.Copy(details, d)
		}
		return a2a.NewError(a2a.ErrInvalidRequest, ae.Message).WithDetails(details)
	case ae.Status == http.StatusNotFound:
		return a2a.NewError(a2a.ErrTaskNotFound, ae.Message)
	case ae.Status == http.StatusConflict:
		return a2a.NewError(a2a.ErrInvalidRequest, ae.Message).WithDetails(map[string]any{"code": ae.Code})
	case ae.Status < 500:
		return a2a.NewError(a2a.ErrInvalidParams, ae.Message).WithDetails(map[string]any{"code": ae.Code})
	default:
		return a2a.NewError(a2a.ErrServerError, ae.Message).WithDetails(map[string]any{"code": ae.Code})
	}
}

func invalidParams(format string, args ...any) error {
	return a2a.NewError(a2a.ErrInvalidParams, fmt.Sprintf(format, args...))
}
