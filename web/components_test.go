package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
	"strategist/internal/catalog/enrich"
	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/plan"
	"strategist/web"
)

// log builds records from events, one second apart, ending at now.
type log struct {
	t   *testing.T
	evs []event.Event
}

func (l *log) add(evs ...event.Event) *log {
	l.evs = append(l.evs, evs...)
	return l
}

func (l *log) records() []event.Record {
	l.t.Helper()
	var recs []event.Record
	start := now.Add(-time.Duration(len(l.evs)) * time.Second)
	for i, e := range l.evs {
		name, payload, err := event.Encode(e)
		if err != nil {
			l.t.Fatal(err)
		}
		seq := int64(i + 1)
		recs = append(recs, event.Record{ConversationID: "c1", Seq: seq, TurnID: e.Turn(), Type: name, Payload: payload, CreatedAt: start.Add(time.Duration(i) * time.Second)})
	}
	return recs
}

func b(turn string) event.Base { return event.Base{TurnID: turn} }

// page renders the conversation page after the events and returns it as a
// goquery document.
func page(t *testing.T, evs ...event.Event) *goquery.Document {
	t.Helper()
	h := newHarness(t)
	l := &log{t: t}
	l.add(evs...)
	return query(t, web.ConversationView(web.Page{Title: "t", CSRFToken: "tok"}, h.page(h.fold(l.records()))))
}

func query(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func tid(s *goquery.Selection, id string) *goquery.Selection {
	return s.Find(`[data-testid="` + id + `"]`)
}

func attrs(s *goquery.Selection, name string) []string {
	var out []string
	s.Each(func(_ int, e *goquery.Selection) {
		v, _ := e.Attr(name)
		out = append(out, v)
	})
	return out
}

func texts(s *goquery.Selection) []string {
	var out []string
	s.Each(func(_ int, e *goquery.Selection) { out = append(out, strings.Join(strings.Fields(e.Text()), " ")) })
	return out
}

func TestEmptyConversation(t *testing.T) {
	doc := page(t)
	s := doc.Selection
	for _, id := range []string{"chat", "composer", "artifacts-empty", "subagents-empty", "strategy-empty", "connection-status", "message-input", "send-button", "stop-button"} {
		if n := tid(s, id).Length(); n != 1 {
			t.Errorf("%s: %d elements, want 1", id, n)
		}
	}
	if tid(s, "message").Length() != 0 {
		t.Error("an empty conversation shows messages")
	}
	if _, dis := doc.Find("#composer-fields").Attr("disabled"); dis {
		t.Error("composer disabled with no turn running")
	}
	if _, dis := tid(s, "stop-button").Attr("disabled"); !dis {
		t.Error("stop button enabled with no turn running")
	}
	if _, hidden := doc.Find("#stop-form").Attr("hidden"); !hidden {
		t.Error("stop form visible with no turn running")
	}
	if _, checked := tid(s, "mode-plan").Attr("checked"); !checked {
		t.Error("plan mode not checked")
	}
	if got := strings.TrimSpace(tid(s, "current-mode").Text()); got != "Current mode: plan" {
		t.Errorf("current-mode = %q", got)
	}
	if got, _ := tid(s, "model-select").Find("option[selected]").Attr("value"); got != "offline" {
		t.Errorf("selected model = %q, want offline", got)
	}
	if got, _ := tid(s, "connection-status").Attr("data-state"); got != "connecting" {
		t.Errorf("connection state = %q", got)
	}
	if got, _ := doc.Find("#live").Attr("sse-connect"); got != "/conversations/c1/stream?after=0" {
		t.Errorf("sse-connect = %q", got)
	}
	// Every control of the composer has a label.
	doc.Find("#composer textarea, #composer select, #composer input[type=radio]").Each(func(_ int, e *goquery.Selection) {
		id, _ := e.Attr("id")
		if doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("control #%s has no label", id)
		}
	})
}

func TestRunningTurn(t *testing.T) {
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "execute", Model: "offline", UserMessageID: "u1", Message: "build it"},
		&event.AssistantDelta{Base: b("t1"), MessageID: "m1", Delta: "Working "},
		&event.AssistantDelta{Base: b("t1"), MessageID: "m1", Delta: "**on it**"},
		&event.ToolCallStart{Base: b("t1"), CallID: "k1", Name: "create_step", Args: json.RawMessage(`{"search_name":"GenesByGoTerm"}`)},
	)
	s := doc.Selection
	if got := attrs(tid(s, "message"), "data-role"); !cmp.Equal(got, []string{"user", "assistant"}) {
		t.Errorf("message roles = %v", got)
	}
	asst := tid(s, "message").Eq(1)
	if got, _ := asst.Attr("data-streaming"); got != "true" {
		t.Errorf("streaming message data-streaming = %q", got)
	}
	if got := tid(asst, "message-text").Text(); got != "Working **on it**" {
		t.Errorf("streaming text = %q, want the deltas as plain text", got)
	}
	call := tid(s, "tool-call")
	if got, _ := call.Attr("data-status"); got != "running" {
		t.Errorf("tool call status = %q", got)
	}
	// The card's body is loaded when it is opened, from its own address.
	if got, _ := call.Attr("data-load"); got != "/conversations/c1/tool-calls/4" {
		t.Errorf("tool call body loads from %q", got)
	}
	if n := tid(call, "tool-body").Children().Length(); n != 0 {
		t.Errorf("the page carries %d elements of the card's body", n)
	}
	body := toolCallBody(t, 4,
		&event.TurnStart{Base: b("t1"), Mode: "execute", Model: "offline", UserMessageID: "u1", Message: "build it"},
		&event.AssistantDelta{Base: b("t1"), MessageID: "m1", Delta: "Working "},
		&event.AssistantDelta{Base: b("t1"), MessageID: "m1", Delta: "**on it**"},
		&event.ToolCallStart{Base: b("t1"), CallID: "k1", Name: "create_step", Args: json.RawMessage(`{"search_name":"GenesByGoTerm"}`)},
	)
	if !strings.Contains(body.Find("pre").Text(), `"search_name": "GenesByGoTerm"`) {
		t.Errorf("tool call arguments not shown: %q", body.Find("pre").Text())
	}
	if !strings.Contains(body.Text(), "Still running") {
		t.Errorf("a running call's body does not say so: %q", body.Text())
	}
	if _, dis := doc.Find("#composer-fields").Attr("disabled"); !dis {
		t.Error("composer enabled while a turn runs")
	}
	stop := tid(s, "stop-button")
	if _, dis := stop.Attr("disabled"); dis {
		t.Error("stop button disabled while a turn runs")
	}
	if got, _ := doc.Find("#stop-form").Attr("hx-post"); got != "/conversations/c1/turns/t1/cancel" {
		t.Errorf("stop posts to %q", got)
	}
	if _, checked := tid(s, "mode-execute").Attr("checked"); !checked {
		t.Error("execute mode not checked after an execute turn")
	}
}

