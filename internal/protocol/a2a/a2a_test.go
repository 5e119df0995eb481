package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/google/uuid"

	"strategist/internal/event"
	"strategist/internal/protocol"
	strategista2a "strategist/internal/protocol/a2a"
	"strategist/internal/protocol/protocoltest"
	"strategist/internal/strategy"
)

// harness is the A2A agent over the fake host, reached by the SDK's own
// client through the agent card.
type harness struct {
	host   *protocoltest.Host
	client *a2aclient.Client
	card   *a2a.AgentCard
	user   string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := protocoltest.New(t)
	p, err := strategista2a.New(h)
	if err != nil {
		t.Fatal(err)
	}
	user := uuid.NewString()
	srv := protocoltest.Serve(t, h, p, user)
	h.URL = srv.URL
	card, err := agentcard.NewResolver(srv.Client()).Resolve(t.Context(), srv.URL)
	if err != nil {
		t.Fatalf("agent card: %v", err)
	}
	client, err := a2aclient.NewFromCard(t.Context(), card, a2aclient.WithJSONRPCTransport(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Destroy() })
	return &harness{host: h, client: client, card: card, user: user}
}

func text(s string) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(s)) }

func artifact(task *a2a.Task, id a2a.ArtifactID) *a2a.Artifact {
	for _, a := range task.Artifacts {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// TestAgentCard: the card is public and names both JSON-RPC endpoints on
// the public URL, the bearer scheme and the three skills.
func TestAgentCard(t *testing.T) {
	t.Parallel()
	e := newHarness(t)
	c := e.card
	if c.Name != "Strategist" || c.Version != "test" || !c.Capabilities.Streaming || len(c.Skills) != 3 {
		t.Errorf("card %+v", c)
	}
	if len(c.SupportedInterfaces) != 2 || c.SupportedInterfaces[0].URL != e.host.URL+strategista2a.Path ||
		c.SupportedInterfaces[1].URL != e.host.URL+strategista2a.V0Path {
		t.Errorf("interfaces %+v", c.SupportedInterfaces)
	}
	if _, ok := c.SecuritySchemes["bearer"].(a2a.HTTPAuthSecurityScheme); !ok {
		t.Errorf("security schemes %#v", c.SecuritySchemes)
	}
}

// TestPlanThenBuild: a message starts a conversation and its task ends
// input-required with the plan; "build" in that context is a new task,
// an execute turn, whose artifacts are the answer, the strategy (with the
// root's count) and its WDK export.
func TestPlanThenBuild(t *testing.T) {
	t.Parallel()
	e := newHarness(t)
	ctx := t.Context()
	e.host.Run = e.host.Play(
		&event.AssistantMessage{MessageID: "m1", Content: "Here is a plan."},
		&event.HandoffRequested{HandoffID: "h1", Goal: "kinases", Plan: json.RawMessage(`{"goal":"kinases"}`)},
		&event.TurnEnd{Status: event.TurnCompleted})
	res, err := e.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: text("kinases")})
	if err != nil {
		t.Fatal(err)
	}
	plan, ok := res.(*a2a.Task)
	if !ok || plan.Status.State != a2a.TaskStateInputRequired || artifact(plan, "plan") == nil || artifact(plan, "answer") == nil {
		t.Fatalf("plan task = %#v", res)
	}
	if len(plan.History) != 2 || plan.History[0].Role != a2a.MessageRoleUser || plan.Metadata["strategist/conversationUrl"] != e.host.ConversationURL(plan.ContextID) {
		t.Errorf("plan task history %+v metadata %v", plan.History, plan.Metadata)
	}
	if sent := e.host.Sent(); len(sent) != 1 || sent[0].UserID != e.user || sent[0].Conversation.ID != plan.ContextID || !sent[0].Created ||
		sent[0].Conversation.SiteID != protocol.DefaultSite {
		t.Errorf("sent %+v", sent)
	}

	count := 89
	e.host.SetStrategy(plan.ContextID, strategy.Snapshot{StrategyID: "st1", RootStepID: "s1",
		Steps: []strategy.Step{{ID: "s1", DisplayName: "kinases", Count: &count}}}, &strategy.WDKStrategy{Name: "kinases"})
	e.host.Run = e.host.Play(&event.AssistantMessage{MessageID: "m2", Content: "Built."}, &event.TurnEnd{Status: event.TurnCompleted})
	msg := text("build")
	msg.ContextID, msg.TaskID = plan.ContextID, plan.ID
	res, err = e.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	build, ok := res.(*a2a.Task)
	if !ok || build.ID == plan.ID || build.ContextID != plan.ContextID || build.Status.State != a2a.TaskStateCompleted ||
		build.Metadata["strategist/mode"] != "execute" {
		t.Fatalf("build task = %#v", res)
	}
	strat := artifact(build, "strategy")
	if strat == nil || artifact(build, "wdk-strategy") == nil {
		t.Fatalf("build artifacts %+v", build.Artifacts)
	}
	if d, ok := strat.Parts[1].Data().(map[string]any); !ok || d["rootCount"] != float64(89) || d["rootStepId"] != "s1" {
		t.Errorf("strategy artifact %+v", strat.Parts[1])
	}
	list, err := e.client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: plan.ContextID})
	if err != nil || len(list.Tasks) != 2 || list.Tasks[0].ID != build.ID || list.Tasks[1].ID != plan.ID {
		t.Errorf("ListTasks: %v %+v", err, list)
	}
}

