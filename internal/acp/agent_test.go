package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"strategist/internal/event"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeBackend plays a conversation's turns from scripted events: each
// started turn publishes its script; a cancelled turn ends cancelled.
type fakeBackend struct {
	mu      sync.Mutex
	log     []event.Record
	changed chan struct{}
	// scripts are the events of the turns started, in order.
	scripts   [][]event.Event
	started   []string
	accepted  []string
	cancelled []string
	// hold keeps a turn running (no turn_end) until it is cancelled.
	hold  map[string]bool
	turns int
}

func newFakeBackend(scripts ...[]event.Event) *fakeBackend {
	return &fakeBackend{changed: make(chan struct{}), scripts: scripts, hold: map[string]bool{}}
}

func (f *fakeBackend) publish(turnID string, es ...event.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range es {
		raw, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		f.log = append(f.log, event.Record{ConversationID: "c1", Seq: int64(len(f.log) + 1), TurnID: turnID, Type: event.Name(e), Payload: raw})
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *fakeBackend) CreateConversation(context.Context) (Conversation, error) {
	return Conversation{ID: "c1", URL: "http://strategist.test/conversations/c1"}, nil
}

func (f *fakeBackend) nextTurn() string {
	f.mu.Lock()
	f.turns++
	id := "t" + string(rune('0'+f.turns))
	script := f.scripts[0]
	f.scripts = f.scripts[1:]
	f.mu.Unlock()
	var body []event.Event
	for _, e := range script {
		if te, ok := e.(*event.TurnEnd); ok && te.Status == "hold" {
			f.mu.Lock()
			f.hold[id] = true
			f.mu.Unlock()
			continue
		}
		body = append(body, e)
	}
	f.publish(id, body...)
	return id
}

func (f *fakeBackend) StartTurn(_ context.Context, _, message string) (string, error) {
	f.mu.Lock()
	f.started = append(f.started, message)
	f.mu.Unlock()
	return f.nextTurn(), nil
}

func (f *fakeBackend) AcceptHandoff(_ context.Context, _, handoffID string) (string, error) {
	f.mu.Lock()
	f.accepted = append(f.accepted, handoffID)
	f.mu.Unlock()
	return f.nextTurn(), nil
}

func (f *fakeBackend) CancelTurn(_ context.Context, _, turnID string) error {
	f.mu.Lock()
	f.cancelled = append(f.cancelled, turnID)
	held := f.hold[turnID]
	f.mu.Unlock()
	if held {
		f.publish(turnID, &event.TurnEnd{Status: event.TurnCancelled})
	}
	return nil
}

func (f *fakeBackend) Events(ctx context.Context, _ string, after int64) iter.Seq2[event.Record, error] {
	return func(yield func(event.Record, error) bool) {
		for {
			f.mu.Lock()
			recs := f.log[after:]
			changed := f.changed
			f.mu.Unlock()
			for _, r := range recs {
				after = r.Seq
				if !yield(r, nil) {
					return
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-changed:
			}
		}
	}
}

func (f *fakeBackend) Summary(context.Context, string) (string, error) {
	return "Root step s5 (Not on chromosome 14): 89 genes.", nil
}

// client is the editor's side of a connection to the agent: it sends
// requests, collects what the agent sends, and answers permission
// requests with answer.
type client struct {
	t      *testing.T
	in     *io.PipeWriter // the agent's input
	out    *bufio.Reader  // the agent's output
	done   chan error
	answer func(params json.RawMessage) any
	// onUpdate, when set, sees each update as it arrives.
	onUpdate func(u map[string]any)
	nextID   int
	updates  []map[string]any
	asked    []json.RawMessage
}

func startAgent(t *testing.T, b Backend) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := (&Agent{Backend: b, Version: "test"}).Serve(context.Background(), NewConn(inR, outW))
		_ = outW.Close()
		c.done <- err
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("the agent did not stop at the end of its input")
		}
	})
	return c
}