func TestFinishedTurn(t *testing.T) {
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "plan", UserMessageID: "u1", Message: "go"},
		&event.ToolCallStart{Base: b("t1"), CallID: "k1", Name: "search_for_searches", Args: json.RawMessage(`{}`)},
		&event.ToolCallEnd{Base: b("t1"), CallID: "k1", Name: "search_for_searches", OK: true, Result: json.RawMessage(`{"searches":[]}`), DurationMs: 2400},
		&event.ToolCallStart{Base: b("t1"), CallID: "k2", Name: "get_search_parameters", Args: json.RawMessage(`{}`)},
		&event.ToolCallEnd{Base: b("t1"), CallID: "k2", Name: "get_search_parameters", OK: false, Error: &event.ToolError{Code: "NOT_FOUND", Message: "no such search"}, DurationMs: 3},
		&event.AssistantMessage{Base: b("t1"), MessageID: "m1", Content: "Found **two** searches:\n\n- GO\n- location"},
		&event.Error{Base: b("t1"), Code: "MODEL_ERROR", Message: "the model stopped"},
		&event.TurnEnd{Base: b("t1"), Status: "failed", Error: "the model stopped", DurationMs: 5000, Usage: llm.Usage{PromptTokens: 120, CompletionTokens: 30, TotalTokens: 150}},
	)
	s := doc.Selection
	calls := tid(s, "tool-call")
	if diff := cmp.Diff([]string{"ok", "error"}, attrs(calls, "data-status")); diff != "" {
		t.Errorf("tool call statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"search_for_searches", "get_search_parameters"}, attrs(calls, "data-tool-name")); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
	if got := texts(calls.Find(".tool-meta")); !cmp.Equal(got, []string{"2.4 s", "failed · 3 ms · NOT_FOUND"}) {
		t.Errorf("durations = %v", got)
	}
	failed := toolCallBody(t, 4,
		&event.TurnStart{Base: b("t1"), Mode: "plan", UserMessageID: "u1", Message: "go"},
		&event.ToolCallStart{Base: b("t1"), CallID: "k1", Name: "search_for_searches", Args: json.RawMessage(`{}`)},
		&event.ToolCallEnd{Base: b("t1"), CallID: "k1", Name: "search_for_searches", OK: true, Result: json.RawMessage(`{"searches":[]}`), DurationMs: 2400},
		&event.ToolCallStart{Base: b("t1"), CallID: "k2", Name: "get_search_parameters", Args: json.RawMessage(`{}`)},
		&event.ToolCallEnd{Base: b("t1"), CallID: "k2", Name: "get_search_parameters", OK: false, Error: &event.ToolError{Code: "NOT_FOUND", Message: "no such search"}, DurationMs: 3},
	)
	if got := strings.Join(strings.Fields(failed.Find(".error").Text()), " "); got != "NOT_FOUND no such search" {
		t.Errorf("tool error = %q", got)
	}
	md := tid(s, "message").Eq(1)
	if md.Find("strong").Text() != "two" || md.Find("li").Length() != 2 {
		t.Errorf("final message is not rendered markdown: %s", md.Text())
	}
	// The error event is shown in place, and not again in the footer.
	if got := texts(tid(s, "turn-error")); !cmp.Equal(got, []string{"MODEL_ERROR: the model stopped"}) {
		t.Errorf("turn errors = %v", got)
	}
	u := tid(s, "turn-usage")
	if diff := cmp.Diff([]string{"120", "30", "150"}, []string{u.AttrOr("data-prompt", ""), u.AttrOr("data-completion", ""), u.AttrOr("data-total", "")}); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if !strings.Contains(u.Text(), "150 total") {
		t.Errorf("usage text = %q", u.Text())
	}
}

// toolCallBody folds the events and draws the body of the tool call whose
// tool_call_start is event key, as an opened card loads it.
func toolCallBody(t *testing.T, key int64, evs ...event.Event) *goquery.Document {
	t.Helper()
	h := newHarness(t)
	l := &log{t: t}
	tc := h.fold(l.add(evs...).records()).ToolCall(key)
	if tc == nil {
		t.Fatalf("no tool call %d", key)
	}
	return query(t, web.ToolCallBody(tc))
}

// TestUntrustedText: what users and models write is text, never markup.
func TestUntrustedText(t *testing.T) {
	evil := `<script>alert(1)</script><img src=x onerror=alert(2)> <b hx-get="/x">bold</b>`
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "plan", UserMessageID: "u1", Message: evil},
		&event.AssistantDelta{Base: b("t1"), MessageID: "m0", Delta: evil},
		&event.AssistantMessage{Base: b("t1"), MessageID: "m1", Content: evil + "\n\n[click](javascript:alert(3)) [ok](https://plasmodb.org)"},
		&event.ArtifactSaved{Base: b("t1"), Artifact: event.Artifact{ID: "a1", Kind: "planning", Title: evil, SummaryMarkdown: evil, Assumptions: []string{evil}, Version: 1}},
		&event.ToolCallStart{Base: b("t1"), CallID: "k", Name: evil, Args: json.RawMessage(`{"q":"<script>alert(4)</script>"}`)},
	)
	main := doc.Find("#convo")
	if n := main.Find("script, img, [onerror], b[hx-get], [hx-get='/x']").Length(); n != 0 {
		html, _ := main.Html()
		t.Fatalf("untrusted markup became %d elements:\n%s", n, html)
	}
	if got := tid(main, "message-text").First().Text(); got != evil {
		t.Errorf("user text = %q, want it verbatim", got)
	}
	if got := tid(main, "message-text").Eq(1).Text(); got != evil {
		t.Errorf("streamed text = %q, want it verbatim", got)
	}
	links := tid(main, "message").Eq(2).Find("a")
	for i := range links.Length() {
		href, _ := links.Eq(i).Attr("href")
		if strings.HasPrefix(strings.ToLower(href), "javascript:") {
			t.Errorf("a javascript: link survived sanitising")
		}
	}
	if href, _ := links.Last().Attr("href"); href != "https://plasmodb.org" {
		t.Errorf("a safe link was lost: %q", href)
	}
	if !strings.Contains(tid(main, "artifact").Find("h3").Text(), "<script>") {
		t.Error("artifact title is not shown as text")
	}
	body := toolCallBody(t, 5,
		&event.TurnStart{Base: b("t1"), Mode: "plan", UserMessageID: "u1", Message: evil},
		&event.AssistantDelta{Base: b("t1"), MessageID: "m0", Delta: evil},
		&event.AssistantMessage{Base: b("t1"), MessageID: "m1", Content: evil},
		&event.ArtifactSaved{Base: b("t1"), Artifact: event.Artifact{ID: "a1", Kind: "planning", Title: evil, Version: 1}},
		&event.ToolCallStart{Base: b("t1"), CallID: "k", Name: evil, Args: json.RawMessage(`{"q":"<script>alert(4)</script>"}`)},
		&event.ToolCallEnd{Base: b("t1"), CallID: "k", Name: evil, OK: false, Error: &event.ToolError{Code: evil, Message: evil}, Result: json.RawMessage(`{"r":"<img src=x onerror=alert(5)>"}`)},
	)
	if n := body.Find("script, img, [onerror], b").Length(); n != 0 {
		t.Errorf("untrusted markup in a tool call's body became %d elements", n)
	}
	// A folded turn's summary line quotes the message as text.
	folded := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "plan", Message: evil}, &event.TurnEnd{Base: b("t1"), Status: "completed"},
		&event.TurnStart{Base: b("t2"), Mode: "plan", Message: "two"}, &event.TurnEnd{Base: b("t2"), Status: "completed"},
		&event.TurnStart{Base: b("t3"), Mode: "plan", Message: "three"}, &event.TurnEnd{Base: b("t3"), Status: "completed"},
	)
	summary := tid(folded.Selection, "turn-summary")
	if n := summary.Find("script, img, [onerror], b").Length(); n != 0 || !strings.Contains(summary.Text(), "<script>") {
		t.Errorf("a folded turn's summary: %d elements from untrusted markup, text %q", n, summary.Text())
	}
}

