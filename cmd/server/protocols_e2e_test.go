package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
)

// mcpSession connects the go-sdk client to the app's /mcp with token.
func mcpSession(t *testing.T, ctx context.Context, a *testApp, token string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "strategist-test", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   a.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}},
	}, nil)
}

// callTool runs a tool and decodes its structured result into out; a tool
// error fails the test.
func callTool(t *testing.T, ctx context.Context, s *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s failed: %s", name, res.Content[0].(*mcp.TextContent).Text)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v: %s", name, err, raw)
		}
	}
	return res
}

type mcpStep struct {
	Step struct {
		StepID string `json:"stepId"`
		Count  struct {
			Value      *int   `json:"value"`
			Provenance string `json:"provenance"`
		} `json:"count"`
	} `json:"step"`
}

// TestMCPBuildsAStrategyTheConversationShows: the go-sdk client lists the
// agents' tools at /mcp, builds a two-step strategy in a conversation it
// creates, and the conversation's event stream carries each change as a
// graph_snapshot, as the page shows them; another user's token finds
// nothing, and no token is a 401.
func TestMCPBuildsAStrategyTheConversationShows(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := mcpSession(t, ctx, a, a.Token)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"list_sites", "search_for_searches", "get_search_parameters", "lookup_genes", "create_conversation", "get_strategy", "create_step", "combine_steps"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not offered: %v", want, names)
		}
	}

	var found struct {
		Searches []struct{ Name string } `json:"searches"`
	}
	res := callTool(t, ctx, s, "search_for_searches", map[string]any{"query": "chromosome location"}, &found)
	if !slices.ContainsFunc(found.Searches, func(x struct{ Name string }) bool { return x.Name == "GenesByLocation" }) {
		t.Errorf("GenesByLocation not found: %+v", found)
	}
	if p, _ := res.Meta["strategist/provenance"].(map[string]any); p["offline"] != true || p["site"] != "plasmodb" {
		t.Errorf("provenance %v", res.Meta)
	}

	var conv struct{ ConversationID, URL string }
	callTool(t, ctx, s, "create_conversation", map[string]any{"title": "Repair off 14"}, &conv)
	if !strings.HasSuffix(conv.URL, "/conversations/"+conv.ConversationID) {
		t.Errorf("url %q", conv.URL)
	}
	var repair, chr14, root mcpStep
	callTool(t, ctx, s, "create_step", map[string]any{"conversationId": conv.ConversationID, "search_name": "GenesByGoTerm",
		"parameters": map[string]any{"go_typeahead": `["GO:0006281"]`, "organism": `["Plasmodium falciparum 3D7"]`}}, &repair)
	callTool(t, ctx, s, "create_step", map[string]any{"conversationId": conv.ConversationID, "search_name": "GenesByLocation",
		"parameters": map[string]any{"chromosomeOptional": "Pf3D7_14_v3"}}, &chr14)
	callTool(t, ctx, s, "combine_steps", map[string]any{"conversationId": conv.ConversationID,
		"left_step_id": repair.Step.StepID, "right_step_id": chr14.Step.StepID, "operator": "MINUS"}, &root)
	if c := repair.Step.Count.Value; c == nil || *c != 60 {
		t.Errorf("DNA repair counts %v, want 60", c)
	}
	n := root.Step.Count.Value
	if n == nil || *n <= 0 || *n >= 60 || !strings.Contains(root.Step.Count.Provenance, "offline") {
		t.Fatalf("root count %v (%s)", n, root.Step.Count.Provenance)
	}
	var overview struct {
		RootStepID string `json:"rootStepId"`
		Steps      []json.RawMessage
	}
	callTool(t, ctx, s, "get_strategy", map[string]any{"conversationId": conv.ConversationID}, &overview)
	if overview.RootStepID != root.Step.StepID || len(overview.Steps) != 3 {
		t.Errorf("overview root %s with %d steps", overview.RootStepID, len(overview.Steps))
	}

	// The conversation's stream has every version, up to the combined
	// strategy: what an open page draws.
	var last struct {
		Snapshot struct {
			RootStepID string `json:"rootStepId"`
		} `json:"snapshot"`
	}
	recs := a.collect(conv.ConversationID, 0, 10*time.Second, func(recs []event.Record) bool {
		snaps := find(recs, "graph_snapshot")
		return len(snaps) > 0 && json.Unmarshal(snaps[len(snaps)-1].Payload, &last) == nil && last.Snapshot.RootStepID == root.Step.StepID
	})
	if snaps := find(recs, "graph_snapshot"); len(snaps) < 3 {
		t.Errorf("%d graph snapshots for three changes", len(snaps))
	}

	// Another user's token: the conversation is not found.
	u, err := a.app.accounts.CreateUser(ctx, "eve"+conv.ConversationID[:8]+"@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	eveToken, _, err := a.app.accounts.CreateAPIToken(ctx, u.ID, "eve")
	if err != nil {
		t.Fatal(err)
	}
	eve, err := mcpSession(t, ctx, a, eveToken)
	if err != nil {
		t.Fatal(err)
	}
	defer eve.Close()
	got, err := eve.CallTool(ctx, &mcp.CallToolParams{Name: "get_strategy", Arguments: map[string]any{"conversationId": conv.ConversationID}})
	if err != nil || !got.IsError || !strings.Contains(got.Content[0].(*mcp.TextContent).Text, `"NOT_FOUND"`) {
		t.Errorf("another user's conversation: %v %+v", err, got)
	}

	if _, err := mcpSession(t, ctx, a, "stg_wrong"); err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("a wrong token connected: %v", err)
	}
}

