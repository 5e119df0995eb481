package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"strategist/internal/event/eventtest"
	"strategist/internal/pgtest"
)

// a2aClient resolves the app's agent card and connects the a2a-go client
// to the endpoint it names, sending token.
func a2aClient(t *testing.T, ctx context.Context, a *testApp, token string) (*a2aclient.Client, *a2a.AgentCard) {
	t.Helper()
	card, err := agentcard.NewResolver(http.DefaultClient).Resolve(ctx, a.URL)
	if err != nil {
		t.Fatalf("agent card: %v", err)
	}
	client, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithJSONRPCTransport(&http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}))
	if err != nil {
		t.Fatalf("a2a client: %v", err)
	}
	t.Cleanup(func() { _ = client.Destroy() })
	return client, card
}

// a2aStream sends msg as a streaming message and returns its events, the
// server still starting (503) being retried.
func a2aStream(t *testing.T, ctx context.Context, c *a2aclient.Client, msg *a2a.Message) []a2a.Event {
	t.Helper()
	for range 200 {
		var events []a2a.Event
		var failed error
		for e, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: msg}) {
			if err != nil {
				failed = err
				break
			}
			events = append(events, e)
		}
		if failed != nil && len(events) == 0 && strings.Contains(failed.Error(), "starting") {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if failed != nil {
			t.Fatalf("streaming send: %v (after %d events)", failed, len(events))
		}
		return events
	}
	t.Fatal("the server did not start")
	return nil
}

// finalState is the state of a stream's last status update.
func finalState(t *testing.T, events []a2a.Event) a2a.TaskStatus {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no events")
	}
	last, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
	if !ok {
		t.Fatalf("the stream ends with %T", events[len(events)-1])
	}
	return last.Status
}

// artifact returns the artifact id among a task's artifacts, or the last
// artifact update with that id.
func artifactOf(arts []*a2a.Artifact, events []a2a.Event, id a2a.ArtifactID) *a2a.Artifact {
	var found *a2a.Artifact
	for _, a := range arts {
		if a.ID == id {
			found = a
		}
	}
	for _, e := range events {
		if u, ok := e.(*a2a.TaskArtifactUpdateEvent); ok && u.Artifact.ID == id {
			found = u.Artifact
		}
	}
	return found
}

// dataOf is an artifact's first data part.
func dataOf(t *testing.T, a *a2a.Artifact) map[string]any {
	t.Helper()
	for _, p := range a.Parts {
		if d, ok := p.Data().(map[string]any); ok {
			return d
		}
	}
	t.Fatalf("artifact %s has no data part", a.ID)
	return nil
}

// rpc posts a JSON-RPC request with the app's token and returns the body.
func rpc(t *testing.T, a *testApp, path, body string) string {
	t.Helper()
	req, err := http.NewRequest("POST", a.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+a.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("%s: %d %s", path, resp.StatusCode, raw)
	}
	return string(raw)
}