func (c *client) send(v any) {
	c.t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.in.Write(append(raw, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

// call sends a request and reads the agent's messages until its answer,
// collecting updates and answering permission requests on the way.
func (c *client) call(method string, params any) (json.RawMessage, *Error) {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("reading the agent's output: %v", err)
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("the agent wrote %q: %v", line, err)
		}
		if m.JSONRPC != "2.0" {
			c.t.Fatalf("not JSON-RPC 2.0: %s", line)
		}
		switch {
		case m.Method == MethodSessionUpdate:
			var n struct {
				SessionID string         `json:"sessionId"`
				Update    map[string]any `json:"update"`
			}
			if err := json.Unmarshal(m.Params, &n); err != nil || n.SessionID == "" {
				c.t.Fatalf("bad session/update %s: %v", m.Params, err)
			}
			c.updates = append(c.updates, n.Update)
			if c.onUpdate != nil {
				c.onUpdate(n.Update)
			}
		case m.Method == MethodRequestPermission:
			c.asked = append(c.asked, m.Params)
			c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": c.answer(m.Params)})
		case m.Method != "":
			c.t.Fatalf("unexpected call %s", line)
		case string(m.ID) == jsonInt(id):
			return m.Result, m.Error
		default:
			c.t.Fatalf("an answer to no request of ours: %s", line)
		}
	}
}

func jsonInt(n int) string { raw, _ := json.Marshal(n); return string(raw) }

func (c *client) mustCall(method string, params any, out any) {
	c.t.Helper()
	res, rerr := c.call(method, params)
	if rerr != nil {
		c.t.Fatalf("%s: %v", method, rerr)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			c.t.Fatalf("%s answered %s: %v", method, res, err)
		}
	}
}

func (c *client) open() string {
	c.t.Helper()
	var init map[string]any
	c.mustCall(MethodInitialize, map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, &init)
	if init["protocolVersion"] != float64(1) {
		c.t.Fatalf("protocolVersion: %v", init)
	}
	caps := init["agentCapabilities"].(map[string]any)
	if caps["loadSession"] != false || caps["promptCapabilities"].(map[string]any)["image"] != false {
		c.t.Errorf("capabilities: %v", caps)
	}
	if init["agentInfo"].(map[string]any)["name"] != "strategist" || init["authMethods"] == nil {
		c.t.Errorf("initialize: %v", init)
	}
	var sess struct {
		SessionID string `json:"sessionId"`
		Meta      Meta   `json:"_meta"`
	}
	c.mustCall(MethodSessionNew, map[string]any{"cwd": "/tmp", "mcpServers": []any{}}, &sess)
	if sess.SessionID != "c1" || sess.Meta["strategist/conversationUrl"] != "http://strategist.test/conversations/c1" {
		c.t.Fatalf("session/new: %+v", sess)
	}
	return sess.SessionID
}