// TestMCPStdioBridge: `strategist mcp` relays an MCP client on standard
// input and output to the server: the tools are the server's, and a token
// the server refuses is an error the client sees.
func TestMCPStdioBridge(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	for _, tc := range []struct {
		name, token string
		ok          bool
	}{{"token", a.Token, true}, {"refused token", "stg_wrong", false}} {
		t.Run(tc.name, func(t *testing.T) {
			clientSide, bridgeSide := mcp.NewInMemoryTransports()
			bctx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- bridgeMCP(bctx, bridgeSide, a.URL+"/mcp", tc.token) }()
			defer func() {
				stop()
				if err := <-done; err != nil {
					t.Errorf("bridge: %v", err)
				}
			}()
			client := mcp.NewClient(&mcp.Implementation{Name: "desktop", Version: "1"}, nil)
			s, err := client.Connect(bctx, clientSide, nil)
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "refused") {
					t.Errorf("connected with a refused token: %v", err)
				}
				if s != nil {
					s.Close()
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var sites struct {
				CurrentSite string `json:"currentSite"`
			}
			callTool(t, bctx, s, "list_sites", nil, &sites)
			if sites.CurrentSite != "plasmodb" {
				t.Errorf("current site %q", sites.CurrentSite)
			}
		})
	}
}

// TestMCPAskStrategist: ask_strategist runs the offline planner and the
// build as turns of a new conversation, reports sub-agent progress as MCP
// progress notifications, and answers with the acceptance strategy's root
// count; the conversation's transcript keeps the stream's invariants.
func TestMCPAskStrategist(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var mu sync.Mutex
	var progress []string
	client := mcp.NewClient(&mcp.Implementation{Name: "strategist-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Message)
			mu.Unlock()
		},
	})
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   a.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token: a.Token, next: http.DefaultTransport}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got struct {
		ConversationID string
		Status         string
		Answer         string
		RootCount      *int
		PlanWaiting    bool
	}
	params := &mcp.CallToolParams{Name: "ask_strategist", Arguments: map[string]any{
		"message": "Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14", "build": true}}
	params.SetProgressToken("ask-1")
	res, err := s.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("ask_strategist: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "completed" || got.RootCount == nil || *got.RootCount != 89 || got.PlanWaiting {
		t.Fatalf("ask_strategist answered %s", raw)
	}
	if !strings.Contains(got.Answer, "Sub-agents: 3 tasks") {
		t.Errorf("the answer has no sub-agent progress:\n%s", got.Answer)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(progress, func(m string) bool { return strings.Contains(m, ": done (step ") }) {
		t.Errorf("progress notifications %q", progress)
	}
	recs := a.collect(got.ConversationID, 0, 10*time.Second, untilTurnEnds(2))
	eventtest.Check(t, recs)
}

