package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/labstack/echo/v4"

	"strategist/internal/account"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
	"strategist/internal/tool"
)

// Strategist as an A2A agent (protocol v1.0, JSON-RPC binding at /a2a;
// the v0.3 JSON-RPC binding at /a2a/v0.3 for older clients). The agent
// card is public at /.well-known/agent-card.json; the JSON-RPC endpoints
// take an API token as a bearer token, as MCP and the OpenAI API do.
//
// An A2A context is a conversation (contextId = conversation id; a
// message without one starts a conversation) and a task is one turn
// (taskId = turn id). Each message starts a plan turn through the shared
// runner (converse); a plan waiting for approval leaves its task
// input-required, and the message "build" (or "approve") in that context
// accepts it, which is a new task: the build turn. Tasks are read from
// Strategist's own rows and event log, never from an A2A task store, so
// GetTask and ListTasks answer after a restart and on any replica, and
// another user's task is not found.

// Where A2A answers.
const (
	a2aPath       = "/a2a"
	a2aV0Path     = "/a2a/v0.3"
	agentCardPath = "/.well-known/agent-card.json"
)

// a2aBearerScheme names the card's security scheme.
const a2aBearerScheme a2a.SecuritySchemeName = "bearer"

// Artifact ids of a task.
const (
	artifactAnswer   = "answer"
	artifactPlan     = "plan"
	artifactStrategy = "strategy"
	artifactWDK      = "wdk-strategy"
)

// a2aRoutes serves the agent card and the JSON-RPC endpoints.
func (s *Server) a2aRoutes(e *echo.Echo) {
	h := &a2aHandler{s: s}
	// The card is v1.0's: the SDK's union of the v1.0 and v0.3 card
	// formats words securitySchemes the v0.3 way, which v1.0 clients
	// refuse. v0.3 clients find the v0.3 endpoint among its interfaces.
	card := a2asrv.NewAgentCardHandler(a2asrv.AgentCardProducerFn(func(context.Context) (*a2a.AgentCard, error) {
		return s.agentCard(s.cfg.PublicURL), nil
	}))
	e.GET(agentCardPath, echo.WrapHandler(card))
	auth := s.requireTokenUser(s.denyA2A)
	// The SDK runs a streaming request's handler on a goroutine of its
	// own and re-panics what it recovers unless given a panic handler: each
	// request gets one that logs with the request's trace and answers an
	// internal error. serveHeld ends a request at shutdown or on revocation,
	// as for a stream.
	e.POST(a2aPath, s.serveHeld(s.a2aTransport(func(opts ...a2asrv.TransportOption) http.Handler {
		return a2asrv.NewJSONRPCHandler(h, opts...)
	})), auth, s.streamRoute)
	e.POST(a2aV0Path, s.serveHeld(s.a2aTransport(func(opts ...a2asrv.TransportOption) http.Handler {
		return a2av0.NewJSONRPCHandler(h, opts...)
	})), auth, s.streamRoute)
}

// a2aTransport builds an A2A transport for each request, with the
// keep-alive and a panic handler that logs the panic with the request's
// trace id and answers an internal error (the transports are small).
func (s *Server) a2aTransport(build func(opts ...a2asrv.TransportOption) http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		build(a2asrv.WithTransportKeepAlive(s.cfg.KeepAlive), a2asrv.WithTransportPanicHandler(func(p any) error {
			s.log.ErrorContext(ctx, "a2a handler panicked", slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			return a2a.NewError(a2a.ErrInternalError, "internal error")
		})).ServeHTTP(w, r)
	})
}

func (s *Server) denyA2A(c echo.Context, msg string) error {
	return &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: msg}
}

func isA2APath(r *http.Request) bool {
	return r.URL.Path == a2aPath || r.URL.Path == a2aV0Path
}