// TestFoldedTurns: older turns that ended are one summary line each, a
// button that says what was asked, the tool calls and the outcome, and
// loads the turn into the body it controls; the latest turns are whole.
func TestFoldedTurns(t *testing.T) {
	long := strings.Repeat("very ", 60) + "long question"
	doc := page(t,
		&event.TurnStart{Base: b("11111111-1111-4111-8111-111111111111"), Mode: "plan", UserMessageID: "u1", Message: "DNA repair\ngenes"},
		&event.ToolCallStart{Base: b("11111111-1111-4111-8111-111111111111"), CallID: "k1", Name: "search_for_searches"},
		&event.ToolCallEnd{Base: b("11111111-1111-4111-8111-111111111111"), CallID: "k1", Name: "search_for_searches", OK: true, DurationMs: 10},
		&event.ToolCallStart{Base: b("11111111-1111-4111-8111-111111111111"), CallID: "k2", Name: "get_search_parameters"},
		&event.ToolCallEnd{Base: b("11111111-1111-4111-8111-111111111111"), CallID: "k2", Name: "get_search_parameters", OK: false, DurationMs: 10},
		&event.GraphSnapshot{Base: b("11111111-1111-4111-8111-111111111111"), StrategyID: "s", Version: 1, Snapshot: json.RawMessage(`{"strategyId":"s","version":1,"rootStepId":"s1","roots":["s1"],"steps":[
			{"id":"s1","kind":"search","searchName":"GenesByGoTerm","displayName":"DNA repair","inputs":[],"count":60,"countStatus":"ok"}]}`)},
		&event.AssistantMessage{Base: b("11111111-1111-4111-8111-111111111111"), MessageID: "m1", Content: "Found some."},
		&event.TurnEnd{Base: b("11111111-1111-4111-8111-111111111111"), Status: "completed", DurationMs: 2500},
		&event.TurnStart{Base: b("t2"), Mode: "plan", Message: long},
		&event.TurnEnd{Base: b("t2"), Status: "failed", Error: "quota", DurationMs: 100},
		&event.TurnStart{Base: b("t3"), Mode: "plan", Message: "three"},
		&event.AssistantMessage{Base: b("t3"), MessageID: "m3", Content: "Three."},
		&event.TurnEnd{Base: b("t3"), Status: "completed", DurationMs: 100},
		&event.TurnStart{Base: b("t4"), Mode: "plan", Message: "four"},
		&event.AssistantMessage{Base: b("t4"), MessageID: "m4", Content: "Four."},
		&event.TurnEnd{Base: b("t4"), Status: "completed", DurationMs: 100},
	)
	s := doc.Selection
	if diff := cmp.Diff([]string{"11111111-1111-4111-8111-111111111111", "t2"}, attrs(tid(s, "folded-turn"), "data-turn-id")); diff != "" {
		t.Errorf("folded turns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"user", "assistant", "user", "assistant"}, attrs(tid(s, "message"), "data-role")); diff != "" {
		t.Errorf("the latest two turns are not whole (-want +got):\n%s", diff)
	}
	first := tid(s, "folded-turn").First()
	btn := tid(first, "turn-summary")
	if goquery.NodeName(btn) != "button" || btn.AttrOr("type", "") != "button" || btn.AttrOr("aria-expanded", "") != "false" {
		t.Errorf("the summary line is not a collapsed button: <%s type=%q aria-expanded=%q>", goquery.NodeName(btn), btn.AttrOr("type", ""), btn.AttrOr("aria-expanded", ""))
	}
	controls := btn.AttrOr("aria-controls", "")
	if body := first.Find("#" + controls); body.Length() != 1 || btn.AttrOr("data-toggle", "") != controls || body.AttrOr("hidden", "x") == "x" {
		t.Errorf("the button controls #%s, which must be the turn's hidden body", controls)
	}
	if got := btn.AttrOr("data-load", ""); got != "/conversations/c1/turns/11111111-1111-4111-8111-111111111111" {
		t.Errorf("the turn loads from %q", got)
	}
	if got := texts(btn.Children()); !cmp.Equal(got, []string{"DNA repair genes", "2 tool calls (1 failed) · result 60 genes · Done in 2.5 s"}) {
		t.Errorf("summary line = %q", got)
	}
	second := texts(tid(tid(s, "folded-turn").Eq(1), "turn-summary").Children())
	if len(second) != 2 || !strings.HasSuffix(second[0], "…") || len([]rune(second[0])) != 160 || second[1] != "no tool calls · Failed after 100 ms" {
		t.Errorf("second summary line = %q", second)
	}
}

func TestArtifactsPanel(t *testing.T) {
	plan := json.RawMessage(`{"type":"combine","operator":"MINUS","left":{"type":"combine","operator":"OR",
		"left":{"type":"task","task":"DNA replication","context":{"searchName":"GenesByGoTerm"}},
		"right":{"type":"task","task":"DNA repair"}},"right":{"type":"task","task":"Chromosome 14"}}`)
	draft := func(v int) event.Event {
		return &event.ArtifactSaved{Base: b("t1"), Artifact: event.Artifact{ID: "a2", Kind: "delegation_draft", Title: "Plan", Version: v, Plan: plan,
			Validation: json.RawMessage(`{"valid":true,"tasks":3,"nodes":5,"warnings":["chromosome 14 is large"]}`)}}
	}
	tests := []struct {
		name        string
		evs         []event.Event
		buttons     int
		statuses    []string
		handoffAttr []string
	}{
		{name: "pending", evs: []event.Event{draft(1), &event.HandoffRequested{Base: b("t1"), HandoffID: "h1", ArtifactID: "a2", Goal: "g"}},
			buttons: 1, handoffAttr: []string{"pending"}},
		{name: "superseded and pending", evs: []event.Event{draft(1), &event.HandoffRequested{Base: b("t1"), HandoffID: "h1", ArtifactID: "a2"}, draft(2),
			&event.HandoffRequested{Base: b("t1"), HandoffID: "h2", ArtifactID: "a2"}},
			// The superseded request was for the plan's first version: counted, not drawn under the second.
			buttons: 1, handoffAttr: []string{"pending"}},
		{name: "accepted", evs: []event.Event{draft(1), &event.HandoffRequested{Base: b("t1"), HandoffID: "h1", ArtifactID: "a2"},
			&event.TurnEnd{Base: b("t1"), Status: "completed"}, &event.TurnStart{Base: b("t2"), Mode: "execute", HandoffID: "h1"},
			&event.HandoffAccepted{Base: b("t2"), HandoffID: "h1", ExecuteTurnID: "t2"}},
			statuses: []string{"accepted"}, handoffAttr: []string{"accepted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := append([]event.Event{
				&event.TurnStart{Base: b("t1"), Mode: "plan", Message: "plan it"},
				&event.ArtifactSaved{Base: b("t1"), Artifact: event.Artifact{ID: "a1", Kind: "planning", Title: "Notes", SummaryMarkdown: "Use **GO** terms", Version: 1}},
			}, tt.evs...)
			panel := tid(page(t, evs...).Selection, "artifacts")
			arts := tid(panel, "artifact")
			if diff := cmp.Diff([]string{"planning", "delegation_draft"}, attrs(arts, "data-kind")); diff != "" {
				t.Errorf("artifact kinds (-want +got):\n%s", diff)
			}
			if arts.First().Find("strong").Text() != "GO" {
				t.Error("planning artifact markdown not rendered")
			}
			tree := tid(panel, "draft-tree")
			if diff := cmp.Diff([]string{"combine", "combine", "task", "task", "task"}, attrs(tid(tree, "draft-node"), "data-kind")); diff != "" {
				t.Errorf("draft node kinds (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"MINUS", "UNION", "", "", ""}, attrs(tid(tree, "draft-node"), "data-operator")); diff != "" {
				t.Errorf("draft operators (-want +got):\n%s", diff)
			}
			// UNION's inputs are nested under it.
			if n := tid(tree, "draft-node").Eq(1).Find(`[data-testid="draft-node"]`).Length(); n != 2 {
				t.Errorf("UNION has %d nested nodes, want 2", n)
			}
			if v := tid(panel, "draft-validation").AttrOr("data-valid", ""); v != "true" {
				t.Errorf("draft-validation data-valid = %q", v)
			}
			if n := tid(panel, "build-plan-button").Length(); n != tt.buttons {
				t.Errorf("%d Build this plan buttons, want %d", n, tt.buttons)
			}
			if diff := cmp.Diff(tt.statuses, attrs(tid(panel, "handoff-status"), "data-status")); diff != "" {
				t.Errorf("handoff-status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.handoffAttr, attrs(tid(panel, "handoff"), "data-status")); diff != "" {
				t.Errorf("handoffs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDraftReusesStep: a follow-up's draft shows the existing step it
// reuses beside its new task.
func TestDraftReusesStep(t *testing.T) {
	plan := json.RawMessage(`{"type":"combine","operator":"MINUS","left":{"type":"step","stepId":"s3"},"right":{"type":"task","task":"Chromosome 5"}}`)
	doc := page(t, &event.TurnStart{Base: b("t1"), Mode: "plan", Message: "now also exclude chromosome 5"},
		&event.ArtifactSaved{Base: b("t1"), Artifact: event.Artifact{ID: "a2", Kind: event.ArtifactDelegationDraft, Title: "Plan", Version: 1, Plan: plan}})
	tree := tid(doc.Selection, "draft-tree")
	if diff := cmp.Diff([]string{"combine", "step", "task"}, attrs(tid(tree, "draft-node"), "data-kind")); diff != "" {
		t.Errorf("draft node kinds (-want +got):\n%s", diff)
	}
	if got := tid(tree, "draft-step").Text(); got != "s3" {
		t.Errorf("reused step = %q, want s3", got)
	}
}

func TestSubagentsPanel(t *testing.T) {
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "execute"},
		&event.SubagentPlan{Base: b("t1"), DelegationID: "d1", Goal: "Off chromosome 14", Nodes: []event.PlanNode{
			{ID: "n1", Kind: "task", Label: "Replication"}, {ID: "n2", Kind: "task", Label: "Repair"},
			{ID: "n3", Kind: "combine", Label: "Either", DependsOn: []string{"n1", "n2"}, Operator: "UNION"},
			{ID: "n4", Kind: "task", Label: "Chromosome 14"}, {ID: "n5", Kind: "task", Label: "Slow"},
			{ID: "n6", Kind: "task", Label: "Stopped"}, {ID: "n7", Kind: "combine", Label: "Result", DependsOn: []string{"n3", "n4"}, Operator: "MINUS"},
		}},
		&event.SubagentTaskStart{Base: b("t1"), DelegationID: "d1", NodeID: "n1", Attempt: 1},
		&event.SubagentToolCallStart{Base: b("t1"), DelegationID: "d1", NodeID: "n1", CallID: "k1", Name: "create_step", Args: json.RawMessage(`{}`)},
		&event.SubagentToolCallEnd{Base: b("t1"), DelegationID: "d1", NodeID: "n1", CallID: "k1", Name: "create_step", OK: true, DurationMs: 40},
		&event.SubagentTaskEnd{Base: b("t1"), DelegationID: "d1", NodeID: "n1", Status: "done", Attempt: 1, DurationMs: 2000},
		&event.SubagentTaskStart{Base: b("t1"), DelegationID: "d1", NodeID: "n2", Attempt: 1},
		&event.SubagentTaskEnd{Base: b("t1"), DelegationID: "d1", NodeID: "n2", Status: "failed", Attempt: 1, Error: "no finish", DurationMs: 900},
		&event.SubagentTaskStart{Base: b("t1"), DelegationID: "d1", NodeID: "n2", Attempt: 2},
		&event.SubagentTaskEnd{Base: b("t1"), DelegationID: "d1", NodeID: "n2", Status: "failed", Attempt: 2, Error: "no finish again", DurationMs: 800},
		&event.SubagentTaskEnd{Base: b("t1"), DelegationID: "d1", NodeID: "n3", Status: "skipped", Error: "skipped: n2 did not finish"},
		&event.SubagentTaskStart{Base: b("t1"), DelegationID: "d1", NodeID: "n5", Attempt: 1},
		&event.SubagentTaskEnd{Base: b("t1"), DelegationID: "d1", NodeID: "n5", Status: "timeout", Attempt: 1, DurationMs: 120000},
		&event.SubagentTaskEnd{Base: b("t1"), DelegationID: "d1", NodeID: "n6", Status: "cancelled"},
		&event.SubagentTaskStart{Base: b("t1"), DelegationID: "d1", NodeID: "n4", Attempt: 1},
	)
	panel := tid(doc.Selection, "subagents")
	nodes := tid(panel, "node")
	if diff := cmp.Diff([]string{"n1", "n2", "n3", "n4", "n5", "n6", "n7"}, attrs(nodes, "data-node-id")); diff != "" {
		t.Errorf("node order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"done", "failed", "skipped", "running", "timeout", "cancelled", "queued"}, attrs(nodes, "data-status")); diff != "" {
		t.Errorf("node statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1", "2", "0", "1", "1", "0", "0"}, attrs(tid(nodes, "node-attempt"), "data-attempt")); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	// n4 started one second before now: its timer runs from its start.
	elapsed := tid(nodes, "node-elapsed")
	if diff := cmp.Diff([]string{"2.0 s", "800 ms", "–", "1 s", "2 min 00 s", "–", "–"}, texts(elapsed)); diff != "" {
		t.Errorf("elapsed (-want +got):\n%s", diff)
	}
	if got := attrs(elapsed, "data-running"); !cmp.Equal(got, []string{"false", "false", "false", "true", "false", "false", "false"}) {
		t.Errorf("running timers = %v", got)
	}
	if _, ok := elapsed.Eq(3).Attr("data-started-ms"); !ok {
		t.Error("running timer has no start for the script")
	}
	if n := tid(nodes.First(), "node-tool-call").Length(); n != 1 {
		t.Errorf("n1 shows %d tool calls, want 1", n)
	}
	if !strings.Contains(nodes.Eq(1).Text(), "no finish again") {
		t.Error("failed node does not say why")
	}
	if got := strings.TrimSpace(tid(panel, "delegation-summary").Text()); got != "7 nodes: 1 done, 1 running, 1 queued, 1 failed, 1 timeout, 1 skipped, 1 cancelled" {
		t.Errorf("summary = %q", got)
	}
}

func TestStrategyGraph(t *testing.T) {
	snap := `{"strategyId":"s","version":3,"name":"Strategy","rootStepId":"s3","roots":["s3"],"steps":[
		{"id":"s1","kind":"search","searchName":"GenesByGoTerm","displayName":"DNA replication","inputs":[],"count":57,"countStatus":"ok","countProvenance":{"source":"PlasmoDB export","offline":true}},
		{"id":"s2","kind":"search","searchName":"GenesByTextSearch","displayName":"Kinases","inputs":[],"countStatus":"not_evaluable"},
		{"id":"s3","kind":"combine","operator":"INTERSECT","displayName":"Both","named":true,"inputs":["s1","s2"],"countStatus":"unknown"}]}`
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "execute"},
		&event.GraphSnapshot{Base: b("t1"), StrategyID: "s", Version: 3, Snapshot: json.RawMessage(snap)},
	)
	panel := tid(doc.Selection, "strategy")
	if got := tid(doc.Selection, "skip-to-strategy").AttrOr("href", ""); got != "#strategy" || panel.AttrOr("tabindex", "") != "-1" {
		t.Errorf("skip link to %q, strategy tabindex %q: want a link to #strategy that can take focus", got, panel.AttrOr("tabindex", ""))
	}
	svg := tid(panel, "strategy-graph")
	if goquery.NodeName(svg) != "svg" {
		t.Fatalf("strategy-graph is <%s>, want <svg>", goquery.NodeName(svg))
	}
	steps := tid(svg, "graph-step")
	// The root first, its inputs below it.
	if diff := cmp.Diff([]string{"s3", "s1", "s2"}, attrs(steps, "data-step-id")); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"combine", "search", "search"}, attrs(steps, "data-kind")); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "57", ""}, attrs(steps, "data-count")); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"true", "false", "false"}, attrs(steps, "data-root")); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	combine := steps.First().Text()
	if !strings.Contains(combine, "∩") || !strings.Contains(combine, "INTERSECT") {
		t.Errorf("combine shows %q, want its symbol and name", combine)
	}
	if !strings.Contains(steps.Eq(1).Find("text.count").Text(), "57 genes") || !strings.Contains(steps.Eq(1).Text(), "offline") {
		t.Errorf("search step shows %q, want its count and the offline mark", steps.Eq(1).Find("text.count").Text())
	}
	if !strings.Contains(steps.Eq(2).Text(), "not evaluable offline") {
		t.Errorf("unevaluable step shows %q", steps.Eq(2).Text())
	}
	// Each box's accessible name holds the words it shows, in their order
	// (axe's label-content-name-mismatch): a voice-control user says what
	// they see.
	for i := range steps.Length() {
		step := steps.Eq(i)
		visible := strings.Join(strings.Fields(strings.ReplaceAll(strings.Join(step.Find("text").Map(func(_ int, s *goquery.Selection) string { return s.Text() }), " "), "·", " ")), " ")
		label := strings.Join(strings.Fields(strings.ReplaceAll(step.AttrOr("aria-label", ""), "·", " ")), " ")
		if !strings.HasPrefix(label, visible) {
			t.Errorf("step %s is labelled %q, which does not start with what it shows, %q", step.AttrOr("data-step-id", ""), label, visible)
		}
	}
	// A name the researcher set is marked as theirs.
	if diff := cmp.Diff([]string{"true", "false", "false"}, attrs(steps, "data-named")); diff != "" {
		t.Errorf("named marks (-want +got):\n%s", diff)
	}
	if !strings.Contains(tid(steps.First(), "graph-step-count").Text(), "named") {
		t.Errorf("the named step's count line is %q, want its named mark", tid(steps.First(), "graph-step-count").Text())
	}
	if n := svg.Find("polyline.edge").Length(); n != 2 {
		t.Errorf("%d edges, want 2", n)
	}
	if got := steps.Eq(1).AttrOr("hx-get", ""); got != "/conversations/c1/strategy/steps/s1/results" {
		t.Errorf("step opens %q", got)
	}
	// The turn that made version 3 still runs: Undo waits for it (the
	// page's script enables it at the turn's end, data-idle-only); once it
	// ended, Undo is offered.
	if _, dis := tid(panel, "undo-button").Attr("disabled"); !dis || tid(panel, "undo-button").AttrOr("data-idle-only", "no") == "no" {
		t.Error("undo enabled while the turn that changed the strategy runs")
	}
	ended := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "execute"},
		&event.GraphSnapshot{Base: b("t1"), StrategyID: "s", Version: 3, Snapshot: json.RawMessage(snap)},
		&event.TurnEnd{Base: b("t1"), Status: "completed"},
	)
	if _, dis := tid(ended.Selection, "undo-button").Attr("disabled"); dis {
		t.Error("undo disabled at version 3 after the turn ended")
	}
	if got := tid(panel, "export-wdk").AttrOr("href", ""); got != "/api/v1/conversations/c1/strategy/wdk" {
		t.Errorf("export href = %q", got)
	}
}

