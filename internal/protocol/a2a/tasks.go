package a2a

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"strategist/internal/account"
	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/store"
)

// A2A tasks are Strategist's turns read back: a task's view, its artifacts
// (the strategy and its WDK export), listing and cancelling.

// taskMeta is what every task of a conversation carries: its page.
func (p *Protocol) taskMeta(conversationID string) map[string]any {
	return map[string]any{"strategist/conversationUrl": p.host.ConversationURL(conversationID)}
}

// taskView is how much of a task to send.
type taskView struct {
	history   *int
	artifacts bool
	// questions, when set, keeps the conversations' waiting questions
	// read for a list of tasks (nil values: none waits).
	questions map[string]*event.QuestionAsked
}

// pendingQuestion is the question waiting in the conversation, read once
// per list of tasks.
func (p *Protocol) pendingQuestion(ctx context.Context, userID, conversationID string, view taskView) (*event.QuestionAsked, error) {
	if q, ok := view.questions[conversationID]; ok {
		return q, nil
	}
	q, err := p.host.PendingQuestion(ctx, userID, conversationID)
	if err != nil {
		return nil, a2aError(err)
	}
	if view.questions != nil {
		view.questions[conversationID] = q
	}
	return q, nil
}

// task reads a turn as an A2A task from Strategist's rows: its state
// from the turn's status, its conversation's handoffs and the question
// waiting there, its history from
// the turn's messages, and its artifacts: the answer, the plan it asked to
// build, and for a completed build the strategy and its WDK export.
func (p *Protocol) task(ctx context.Context, userID string, t store.Turn, view taskView) (*a2a.Task, error) {
	info := a2a.TaskInfo{TaskID: a2a.TaskID(t.ID), ContextID: t.ConversationID}
	msgs, err := p.host.Messages(ctx, userID, t.ConversationID)
	if err != nil {
		return nil, a2aError(err)
	}
	handoffs, err := p.host.Handoffs(ctx, userID, t.ConversationID)
	if err != nil {
		return nil, a2aError(err)
	}
	task := &a2a.Task{ID: info.TaskID, ContextID: info.ContextID, Metadata: p.taskMeta(t.ConversationID)}
	task.Metadata["strategist/mode"] = string(t.Mode)
	var answer []string
	for _, m := range msgs {
		if m.TurnID == nil || *m.TurnID != t.ID {
			continue
		}
		switch m.Role {
		case event.RoleUser:
			task.History = append(task.History, &a2a.Message{ID: m.ID, Role: a2a.MessageRoleUser, ContextID: info.ContextID, TaskID: info.TaskID,
				Parts: a2a.ContentParts{a2a.NewTextPart(m.Content)}})
		case event.RoleAssistant:
			if strings.TrimSpace(m.Content) == "" {
				continue
			}
			answer = append(answer, m.Content)
			task.History = append(task.History, &a2a.Message{ID: m.ID, Role: a2a.MessageRoleAgent, ContextID: info.ContextID, TaskID: info.TaskID,
				Parts: a2a.ContentParts{a2a.NewTextPart(m.Content)}})
		}
	}
	if view.history != nil && *view.history >= 0 && len(task.History) > *view.history {
		task.History = task.History[len(task.History)-*view.history:]
	}
	if len(answer) > 0 {
		task.Artifacts = append(task.Artifacts, &a2a.Artifact{ID: artifactAnswer, Name: "answer", Parts: a2a.ContentParts{a2a.NewTextPart(strings.Join(answer, "\n\n"))}})
	}
	var requested *store.Handoff
	for i := range handoffs {
		if hd := handoffs[i]; hd.RequestedTurnID != nil && *hd.RequestedTurnID == t.ID && (requested == nil || hd.CreatedAt.After(requested.CreatedAt)) {
			requested = &handoffs[i]
		}
	}
	if requested != nil {
		task.Artifacts = append(task.Artifacts, planArtifact(requested.ID, requested.Goal, requested.Plan))
	}

	ts := t.StartedAt
	if t.EndedAt != nil {
		ts = *t.EndedAt
	}
	task.Status.Timestamp = &ts
	switch t.Status {
	case store.TurnRunning:
		task.Status.State = a2a.TaskStateWorking
	case store.TurnCompleted:
		task.Status.State = a2a.TaskStateCompleted
		var asked *event.QuestionAsked
		if requested == nil && t.Mode == store.ModePlan {
			q, err := p.pendingQuestion(ctx, userID, t.ConversationID, view)
			if err != nil {
				return nil, err
			}
			if q != nil && q.TurnID == t.ID {
				asked = q
			}
		}
		switch {
		case requested != nil && requested.Status == store.HandoffPending:
			task.Status.State = a2a.TaskStateInputRequired
			task.Status.Message = agentMessage(info, "Plan ready: "+requested.Goal+". Reply \"build\" in this context to build it.")
		case asked != nil:
			task.Status.State = a2a.TaskStateInputRequired
			task.Status.Message = a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart(asked.Summary()),
				a2a.NewDataPart(map[string]any{"questionId": asked.QuestionID, "question": asked.Question,
					"options": jsonArray(asked.Options), "freeText": asked.FreeText}))
		default:
			summary, _ := p.host.RootSummary(ctx, userID, t.ConversationID)
			task.Status.Message = agentMessage(info, summary)
		}
		if t.Mode == store.ModeExecute {
			arts, err := p.strategyArtifacts(ctx, userID, t.ConversationID)
			if err != nil {
				return nil, err
			}
			task.Artifacts = append(task.Artifacts, arts...)
		}
	case store.TurnCancelled:
		task.Status.State = a2a.TaskStateCanceled
	default: // failed, interrupted
		task.Status.State = a2a.TaskStateFailed
		msg := "The turn ended " + string(t.Status)
		if t.Error != "" {
			msg += ": " + t.Error
		}
		task.Status.Message = agentMessage(info, msg)
	}
	if !view.artifacts {
		task.Artifacts = nil
	}
	return task, nil
}