func prompt(sessionID, text string) map[string]any {
	return map[string]any{"sessionId": sessionID, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

func selected(option string) func(json.RawMessage) any {
	return func(json.RawMessage) any {
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}
	}
}

var (
	planNodes = []event.PlanNode{
		{ID: "n1", Kind: "task", Label: "DNA replication"},
		{ID: "n2", Kind: "task", Label: "DNA repair"},
		{ID: "n3", Kind: "combine", Label: "Replication or repair", DependsOn: []string{"n1", "n2"}, Operator: "UNION"},
	}
	planTurn = []event.Event{
		&event.TurnStart{Mode: event.ModePlan, Message: "find genes"},
		&event.AssistantDelta{MessageID: "m1", Delta: "Looking "},
		&event.AssistantDelta{MessageID: "m1", Delta: "for searches."},
		&event.AssistantMessage{MessageID: "m1", Content: "Looking for searches."},
		&event.ToolCallStart{CallID: "k1", Name: "search_for_searches", Args: json.RawMessage(`{"query":"GO"}`)},
		&event.ToolCallEnd{CallID: "k1", Name: "search_for_searches", OK: true, Result: json.RawMessage(`{"searches":[]}`)},
		&event.ToolCallStart{CallID: "k2", Name: "get_search_parameters", Args: json.RawMessage(`{}`)},
		&event.ToolCallEnd{CallID: "k2", Name: "get_search_parameters", OK: false, Error: &event.ToolError{Code: "VALIDATION_ERROR", Message: "search_name is required"}},
		&event.ConversationRenamed{Title: "Replication or repair"},
		&event.HandoffRequested{HandoffID: "h1", Goal: "Replication or repair genes", Plan: json.RawMessage(`{"type":"task"}`)},
		&event.AssistantMessage{MessageID: "m2", Content: "The plan is saved."},
		&event.TurnEnd{Status: event.TurnCompleted},
	}
	buildTurn = []event.Event{
		&event.TurnStart{Mode: event.ModeExecute, HandoffID: "h1"},
		&event.HandoffAccepted{HandoffID: "h1", ExecuteTurnID: "t2"},
		&event.SubagentPlan{DelegationID: "d1", Goal: "g", Nodes: planNodes},
		&event.SubagentTaskStart{DelegationID: "d1", NodeID: "n1", Attempt: 1},
		&event.SubagentToolCallStart{DelegationID: "d1", NodeID: "n1", CallID: "x1", Name: "create_step", Args: json.RawMessage(`{}`)},
		&event.SubagentToolCallEnd{DelegationID: "d1", NodeID: "n1", CallID: "x1", Name: "create_step", OK: true, Result: json.RawMessage(`{"step":{}}`)},
		&event.SubagentMessage{DelegationID: "d1", NodeID: "n1", Content: "Done."},
		&event.SubagentTaskEnd{DelegationID: "d1", NodeID: "n1", Status: event.NodeDone, RootStepID: "s1"},
		&event.SubagentTaskEnd{DelegationID: "d1", NodeID: "n2", Status: event.NodeFailed, Error: "no such term"},
		&event.SubagentTaskEnd{DelegationID: "d1", NodeID: "n3", Status: event.NodeSkipped},
		&event.Error{Code: "DELEGATION_FAILED", Message: "a task failed"},
		&event.TurnEnd{Status: event.TurnCompleted},
	}
)

// kinds lists the updates' kinds, with a tool call's id and status.
func kinds(us []map[string]any) string {
	var out []string
	for _, u := range us {
		k := u["sessionUpdate"].(string)
		if id, ok := u["toolCallId"]; ok {
			k += ":" + id.(string)
			if st, ok := u["status"]; ok {
				k += ":" + st.(string)
			}
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

func TestPromptPlansAsksAndBuilds(t *testing.T) {
	b := newFakeBackend(planTurn, buildTurn)
	c := startAgent(t, b)
	c.answer = selected(optionBuild)
	id := c.open()

	var res PromptResponse
	c.mustCall(MethodSessionPrompt, prompt(id, "  find genes "), &res)
	if res.StopReason != StopEndTurn {
		t.Fatalf("stopReason %q", res.StopReason)
	}
	if len(b.started) != 1 || b.started[0] != "find genes" || len(b.accepted) != 1 || b.accepted[0] != "h1" {
		t.Fatalf("started %q, accepted %q", b.started, b.accepted)
	}
	want := "agent_message_chunk agent_message_chunk " +
		"tool_call:k1:in_progress tool_call_update:k1:completed tool_call:k2:in_progress tool_call_update:k2:failed " +
		"session_info_update tool_call:handoff-h1:pending agent_message_chunk " +
		"tool_call_update:handoff-h1:in_progress plan plan tool_call:n1/x1:in_progress tool_call_update:n1/x1:completed agent_thought_chunk " +
		"plan plan plan agent_message_chunk tool_call_update:handoff-h1:completed agent_message_chunk"
	if got := kinds(c.updates); got != want {
		t.Fatalf("updates\n got %s\nwant %s", got, want)
	}
	u := c.updates
	if u[0]["content"].(map[string]any)["text"] != "Looking " || u[0]["messageId"] != "m1" {
		t.Errorf("a delta is a message chunk: %v", u[0])
	}
	if u[2]["title"] != "search_for_searches" || u[2]["kind"] != "search" || u[2]["rawInput"].(map[string]any)["query"] != "GO" {
		t.Errorf("tool call: %v", u[2])
	}
	if u[3]["rawOutput"] == nil {
		t.Errorf("a tool call's result is its raw output: %v", u[3])
	}
	failed, _ := json.Marshal(u[5]["content"])
	if !strings.Contains(string(failed), "VALIDATION_ERROR: search_name is required") {
		t.Errorf("a failed tool call shows its error: %s", failed)
	}
	if u[6]["title"] != "Replication or repair" {
		t.Errorf("the rename is the session's title: %v", u[6])
	}
	if u[7]["kind"] != "switch_mode" || u[7]["title"] != "Build the plan: Replication or repair genes" {
		t.Errorf("the handoff is a tool call: %v", u[7])
	}

	// The permission request names the handoff's tool call and offers
	// build and keep planning.
	if len(c.asked) != 1 {
		t.Fatalf("asked %d times", len(c.asked))
	}
	var ask struct {
		SessionID string         `json:"sessionId"`
		ToolCall  map[string]any `json:"toolCall"`
		Options   []PermissionOption
	}
	if err := json.Unmarshal(c.asked[0], &ask); err != nil {
		t.Fatal(err)
	}
	if ask.SessionID != id || ask.ToolCall["toolCallId"] != "handoff-h1" || len(ask.Options) != 2 ||
		ask.Options[0].Kind != "allow_once" || ask.Options[1].Kind != "reject_once" {
		t.Errorf("permission request: %s", c.asked[0])
	}
	if _, has := ask.ToolCall["sessionUpdate"]; has {
		t.Errorf("the permission's tool call has no sessionUpdate: %s", c.asked[0])
	}

	// The plan's entries follow the delegation's nodes.
	entries := func(u map[string]any) string {
		var s []string
		for _, e := range u["entries"].([]any) {
			e := e.(map[string]any)
			s = append(s, e["content"].(string)+"="+e["status"].(string)+"/"+e["priority"].(string))
		}
		return strings.Join(s, "; ")
	}
	if got := entries(u[10]); got != "DNA replication=pending/high; DNA repair=pending/high; Replication or repair=pending/medium" {
		t.Errorf("first plan: %s", got)
	}
	if got := entries(u[11]); !strings.HasPrefix(got, "DNA replication=in_progress/high; DNA repair=pending") {
		t.Errorf("running: %s", got)
	}
	if got := entries(u[17]); got != "DNA replication (step s1)=completed/high; DNA repair (failed: no such term)=completed/high; Replication or repair (skipped)=completed/medium" {
		t.Errorf("last plan: %s", got)
	}
	if u[14]["sessionUpdate"] != "agent_thought_chunk" || !strings.Contains(u[14]["content"].(map[string]any)["text"].(string), "n1 DNA replication: Done.") {
		t.Errorf("a sub-agent's message is a thought: %v", u[14])
	}
	if !strings.Contains(u[18]["content"].(map[string]any)["text"].(string), "Error DELEGATION_FAILED: a task failed") {
		t.Errorf("an error is a line of the message: %v", u[18])
	}
	last := u[len(u)-1]["content"].(map[string]any)["text"].(string)
	if !strings.Contains(last, "89 genes") || !strings.Contains(last, "http://strategist.test/conversations/c1") {
		t.Errorf("the answer ends with the root count and the page: %q", last)
	}
}

func TestRejectedPlanStaysAPlan(t *testing.T) {
	b := newFakeBackend(planTurn)
	c := startAgent(t, b)
	c.answer = selected(optionKeep)
	id := c.open()
	var res PromptResponse
	c.mustCall(MethodSessionPrompt, prompt(id, "find genes"), &res)
	if res.StopReason != StopEndTurn || len(b.accepted) != 0 {
		t.Fatalf("stopReason %q, accepted %v", res.StopReason, b.accepted)
	}
	last := c.updates[len(c.updates)-1]
	if last["toolCallId"] != "handoff-h1" || last["status"] != "failed" {
		t.Fatalf("the declined handoff's tool call: %v", last)
	}
}

func TestCancelStopsTheRunningTurn(t *testing.T) {
	held := append(append([]event.Event{}, buildTurn[:4]...), &event.TurnEnd{Status: "hold"})
	b := newFakeBackend(planTurn, held)
	c := startAgent(t, b)
	c.answer = selected(optionBuild)
	id := c.open()
	// Once the build's plan shows a running task, the editor cancels.
	c.onUpdate = func(u map[string]any) {
		if u["sessionUpdate"] == "plan" && strings.Contains(kindsOfEntries(u), "in_progress") {
			c.send(map[string]any{"jsonrpc": "2.0", "method": MethodSessionCancel, "params": map[string]any{"sessionId": id}})
		}
	}
	var res PromptResponse
	c.mustCall(MethodSessionPrompt, prompt(id, "find genes"), &res)
	if res.StopReason != StopCancelled {
		t.Fatalf("stopReason %q", res.StopReason)
	}
	if len(b.cancelled) != 1 || b.cancelled[0] != "t2" {
		t.Fatalf("cancelled %v", b.cancelled)
	}
	// The session takes the next prompt.
	b.mu.Lock()
	b.scripts = append(b.scripts, []event.Event{&event.AssistantMessage{MessageID: "m9", Content: "Hello."}, &event.TurnEnd{Status: event.TurnCompleted}})
	b.mu.Unlock()
	c.mustCall(MethodSessionPrompt, prompt(id, "hello"), &res)
	if res.StopReason != StopEndTurn {
		t.Fatalf("next prompt: %q", res.StopReason)
	}
}

func kindsOfEntries(u map[string]any) string {
	raw, _ := json.Marshal(u["entries"])
	return string(raw)
}

func TestCancelWhileAskingEndsCancelled(t *testing.T) {
	b := newFakeBackend(planTurn)
	c := startAgent(t, b)
	id := c.open()
	// The editor cancels while it asks, and answers the request cancelled,
	// as ACP requires.
	c.answer = func(json.RawMessage) any {
		c.send(map[string]any{"jsonrpc": "2.0", "method": MethodSessionCancel, "params": map[string]any{"sessionId": id}})
		return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}
	}
	var res PromptResponse
	c.mustCall(MethodSessionPrompt, prompt(id, "find genes"), &res)
	if res.StopReason != StopCancelled || len(b.accepted) != 0 {
		t.Fatalf("stopReason %q, accepted %v", res.StopReason, b.accepted)
	}
}

func TestRefusals(t *testing.T) {
	b := newFakeBackend(append(append([]event.Event{}, planTurn[:3]...), &event.TurnEnd{Status: event.TurnFailed, Error: "the model is unavailable"}))
	c := startAgent(t, b)
	id := c.open()
	for _, tc := range []struct {
		method string
		params any
		code   int
	}{
		{MethodSessionPrompt, prompt("nope", "x"), CodeResourceNotFound},
		{MethodSessionPrompt, map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "image", "data": "x"}}}, CodeInvalidParams},
		{MethodSessionPrompt, "not an object", CodeInvalidParams},
		{"session/load", map[string]any{"sessionId": id}, CodeMethodNotFound},
		{MethodSessionPrompt, prompt(id, "find genes"), CodeInternalError},
	} {
		_, rerr := c.call(tc.method, tc.params)
		if rerr == nil || rerr.Code != tc.code {
			t.Errorf("%s %v: %v, want code %d", tc.method, tc.params, rerr, tc.code)
		}
	}
	if kinds(c.updates) != "agent_message_chunk agent_message_chunk" {
		t.Errorf("the failed turn's updates came first: %s", kinds(c.updates))
	}
	// A line that is not JSON is answered with a parse error.
	if _, err := c.in.Write([]byte("{not json\n")); err != nil {
		t.Fatal(err)
	}
	line, err := c.out.ReadBytes('\n')
	if err != nil || !strings.Contains(string(line), `"code":-32700`) || !strings.Contains(string(line), `"id":null`) {
		t.Fatalf("parse error: %s %v", line, err)
	}
}