// TestStrategyGraphCounts: each kind of count reads as what it is: exact,
// approximate (a text search contributed), an approximate zero (no text
// matches, not "0 genes"), not evaluable (no number) — in the boxes, their
// accessible names and the root's result line.
func TestStrategyGraphCounts(t *testing.T) {
	snap := `{"strategyId":"s","version":4,"name":"Strategy","rootStepId":"s4","roots":["s4"],"steps":[
		{"id":"s1","kind":"search","searchName":"GenesByText","displayName":"kinases","inputs":[],"count":8,"countStatus":"ok","countProvenance":{"source":"PlasmoDB export","offline":true,"approximate":true}},
		{"id":"s2","kind":"search","searchName":"GenesByText","displayName":"zzqx","inputs":[],"count":0,"countStatus":"ok","countProvenance":{"source":"PlasmoDB export","offline":true,"approximate":true}},
		{"id":"s3","kind":"search","searchName":"GenesByGoTerm","displayName":"DNA repair","inputs":[],"count":0,"countStatus":"ok","countProvenance":{"source":"PlasmoDB export","offline":true}},
		{"id":"s5","kind":"search","searchName":"GenesByOrthologs","displayName":"orthologs","inputs":[],"countStatus":"not_evaluable","countMessage":"catalog: GenesByOrthologs is not evaluable offline"},
		{"id":"s6","kind":"combine","operator":"UNION","displayName":"either","inputs":["s1","s2"],"count":1,"countStatus":"ok","countProvenance":{"source":"PlasmoDB export","offline":true,"approximate":true}},
		{"id":"s4","kind":"combine","operator":"UNION","displayName":"all","inputs":["s6","s3"],"count":8,"countStatus":"ok","countProvenance":{"source":"PlasmoDB export","offline":true,"approximate":true}}]}`
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "execute"},
		&event.GraphSnapshot{Base: b("t1"), StrategyID: "s", Version: 4, Snapshot: json.RawMessage(snap)},
	)
	panel := tid(doc.Selection, "strategy")
	steps := tid(panel, "graph-step")
	if diff := cmp.Diff([]string{"s4", "s6", "s1", "s2", "s3", "s5"}, attrs(steps, "data-step-id")); diff != "" {
		t.Fatalf("steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"true", "true", "true", "true", "false", "false"}, attrs(steps, "data-approximate")); diff != "" {
		t.Errorf("approximate marks (-want +got):\n%s", diff)
	}
	var counts []string
	for _, c := range texts(tid(steps, "graph-step-count")) {
		counts = append(counts, strings.TrimSpace(strings.Split(c, "·")[0]))
	}
	want := []string{"≈ 8 genes (approximate)", "≈ 1 gene (approximate)", "≈ 8 genes (approximate)", "no text matches", "0 genes", "not evaluable offline"}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("count lines (-want +got):\n%s", diff)
	}
	if label := steps.Eq(3).AttrOr("aria-label", ""); !strings.Contains(label, "no text matches") || strings.Contains(label, "0 genes") {
		t.Errorf("approximate zero labelled %q", label)
	}
	if got := strings.TrimSpace(tid(panel, "strategy-root-count").Text()); got != "≈ 8 genes (approximate)" {
		t.Errorf("root count = %q", got)
	}
}

