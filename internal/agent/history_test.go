package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"strategist/internal/llm"
)

// storedRun converts messages as the orchestrator would store them.
func storedRun(t *testing.T, ids []string, msgs ...llm.Message) []StoredMessage {
	t.Helper()
	out := make([]StoredMessage, len(msgs))
	for i, m := range msgs {
		s, err := Stored(m)
		if err != nil {
			t.Fatalf("Stored: %v", err)
		}
		s.ID = ids[i]
		out[i] = s
	}
	return out
}

func TestStoredRoundTrip(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Text: "Find kinases"},
		{Role: llm.RoleAssistant, Text: "Searching.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "search", Args: json.RawMessage(`{"query":"kinase"}`)}},
			Raw: &llm.Raw{Engine: "gemini", Data: json.RawMessage(`{"parts":[{"thoughtSignature":"c2ln"}]}`)}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "c1", Name: "search", Content: json.RawMessage(`{"ok":true}`)}}},
		{Role: llm.RoleAssistant, Text: "Found one."},
		{Role: llm.RoleUser, Text: "Now on chromosome 5"},
	}
	stored := storedRun(t, []string{"1", "2", "3", "4", "5"}, msgs...)
	if stored[0].Data != nil || stored[3].Data != nil {
		t.Errorf("plain text messages got data: %s / %s", stored[0].Data, stored[3].Data)
	}
	h, err := BuildHistory(stored, "5")
	if err != nil {
		t.Fatalf("BuildHistory: %v", err)
	}
	if diff := cmp.Diff(msgs[:4], h.Messages); diff != "" {
		t.Errorf("history mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1", "2", "3", "4"}, h.IDs); diff != "" {
		t.Errorf("IDs mismatch (-want +got):\n%s", diff)
	}
	if h.Current != "Now on chromosome 5" || h.CurrentID != "5" {
		t.Errorf("Current = %q (%s)", h.Current, h.CurrentID)
	}
	if _, err := Stored(llm.Message{Role: "system"}); err == nil {
		t.Error("Stored accepted an unknown role")
	}
}

func TestBuildHistory(t *testing.T) {
	call := func(id string) llm.ToolCall { return llm.ToolCall{ID: id, Name: "search", Args: json.RawMessage(`{}`)} }
	result := func(id string) llm.ToolResult {
		return llm.ToolResult{CallID: id, Name: "search", Content: json.RawMessage(`{"ok":true}`)}
	}
	interrupted := func(id string) llm.ToolResult {
		return llm.ToolResult{CallID: id, Name: "search", IsError: true,
			Content: json.RawMessage(`{"ok":false,"code":"INTERRUPTED","message":"this call was interrupted; its result is unknown"}`)}
	}
	summary := func(id, covers, text string) StoredMessage {
		return StoredMessage{ID: id, Role: StoredSummary, Content: text, Data: json.RawMessage(`{"coversThrough":"` + covers + `"}`)}
	}
	user := func(id, text string) StoredMessage { return StoredMessage{ID: id, Role: StoredUser, Content: text} }
	tests := []struct {
		name    string
		stored  []StoredMessage
		want    []llm.Message
		wantIDs []string
	}{
		{
			name:   "first turn",
			stored: []StoredMessage{user("u1", "hi")},
		},
		{
			name: "a summary stands in for what it covers",
			stored: []StoredMessage{
				user("u1", "old question"), {ID: "a1", Role: StoredAssistant, Content: "old answer"},
				user("u2", "second question"),
				summary("s1", "a1", "TL;DR old stuff"), // stored while turn 2 ran
				{ID: "a2", Role: StoredAssistant, Content: "second answer"},
				user("u3", "third question"),
			},
			want: []llm.Message{
				{Role: llm.RoleUser, Text: summaryPrefix + "TL;DR old stuff"},
				{Role: llm.RoleUser, Text: "second question"},
				{Role: llm.RoleAssistant, Text: "second answer"},
			},
			wantIDs: []string{"a1", "u2", "a2"},
		},
		{
			name: "only the latest summary counts",
			stored: []StoredMessage{
				user("u1", "q1"), {ID: "a1", Role: StoredAssistant, Content: "r1"},
				summary("s1", "a1", "first summary"),
				user("u2", "q2"), {ID: "a2", Role: StoredAssistant, Content: "r2"},
				summary("s2", "a2", "second summary"),
				user("u3", "q3"),
			},
			want:    []llm.Message{{Role: llm.RoleUser, Text: summaryPrefix + "second summary"}},
			wantIDs: []string{"a2"},
		},
		{
			name: "a summary covering a missing message is ignored",
			stored: []StoredMessage{
				user("u1", "q1"), summary("s1", "gone", "lost"), user("u2", "q2"),
			},
			want:    []llm.Message{{Role: llm.RoleUser, Text: "q1"}},
			wantIDs: []string{"u1"},
		},
		{
			name: "interrupted calls get a result, stray results and empty messages go",
			stored: append(storedRun(t, []string{"u1", "a1", "t0", "a2", "a3", "t3"},
				llm.Message{Role: llm.RoleUser, Text: "q"},
				llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1"), call("c2")}},
				// the process stopped before the results were stored
				llm.Message{Role: llm.RoleAssistant},
				llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c3")}},
				llm.Message{Role: llm.RoleTool, ToolResults: []llm.ToolResult{result("c3"), result("c9")}},
				llm.Message{Role: llm.RoleTool, ToolResults: []llm.ToolResult{result("c4")}},
			), user("u2", "again")),
			want: []llm.Message{
				{Role: llm.RoleUser, Text: "q"},
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1"), call("c2")}},
				{Role: llm.RoleTool, ToolResults: []llm.ToolResult{interrupted("c1"), interrupted("c2")}},
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c3")}},
				{Role: llm.RoleTool, ToolResults: []llm.ToolResult{result("c3")}},
			},
			wantIDs: []string{"u1", "a1", "a1", "a2", "a3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			current := tt.stored[len(tt.stored)-1]
			h, err := BuildHistory(tt.stored, current.ID)
			if err != nil {
				t.Fatalf("BuildHistory: %v", err)
			}
			if diff := cmp.Diff(tt.want, h.Messages, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Messages mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantIDs, h.IDs, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("IDs mismatch (-want +got):\n%s", diff)
			}
			if h.Current != current.Content {
				t.Errorf("Current = %q, want %q", h.Current, current.Content)
			}
		})
	}
}

