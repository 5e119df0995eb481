package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"strategist/internal/account"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
)

// handler serves A2A's methods over Strategist's turns and event log.
type handler struct {
	p *Protocol
}

var _ a2asrv.RequestHandler = (*handler)(nil)

// userTurn is one of the caller's turns, by task id.
func (h *handler) userTurn(ctx context.Context, id a2a.TaskID) (store.Turn, error) {
	if !protocol.IsUUID(string(id)) {
		return store.Turn{}, a2a.NewError(a2a.ErrTaskNotFound, "no such task of yours: "+protocol.Quote(string(id)))
	}
	t, err := h.p.host.UserTurn(ctx, account.UserID(ctx), strings.ToLower(string(id)))
	if errors.Is(err, store.ErrNotFound) {
		return t, a2a.NewError(a2a.ErrTaskNotFound, "no such task of yours: "+protocol.Quote(string(id)))
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
func (h *handler) resolve(ctx context.Context, req *a2a.SendMessageRequest) (a2aMessage, error) {
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
		if !protocol.IsUUID(contextID) {
			return out, invalidParams("contextId must be a Strategist conversation id (a UUID)")
		}
		conv, err := h.p.host.Conversation(ctx, userID, strings.ToLower(contextID))
		if errors.Is(err, store.ErrNotFound) {
			return out, a2a.NewError(a2a.ErrTaskNotFound, "no conversation "+contextID+" of yours")
		}
		out.conv = conv
		return out, err
	}
	site := protocol.DefaultSite
	if v, ok := m.Metadata["site"].(string); ok && strings.TrimSpace(v) != "" {
		site = strings.TrimSpace(v)
	}
	if err := h.p.host.UsableSite(ctx, userID, site); err != nil {
		return out, a2aError(err)
	}
	conv, err := h.p.host.CreateConversation(ctx, userID, site, protocol.TitleFrom(out.text))
	out.conv, out.created = conv, err == nil
	return out, err
}

// SendMessage starts the message's turn and answers with its task once
// the turn ends (or at once with configuration.returnImmediately).
func (h *handler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	msg, err := h.resolve(ctx, req)
	if err != nil {
		return nil, err
	}
	immediate := req.Config != nil && req.Config.ReturnImmediately
	var turnID string
	_, err = h.p.host.Converse(ctx, protocol.Message{UserID: account.UserID(ctx), Conversation: msg.conv, Text: msg.text, Created: msg.created},
		func(r *event.Record, _ event.Event) error {
			if r != nil && turnID == "" {
				turnID = r.TurnID
				if immediate {
					return protocol.ErrStopped
				}
			}
			return nil
		})
	if err != nil && !errors.Is(err, protocol.ErrStopped) {
		return nil, a2aError(err)
	}
	t, err := h.userTurn(ctx, a2a.TaskID(turnID))
	if err != nil {
		return nil, err
	}
	return h.p.task(ctx, account.UserID(ctx), t, taskView{history: historyLength(req.Config), artifacts: true})
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
func (h *handler) guarded(ctx context.Context, seq iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		defer func() {
			if p := recover(); p != nil {
				h.p.log.ErrorContext(ctx, "a2a stream panicked", slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				yield(nil, a2a.NewError(a2a.ErrInternalError, "internal error"))
			}
		}()
		seq(yield)
	}
}

// SendStreamingMessage starts the message's turn and streams its task:
// the task, progress as status updates, the answer and the strategy as
// artifact updates, and the final status when the turn ends.
func (h *handler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return h.guarded(ctx, func(yield func(a2a.Event, error) bool) {
		msg, err := h.resolve(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		h.stream(ctx, protocol.Message{UserID: account.UserID(ctx), Conversation: msg.conv, Text: msg.text, Created: msg.created}, req.Message, nil, yield)
	})
}

// SubscribeToTask follows a running task to its end, starting with its
// current state.
func (h *handler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return h.guarded(ctx, func(yield func(a2a.Event, error) bool) {
		userID := account.UserID(ctx)
		t, err := h.userTurn(ctx, req.ID)
		if err != nil {
			yield(nil, err)
			return
		}
		// The conversation is read before the turn: every event the
		// snapshot may lack comes after its last sequence number.
		conv, err := h.p.host.Conversation(ctx, userID, t.ConversationID)
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
		task, err := h.p.task(ctx, userID, t, taskView{artifacts: true})
		if err != nil {
			yield(nil, err)
			return
		}
		h.stream(ctx, protocol.Message{UserID: userID, Conversation: conv, Follow: t.ID}, nil, task, yield)
	})
}

// stream follows req's turn and yields its A2A events, starting with
// first, the task as it stands (nil: the task is made at the turn's first
// event, with sent, the client's message, as its history).
func (h *handler) stream(ctx context.Context, req protocol.Message, userMsg *a2a.Message, first *a2a.Task, yield func(a2a.Event, error) bool) {
	n := protocol.NewNarrator(false)
	var (
		info         a2a.TaskInfo
		sent         = first != nil
		answerOpened bool
	)
	emit := func(e a2a.Event) error {
		if !yield(e, nil) {
			return protocol.ErrStopped
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
	_, err := h.p.host.Converse(ctx, req, func(r *event.Record, e event.Event) error {
		if e == nil {
			return nil // keep-alives are the transport's
		}
		if !sent {
			sent = true
			info = a2a.TaskInfo{TaskID: a2a.TaskID(r.TurnID), ContextID: req.Conversation.ID}
			now := r.CreatedAt
			task := &a2a.Task{ID: info.TaskID, ContextID: info.ContextID,
				Status:   a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &now},
				Metadata: h.p.taskMeta(req.Conversation.ID)}
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
			task, err := h.p.task(ctx, req.UserID, t, taskView{artifacts: true})
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
	if err != nil && !errors.Is(err, protocol.ErrStopped) && ctx.Err() == nil {
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

func (h *handler) GetTaskPushConfig(context.Context, *a2a.GetTaskPushConfigRequest) (*a2a.PushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

func (h *handler) ListTaskPushConfigs(context.Context, *a2a.ListTaskPushConfigRequest) (*a2a.ListTaskPushConfigResponse, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

func (h *handler) CreateTaskPushConfig(context.Context, *a2a.PushConfig) (*a2a.PushConfig, error) {
	return nil, a2a.ErrPushNotificationNotSupported
}

func (h *handler) DeleteTaskPushConfig(context.Context, *a2a.DeleteTaskPushConfigRequest) error {
	return a2a.ErrPushNotificationNotSupported
}

func (h *handler) GetExtendedAgentCard(context.Context, *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	return nil, a2a.ErrExtendedCardNotConfigured
}