// TestResultsCounts: the results panel says an approximate count is one,
// an approximate zero as no text matches, and a step it cannot compute as
// not evaluable offline, with no number.
func TestResultsCounts(t *testing.T) {
	prov := catalog.Provenance{Source: "PlasmoDB export", Year: 2017, Offline: true, Approximate: true,
		Note: "Text search is approximate: it matches gene ids, symbols, previous ids and product descriptions only."}
	rec := []catalog.Record{{GeneID: "PF3D7_0100100", Product: "kinase", GeneType: "protein coding"}}
	tests := []struct {
		name string
		v    web.ResultsView
		want string
	}{
		{"approximate", web.ResultsView{Limit: 1, Answer: &catalog.Answer{Count: 8, Records: rec, Provenance: prov}},
			"≈ 8 genes (approximate), 1–1 shown · PlasmoDB export, 2017"},
		{"approximate zero", web.ResultsView{Limit: 1, Answer: &catalog.Answer{Count: 0, Provenance: prov}},
			"No text matches. · PlasmoDB export, 2017"},
		{"exact", web.ResultsView{Offset: 2, Limit: 1, Answer: &catalog.Answer{Count: 57, Records: rec, Provenance: catalog.Provenance{Source: "PlasmoDB export", Year: 2017}}},
			"3–3 of 57 genes · PlasmoDB export, 2017"},
		{"exact zero", web.ResultsView{Limit: 1, Answer: &catalog.Answer{Provenance: catalog.Provenance{Source: "PlasmoDB export"}}},
			"No genes. · PlasmoDB export"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.v.ConversationID, tt.v.StepID, tt.v.StepName = "c1", "s1", "kinases"
			doc := query(t, web.Results(tt.v))
			count := tid(doc.Selection, "results-count")
			if got := strings.Join(strings.Fields(count.Text()), " "); got != tt.want {
				t.Errorf("count line = %q, want %q", got, tt.want)
			}
			if got, want := count.AttrOr("data-approximate", ""), strconv.FormatBool(tt.v.Answer.Provenance.Approximate); got != want {
				t.Errorf("data-approximate = %q, want %q", got, want)
			}
			if got := tid(doc.Selection, "results-note").Text(); got != tt.v.Answer.Provenance.Note {
				t.Errorf("note = %q, want the provenance note", got)
			}
			// A step without genes says so plainly, and offers no download,
			// pager or enrichment of nothing.
			zero := tt.v.Answer.Count == 0
			if got := tid(doc.Selection, "results-empty").Length() == 1; got != zero {
				t.Errorf("results-empty shown = %v, want %v", got, zero)
			}
			for _, id := range []string{"results-download", "results-next", "enrichment-button"} {
				if got := tid(doc.Selection, id).Length() == 1; got == zero {
					t.Errorf("%s shown = %v for %d genes", id, got, tt.v.Answer.Count)
				}
			}
		})
	}
	v := web.ResultsView{ConversationID: "c1", StepID: "s5", StepName: "orthologs", NotEvaluable: true,
		NotEvaluableReason: "the offline snapshot has no ortholog data"}
	doc := query(t, web.Results(v))
	ne := strings.Join(strings.Fields(tid(doc.Selection, "results-not-evaluable").Text()), " ")
	if ne != "not evaluable offline: the offline snapshot has no ortholog data" {
		t.Errorf("not evaluable = %q", ne)
	}
	if tid(doc.Selection, "results-count").Length() != 0 || strings.ContainsAny(ne, "0123456789") {
		t.Error("a step that is not evaluable shows a count")
	}
}

