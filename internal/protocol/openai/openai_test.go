package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/protocol"
	"strategist/internal/protocol/openai"
	"strategist/internal/protocol/protocoltest"
)

// serve mounts the API over a fake host whose turns play events.
func serve(t *testing.T, events ...event.Event) (*protocoltest.Host, *httptest.Server, string) {
	t.Helper()
	h := protocoltest.New(t)
	if events != nil {
		h.Run = h.Play(events...)
	}
	p, err := openai.New(h)
	if err != nil {
		t.Fatal(err)
	}
	user := uuid.NewString()
	return h, protocoltest.Serve(t, h, p, user), user
}

// aTurn is a turn that says one thing and ends, with its usage.
var aTurn = []event.Event{
	&event.AssistantDelta{MessageID: "m1", Delta: "Kinases"},
	&event.AssistantDelta{MessageID: "m1", Delta: " first."},
	&event.AssistantMessage{MessageID: "m1", Content: "Kinases first."},
	&event.TurnEnd{Status: event.TurnCompleted, Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}},
}

// TestModels: the two models are listed in OpenAI's shape.
func TestModels(t *testing.T) {
	t.Parallel()
	_, srv, _ := serve(t)
	r := protocoltest.Do(t, srv, http.MethodGet, openai.ModelsPath, "")
	var list struct {
		Object string
		Data   []struct{ ID, Object string }
	}
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Status != http.StatusOK {
		t.Fatalf("models = %d %s (%v)", r.Status, r.Body, err)
	}
	if list.Object != "list" || len(list.Data) != 2 || list.Data[0].ID != "strategist" || list.Data[1].ID != "strategist-auto" {
		t.Errorf("models = %+v", list)
	}
}

// TestCompletion: the last user message starts a turn in a new
// conversation of the caller's on the default site; the answer is the
// narrated turn closed by the summary and the page's address, with the
// turn's usage, and names the conversation in its header.
func TestCompletion(t *testing.T) {
	t.Parallel()
	h, srv, user := serve(t, aTurn...)
	r := protocoltest.Do(t, srv, http.MethodPost, openai.CompletionsPath,
		`{"model":"strategist","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"kinases"}]}],"temperature":0.2}`)
	if r.Status != http.StatusOK {
		t.Fatalf("completion = %d %s", r.Status, r.Body)
	}
	var res struct {
		Object  string
		Model   string
		Choices []struct {
			Message      struct{ Role, Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		}
	}
	if err := json.Unmarshal(r.Body, &res); err != nil {
		t.Fatal(err)
	}
	conv := r.Header.Get(openai.HeaderConversation)
	want := "Kinases first.\n\n" + protocoltest.NoStrategy + " Conversation: " + protocoltest.PublicURL + "/conversations/" + conv
	if res.Object != "chat.completion" || len(res.Choices) != 1 || res.Choices[0].Message.Content != want ||
		res.Choices[0].Message.Role != "assistant" || res.Choices[0].FinishReason != "stop" || res.Usage.TotalTokens != 7 {
		t.Errorf("completion = %s, want the content %q", r.Body, want)
	}
	sent := h.Sent()
	if len(sent) != 1 || sent[0].UserID != user || sent[0].Conversation.ID != conv || sent[0].Conversation.SiteID != protocol.DefaultSite ||
		sent[0].Text != "kinases" || sent[0].AutoBuild || !sent[0].Created || sent[0].Conversation.Title != "kinases" {
		t.Errorf("sent %+v", sent)
	}
}

// TestCompletionStreams: a streamed answer opens with the assistant's
// role, carries the narration as deltas, closes with the summary, a stop
// and the usage asked for, then [DONE].
func TestCompletionStreams(t *testing.T) {
	t.Parallel()
	_, srv, _ := serve(t, aTurn...)
	r := protocoltest.Do(t, srv, http.MethodPost, openai.CompletionsPath,
		`{"model":"strategist-auto","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"kinases"}]}`)
	if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream = %d %s %s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	var text strings.Builder
	var roles, stops []string
	usage, done := 0, false
	for line := range strings.Lines(string(r.Body)) {
		d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok {
			continue
		}
		if d == "[DONE]" {
			done = true
			continue
		}
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
		if err := json.Unmarshal([]byte(d), &chunk); err != nil || chunk.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %s: %v", d, err)
		}
		for _, c := range chunk.Choices {
			if c.Delta.Role != "" {
				roles = append(roles, c.Delta.Role)
			}
			text.WriteString(c.Delta.Content)
			if c.FinishReason != nil {
				stops = append(stops, *c.FinishReason)
			}
		}
		if chunk.Usage != nil {
			usage = chunk.Usage.TotalTokens
		}
	}
	conv := r.Header.Get(openai.HeaderConversation)
	want := "Kinases first.\n\n" + protocoltest.NoStrategy + " Conversation: " + protocoltest.PublicURL + "/conversations/" + conv
	if text.String() != want || len(roles) != 1 || roles[0] != "assistant" || len(stops) != 1 || stops[0] != "stop" || usage != 7 || !done {
		t.Errorf("streamed %q roles %v stops %v usage %d done %v, want %q", text.String(), roles, stops, usage, done, want)
	}
}