// TestA2APlansAndBuilds: the a2a-go client reads the public agent card
// (bearer scheme, streaming, three skills), streams a request whose task
// ends input-required with the plan, then "build" in the same context,
// whose task completes with the acceptance strategy (root count 89) and
// its WDK export as artifacts; GetTask and ListTasks read the tasks from
// the conversation; another user's token finds nothing, and no token is a
// 401.
func TestA2APlansAndBuilds(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.NewURL(t)
	a := startApp(t, appOptions{DatabaseURL: dbURL})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	client, card := a2aClient(t, ctx, a, a.Token)
	if card.Name != "Strategist" || !card.Capabilities.Streaming || len(card.Skills) != 3 {
		t.Errorf("card %+v", card)
	}
	if len(card.SupportedInterfaces) == 0 || card.SupportedInterfaces[0].URL != a.URL+"/a2a" || card.SupportedInterfaces[0].ProtocolVersion != a2a.Version {
		t.Errorf("interfaces %+v", card.SupportedInterfaces)
	}
	if s, ok := card.SecuritySchemes["bearer"].(a2a.HTTPAuthSecurityScheme); !ok || !strings.EqualFold(s.Scheme, "bearer") {
		t.Errorf("security schemes %#v", card.SecuritySchemes)
	}
	if len(card.SecurityRequirements) != 1 || card.SecurityRequirements[0]["bearer"] == nil {
		t.Errorf("security requirements %#v", card.SecurityRequirements)
	}

	// The card's JSON is v1.0's, public (no token).
	var raw struct {
		SupportedInterfaces  []struct{ URL, ProtocolBinding, ProtocolVersion string }
		SecuritySchemes      map[string]map[string]map[string]string
		SecurityRequirements []struct {
			Schemes map[string]any
		}
		DefaultInputModes, DefaultOutputModes []string
		Skills                                []struct{ ID, Name, Description string }
	}
	cardResp, err := http.Get(a.URL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(cardResp.Body).Decode(&raw); err != nil || cardResp.StatusCode != http.StatusOK {
		t.Fatalf("card: %d %v", cardResp.StatusCode, err)
	}
	cardResp.Body.Close()
	if raw.SecuritySchemes["bearer"]["httpAuthSecurityScheme"]["scheme"] != "Bearer" || len(raw.SecurityRequirements) != 1 ||
		raw.SecurityRequirements[0].Schemes["bearer"] == nil || raw.SupportedInterfaces[0].ProtocolBinding != "JSONRPC" ||
		len(raw.DefaultInputModes) == 0 || len(raw.DefaultOutputModes) == 0 {
		t.Errorf("card JSON %+v", raw)
	}
	var skills []string
	for _, s := range raw.Skills {
		skills = append(skills, s.ID)
	}
	if strings.Join(skills, ",") != "plan-strategy,build-strategy,explain-count" {
		t.Errorf("skills %v", skills)
	}

	// No token: 401 with WWW-Authenticate, before any JSON-RPC.
	resp, err := http.Post(a.URL+"/a2a", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") || !json.Valid(body) {
		t.Errorf("no token: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}

	// The request: the plan waits for approval.
	const request = "Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14"
	ask := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(request))
	plan := a2aStream(t, ctx, client, ask)
	first, ok := plan[0].(*a2a.Task)
	if !ok || first.Status.State != a2a.TaskStateWorking || first.ContextID == "" {
		t.Fatalf("the stream starts with %#v", plan[0])
	}
	if len(first.History) != 1 || first.History[0].ID != ask.ID || first.History[0].TaskID != first.ID {
		t.Errorf("the task's history %+v", first.History)
	}
	if st := finalState(t, plan); st.State != a2a.TaskStateInputRequired || st.Message == nil || !strings.Contains(st.Message.Parts[0].Text(), "build") {
		t.Fatalf("plan task ended %+v", st)
	}
	if p := artifactOf(nil, plan, "plan"); p == nil || dataOf(t, p)["goal"] == "" {
		t.Errorf("no plan artifact in %d events", len(plan))
	}
	planTask, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: first.ID})
	if err != nil || planTask.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("GetTask of the plan: %v %+v", err, planTask)
	}

	// "build" in that context (naming the task that waits) builds it.
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("build"))
	msg.ContextID, msg.TaskID = first.ContextID, first.ID
	build := a2aStream(t, ctx, client, msg)
	buildTask, ok := build[0].(*a2a.Task)
	if !ok || buildTask.ID == first.ID || buildTask.ContextID != first.ContextID {
		t.Fatalf("the build stream starts with %#v", build[0])
	}
	if st := finalState(t, build); st.State != a2a.TaskStateCompleted || !strings.Contains(st.Message.Parts[0].Text(), "89 genes") {
		t.Fatalf("build task ended %+v", st)
	}
	progress := 0
	for _, e := range build {
		if u, ok := e.(*a2a.TaskStatusUpdateEvent); ok && u.Status.State == a2a.TaskStateWorking && u.Status.Message != nil &&
			strings.Contains(u.Status.Message.Parts[0].Text(), ": done (step ") {
			progress++
		}
	}
	if progress == 0 {
		t.Errorf("no sub-agent progress in the build stream")
	}
	strat := artifactOf(nil, build, "strategy")
	if strat == nil {
		t.Fatal("no strategy artifact")
	}
	d := dataOf(t, strat)
	if d["rootCount"] != float64(89) || d["rootStepId"] == "" {
		t.Errorf("strategy artifact %v", d)
	}
	if prov, _ := d["countProvenance"].(map[string]any); prov["offline"] != true || !strings.Contains(prov["source"].(string), "offline snapshot") {
		t.Errorf("count provenance %v", d["countProvenance"])
	}
	if w := artifactOf(nil, build, "wdk-strategy"); w == nil || dataOf(t, w)["stepTree"] == nil {
		t.Errorf("no WDK export artifact")
	}
	eventtest.Check(t, a.collect(first.ContextID, 0, 10*time.Second, untilTurnEnds(2)))

	// The tasks, read back from the conversation.
	got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: buildTask.ID})
	if err != nil || got.Status.State != a2a.TaskStateCompleted || artifactOf(got.Artifacts, nil, "wdk-strategy") == nil {
		t.Fatalf("GetTask of the build: %v %+v", err, got)
	}
	if d := dataOf(t, artifactOf(got.Artifacts, nil, "strategy")); d["rootCount"] != float64(89) {
		t.Errorf("GetTask's strategy %v", d)
	}
	if got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: first.ID}); err != nil || got.Status.State != a2a.TaskStateCompleted {
		t.Errorf("the plan task once built: %v %+v", err, got)
	}
	list, err := client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: first.ContextID})
	if err != nil || len(list.Tasks) != 2 || list.Tasks[0].ID != buildTask.ID || list.Tasks[1].ID != first.ID {
		t.Errorf("ListTasks: %v %+v", err, list)
	}
	if _, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: buildTask.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
		t.Errorf("cancelling an ended task: %v", err)
	}
	for _, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: buildTask.ID}) {
		if !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Errorf("subscribing to an ended task: %v", err)
		}
		break
	}

	// The v0.3 binding answers with the same task, in v0.3's words.
	v0 := rpc(t, a, "/a2a/v0.3", `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"`+string(buildTask.ID)+`"}}`)
	if !strings.Contains(v0, `"state":"completed"`) || !strings.Contains(v0, `"kind":"task"`) || !strings.Contains(v0, `"rootCount":89`) {
		t.Errorf("v0.3 tasks/get: %s", v0)
	}
	if v1 := rpc(t, a, "/a2a", `{"jsonrpc":"2.0","id":8,"method":"GetTask","params":{"id":"`+string(buildTask.ID)+`"}}`); !strings.Contains(v1, `"state":"TASK_STATE_COMPLETED"`) {
		t.Errorf("v1.0 GetTask: %s", v1)
	}

	// Another user: the task and the context are not found.
	u, err := a.app.accounts.CreateUser(ctx, "eve"+first.ContextID[:8]+"@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	eveToken, _, err := a.app.accounts.CreateAPIToken(ctx, u.ID, "eve")
	if err != nil {
		t.Fatal(err)
	}
	eve, _ := a2aClient(t, ctx, a, eveToken)
	if _, err := eve.GetTask(ctx, &a2a.GetTaskRequest{ID: buildTask.ID}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("another user's GetTask: %v", err)
	}
	if _, err := eve.CancelTask(ctx, &a2a.CancelTaskRequest{ID: buildTask.ID}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("another user's CancelTask: %v", err)
	}
	other := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("build"))
	other.ContextID = first.ContextID
	if _, err := eve.SendMessage(ctx, &a2a.SendMessageRequest{Message: other}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("another user's context: %v", err)
	}
	if list, err := eve.ListTasks(ctx, &a2a.ListTasksRequest{}); err != nil || len(list.Tasks) != 0 {
		t.Errorf("another user's ListTasks: %v %+v", err, list)
	}

	// After a restart, the tasks are read from the database as before.
	a.Stop()
	b := startApp(t, appOptions{DatabaseURL: dbURL})
	again, _ := a2aClient(t, ctx, b, a.Token)
	got, err = again.GetTask(ctx, &a2a.GetTaskRequest{ID: buildTask.ID})
	if err != nil || got.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("GetTask after a restart: %v %+v", err, got)
	}
	if d := dataOf(t, artifactOf(got.Artifacts, nil, "strategy")); d["rootCount"] != float64(89) {
		t.Errorf("the strategy after a restart %v", d)
	}
	if list, err := again.ListTasks(ctx, &a2a.ListTasksRequest{}); err != nil || len(list.Tasks) != 2 || list.TotalSize != 2 {
		t.Errorf("ListTasks after a restart: %v %+v", err, list)
	}
}