// agentCard describes Strategist to A2A clients; base is the server's
// public URL.
func (s *Server) agentCard(base string) *a2a.AgentCard {
	version := s.cfg.Version
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
			{URL: base + a2aPath, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version},
			{URL: base + a2aV0Path, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
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
					"operations. The task ends input-required with the plan as an artifact; reply \"build\" to build it.",
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

// a2aHandler serves A2A's methods over Strategist's turns and event log.
type a2aHandler struct {
	s *Server
}

var _ a2asrv.RequestHandler = (*a2aHandler)(nil)

// errFollowStopped ends following a turn when the A2A client is gone or
// has what it asked for.
var errFollowStopped = errors.New("server: a2a: stopped following")

// a2aError words Strategist's errors as A2A errors.
func a2aError(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return a2a.NewError(a2a.ErrTaskNotFound, "no such task of yours")
	}
	if te, ok := errors.AsType[*tool.ToolError](err); ok {
		return a2a.NewError(a2a.ErrInvalidParams, te.Message).WithDetails(map[string]any{"code": te.Code})
	}
	ae, ok := errors.AsType[*APIError](chatError(err))
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

// userTurn is one of the caller's turns, by task id.
func (h *a2aHandler) userTurn(ctx context.Context, id a2a.TaskID) (store.Turn, error) {
	if !isUUID(string(id)) {
		return store.Turn{}, a2a.NewError(a2a.ErrTaskNotFound, "no such task of yours: "+quote(string(id)))
	}
	t, err := h.s.cfg.Store.UserTurn(ctx, account.UserID(ctx), strings.ToLower(string(id)))
	if errors.Is(err, store.ErrNotFound) {
		return t, a2a.NewError(a2a.ErrTaskNotFound, "no such task of yours: "+quote(string(id)))
	}
	return t, err
}

// a2aMessage is a client's message, resolved: its conversation and text.
type a2aMessage struct {
	conv store.Conversation
	text string
	// created: the conversation was made for this message.
	created bool
}

// resolve finds the conversation a message goes to (its task's, its
// context's, or a new one on the site named by metadata "site") and its
// text.
func (h *a2aHandler) resolve(ctx context.Context, req *a2a.SendMessageRequest) (a2aMessage, error) {
	userID := account.UserID(ctx)
	if req == nil || req.Message == nil {
		return a2aMessage{}, invalidParams("message is required")
	}
	m := req.Message
	var text []string
	for _, p := range m.Parts {
		if t := strings.TrimSpace(p.Text()); t != "" {
			text = append(text, t)
		}
	}
	if len(text) == 0 {
		return a2aMessage{}, a2a.NewError(a2a.ErrUnsupportedContentType, "the message has no text part; Strategist reads text")
	}
	out := a2aMessage{text: strings.Join(text, "\n")}
	contextID := strings.TrimSpace(m.ContextID)
	if m.TaskID != "" {
		t, err := h.userTurn(ctx, m.TaskID)
		if err != nil {
			return out, err
		}
		if contextID != "" && !strings.EqualFold(contextID, t.ConversationID) {
			return out, invalidParams("task %s belongs to context %s, not %s", t.ID, t.ConversationID, contextID)
		}
		contextID = t.ConversationID
	}
	if contextID != "" {
		if !isUUID(contextID) {
			return out, invalidParams("contextId must be a Strategist conversation id (a UUID)")
		}
		conv, err := h.s.cfg.Store.Conversation(ctx, userID, strings.ToLower(contextID))
		if errors.Is(err, store.ErrNotFound) {
			return out, a2a.NewError(a2a.ErrTaskNotFound, "no conversation "+contextID+" of yours")
		}
		out.conv = conv
		return out, err
	}
	site := defaultProtocolSite
	if v, ok := m.Metadata["site"].(string); ok && strings.TrimSpace(v) != "" {
		site = strings.TrimSpace(v)
	}
	if err := h.s.usableSite(ctx, userID, site); err != nil {
		return out, a2aError(err)
	}
	conv, err := h.s.cfg.Store.CreateConversation(ctx, userID, site, titleFrom(out.text), h.s.cfg.DefaultModel)
	out.conv, out.created = conv, err == nil
	return out, err
}

// SendMessage starts the message's turn and answers with its task once
// the turn ends (or at once with configuration.returnImmediately).
func (h *a2aHandler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	msg, err := h.resolve(ctx, req)
	if err != nil {
		return nil, err
	}
	immediate := req.Config != nil && req.Config.ReturnImmediately
	var turnID string
	_, err = h.s.converse(ctx, converseRequest{userID: account.UserID(ctx), conv: msg.conv, message: msg.text, heartbeat: h.s.cfg.KeepAlive, created: msg.created},
		func(r *event.Record, _ event.Event) error {
			if r != nil && turnID == "" {
				turnID = r.TurnID
				if immediate {
					return errFollowStopped
				}
			}
			return nil
		})
	if err != nil && !errors.Is(err, errFollowStopped) {
		return nil, a2aError(err)
	}
	t, err := h.userTurn(ctx, a2a.TaskID(turnID))
	if err != nil {
		return nil, err
	}
	return h.s.a2aTask(ctx, account.UserID(ctx), t, taskView{history: historyLength(req.Config), artifacts: true})
}

func historyLength(c *a2a.SendMessageConfig) *int {
	if c == nil {
		return nil
	}
	return c.HistoryLength
}

// guarded runs an event stream's code and recovers its panic: the SDK
// runs streams on goroutines of its own, and the v0.3 transport, given a
// panic handler, keeps the request open after it. The panic is logged with
// the request's trace id and the stream ends with an internal error.
func (h *a2aHandler) guarded(ctx context.Context, seq iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		defer func() {
			if p := recover(); p != nil {
				h.s.log.ErrorContext(ctx, "a2a stream panicked", slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				yield(nil, a2a.NewError(a2a.ErrInternalError, "internal error"))
			}
		}()
		seq(yield)
	}
}

// SendStreamingMessage starts the message's turn and streams its task:
// the task, progress as status updates, the answer and the strategy as
// artifact updates, and the final status when the turn ends.
func (h *a2aHandler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return h.guarded(ctx, func(yield func(a2a.Event, error) bool) {
		msg, err := h.resolve(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		h.stream(ctx, converseRequest{userID: account.UserID(ctx), conv: msg.conv, message: msg.text, heartbeat: h.s.cfg.KeepAlive, created: msg.created}, req.Message, nil, yield)
	})
}

// SubscribeToTask follows a running task to its end, starting with its
// current state.
func (h *a2aHandler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return h.guarded(ctx, func(yield func(a2a.Event, error) bool) {
		userID := account.UserID(ctx)
		t, err := h.userTurn(ctx, req.ID)
		if err != nil {
			yield(nil, err)
			return
		}
		// The conversation is read before the turn: every event the
		// snapshot may lack comes after its last sequence number.
		conv, err := h.s.cfg.Store.Conversation(ctx, userID, t.ConversationID)
		if err != nil {
			yield(nil, a2aError(err))
			return
		}
		if t, err = h.userTurn(ctx, req.ID); err != nil {
			yield(nil, err)
			return
		}
		if t.Status != store.TurnRunning {
			yield(nil, a2a.NewError(a2a.ErrUnsupportedOperation, "task "+t.ID+" has ended ("+string(t.Status)+"); GetTask reads it"))
			return
		}
		task, err := h.s.a2aTask(ctx, userID, t, taskView{artifacts: true})
		if err != nil {
			yield(nil, err)
			return
		}
		h.stream(ctx, converseRequest{userID: userID, conv: conv, follow: t.ID, heartbeat: h.s.cfg.KeepAlive}, nil, task, yield)
	})
}

// stream follows req's turn and yields its A2A events, starting with
// first, the task as it stands (nil: the task is made at the turn's first
// event, with sent, the client's message, as its history).
func (h *a2aHandler) stream(ctx context.Context, req converseRequest, userMsg *a2a.Message, first *a2a.Task, yield func(a2a.Event, error) bool) {
	n := protocol.NewNarrator(false)
	var (
		info         a2a.TaskInfo
		sent         = first != nil
		answerOpened bool
	)
	emit := func(e a2a.Event) error {
		if !yield(e, nil) {
			return errFollowStopped
		}
		return nil
	}
	if first != nil {
		info = first.TaskInfo()
		answerOpened = slices.ContainsFunc(first.Artifacts, func(a *a2a.Artifact) bool { return a.ID == artifactAnswer })
		if emit(first) != nil {
			return
		}
	}
	_, err := h.s.converse(ctx, req, func(r *event.Record, e event.Event) error {
		if e == nil {
			return nil // keep-alives are the transport's
		}
		if !sent {
			sent = true
			info = a2a.TaskInfo{TaskID: a2a.TaskID(r.TurnID), ContextID: req.conv.ID}
			now := r.CreatedAt
			task := &a2a.Task{ID: info.TaskID, ContextID: info.ContextID,
				Status:   a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now},
				Metadata: h.s.taskMeta(ctx, req.conv.ID)}
			if userMsg != nil {
				m := *userMsg
				m.ContextID, m.TaskID = info.ContextID, info.TaskID
				task.History = []*a2a.Message{&m}
			}
			if err := emit(task); err != nil {
				return err
			}
		}
		text := n.Text(e)
		switch e := e.(type) {
		case *event.AssistantDelta, *event.AssistantMessage:
			if text == "" {
				return nil
			}
			ev := a2a.NewArtifactUpdateEvent(info, artifactAnswer, a2a.NewTextPart(text))
			ev.Artifact.Name = "answer"
			ev.Append = answerOpened
			answerOpened = true
			return emit(ev)
		case *event.HandoffRequested:
			if err := emit(&a2a.TaskArtifactUpdateEvent{TaskID: info.TaskID, ContextID: info.ContextID, Artifact: planArtifact(e.HandoffID, e.Goal, e.Plan), LastChunk: true}); err != nil {
				return err
			}
		case *event.TurnEnd:
			t, err := h.userTurn(ctx, info.TaskID)
			if err != nil {
				return err
			}
			task, err := h.s.a2aTask(ctx, req.userID, t, taskView{artifacts: true})
			if err != nil {
				return err
			}
			for _, a := range task.Artifacts {
				if a.ID == artifactStrategy || a.ID == artifactWDK {
					if err := emit(&a2a.TaskArtifactUpdateEvent{TaskID: info.TaskID, ContextID: info.ContextID, Artifact: a, LastChunk: true}); err != nil {
						return err
					}
				}
			}
			return emit(&a2a.TaskStatusUpdateEvent{TaskID: info.TaskID, ContextID: info.ContextID, Status: task.Status, Metadata: task.Metadata})
		}
		if text = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), ">")); text != "" {
			return emit(a2a.NewStatusUpdateEvent(info, a2a.TaskStateWorking, agentMessage(info, text)))
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFollowStopped) && ctx.Err() == nil {
		yield(nil, a2aError(err))
	}
}

func agentMessage(info a2a.TaskInfo, text string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart(text))
}