// TestCompletionFindsItsConversation: the header's conversation, else the
// one an earlier answer links to; a conversation not the caller's is not
// found, in OpenAI's error shape.
func TestCompletionFindsItsConversation(t *testing.T) {
	t.Parallel()
	h, srv, user := serve(t, aTurn...)
	conv, err := h.CreateConversation(t.Context(), user, "plasmodb", "kinases")
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.CreateConversation(t.Context(), uuid.NewString(), "plasmodb", "not yours")
	if err != nil {
		t.Fatal(err)
	}
	msg := `{"model":"strategist","messages":[{"role":"user","content":"more"}]}`
	if r := protocoltest.Do(t, srv, http.MethodPost, openai.CompletionsPath, msg, openai.HeaderConversation, strings.ToUpper(conv.ID)); r.Status != http.StatusOK ||
		r.Header.Get(openai.HeaderConversation) != conv.ID {
		t.Errorf("by header = %d %s", r.Status, r.Header.Get(openai.HeaderConversation))
	}
	linked := `{"model":"strategist","messages":[{"role":"user","content":"kinases"},` +
		`{"role":"assistant","content":"Done. Conversation: https://elsewhere.example/conversations/` + conv.ID + `"},{"role":"user","content":"now exclude chromosome 14"}]}`
	if r := protocoltest.Do(t, srv, http.MethodPost, openai.CompletionsPath, linked); r.Status != http.StatusOK || r.Header.Get(openai.HeaderConversation) != conv.ID {
		t.Errorf("by link = %d %s", r.Status, r.Header.Get(openai.HeaderConversation))
	}
	for name, header := range map[string][]string{
		"another's":  {openai.HeaderConversation, other.ID},
		"not a UUID": {openai.HeaderConversation, "kinases"},
		"bad site":   {openai.HeaderSite, "nosuchdb"},
	} {
		r := protocoltest.Do(t, srv, http.MethodPost, openai.CompletionsPath, msg, header...)
		var body struct {
			Error struct{ Type, Code, Message string }
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || body.Error.Type == "" || body.Error.Code == "" || body.Error.Message == "" {
			t.Errorf("%s = %d %s, want an OpenAI error body", name, r.Status, r.Body)
		}
		want := map[string]int{"another's": http.StatusNotFound, "not a UUID": http.StatusBadRequest, "bad site": http.StatusUnprocessableEntity}[name]
		if r.Status != want {
			t.Errorf("%s = %d, want %d", name, r.Status, want)
		}
	}
	if n := len(h.Sent()); n != 2 {
		t.Errorf("%d messages sent, want 2 (the refusals start no turn)", n)
	}
}

// TestCompletionErrors: each refusal is OpenAI's error body with the type
// its status says and Strategist's code in lower case, and a conversation
// made for a refused turn is the host's to discard.
func TestCompletionErrors(t *testing.T) {
	t.Parallel()
	_, srv, _ := serve(t, aTurn...)
	refused, refusedSrv, _ := serve(t)
	refused.Run = func(context.Context, protocol.Message, func(*event.Record, event.Event) error) (protocol.Outcome, error) {
		return protocol.Outcome{}, &protocol.APIError{Status: http.StatusTooManyRequests, Code: protocol.CodeRateLimited, Message: "slow down"}
	}
	for _, tc := range []struct {
		name, body string
		srv        *httptest.Server
		status     int
		typ, code  string
	}{
		{"unknown model", `{"model":"gpt-4","messages":[{"role":"user","content":"x"}]}`, srv, 404, "not_found_error", "model_not_found"},
		{"no user message last", `{"model":"strategist","messages":[{"role":"assistant","content":"x"}]}`, srv, 400, "invalid_request_error", "bad_request"},
		{"no text", `{"model":"strategist","messages":[{"role":"user","content":"  "}]}`, srv, 400, "invalid_request_error", "bad_request"},
		{"malformed", `{"model":`, srv, 400, "invalid_request_error", "bad_request"},
		{"refused turn", `{"model":"strategist","messages":[{"role":"user","content":"x"}]}`, refusedSrv, 429, "rate_limit_error", "rate_limited"},
	} {
		r := protocoltest.Do(t, tc.srv, http.MethodPost, openai.CompletionsPath, tc.body)
		var body struct {
			Error struct{ Type, Code string }
		}
		_ = json.Unmarshal(r.Body, &body)
		if r.Status != tc.status || body.Error.Type != tc.typ || body.Error.Code != tc.code {
			t.Errorf("%s = %d %s, want %d %s %s", tc.name, r.Status, r.Body, tc.status, tc.typ, tc.code)
		}
	}
	if sent := refused.Sent(); len(sent) != 1 || !sent[0].Created {
		t.Errorf("refused turn sent %+v, want one message marked Created (the host discards its conversation)", sent)
	}
}

// TestCompletionAsks: a turn that ends with a question closes its answer
// with the question and its options numbered, before the closing line;
// the client's reply with an option's number continues the conversation
// the answer links to with that option's message, and words of the
// researcher's own go as written.
func TestCompletionAsks(t *testing.T) {
	t.Parallel()
	h, srv, user := serve(t)
	q, asking := protocoltest.Asking()
	h.Run = h.Play(asking...)
	r := protocoltest.Do(t, srv, http.MethodPost, openai.CompletionsPath, `{"model":"strategist-auto","messages":[{"role":"user","content":"kinases"}]}`)
	var res struct {
		Choices []struct{ Message struct{ Content string } }
	}
	if err := json.Unmarshal(r.Body, &res); err != nil || r.Status != http.StatusOK || len(res.Choices) != 1 {
		t.Fatalf("completion = %d %s (%v)", r.Status, r.Body, err)
	}
	conv := r.Header.Get(openai.HeaderConversation)
	answer := res.Choices[0].Message.Content
	want := "I could not map \"kinases\" to a search.\n\n" +
		"> Question: " + q.Question + "\n" +
		"> 1. protein phosphorylation (GO:0006468) — GenesByGoTerm (go_typeahead=GO:0006468); 57 genes\n" +
		"> 2. genes whose annotation mentions \"kinase\" — GenesByText (text_expression=kinase); ≈ 66 genes (approximate: a text search)\n" +
		"> Reply with an option's number, or say in your own words what you meant.\n\n" +
		protocoltest.NoStrategy + " Conversation: " + protocoltest.PublicURL + "/conversations/" + conv
	if answer != want {
		t.Errorf("answer\n%s\nwant\n%s", answer, want)
	}

	h.Run = h.Play(aTurn...)
	history, err := json.Marshal(map[string]any{"model": "strategist", "messages": []map[string]string{
		{"role": "user", "content": "kinases"}, {"role": "assistant", "content": answer}, {"role": "user", "content": "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := protocoltest.Do(t, srv, http.MethodPost, openai.CompletionsPath, string(history)); r.Status != http.StatusOK || r.Header.Get(openai.HeaderConversation) != conv {
		t.Fatalf("the answer = %d %s in conversation %s, want %s", r.Status, r.Body, r.Header.Get(openai.HeaderConversation), conv)
	}
	msgs, err := h.Messages(t.Context(), user, conv)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, m := range msgs {
		if m.Role == event.RoleUser {
			said = append(said, m.Content)
		}
	}
	if len(said) != 2 || said[1] != q.Options[0].Message {
		t.Errorf("the researcher said %q, want the first option's message %q second", said, q.Options[0].Message)
	}
}