// TestStreamedTask: a streamed message opens with the task and its
// history, carries the answer as artifact updates and progress as
// working status updates, and ends with the final status.
func TestStreamedTask(t *testing.T) {
	t.Parallel()
	e := newHarness(t)
	e.host.Run = e.host.Play(
		&event.AssistantDelta{MessageID: "m1", Delta: "Kinases"},
		&event.AssistantDelta{MessageID: "m1", Delta: " first."},
		&event.ToolCallEnd{Name: "create_step", Error: &event.ToolError{Message: "no such search"}},
		&event.TurnEnd{Status: event.TurnFailed, Error: "the model gave up"})
	ask := text("kinases")
	var events []a2a.Event
	for ev, err := range e.client.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: ask}) {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
	if len(events) != 5 {
		t.Fatalf("%d events: %#v", len(events), events)
	}
	task, ok := events[0].(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateWorking || len(task.History) != 1 || task.History[0].ID != ask.ID {
		t.Fatalf("first event %#v", events[0])
	}
	a1, ok1 := events[1].(*a2a.TaskArtifactUpdateEvent)
	a2, ok2 := events[2].(*a2a.TaskArtifactUpdateEvent)
	if !ok1 || !ok2 || a1.Append || !a2.Append || a1.Artifact.Parts[0].Text()+a2.Artifact.Parts[0].Text() != "Kinases first." {
		t.Errorf("answer updates %#v %#v", events[1], events[2])
	}
	if u, ok := events[3].(*a2a.TaskStatusUpdateEvent); !ok || u.Status.State != a2a.TaskStateWorking ||
		u.Status.Message.Parts[0].Text() != "`create_step` failed: no such search" {
		t.Errorf("progress %#v", events[3])
	}
	if u, ok := events[4].(*a2a.TaskStatusUpdateEvent); !ok || u.Status.State != a2a.TaskStateFailed ||
		!strings.Contains(u.Status.Message.Parts[0].Text(), "the model gave up") {
		t.Errorf("final status %#v", events[4])
	}
}

// TestCancelARunningTask: a message sent with returnImmediately answers
// while its turn runs; CancelTask cancels that turn and answers the
// cancelled task; an ended task cannot be cancelled, and another user's
// is not found.
func TestCancelARunningTask(t *testing.T) {
	t.Parallel()
	e := newHarness(t)
	ctx := t.Context()
	e.host.Run = e.host.Play(&event.AssistantDelta{MessageID: "m1", Delta: "Working"}, &event.TurnEnd{Status: event.TurnCompleted})
	res, err := e.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: text("kinases"), Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("immediate answer %#v", res)
	}
	got, err := e.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask: %v %+v", err, got)
	}
	if c := e.host.Cancelled(); len(c) != 1 || c[0] != string(task.ID) {
		t.Errorf("cancelled %v", c)
	}
	if _, err := e.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
		t.Errorf("cancelling it again: %v", err)
	}
	theirs, err := e.host.CreateConversation(ctx, uuid.NewString(), "plasmodb", "not yours")
	if err != nil {
		t.Fatal(err)
	}
	msg := text("more")
	msg.ContextID = theirs.ID
	if _, err := e.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("another user's context: %v", err)
	}
	if _, err := e.client.GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID(uuid.NewString())}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("an unknown task: %v", err)
	}
}