// openAIPost sends a chat completion request with token and returns the
// response (its body unread).
func openAIPost(t *testing.T, a *testApp, token string, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", a.URL+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// openAIErr reads an error response and checks it has OpenAI's shape.
func openAIErr(t *testing.T, resp *http.Response, status int, typ, code string) {
	t.Helper()
	var out struct {
		Error struct {
			Message, Type, Code string
			Param               *string
		}
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != status || out.Error.Type != typ || out.Error.Code != code || out.Error.Message == "" {
		t.Errorf("got %d %s, want %d %s/%s", resp.StatusCode, raw, status, typ, code)
	}
}

// TestOpenAIChatCompletions: the OpenAI-compatible API streams a
// strategist-auto answer that plans, builds and ends with the root count
// and the page's address, keeps the stream's invariants, answers without
// streaming, builds a waiting plan on "build" in the conversation an
// earlier answer links to, and words every refusal in OpenAI's shape.
func TestOpenAIChatCompletions(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{})
	const request = `Find P. falciparum genes involved in DNA replication or DNA repair, excluding genes on chromosome 14`

	// Streamed, built at once.
	var resp *http.Response
	for range 200 { // the orchestrator may still be starting
		resp = openAIPost(t, a, a.Token, `{"model":"strategist-auto","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"`+request+`"}]}`, nil)
		if resp.StatusCode != http.StatusServiceUnavailable {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		raw, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream: %d %s", resp.StatusCode, raw)
	}
	convID := resp.Header.Get("X-Strategist-Conversation")
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var finish string
	var usage bool
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n\n")
	if lines[len(lines)-1] != "data: [DONE]" {
		t.Errorf("the stream ends with %q", lines[len(lines)-1])
	}
	for _, l := range lines[:len(lines)-1] {
		var chunk struct {
			Object  string
			Choices []struct {
				Delta        struct{ Role, Content string }
				FinishReason *string `json:"finish_reason"`
			}
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			}
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &chunk); err != nil || chunk.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %q: %v", l, err)
		}
		usage = usage || chunk.Usage != nil
		for _, c := range chunk.Choices {
			text.WriteString(c.Delta.Content)
			if c.FinishReason != nil {
				finish = *c.FinishReason
			}
		}
	}
	answer := text.String()
	want := "89 genes (PlasmoDB export (offline snapshot)). Conversation: " + a.URL + "/conversations/" + convID
	if !strings.HasSuffix(answer, want) || finish != "stop" || !usage {
		t.Errorf("finish %q, usage %v, answer:\n%s\nwant it to end with %q", finish, usage, answer, want)
	}
	for _, line := range []string{"> Plan ready: ", "> Building the plan.", "> Sub-agents: 3 tasks, 5 nodes in all.", ": done (step s5)"} {
		if !strings.Contains(answer, line) {
			t.Errorf("the answer lacks %q", line)
		}
	}
	eventtest.Check(t, a.collect(convID, 0, 10*time.Second, untilTurnEnds(2)))

	// Not streamed, with the model that waits for "build": the second
	// request names no conversation; the first answer's link does.
	first := openAIPost(t, a, a.Token, `{"model":"strategist","messages":[{"role":"user","content":"DNA repair genes on chromosome 14"}]}`, nil)
	var done struct {
		Object  string
		Choices []struct {
			Message      struct{ Role, Content string }
			FinishReason string `json:"finish_reason"`
		}
	}
	if err := json.NewDecoder(first.Body).Decode(&done); err != nil || first.StatusCode != http.StatusOK || done.Object != "chat.completion" {
		t.Fatalf("not streamed: %d %v %+v", first.StatusCode, err, done)
	}
	plan := done.Choices[0].Message.Content
	second := first.Header.Get("X-Strategist-Conversation")
	if second == convID || !strings.Contains(plan, "Reply **build** to build it.") || !strings.HasSuffix(plan, "/conversations/"+second) {
		t.Fatalf("plan answer in %s:\n%s", second, plan)
	}
	history, _ := json.Marshal(map[string]any{"model": "strategist", "user": "someone-else", "messages": []map[string]string{
		{"role": "user", "content": "DNA repair genes on chromosome 14"}, {"role": "assistant", "content": plan}, {"role": "user", "content": "build"}}})
	built := openAIPost(t, a, a.Token, string(history), nil)
	if err := json.NewDecoder(built.Body).Decode(&done); err != nil || built.Header.Get("X-Strategist-Conversation") != second {
		t.Fatalf("build: %d %v in %s", built.StatusCode, err, built.Header.Get("X-Strategist-Conversation"))
	}
	if got := done.Choices[0].Message.Content; !strings.Contains(got, "> Building the plan.") || !strings.Contains(got, " genes (PlasmoDB export") {
		t.Errorf("build answer:\n%s", got)
	}

	// Refusals, in OpenAI's shape.
	openAIErr(t, openAIPost(t, a, "", `{"model":"strategist","messages":[{"role":"user","content":"x"}]}`, nil), 401, "authentication_error", "invalid_api_key")
	openAIErr(t, openAIPost(t, a, "stg_wrong", `{"model":"strategist","messages":[{"role":"user","content":"x"}]}`, nil), 401, "authentication_error", "invalid_api_key")
	openAIErr(t, openAIPost(t, a, a.Token, `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}]}`, nil), 404, "not_found_error", "model_not_found")
	openAIErr(t, openAIPost(t, a, a.Token, `{"model":"strategist","messages":[{"role":"assistant","content":"x"}]}`, nil), 400, "invalid_request_error", "bad_request")
	openAIErr(t, openAIPost(t, a, a.Token, `{"model":`, nil), 400, "invalid_request_error", "bad_request")
	openAIErr(t, openAIPost(t, a, a.Token, `{"model":"strategist","messages":[{"role":"user","content":"x"}]}`,
		map[string]string{"X-Strategist-Conversation": "not-a-uuid"}), 400, "invalid_request_error", "bad_request")
	u, err := a.app.accounts.CreateUser(context.Background(), "mallory"+second[:8]+"@example.org", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := a.app.accounts.CreateAPIToken(context.Background(), u.ID, "m")
	if err != nil {
		t.Fatal(err)
	}
	openAIErr(t, openAIPost(t, a, other, `{"model":"strategist","messages":[{"role":"user","content":"build"}]}`,
		map[string]string{"X-Strategist-Conversation": second}), 404, "not_found_error", "not_found")
}

// TestMCPCommandAnswersBeforeStdinEnds: `strategist mcp` fed a whole
// session on standard input (as a pipe would) answers every call before
// it stops at the end of input.
func TestMCPCommandAnswersBeforeStdinEnds(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup_genes","arguments":{"query":"AMA1"}}}`,
	}, "\n") + "\n"
	var out strings.Builder
	err := run(ctx, []string{"mcp", "--url", a.URL}, strings.NewReader(in), &out, io.Discard, envMap(map[string]string{"STRATEGIST_TOKEN": a.Token}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[float64]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg struct {
			ID     float64
			Result json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got[msg.ID] = string(msg.Result)
	}
	if !strings.Contains(got[1], `"serverInfo"`) || !strings.Contains(got[2], `"ask_strategist"`) || !strings.Contains(got[3], "PF3D7_1133400") {
		t.Errorf("answers:\n%s", out.String())
	}
}

// TestMCPListTools: over MCP a client starts a strategy from the
// researcher's list by name (create_list_step, every gene of the list),
// scores it against the conversation's controls (score_controls) and
// follows a gene (trace_gene), as the executor's tools do.
func TestMCPListTools(t *testing.T) {
	t.Parallel()
	a := startApp(t, appOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var list struct {
		ID   string
		Size int
	}
	if st := a.call("POST", "/api/v1/gene-lists", map[string]string{"name": "kinase screen",
		"text": "PFA0005w\nPF3D7_1133400\nPF3D7_0100100\n"}, &list); st != http.StatusCreated || list.Size != 2 {
		t.Fatalf("POST /gene-lists = %d %+v", st, list)
	}
	s, err := mcpSession(t, ctx, a, a.Token)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var conv struct{ ConversationID string }
	callTool(t, ctx, s, "create_conversation", map[string]any{"title": "From my list"}, &conv)
	var step mcpStep
	callTool(t, ctx, s, "create_list_step", map[string]any{"conversationId": conv.ConversationID, "list": "Kinase Screen"}, &step)
	if c := step.Step.Count.Value; c == nil || *c != 2 {
		t.Fatalf("list step counts %v, want the list's 2 genes", c)
	}
	if st := a.call("PUT", "/api/v1/conversations/"+conv.ConversationID+"/controls", map[string]any{"positives": list.ID, "negatives": nil}, nil); st != http.StatusOK {
		t.Fatalf("PUT controls = %d", st)
	}
	var scored struct {
		Positives string
		Steps     []struct {
			StepID         string
			PositivesFound *int
			PositivesTotal int
			Recall         *float64
		}
	}
	callTool(t, ctx, s, "score_controls", map[string]any{"conversationId": conv.ConversationID}, &scored)
	if scored.Positives != "kinase screen" || len(scored.Steps) != 1 || scored.Steps[0].PositivesFound == nil ||
		*scored.Steps[0].PositivesFound != 2 || scored.Steps[0].PositivesTotal != 2 || scored.Steps[0].Recall == nil || *scored.Steps[0].Recall != 1 {
		t.Errorf("score_controls = %+v", scored)
	}
	var trace struct {
		Gene string
	}
	callTool(t, ctx, s, "trace_gene", map[string]any{"conversationId": conv.ConversationID, "gene": "PFA0005w"}, &trace)
	if trace.Gene != "PF3D7_0100100" {
		t.Errorf("trace_gene of PFA0005w = %+v", trace)
	}
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if (tl.Name == "score_controls" || tl.Name == "trace_gene") && (tl.Annotations == nil || !tl.Annotations.ReadOnlyHint) {
			t.Errorf("%s is not marked read-only", tl.Name)
		}
	}
}