// strategyArtifacts are the conversation's strategy as artifacts: its
// root step with count and provenance, and its WDK export (what
// GET .../strategy/wdk answers). None when nothing was built.
func (p *Protocol) strategyArtifacts(ctx context.Context, userID, conversationID string) ([]*a2a.Artifact, error) {
	snap, err := p.host.Strategy(ctx, userID, conversationID)
	if err != nil {
		return nil, nil // no strategy yet
	}
	summary, root := p.host.RootSummary(ctx, userID, conversationID)
	data := map[string]any{"strategyId": snap.StrategyID, "version": snap.Version, "name": snap.Name, "siteId": snap.SiteID,
		"recordType": snap.RecordType, "steps": len(snap.Steps), "summary": summary}
	if root != nil {
		data["rootStepId"], data["rootName"], data["countStatus"] = string(root.ID), root.DisplayName, root.CountStatus.String()
		if root.Count != nil {
			data["rootCount"] = *root.Count
		}
		if root.CountProvenance != nil {
			data["countProvenance"] = jsonObject(root.CountProvenance)
		}
	}
	out := []*a2a.Artifact{{ID: artifactStrategy, Name: "strategy",
		Description: "The built strategy: its root step, the root's gene count and where that count comes from.",
		Parts:       a2a.ContentParts{a2a.NewTextPart(summary), a2a.NewDataPart(data)}}}
	if root == nil {
		return out, nil
	}
	w, err := p.host.WDK(ctx, userID, snap.StrategyID)
	if err != nil {
		p.log.WarnContext(ctx, "a2a: no WDK export", "conversation_id", conversationID, "error", err)
		return out, nil
	}
	part := a2a.NewDataPart(jsonObject(w))
	part.MediaType = "application/json"
	return append(out, &a2a.Artifact{ID: artifactWDK, Name: "wdk-strategy",
		Description: "The strategy in VEuPathDB's WDK strategy format, as GET /api/v1/conversations/{id}/strategy/wdk answers.",
		Parts:       a2a.ContentParts{part}}), nil
}