func planArtifact(handoffID, goal string, plan json.RawMessage) *a2a.Artifact {
	var data any = map[string]any{}
	_ = json.Unmarshal(plan, &data)
	return &a2a.Artifact{ID: artifactPlan, Name: "plan",
		Description: "The planner's plan, waiting for approval: reply \"build\" in this context to build it.",
		Parts: a2a.ContentParts{a2a.NewTextPart("Plan: " + goal),
			a2a.NewDataPart(map[string]any{"handoffId": handoffID, "goal": goal, "plan": data})}}
}

// Push notifications and the extended card are not offered.

func (h *a2aHandler) GetTaskPushConfig(context.Context, *a2a.GetTaskPushConfigRequest) (*a2a.PushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

func (h *a2aHandler) ListTaskPushConfigs(context.Context, *a2a.ListTaskPushConfigRequest) (*a2a.ListTaskPushConfigResponse, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

func (h *a2aHandler) CreateTaskPushConfig(context.Context, *a2a.PushConfig) (*a2a.PushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

func (h *a2aHandler) DeleteTaskPushConfig(context.Context, *a2a.DeleteTaskPushConfigRequest) error {
	return a2a.ErrPushNotificationNotSupported
}

func (h *a2aHandler) GetExtendedAgentCard(context.Context, *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	return nil, a2a.ErrExtendedCardNotConfigured
}