func TestSessionUpdateJSON(t *testing.T) {
	for _, tc := range []struct {
		u    SessionUpdate
		want string
	}{
		{SessionUpdate{SessionUpdate: UpdateAgentMessage, Content: &ContentBlock{Type: "text", Text: "hi"}},
			`{"content":{"type":"text","text":"hi"},"sessionUpdate":"agent_message_chunk"}`},
		{SessionUpdate{SessionUpdate: UpdateToolCall, ToolCall: ToolCall{ToolCallID: "k1", ToolTitle: "create_step", Kind: "edit", Status: ToolInProgress}},
			`{"kind":"edit","sessionUpdate":"tool_call","status":"in_progress","title":"create_step","toolCallId":"k1"}`},
		{SessionUpdate{SessionUpdate: UpdateToolCallEdit, ToolCall: ToolCall{ToolCallID: "k1", Status: ToolFailed,
			Content: []ToolCallContent{{Type: "content", Content: textBlock("no")}}}},
			`{"content":[{"type":"content","content":{"type":"text","text":"no"}}],"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"k1"}`},
		{SessionUpdate{SessionUpdate: UpdatePlan}, `{"entries":[],"sessionUpdate":"plan"}`},
		{SessionUpdate{SessionUpdate: UpdateSessionInfo, Title: "T"}, `{"sessionUpdate":"session_info_update","title":"T"}`},
	} {
		raw, err := json.Marshal(tc.u)
		if err != nil {
			t.Fatal(err)
		}
		// Compare as sorted objects.
		var got, want map[string]any
		_ = json.Unmarshal(raw, &got)
		_ = json.Unmarshal([]byte(tc.want), &want)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("got %s\nwant %s", g, w)
		}
	}
}