// jsonObject turns a value into its JSON object form (a data part's
// content).
func jsonObject(v any) map[string]any {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// jsonArray turns a slice into its JSON array form (within a data part's
// content).
func jsonArray(v any) []any {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var a []any
	_ = json.Unmarshal(raw, &a)
	return a
}

// GetTask reads one of the caller's tasks.
func (h *handler) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	t, err := h.userTurn(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	return h.p.task(ctx, account.UserID(ctx), t, taskView{history: req.HistoryLength, artifacts: true})
}

// maxA2AListConversations bounds the conversations ListTasks reads when
// no context is named.
const maxA2AListConversations = 20

// ListTasks lists the caller's tasks, newest first: a context's, or those
// of their latest conversations.
func (h *handler) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	userID := account.UserID(ctx)
	var convIDs []string
	if req.ContextID != "" {
		if !protocol.IsUUID(req.ContextID) {
			return nil, invalidParams("contextId must be a Strategist conversation id (a UUID)")
		}
		convIDs = []string{strings.ToLower(req.ContextID)}
	} else {
		convs, err := h.p.host.Conversations(ctx, userID, maxA2AListConversations)
		if err != nil {
			return nil, err
		}
		for _, c := range convs {
			convIDs = append(convIDs, c.ID)
		}
	}
	var turns []store.Turn
	for _, id := range convIDs {
		ts, err := h.p.host.Turns(ctx, userID, id)
		if err != nil {
			return nil, a2aError(err)
		}
		turns = append(turns, ts...)
	}
	slices.SortFunc(turns, func(a, b store.Turn) int { return b.StartedAt.Compare(a.StartedAt) })
	size := req.PageSize
	if size <= 0 || size > 100 {
		size = 50
	}
	offset := 0
	if req.PageToken != "" {
		n, err := strconv.Atoi(req.PageToken)
		if err != nil || n < 0 {
			return nil, invalidParams("pageToken %s is not one this server gave", protocol.Quote(req.PageToken))
		}
		offset = n
	}
	var tasks []*a2a.Task
	questions := map[string]*event.QuestionAsked{}
	for _, t := range turns {
		if req.StatusTimestampAfter != nil && !t.StartedAt.After(*req.StatusTimestampAfter) && (t.EndedAt == nil || !t.EndedAt.After(*req.StatusTimestampAfter)) {
			continue
		}
		task, err := h.p.task(ctx, userID, t, taskView{history: req.HistoryLength, artifacts: req.IncludeArtifacts, questions: questions})
		if err != nil {
			return nil, err
		}
		if req.Status != a2a.TaskStateUnspecified && task.Status.State != req.Status {
			continue
		}
		tasks = append(tasks, task)
	}
	resp := &a2a.ListTasksResponse{TotalSize: len(tasks), PageSize: size, Tasks: []*a2a.Task{}}
	if offset < len(tasks) {
		end := min(offset+size, len(tasks))
		resp.Tasks = tasks[offset:end]
		if end < len(tasks) {
			resp.NextPageToken = strconv.Itoa(end)
		}
	}
	return resp, nil
}

// cancelWait bounds how long CancelTask waits for the turn to end.
const cancelWait = 10 * time.Second

// CancelTask cancels a running task's turn (as Cancel on the page does)
// and answers with the task once the turn has ended.
func (h *handler) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	userID := account.UserID(ctx)
	t, err := h.userTurn(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	if t.Status != store.TurnRunning {
		return nil, a2a.NewError(a2a.ErrTaskNotCancelable, "task "+t.ID+" has ended ("+string(t.Status)+")")
	}
	if err := h.p.host.CancelTurn(ctx, userID, t.ConversationID, t.ID); err != nil {
		return nil, a2aError(err)
	}
	deadline := time.Now().Add(cancelWait)
	for t.Status == store.TurnRunning && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if t, err = h.userTurn(ctx, req.ID); err != nil {
			return nil, err
		}
	}
	return h.p.task(ctx, userID, t, taskView{artifacts: true})
}