func TestResults(t *testing.T) {
	v := web.ResultsView{ConversationID: "c1", StepID: "s1", StepName: "DNA replication", Offset: 0, Limit: 2,
		Answer: &catalog.Answer{Count: 3, Provenance: catalog.Provenance{Source: "PlasmoDB export", Year: 2017, Offline: true}, Records: []catalog.Record{
			{GeneID: "PF3D7_0100100", Product: "VAR protein erythrocyte membrane protein 1", GeneType: "protein coding", Chromosome: "Pf3D7_01_v3",
				PreviousIDs: []string{"PFA0005w", "PFA0005w.1"}},
			{GeneID: "PF3D7_0100200", GeneName: "RIF", Product: "RIF protein", GeneType: "protein coding", Chromosome: "Pf3D7_01_v3"},
		}}}
	doc := query(t, web.Results(v))
	var rows []string
	tid(doc.Selection, "result-row").Each(func(_ int, r *goquery.Selection) {
		rows = append(rows, strings.Join(texts(r.Find("td")), " | "))
	})
	if diff := cmp.Diff([]string{"PF3D7_0100100 |  | VAR protein erythrocyte membrane protein 1 | protein coding | Pf3D7_01_v3 | PFA0005w, PFA0005w.1",
		"PF3D7_0100200 | RIF | RIF protein | protein coding | Pf3D7_01_v3 | "}, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	// The Columns menu: every column but the id, previous ids off at first
	// (the box's class hides them until the researcher turns them on).
	var menu []string
	tid(doc.Selection, "results-columns").Find("[data-column-toggle]").Each(func(_ int, cb *goquery.Selection) {
		key, _ := cb.Attr("data-column-toggle")
		_, on := cb.Attr("checked")
		menu = append(menu, fmt.Sprintf("%s=%t", key, on))
	})
	if want := []string{"symbol=true", "product=true", "type=true", "chromosome=true", "previous=false"}; !slices.Equal(menu, want) {
		t.Errorf("columns menu = %v, want %v", menu, want)
	}
	if !tid(doc.Selection, "results-table").HasClass("hide-col-previous") {
		t.Error("the previous ids column is not hidden at first")
	}
	if _, dis := tid(doc.Selection, "results-prev").Attr("disabled"); !dis {
		t.Error("previous enabled on the first page")
	}
	next := tid(doc.Selection, "results-next")
	if _, dis := next.Attr("disabled"); dis {
		t.Error("next disabled with more genes")
	}
	if got := next.AttrOr("hx-get", ""); got != "/conversations/c1/strategy/steps/s1/results?limit=2&offset=2" {
		t.Errorf("next = %q", got)
	}
	// Every column sorts; none is sorted yet.
	heads := doc.Find("th")
	if diff := cmp.Diff([]string{"none", "none", "none", "none", "none", "none"}, attrs(heads, "aria-sort")); diff != "" {
		t.Errorf("aria-sort (-want +got):\n%s", diff)
	}
	if got := tid(doc.Selection, "sort-product").AttrOr("hx-get", ""); got != "/conversations/c1/strategy/steps/s1/results?limit=2&sort=product" {
		t.Errorf("sort by product = %q", got)
	}
	// Sorted by product and filtered: the header says so, its next click
	// sorts from the end, and the pager keeps both.
	v.GeneQuery, v.Matched = web.GeneQuery{Filter: "protein", Sort: "product"}, 3
	doc = query(t, web.Results(v))
	if got := doc.Find(`th[data-column="product"]`).AttrOr("aria-sort", ""); got != "ascending" {
		t.Errorf("product column aria-sort = %q", got)
	}
	if got := tid(doc.Selection, "sort-product").AttrOr("hx-get", ""); got != "/conversations/c1/strategy/steps/s1/results?dir=desc&limit=2&q=protein&sort=product" {
		t.Errorf("sort by product again = %q", got)
	}
	if got := tid(doc.Selection, "results-next").AttrOr("hx-get", ""); got != "/conversations/c1/strategy/steps/s1/results?limit=2&offset=2&q=protein&sort=product" {
		t.Errorf("next = %q", got)
	}
	if got := strings.Join(strings.Fields(tid(doc.Selection, "results-count").Text()), " "); got != "1–2 of 3 genes matching “protein” (of 3 genes) · PlasmoDB export, 2017" {
		t.Errorf("count line = %q", got)
	}
	if got := tid(doc.Selection, "results-filter").AttrOr("value", ""); got != "protein" {
		t.Errorf("filter box holds %q", got)
	}
	v.Error, v.Answer = "not evaluable offline", nil
	if got := query(t, web.Results(v)).Find("[role=alert]").Text(); got != "not evaluable offline" {
		t.Errorf("error shown = %q", got)
	}
}

func TestHome(t *testing.T) {
	sites := []web.SiteOption{{ID: "plasmodb", Name: "PlasmoDB", Offline: true, Available: true}}
	doc := query(t, web.Home(web.Page{Title: "t"}, web.HomeView{Sites: sites, CSRFToken: "tok"}))
	if tid(doc.Selection, "empty-list").Length() != 1 || tid(doc.Selection, "conversation-list").Length() != 0 {
		t.Error("empty list not shown as such")
	}
	sel := tid(doc.Selection, "site-select")
	if doc.Find(`label[for="`+sel.AttrOr("id", "")+`"]`).Length() != 1 || sel.AttrOr("name", "") != "siteId" {
		t.Error("site select without label or name siteId")
	}
	items := []web.ConversationItem{{ID: "c2", Title: "Kinases <b>", SiteID: "plasmodb", Mode: "plan", UpdatedAt: now}, {ID: "c1", Title: "Older", SiteID: "plasmodb", Mode: "execute", UpdatedAt: now.Add(-time.Hour)}}
	doc = query(t, web.Home(web.Page{Title: "t"}, web.HomeView{Sites: sites, Conversations: items, CSRFToken: "tok"}))
	list := tid(doc.Selection, "conversation-list")
	if diff := cmp.Diff([]string{"c2", "c1"}, attrs(tid(list, "conversation-item"), "data-conversation-id")); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	first := tid(list, "conversation-item").First()
	if first.Find("a").AttrOr("href", "") != "/conversations/c2" || first.Find("a").Text() != "Kinases <b>" {
		t.Errorf("item link = %q %q", first.Find("a").AttrOr("href", ""), first.Find("a").Text())
	}
	for _, id := range []string{"rename-conversation", "rename-input", "rename-save", "delete-conversation", "delete-confirm"} {
		if tid(first, id).Length() != 1 {
			t.Errorf("item lacks %s", id)
		}
	}
	if got := tid(first, "rename-input").AttrOr("value", ""); got != "Kinases <b>" {
		t.Errorf("rename input = %q", got)
	}
	if n := first.Find(`input[name="csrf_token"][value="tok"]`).Length(); n != 2 {
		t.Errorf("%d forms carry the token, want 2", n)
	}
}

func TestHomeGreysOutUnavailableSites(t *testing.T) {
	sites := []web.SiteOption{
		{ID: "plasmodb", Name: "PlasmoDB", Offline: true, Available: true},
		{ID: "toxodb-live", Name: "ToxoDB", Reason: "needs your VEuPathDB API key"},
		{ID: "plasmodb-live", Name: "PlasmoDB", Available: true},
	}
	doc := query(t, web.Home(web.Page{Title: "t"}, web.HomeView{Sites: sites, CSRFToken: "tok"}))
	toxo := tid(doc.Selection, "site-toxodb-live")
	if _, disabled := toxo.Attr("disabled"); !disabled || toxo.AttrOr("title", "") != "needs your VEuPathDB API key" || !strings.Contains(toxo.Text(), "(unavailable)") {
		t.Errorf("unavailable live site option = %q title %q", toxo.Text(), toxo.AttrOr("title", ""))
	}
	live := tid(doc.Selection, "site-plasmodb-live")
	if _, disabled := live.Attr("disabled"); disabled || !strings.Contains(live.Text(), "(live)") {
		t.Errorf("available live site option = %q", live.Text())
	}
	if !strings.Contains(tid(doc.Selection, "site-hint").Text(), "needs your VEuPathDB API key") {
		t.Error("no hint says why sites are greyed out")
	}
}

// TestFoldedArtifacts: the plan panel draws the two most recently saved
// artifacts (and any with a plan waiting for approval) whole, and the older
// ones behind one line that loads their list, where each is its title line,
// a button that loads the rest; of a plan's many superseded handoffs it
// draws the newest and counts the others.
func TestFoldedArtifacts(t *testing.T) {
	notes := func(id string) event.Event {
		return &event.ArtifactSaved{Base: b("t1"), Artifact: event.Artifact{ID: id, Kind: "planning", Title: "Notes " + id, SummaryMarkdown: "About **" + id + "**", Version: 1}}
	}
	draft := func(v int) event.Event {
		return &event.ArtifactSaved{Base: b("t1"), Artifact: event.Artifact{ID: "d", Kind: "delegation_draft", Title: "Plan", Version: v,
			Plan: json.RawMessage(`{"type":"task","task":"A"}`)}}
	}
	handoff := func(id, artifact string) event.Event {
		return &event.HandoffRequested{Base: b("t1"), HandoffID: id, ArtifactID: artifact, Goal: "g"}
	}
	fold := func(evs ...event.Event) (*goquery.Selection, *goquery.Selection) {
		h := newHarness(t)
		l := &log{t: t}
		p := h.page(h.fold(l.add(evs...).records()))
		return tid(query(t, web.ConversationView(web.Page{Title: "t"}, p)).Selection, "artifacts"), query(t, web.OlderArtifacts(p)).Selection
	}
	panel, older := fold(
		&event.TurnStart{Base: b("t1"), Mode: "plan", Message: "plan it"},
		notes("a1"), draft(1), handoff("h1", "d"),
		notes("a2"), notes("x"), handoff("hx", "x"), // x's plan waits
		notes("a3"), draft(2), handoff("h2", "d"), draft(3), handoff("h3", "d"),
		notes("a4"),
	)
	// d and a4 are the latest saved; x has no pending plan any more (h2
	// superseded it), so it folds too.
	if diff := cmp.Diff([]string{"d", "a4"}, attrs(tid(panel, "artifact"), "data-artifact-id")); diff != "" {
		t.Errorf("artifacts drawn whole (-want +got):\n%s", diff)
	}
	line := tid(panel, "older-artifacts")
	if goquery.NodeName(line) != "button" || line.AttrOr("aria-expanded", "") != "false" || line.AttrOr("data-count", "") != "4" ||
		line.AttrOr("data-load", "") != "/conversations/c1/artifacts" || panel.Find("#"+line.AttrOr("aria-controls", "")).Length() != 1 {
		t.Errorf("the older artifacts' line: <%s aria-expanded=%q data-count=%q data-load=%q aria-controls=%q>", goquery.NodeName(line),
			line.AttrOr("aria-expanded", ""), line.AttrOr("data-count", ""), line.AttrOr("data-load", ""), line.AttrOr("aria-controls", ""))
	}
	if diff := cmp.Diff([]string{"a1", "a2", "x", "a3"}, attrs(tid(older, "artifact"), "data-artifact-id")); diff != "" {
		t.Errorf("older artifacts (-want +got):\n%s", diff)
	}
	first := tid(tid(older, "artifact").First(), "artifact-summary")
	if goquery.NodeName(first) != "button" || first.AttrOr("aria-expanded", "") != "false" || first.AttrOr("data-load", "") != "/conversations/c1/artifacts/a1" {
		t.Errorf("a folded artifact's line: <%s aria-expanded=%q data-load=%q>", goquery.NodeName(first), first.AttrOr("aria-expanded", ""), first.AttrOr("data-load", ""))
	}
	if body := older.Find("#" + first.AttrOr("aria-controls", "")); body.Length() != 1 || body.Children().Length() != 0 {
		t.Error("a folded artifact's button does not control its empty body")
	}
	if got := texts(first.Children()); !cmp.Equal(got, []string{"Notes a1", "v1 · planning notes"}) {
		t.Errorf("folded line = %q", got)
	}
	if older.Find("strong").Length() != 0 {
		t.Error("the older artifacts' list carries their notes")
	}
	// The draft: h3 pending under the plan as it reads now; h2 and h1 asked
	// for earlier versions of it, and are only counted.
	d := tid(panel, "artifact").First()
	if diff := cmp.Diff([]string{"h3"}, attrs(tid(d, "handoff"), "data-handoff-id")); diff != "" {
		t.Errorf("handoffs drawn (-want +got):\n%s", diff)
	}
	if got := tid(d, "handoffs-earlier"); got.AttrOr("data-count", "") != "2" || strings.TrimSpace(got.Text()) != "2 earlier versions of this plan were superseded." {
		t.Errorf("earlier versions = %q %q", got.AttrOr("data-count", ""), got.Text())
	}

	// While its plan waits, x stays open though it is not among the latest.
	waiting, _ := fold(&event.TurnStart{Base: b("t1"), Mode: "plan"}, notes("x"), handoff("hx", "x"), notes("a2"), notes("a3"), notes("a4"))
	if diff := cmp.Diff([]string{"x", "a3", "a4"}, attrs(tid(waiting, "artifact"), "data-artifact-id")); diff != "" {
		t.Errorf("artifacts drawn whole with a plan waiting (-want +got):\n%s", diff)
	}
	// Nothing older: no line.
	if few, _ := fold(&event.TurnStart{Base: b("t1"), Mode: "plan"}, notes("a1"), notes("a2")); tid(few, "older-artifacts").Length() != 0 {
		t.Error("a panel with nothing folded has the older artifacts' line")
	}
}

// TestExportNeedsOneRoot: a strategy with two result steps offers no
// download VEuPathDB would refuse; the page says why and what to do.
func TestExportNeedsOneRoot(t *testing.T) {
	snap := `{"strategyId":"s","version":2,"name":"Strategy","roots":["s1","s2"],"steps":[
		{"id":"s1","kind":"search","searchName":"GenesByGoTerm","displayName":"DNA repair","inputs":[],"count":60,"countStatus":"ok"},
		{"id":"s2","kind":"search","searchName":"GenesByLocation","displayName":"chromosome 5","inputs":[],"count":700,"countStatus":"ok"}]}`
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "execute"},
		&event.GraphSnapshot{Base: b("t1"), StrategyID: "s", Version: 2, Snapshot: json.RawMessage(snap)},
	)
	panel := tid(doc.Selection, "strategy")
	btn := tid(panel, "export-wdk")
	if _, disabled := btn.Attr("disabled"); !disabled || btn.AttrOr("href", "") != "" {
		t.Errorf("export with two roots is %s, want a disabled button, not a link", goquery.NodeName(btn))
	}
	why := tid(panel, "export-wdk-why").Text()
	if !strings.Contains(why, "has 2: “DNA repair — 60 genes”, “chromosome 5 — 700 genes”.") || !strings.Contains(why, "Combine") || btn.AttrOr("aria-describedby", "") != "export-wdk-why" {
		t.Errorf("the reason reads %q", why)
	}
	// And the researcher can do it here: combine the two, or delete one.
	form := tid(panel, "combine-roots")
	if form.AttrOr("hx-post", "") != "/conversations/c1/strategy/combine" {
		t.Errorf("combine form posts to %q", form.AttrOr("hx-post", ""))
	}
	left, right := tid(form, "combine-left"), tid(form, "combine-right")
	if diff := cmp.Diff([]string{"s1", "s2"}, attrs(left.Find("option"), "value")); diff != "" {
		t.Errorf("first choices (-want +got):\n%s", diff)
	}
	if left.Find("option[selected]").AttrOr("value", "") != "s1" || right.Find("option[selected]").AttrOr("value", "") != "s2" {
		t.Error("the form does not start with two different results chosen")
	}
	if diff := cmp.Diff([]string{"UNION", "INTERSECT", "MINUS"}, attrs(tid(form, "combine-operator").Find("option"), "value")); diff != "" {
		t.Errorf("operators (-want +got):\n%s", diff)
	}
	if got := tid(panel, "delete-root").Length(); got != 2 {
		t.Errorf("%d delete buttons, want one per result", got)
	}
}

