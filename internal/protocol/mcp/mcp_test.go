package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"strategist/internal/event"
	"strategist/internal/protocol"
	"strategist/internal/protocol/protocoltest"
)

// listTools returns each tool's argument properties, by name.
func (e *harness) listTools() map[string]map[string]any {
	e.t.Helper()
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema struct {
					Properties map[string]any `json:"properties"`
				} `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	r := e.do(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	body := string(r.Body)
	if i := strings.Index(body, "{"); i >= 0 {
		body = body[i:]
	}
	if err := json.NewDecoder(strings.NewReader(body)).Decode(&list); err != nil {
		e.t.Fatalf("tools/list: %v: %s", err, r.Body)
	}
	tools := map[string]map[string]any{}
	for _, tl := range list.Result.Tools {
		tools[tl.Name] = tl.InputSchema.Properties
	}
	return tools
}

// TestMCPToolRefusalsAreToolErrors: every MCP tool sent each refusal (an
// unknown site, a title over 200 characters, a live site without a key, a
// malformed conversation id, a conversation not the caller's, a store
// that fails to make a conversation) answers a tool error, and the server
// answers the next call: no refusal ends the process.
func TestMCPToolRefusalsAreToolErrors(t *testing.T) {
	t.Parallel()
	e := newHarness(t, func(h *protocoltest.Host) { h.Statuses = keylessSites{} })
	// Each tool's properties: a refusal sends only those the tool takes.
	tools := e.listTools()
	if len(tools) < 3 {
		t.Fatalf("tools = %v", tools)
	}
	long := strings.Repeat("t", 201)
	refusals := []struct {
		name string
		args map[string]any
	}{
		{"unknown site", map[string]any{"site": "nosuchdb"}},
		{"long title", map[string]any{"title": long}},
		{"keyless live site", map[string]any{"site": "toxodb-live"}},
		{"bad conversation id", map[string]any{"conversationId": "not-a-uuid"}},
		{"unknown conversation", map[string]any{"conversationId": uuid.NewString()}},
	}
	// Plausible values for the arguments a refusal does not set.
	fill := map[string]any{"query": "kinase", "searchName": "GenesByTaxon", "recordType": "transcript",
		"message": "genes", "ids": []string{"PF3D7_0100100"}}
	for tool, props := range tools {
		for _, r := range refusals {
			args := map[string]any{}
			for k := range props {
				if v, ok := r.args[k]; ok {
					args[k] = v
				} else if v, ok := fill[k]; ok {
					args[k] = v
				}
			}
			a := e.callMCP(tool, args)
			if a.Error != nil {
				continue // a JSON-RPC error (bad arguments) is a refusal too
			}
			if a.Result == nil {
				t.Errorf("%s with %s: no result", tool, r.name)
			}
		}
	}
	for _, tc := range []struct{ name, tool, code string }{
		{"unknown site", "create_conversation", `"NOT_FOUND"`},
		{"long title", "create_conversation", `"VALIDATION_ERROR"`},
		{"keyless live site", "create_conversation", `"SITE_ACCOUNT"`},
		{"unknown conversation", "ask_strategist", `"NOT_FOUND"`},
		{"bad conversation id", "ask_strategist", `"VALIDATION_ERROR"`},
	} {
		var args map[string]any
		for _, r := range refusals {
			if r.name == tc.name {
				args = r.args
			}
		}
		if tc.tool == "ask_strategist" {
			args["message"] = "genes"
		}
		a := e.callMCP(tc.tool, args)
		if a.Result == nil || !a.Result.IsError || !strings.Contains(a.Text(), tc.code) {
			t.Errorf("%s with %s = %+v %q, want a tool error %s", tc.tool, tc.name, a.Error, a.Text(), tc.code)
		}
	}
	// The server is still up and answers.
	if a := e.callMCP("create_conversation", map[string]any{"title": "fine"}); a.Result == nil || a.Result.IsError {
		t.Errorf("create_conversation after the refusals = %+v %q", a.Error, a.Text())
	}

	// A store that fails to make the conversation (its user was deleted
	// after their token was checked): an internal tool error, no cause.
	gone := newHarness(t, func(h *protocoltest.Host) {
		h.CreateErr = errors.New(`insert into conversations: violates foreign key constraint "conversations_user_id_fkey"`)
	})
	for _, tool := range []string{"create_conversation", "ask_strategist"} {
		args := map[string]any{"title": "x"}
		if tool == "ask_strategist" {
			args = map[string]any{"message": "genes"}
		}
		a := gone.callMCP(tool, args)
		if a.Result == nil || !a.Result.IsError || !strings.Contains(a.Text(), "internal error") || strings.Contains(a.Text(), "foreign key") {
			t.Errorf("%s for a deleted user = %+v %q, want an internal tool error", tool, a.Error, a.Text())
		}
	}
}

// TestAskStrategist: ask_strategist sends the message to a new
// conversation of the caller's on the default site, and answers with the
// narrated turn, its status, the strategy's summary and the page's address.
func TestAskStrategist(t *testing.T) {
	t.Parallel()
	e := newHarness(t, func(h *protocoltest.Host) {
		h.Run = func(_ context.Context, m protocol.Message, onRecord func(*event.Record, event.Event) error) (protocol.Outcome, error) {
			for _, ev := range []event.Event{
				&event.AssistantMessage{MessageID: "m1", Content: "Kinases of " + m.Conversation.SiteID + "."},
				&event.TurnEnd{Status: event.TurnCompleted},
			} {
				if err := onRecord(&event.Record{}, ev); err != nil {
					return protocol.Outcome{}, err
				}
			}
			return protocol.Outcome{Status: event.TurnCompleted, TurnIDs: []string{"t1"}}, nil
		}
	})
	a := e.callMCP("ask_strategist", map[string]any{"message": "  kinases  ", "build": true})
	if a.Result == nil || a.Result.IsError {
		t.Fatalf("ask_strategist = %+v %q", a.Error, a.Text())
	}
	var res struct {
		ConversationID, URL, Status, Answer, Summary string
		PlanWaiting                                  bool
	}
	if err := json.Unmarshal([]byte(a.Text()), &res); err != nil {
		t.Fatalf("answer %q: %v", a.Text(), err)
	}
	if res.Answer != "Kinases of plasmodb." || res.Status != "completed" || res.Summary != "No strategy has been built yet." ||
		res.URL != "https://strategist.test/conversations/"+res.ConversationID || res.PlanWaiting {
		t.Errorf("answer = %+v", res)
	}
	if len(e.host.Sent()) != 1 {
		t.Fatalf("sent %d messages, want 1", len(e.host.Sent()))
	}
	m := e.host.Sent()[0]
	if m.UserID != e.user || m.Conversation.ID != res.ConversationID || m.Text != "  kinases  " || !m.AutoBuild || !m.Created ||
		m.Conversation.Title != "kinases" {
		t.Errorf("message sent = %+v", m)
	}
}

// TestAskStrategistRefusedOrPanicking: a turn the orchestrator refuses (a
// spent turn budget) is a tool error with its code; a panic while the
// turn runs is an internal tool error, and the server answers the next
// call.
func TestAskStrategistRefusedOrPanicking(t *testing.T) {
	t.Parallel()
	refused := newHarness(t, func(h *protocoltest.Host) {
		h.Run = func(context.Context, protocol.Message, func(*event.Record, event.Event) error) (protocol.Outcome, error) {
			return protocol.Outcome{}, &protocol.APIError{Status: http.StatusTooManyRequests, Code: protocol.CodeRateLimited,
				Message: "you are starting turns too fast; wait a moment", Details: map[string]any{"limit": 5}}
		}
	})
	a := refused.callMCP("ask_strategist", map[string]any{"message": "genes"})
	if a.Result == nil || !a.Result.IsError || !strings.Contains(a.Text(), `"RATE_LIMITED"`) || !strings.Contains(a.Text(), `"limit":5`) {
		t.Errorf("refused ask_strategist = %+v %q, want a RATE_LIMITED tool error with its details", a.Error, a.Text())
	}

	panicky := newHarness(t, func(h *protocoltest.Host) {
		h.Run = func(context.Context, protocol.Message, func(*event.Record, event.Event) error) (protocol.Outcome, error) {
			panic("a bug in the orchestrator")
		}
	})
	a = panicky.callMCP("ask_strategist", map[string]any{"message": "genes"})
	if a.Result == nil || !a.Result.IsError || !strings.Contains(a.Text(), "internal error") {
		t.Errorf("panicking ask_strategist = %+v %q, want an internal tool error", a.Error, a.Text())
	}
	if a := panicky.callMCP("list_sites", nil); a.Result == nil || a.Result.IsError {
		t.Errorf("list_sites after the panic = %+v %q", a.Error, a.Text())
	}
}

// TestAskStrategistAsks: a turn that ends with a question answers with
// the question, its options (each a reading with its message, what it
// builds and its count) and free text, and the answer text closes with
// them numbered; calling again in the conversation with an option's
// number continues it with that option's message.
func TestAskStrategistAsks(t *testing.T) {
	t.Parallel()
	e := newHarness(t, nil)
	q, asking := protocoltest.Asking()
	e.host.Run = e.host.Play(asking...)
	a := e.callMCP("ask_strategist", map[string]any{"message": "kinases"})
	if a.Result == nil || a.Result.IsError {
		t.Fatalf("ask_strategist = %+v %q", a.Error, a.Text())
	}
	type result struct {
		ConversationID, Status, Answer string
		PlanWaiting                    bool
		Question                       *struct {
			QuestionID, Question string
			FreeText             bool
			Options              []event.QuestionOption
		}
	}
	var res result
	if err := json.Unmarshal([]byte(a.Text()), &res); err != nil {
		t.Fatalf("answer %q: %v", a.Text(), err)
	}
	if res.Question == nil || res.Question.QuestionID != q.QuestionID || res.Question.Question != q.Question || !res.Question.FreeText ||
		len(res.Question.Options) != 2 || res.Question.Options[1].Message != q.Options[1].Message || *res.Question.Options[0].Count != 57 ||
		!res.Question.Options[1].Approximate || res.Status != "completed" || res.PlanWaiting {
		t.Fatalf("result = %s", a.Text())
	}
	if !strings.Contains(res.Answer, "> Question: "+q.Question+"\n> 1. protein phosphorylation (GO:0006468)") || !strings.Contains(res.Answer, "\n> 2. ") {
		t.Errorf("the answer does not close with the numbered question:\n%s", res.Answer)
	}

	e.host.Run = e.host.Play(&event.AssistantMessage{MessageID: "m2", Content: "A text search, then."}, &event.TurnEnd{Status: event.TurnCompleted})
	a = e.callMCP("ask_strategist", map[string]any{"message": "2", "conversationId": res.ConversationID})
	var next result
	if err := json.Unmarshal([]byte(a.Text()), &next); err != nil || next.ConversationID != res.ConversationID || next.Question != nil || next.Answer != "A text search, then." {
		t.Fatalf("the answer's result = %s (%v)", a.Text(), err)
	}
	msgs, err := e.host.Messages(t.Context(), e.user, res.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if last := msgs[len(msgs)-2]; last.Role != event.RoleUser || last.Content != q.Options[1].Message {
		t.Errorf("the researcher's answer was kept as %+v, want the second option's message %q", last, q.Options[1].Message)
	}
}