// TestA2ACancelsARunningTask: a build started on the JSON API is an A2A
// task too: a subscription follows it, CancelTask cancels its turn (the
// scripted sub-agents would take a minute per call), and the subscription
// ends with the canceled state.
func TestA2ACancelsARunningTask(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{Script: "cancel_delegation.json", Env: map[string]string{"STRATEGIST_TURN_RATE": "0.01", "STRATEGIST_RUNNING_TURNS": "1000"}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conv := a.newConversation()
	turn := a.startTurn(conv, "execute", "Build it")
	client, _ := a2aClient(t, ctx, a, a.Token)
	busy := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("and kinases?"))
	busy.ContextID = conv
	if _, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: busy}); !errors.Is(err, a2a.ErrInvalidRequest) || !strings.Contains(err.Error(), "still running") {
		t.Errorf("a message while the build runs: %v", err)
	}

	var events []a2a.Event
	cancelled := make(chan error, 1)
	for e, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: a2a.TaskID(turn)}) {
		if err != nil {
			t.Fatalf("subscription: %v (after %d events)", err, len(events))
		}
		events = append(events, e)
		if len(events) == 1 {
			task, ok := e.(*a2a.Task)
			if !ok || task.Status.State != a2a.TaskStateWorking || task.ContextID != conv {
				t.Fatalf("the subscription starts with %#v", e)
			}
			go func() {
				task, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: a2a.TaskID(turn)})
				if err == nil && task.Status.State != a2a.TaskStateCanceled {
					err = errors.New("cancel answered " + string(task.Status.State))
				}
				cancelled <- err
			}()
		}
	}
	if err := <-cancelled; err != nil {
		t.Fatalf("CancelTask: %v", err)
	}
	if st := finalState(t, events); st.State != a2a.TaskStateCanceled {
		t.Errorf("the subscription ended %+v", st)
	}
	if got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID(turn)}); err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Errorf("GetTask after cancel: %v %+v", err, got)
	}

	// The turns A2A messages start spend the user's one turn budget (a
	// burst of 10, shared with the JSON API: the build and the refused
	// message above spent two); a message without text starts no turn and
	// spends nothing.
	empty := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(" "))}
	for range 20 {
		if _, err := client.SendMessage(ctx, empty); !errors.Is(err, a2a.ErrUnsupportedContentType) {
			t.Fatalf("a message without text: %v", err)
		}
	}
	started := 0
	for {
		ask := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("tRNA genes")),
			Config: &a2a.SendMessageConfig{ReturnImmediately: true}}
		_, err := client.SendMessage(ctx, ask)
		if err == nil {
			started++
			if started > 10 {
				t.Fatal("more than 10 turns started in a burst")
			}
			continue
		}
		if !errors.Is(err, a2a.ErrInvalidRequest) || !strings.Contains(err.Error(), "too fast") || started != 8 {
			t.Errorf("after %d messages that started turns: %v; want a refusal after 8", started, err)
		}
		break
	}
}