// replacedTurns is a conversation whose first answer was regenerated and
// whose regenerated turn was then replaced by an edited message; the
// regenerated turn changed the strategy.
func replacedTurns() []event.Event {
	snap := json.RawMessage(`{"strategyId":"s","version":1,"steps":[],"rootStepId":""}`)
	return []event.Event{
		&event.TurnStart{Base: b("t1"), Mode: "plan", UserMessageID: "u1", Message: "DNA repair genes"},
		&event.AssistantMessage{Base: b("t1"), MessageID: "m1", Content: "Which organism?"},
		&event.TurnEnd{Base: b("t1"), Status: "completed", DurationMs: 100},
		&event.TurnStart{Base: b("t2"), Mode: "plan", UserMessageID: "u2", Message: "DNA repair genes", ReplacesTurnID: "t1"},
		&event.GraphSnapshot{Base: b("t2"), StrategyID: "s", Version: 1, Snapshot: snap},
		&event.AssistantMessage{Base: b("t2"), MessageID: "m2", Content: "Which organism? Say it again."},
		&event.TurnEnd{Base: b("t2"), Status: "completed", DurationMs: 100},
		&event.TurnStart{Base: b("t3"), Mode: "execute", UserMessageID: "u3", Message: "DNA repair genes of P. falciparum", ReplacesTurnID: "t2"},
		&event.AssistantMessage{Base: b("t3"), MessageID: "m3", Content: "Built."},
		&event.TurnEnd{Base: b("t3"), Status: "completed", DurationMs: 100},
	}
}