func TestBuildHistoryErrors(t *testing.T) {
	tests := []struct {
		name      string
		stored    []StoredMessage
		currentID string
		is        error
	}{
		{name: "empty", currentID: "u1", is: ErrCurrentMissing},
		{name: "current not last", stored: []StoredMessage{{ID: "u1", Role: StoredUser}, {ID: "u2", Role: StoredUser}}, currentID: "u1", is: ErrCurrentMissing},
		{name: "current not a user message", stored: []StoredMessage{{ID: "a1", Role: StoredAssistant}}, currentID: "a1", is: ErrCurrentMissing},
		{name: "unknown role", stored: []StoredMessage{{ID: "x", Role: "system"}, {ID: "u1", Role: StoredUser}}, currentID: "u1"},
		{name: "bad data", stored: []StoredMessage{{ID: "x", Role: StoredAssistant, Data: json.RawMessage(`[`)}, {ID: "u1", Role: StoredUser}}, currentID: "u1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := BuildHistory(tt.stored, tt.currentID)
			if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("BuildHistory error = %v, want %v", err, tt.is)
			}
		})
	}
}

// TestCurrentMessageSentOnce: the message starting a turn is stored before
// the turn runs, and must still reach the model exactly once (not once from
// the stored history and again as the current message).
func TestCurrentMessageSentOnce(t *testing.T) {
	stored := []StoredMessage{
		{ID: "u1", Role: StoredUser, Content: "Find kinases"},
		{ID: "a1", Role: StoredAssistant, Content: "Which organism?"},
		{ID: "u2", Role: StoredUser, Content: "Find kinases"}, // same words again
		{ID: "a2", Role: StoredAssistant, Content: "P. falciparum?"},
		{ID: "u3", Role: StoredUser, Content: "Yes, P. falciparum 3D7"},
	}
	h, err := BuildHistory(stored, "u3")
	if err != nil {
		t.Fatal(err)
	}
	eng := newScript(t, `{"roles":{"planner":[{"text":"ok"}]}}`)
	a := newAgent(t, Config{Engine: eng})
	collect(a.Run(t.Context(), Input{History: h.Messages, User: h.Current}))
	msgs := eng.Requests()[0].Messages
	if got := countUserText(msgs, "Yes, P. falciparum 3D7"); got != 1 {
		t.Errorf("current message sent %d times, want once", got)
	}
	if got := countUserText(msgs, "Find kinases"); got != 2 {
		t.Errorf("earlier message sent %d times, want 2 (it was asked twice)", got)
	}
	if len(msgs) != 5 {
		t.Errorf("request has %d messages, want 5", len(msgs))
	}
}

// TestBuildHistoryContinues: the rounds an earlier run of the turn
// persisted after its user message are the run's Continue, not history; a
// final answer whose turn never ended is dropped, so the model answers
// again.
func TestBuildHistoryContinues(t *testing.T) {
	call := llm.ToolCall{ID: "c1", Name: "search_for_searches", Args: json.RawMessage(`{"query":"kinase"}`)}
	msgs := []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "c1", Name: call.Name, Content: json.RawMessage(`{"searches":[]}`)}}},
		{Role: llm.RoleAssistant, Text: "No search fits."},
	}
	stored := []StoredMessage{{ID: "u0", Role: StoredUser, Content: "earlier"}, {ID: "u1", Role: StoredUser, Content: "find kinases"}}
	for i, m := range msgs {
		sm, err := Stored(m)
		if err != nil {
			t.Fatal(err)
		}
		sm.ID = fmt.Sprintf("m%d", i)
		stored = append(stored, sm)
	}
	h, err := BuildHistory(stored, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if h.Current != "find kinases" || len(h.Messages) != 1 || h.Messages[0].Text != "earlier" {
		t.Errorf("history = %+v, current %q", h.Messages, h.Current)
	}
	if len(h.Continue) != 2 || h.Continue[0].ToolCalls[0].ID != "c1" || h.Continue[1].ToolResults[0].CallID != "c1" {
		t.Errorf("continue = %+v, want the round's call and result without the final answer", h.Continue)
	}
}