// TestRefusals: what the agent cannot read is an invalid request or
// parameter, a turn the orchestrator refuses keeps its code in the
// error's details, and a refused start leaves its new conversation to the
// host to discard.
func TestRefusals(t *testing.T) {
	t.Parallel()
	e := newHarness(t)
	ctx := t.Context()
	noText := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"x": 1}))
	badContext := text("kinases")
	badContext.ContextID = "not-a-uuid"
	badSite := text("kinases")
	badSite.Metadata = map[string]any{"site": "nosuchdb"}
	for name, tc := range map[string]struct {
		msg  *a2a.Message
		want error
	}{
		"no text part":       {noText, a2a.ErrUnsupportedContentType},
		"context not a UUID": {badContext, a2a.ErrInvalidParams},
		"unknown site":       {badSite, a2a.ErrInvalidParams},
	} {
		if _, err := e.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: tc.msg}); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	e.host.Run = func(context.Context, protocol.Message, func(*event.Record, event.Event) error) (protocol.Outcome, error) {
		return protocol.Outcome{}, &protocol.APIError{Status: http.StatusTooManyRequests, Code: protocol.CodeRateLimited, Message: "slow down",
			Details: map[string]any{"limit": 5}}
	}
	_, err := e.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: text("kinases")})
	if !errors.Is(err, a2a.ErrInvalidRequest) || !strings.Contains(err.Error(), "slow down") {
		t.Errorf("a refused turn: %v, want an invalid request saying why", err)
	}
	if sent := e.host.Sent(); len(sent) != 1 || !sent[0].Created {
		t.Errorf("sent %+v, want the refused message marked Created", sent)
	}
}

// TestQuestionTask: a turn that ends with a question streams its task to
// input-required, the status message carrying the question with its
// options numbered (text) and as data (each option's message, what it
// builds, its count); the reply "1" in that context is a new task that
// continues the conversation with the first option's message, and the
// asking task is then completed, its question answered.
func TestQuestionTask(t *testing.T) {
	t.Parallel()
	e := newHarness(t)
	ctx := t.Context()
	q, asking := protocoltest.Asking()
	e.host.Run = e.host.Play(asking...)
	var last *a2a.TaskStatusUpdateEvent
	for ev, err := range e.client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: text("kinases")}) {
		if err != nil {
			t.Fatal(err)
		}
		if u, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			last = u
		}
	}
	if last == nil || last.Status.State != a2a.TaskStateInputRequired || len(last.Status.Message.Parts) != 2 {
		t.Fatalf("final status %#v", last)
	}
	parts := last.Status.Message.Parts
	if got := parts[0].Text(); !strings.HasPrefix(got, "Question: "+q.Question+"\n1. protein phosphorylation") || !strings.Contains(got, "\n2. genes whose annotation") {
		t.Errorf("status text %q", got)
	}
	d, ok := parts[1].Data().(map[string]any)
	opts, _ := d["options"].([]any)
	if !ok || d["questionId"] != q.QuestionID || d["freeText"] != true || len(opts) != 2 {
		t.Fatalf("status data %#v", parts[1].Data())
	}
	if o, _ := opts[1].(map[string]any); o["message"] != q.Options[1].Message || o["count"] != float64(66) || o["approximate"] != true {
		t.Errorf("second option %#v", opts[1])
	}
	asked, err := e.client.GetTask(ctx, &a2a.GetTaskRequest{ID: last.TaskID})
	if err != nil || asked.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("GetTask of the asking task: %v %+v", err, asked)
	}

	e.host.Run = e.host.Play(&event.AssistantMessage{MessageID: "m2", Content: "Planned GO:0006468."}, &event.TurnEnd{Status: event.TurnCompleted})
	reply := text("1")
	reply.ContextID = last.ContextID
	res, err := e.client.SendMessage(ctx, &a2a.SendMessageRequest{Message: reply})
	if err != nil {
		t.Fatal(err)
	}
	next, ok := res.(*a2a.Task)
	if !ok || next.ID == last.TaskID || next.ContextID != last.ContextID || next.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("the answer's task %#v", res)
	}
	if h := next.History; len(h) == 0 || h[0].Parts[0].Text() != q.Options[0].Message {
		t.Errorf("the answer's history %+v, want the first option's message first", h)
	}
	if asked, err = e.client.GetTask(ctx, &a2a.GetTaskRequest{ID: last.TaskID}); err != nil || asked.Status.State != a2a.TaskStateCompleted {
		t.Errorf("the answered question's task: %v %+v", err, asked)
	}
}