// TestReplacedTurns: a replaced turn is folded and labelled replaced (its
// message and answer open from the line), however recent; the standing
// turn offers Copy on each message, Edit (in place, naming the turn it
// replaces, in its mode) and Regenerate; a turn that changed the strategy
// says that replacing it keeps the changes.
func TestReplacedTurns(t *testing.T) {
	evs := replacedTurns()
	s := page(t, evs...).Selection
	folded := tid(s, "folded-turn")
	if diff := cmp.Diff([]string{"t1", "t2"}, attrs(folded, "data-turn-id")); diff != "" {
		t.Errorf("folded turns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"true", "true"}, attrs(folded, "data-replaced")); diff != "" {
		t.Errorf("folded turns' data-replaced (-want +got):\n%s", diff)
	}
	if got := texts(tid(folded, "turn-replaced")); !cmp.Equal(got, []string{"replaced", "replaced"}) {
		t.Errorf("replaced labels = %q", got)
	}
	if got := tid(s, "copy-message").Length(); got != 2 {
		t.Errorf("%d Copy buttons, want one on each of the standing turn's two messages", got)
	}
	edit := tid(s, "edit-message")
	if edit.Length() != 1 || goquery.NodeName(tid(edit, "edit-button")) != "summary" {
		t.Fatalf("Edit = %d, want one, opened by its summary", edit.Length())
	}
	form := edit.Find("form")
	fields := map[string]string{}
	form.Find("input, textarea").Each(func(_ int, in *goquery.Selection) {
		fields[in.AttrOr("name", "")] = in.AttrOr("value", in.Text())
	})
	if fields["replaces"] != "t3" || fields["mode"] != "execute" || fields["message"] != "DNA repair genes of P. falciparum" || form.AttrOr("hx-post", "") != "/conversations/c1/turns" {
		t.Errorf("Edit form posts %v to %s", fields, form.AttrOr("hx-post", ""))
	}
	regen := tid(s, "regenerate-button").Closest("form")
	if regen.Length() != 1 || regen.Find(`input[name="replaces"]`).AttrOr("value", "") != "t3" || regen.Find(`input[name="message"]`).Length() != 0 {
		t.Errorf("Regenerate form = %d, want one replacing t3 without a message", regen.Length())
	}
	if tid(s, "strategy-kept").Length() != 0 {
		t.Error("the standing turn changed no strategy, yet says it keeps changes")
	}

	// Regenerating the turn that changed the strategy says it keeps them.
	s = page(t, evs[:7]...).Selection
	if got := tid(s, "strategy-kept").Text(); !strings.Contains(got, "made a change to the strategy") {
		t.Errorf("strategy note = %q", got)
	}
}

// TestSubagentsPanelRetrying: a task retried after its server stopped
// shows as retrying, with the cause and a running timer, until its
// attempt ends.
func TestSubagentsPanelRetrying(t *testing.T) {
	doc := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "execute"},
		&event.SubagentPlan{Base: b("t1"), DelegationID: "d2", Goal: "Off chromosome 14", Nodes: []event.PlanNode{
			{ID: "n1", Kind: "task", Label: "Replication"}, {ID: "n2", Kind: "task", Label: "Repair"}}},
		&event.SubagentTaskRetry{Base: b("t1"), DelegationID: "d2", NodeID: "n2", Attempt: 2,
			Cause: `attempt 1 was cut short: the server running it stopped after it had made s2 "DNA repair" (GenesByGoTerm)`},
		&event.SubagentTaskStart{Base: b("t1"), DelegationID: "d2", NodeID: "n2", Attempt: 2},
	)
	nodes := tid(tid(doc.Selection, "subagents"), "node")
	if diff := cmp.Diff([]string{"queued", "retrying"}, attrs(nodes, "data-status")); diff != "" {
		t.Errorf("node statuses (-want +got):\n%s", diff)
	}
	if got := tid(nodes.Eq(1), "node-retry").Text(); !strings.Contains(got, `Retrying: attempt 1 was cut short: the server running it stopped after it had made s2 "DNA repair"`) {
		t.Errorf("retry line = %q", got)
	}
	if got, _ := tid(nodes.Eq(1), "node-elapsed").Attr("data-running"); got != "true" {
		t.Error("the retrying node's timer does not run")
	}
	if got := strings.TrimSpace(tid(doc.Selection, "delegation-summary").Text()); got != "2 nodes: 1 retrying, 1 queued" {
		t.Errorf("summary = %q", got)
	}
}

// TestRetryReplacesTheFailedTurn: Retry replaces the turn that failed when
// it sends that turn's own message again; after a failed build it sends the
// plan's message as a new turn (an earlier turn cannot be replaced).
func TestRetryReplacesTheFailedTurn(t *testing.T) {
	retry := func(s *goquery.Selection) map[string]string {
		t.Helper()
		form := tid(s, "retry-button").Closest("form")
		if form.Length() != 1 {
			t.Fatalf("%d Retry forms, want 1", form.Length())
		}
		fields := map[string]string{}
		form.Find("input").Each(func(_ int, in *goquery.Selection) { fields[in.AttrOr("name", "")] = in.AttrOr("value", "") })
		return fields
	}
	s := page(t,
		&event.TurnStart{Base: b("t1"), Mode: "plan", UserMessageID: "u1", Message: "DNA repair genes"},
		&event.TurnEnd{Base: b("t1"), Status: "failed", Error: "the model stopped"},
	).Selection
	if f := retry(s); f["replaces"] != "t1" || f["message"] != "DNA repair genes" || f["mode"] != "plan" {
		t.Errorf("Retry of a failed plan turn posts %v, want it to replace t1 with its message", f)
	}

	s = page(t,
		&event.TurnStart{Base: b("t1"), Mode: "plan", UserMessageID: "u1", Message: "DNA repair genes"},
		&event.TurnEnd{Base: b("t1"), Status: "completed"},
		&event.TurnStart{Base: b("t2"), Mode: "execute", UserMessageID: "u2", HandoffID: "h1",
			Message: plan.BuildPrefix + "\n```json\n{\"handoffId\":\"h1\",\"goal\":\"G\",\"plan\":{\"type\":\"task\",\"task\":\"A\"}}\n```"},
		&event.TurnEnd{Base: b("t2"), Status: "cancelled"},
	).Selection
	f := retry(s)
	if _, ok := f["replaces"]; ok || f["message"] != "DNA repair genes" {
		t.Errorf("Retry after a stopped build posts %v, want the plan's message as a new turn", f)
	}
	if again := tid(s, "build-again-button").Closest("form"); again.Find(`input[name="replaces"]`).Length() != 0 {
		t.Error("Build again replaces a turn")
	}
}

// TestBuilding: while a delegation's turn runs, the strategy panel lists
// under the graph the steps still to build with their sub-agents' state; a
// node whose step is made leaves the list (its box is in the graph), and
// the list is gone once the turn ended.
func TestBuilding(t *testing.T) {
	snap := `{"strategyId":"s","version":1,"name":"Strategy","rootStepId":"s1","roots":["s1"],"steps":[
		{"id":"s1","kind":"search","searchName":"GenesByGoTerm","displayName":"DNA repair","inputs":[],"count":60,"countStatus":"ok"}]}`
	evs := []event.Event{
		&event.TurnStart{Base: b("t1"), Mode: "execute"},
		&event.SubagentPlan{Base: b("t1"), DelegationID: "d1", Goal: "g", Nodes: []event.PlanNode{
			{ID: "n1", Kind: "task", Label: "DNA repair"}, {ID: "n2", Kind: "task", Label: "chromosome 14"},
			{ID: "n3", Kind: "combine", Label: "DNA repair excluding chromosome 14", Operator: "MINUS", DependsOn: []string{"n1", "n2"}}}},
		&event.SubagentTaskStart{Base: b("t1"), DelegationID: "d1", NodeID: "n1", Attempt: 1},
		&event.SubagentTaskStart{Base: b("t1"), DelegationID: "d1", NodeID: "n2", Attempt: 1},
		&event.GraphSnapshot{Base: b("t1"), StrategyID: "s", Version: 1, Snapshot: json.RawMessage(snap)},
		&event.SubagentTaskEnd{Base: b("t1"), DelegationID: "d1", NodeID: "n1", Status: event.NodeDone, Attempt: 1, RootStepID: "s1"},
	}
	doc := page(t, evs...)
	list := tid(tid(doc.Selection, "strategy"), "building")
	if _, hidden := list.Attr("hidden"); hidden {
		t.Fatal("the steps still to build are hidden while the build runs")
	}
	if diff := cmp.Diff([]string{"n2", "n3"}, attrs(tid(list, "building-node"), "data-node-id")); diff != "" {
		t.Errorf("still to build (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"running", "queued"}, attrs(tid(list, "building-node"), "data-status")); diff != "" {
		t.Errorf("their states (-want +got):\n%s", diff)
	}
	if got := tid(list, "building-summary").Text(); got != "Still to build: 2 steps, 1 running" {
		t.Errorf("summary = %q", got)
	}
	if href := tid(list, "building-node").First().Find("a").AttrOr("href", ""); !strings.HasPrefix(href, "#dlg-") || doc.Find(href).Length() != 1 {
		t.Errorf("a node links to %q, not to its sub-agent", href)
	}
	doc = page(t, append(evs, &event.TurnEnd{Base: b("t1"), Status: "completed"})...)
	if _, hidden := tid(doc.Selection, "building").Attr("hidden"); !hidden || tid(doc.Selection, "building-node").Length() != 0 {
		t.Error("the list stays after the turn ended")
	}
}

// TestChartBars: the enrichment chart draws at most ten terms, the
// smallest p at full length and the others by their −log10 p beside it;
// a p of 0 (below a float's range) is drawn as 1e-300, not as infinity.
func TestChartBars(t *testing.T) {
	var terms []enrich.Term
	for i, p := range []float64{1e-20, 1e-10, 1e-5, 0.01, 0.02, 0.03, 0.04, 0.045, 0.046, 0.047, 0.048, 0.049} {
		terms = append(terms, enrich.Term{GOID: "GO:" + strconv.Itoa(i), Name: "t", PValue: p})
	}
	bars := web.ChartBars(terms)
	if len(bars) != 10 || bars[0].Width != "100.0" || bars[1].Width != "50.0" || bars[2].Width != "25.0" || bars[0].P != "1.00e-20" {
		t.Errorf("bars %+v", bars)
	}
	zero := web.ChartBars([]enrich.Term{{PValue: 0}, {PValue: 1e-150}})
	if zero[0].Width != "100.0" || zero[1].Width != "50.0" {
		t.Errorf("a p of 0: %+v", zero)
	}
	if len(web.ChartBars(nil)) != 0 {
		t.Error("no terms, no bars")
	}
}