// askingTurn ends with a question of two readings, free text welcome.
func askingTurn() (*event.QuestionAsked, []event.Event) {
	n57, n66 := 57, 66
	q := &event.QuestionAsked{QuestionID: "q1", Question: "Which kinases did you mean?", FreeText: true, Options: []event.QuestionOption{
		{Label: "protein phosphorylation (GO:0006468)", Message: "genes annotated with GO:0006468", Builds: "GenesByGoTerm", Count: &n57},
		{Label: "genes whose annotation mentions kinase", Message: "text search for kinases", Builds: "GenesByText", Count: &n66, Approximate: true},
	}}
	return q, []event.Event{
		&event.TurnStart{Mode: event.ModePlan, Message: "kinases"},
		q,
		&event.AssistantMessage{MessageID: "m1", Content: "I could not map kinases."},
		&event.TurnEnd{Status: event.TurnCompleted},
	}
}

// TestQuestionIsAskedAsAPermission: a question the turn ended with is a
// pending tool call while it is asked, then a permission whose options
// are its readings (each with what it builds and its count) and the
// researcher's own words; choosing a reading sends its message as the
// next turn, followed in the same prompt to its end.
func TestQuestionIsAskedAsAPermission(t *testing.T) {
	q, asking := askingTurn()
	answered := []event.Event{&event.AssistantMessage{MessageID: "m2", Content: "A text search, then."}, &event.TurnEnd{Status: event.TurnCompleted}}
	b := newFakeBackend(asking, answered)
	c := startAgent(t, b)
	c.answer = selected("option-2")
	id := c.open()
	var res PromptResponse
	c.mustCall(MethodSessionPrompt, prompt(id, "kinases"), &res)
	if res.StopReason != StopEndTurn {
		t.Fatalf("stopReason %q", res.StopReason)
	}
	if len(b.started) != 2 || b.started[0] != "kinases" || b.started[1] != q.Options[1].Message {
		t.Fatalf("started %q, want the question's turn then the second reading's message", b.started)
	}
	want := "tool_call:question-q1:pending agent_message_chunk tool_call_update:question-q1:completed agent_message_chunk agent_message_chunk"
	if got := kinds(c.updates); got != want {
		t.Fatalf("updates\n got %s\nwant %s", got, want)
	}
	if u := c.updates[0]; u["title"] != q.Question || u["rawInput"].(map[string]any)["questionId"] != "q1" {
		t.Errorf("the question's tool call: %v", u)
	}
	var ask struct {
		ToolCall map[string]any `json:"toolCall"`
		Options  []PermissionOption
	}
	if len(c.asked) != 1 {
		t.Fatalf("asked %d times", len(c.asked))
	}
	if err := json.Unmarshal(c.asked[0], &ask); err != nil {
		t.Fatal(err)
	}
	if ask.ToolCall["toolCallId"] != "question-q1" || len(ask.Options) != 3 || ask.Options[0].OptionID != "option-1" || ask.Options[0].Kind != "allow_once" ||
		ask.Options[0].Name != "1. protein phosphorylation (GO:0006468) — GenesByGoTerm; 57 genes" || ask.Options[2].Kind != "reject_once" {
		t.Errorf("permission request: %s", c.asked[0])
	}
	if last := c.updates[len(c.updates)-1]["content"].(map[string]any)["text"].(string); !strings.Contains(last, "89 genes") {
		t.Errorf("the answer's turn does not end with the root count: %q", last)
	}
}

// TestQuestionAnsweredInOwnWords: declining the readings ends the prompt,
// the question waiting; the next prompt is the answer, in the
// researcher's own words.
func TestQuestionAnsweredInOwnWords(t *testing.T) {
	_, asking := askingTurn()
	b := newFakeBackend(asking, []event.Event{&event.TurnEnd{Status: event.TurnCompleted}})
	c := startAgent(t, b)
	c.answer = selected(optionOwnWords)
	id := c.open()
	var res PromptResponse
	c.mustCall(MethodSessionPrompt, prompt(id, "kinases"), &res)
	if res.StopReason != StopEndTurn || len(b.started) != 1 {
		t.Fatalf("stopReason %q, started %q", res.StopReason, b.started)
	}
	if last := c.updates[len(c.updates)-1]; last["toolCallId"] != "question-q1" || last["status"] != "completed" {
		t.Fatalf("the question's tool call at the end: %v", last)
	}
	c.mustCall(MethodSessionPrompt, prompt(id, "serine/threonine kinases"), &res)
	if len(b.started) != 2 || b.started[1] != "serine/threonine kinases" {
		t.Errorf("started %q", b.started)
	}
}
