package agent

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/llm"
)

// longHistory is ten stored messages of a planning conversation (two tool
// rounds), then the current message.
func longHistory(t *testing.T) *History {
	t.Helper()
	filler := strings.Repeat("Plasmodium falciparum kinase ", 20)
	call := func(id string) []llm.ToolCall {
		return []llm.ToolCall{{ID: id, Name: "search_for_searches", Args: json.RawMessage(`{"query":"kinase"}`)}}
	}
	res := func(id string) []llm.ToolResult {
		return []llm.ToolResult{{CallID: id, Name: "search_for_searches", Content: json.RawMessage(`{"ok":true,"searches":["GenesByText"]}`)}}
	}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Text: "I study kinases. " + filler},
		{Role: llm.RoleAssistant, Text: "Let me look.", ToolCalls: call("c1")},
		{Role: llm.RoleTool, ToolResults: res("c1")},
		{Role: llm.RoleAssistant, Text: "GenesByText fits. " + filler},
		{Role: llm.RoleUser, Text: "Only chromosome 5. " + filler},
		{Role: llm.RoleAssistant, ToolCalls: call("c2")},
		{Role: llm.RoleTool, ToolResults: res("c2")},
		{Role: llm.RoleAssistant, Text: "Combine with GenesByLocation. " + filler},
		{Role: llm.RoleUser, Text: "Good. " + filler},
		{Role: llm.RoleAssistant, Text: "Shall I draft the plan? " + filler},
	}
	ids := make([]string, len(msgs))
	var stored []StoredMessage
	for i, m := range msgs {
		ids[i] = "m" + strconv.Itoa(i+1)
		s, err := Stored(m)
		if err != nil {
			t.Fatal(err)
		}
		s.ID = ids[i]
		stored = append(stored, s)
	}
	stored = append(stored, StoredMessage{ID: "now", Role: StoredUser, Content: "Yes, draft it."})
	h, err := BuildHistory(stored, "now")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestCompactUnderBudget(t *testing.T) {
	h := longHistory(t)
	c := Compactor{Strategy: WholeHistory{}, Budget: 100000}
	res, err := c.Compact(t.Context(), h, "system", nil)
	if err != nil || res.Compacted || res.Before != res.After || len(h.Messages) != 10 {
		t.Errorf("Compact under budget = %+v, %v; %d messages; want nothing done", res, err, len(h.Messages))
	}
}

func TestCompactKeepLastN(t *testing.T) {
	tests := []struct {
		n       int
		wantIDs []string
	}{
		{n: 4, wantIDs: []string{"m8", "m9", "m10"}}, // m7 answers a call that is cut: dropped too
		{n: 5, wantIDs: []string{"m6", "m7", "m8", "m9", "m10"}},
		{n: 0, wantIDs: []string{}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.n), func(t *testing.T) {
			h := longHistory(t)
			c := Compactor{Strategy: KeepLastN{N: tt.n}, Budget: 10}
			res, err := c.Compact(t.Context(), h, "system", nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantIDs, h.IDs); diff != "" {
				t.Errorf("kept ids mismatch (-want +got):\n%s", diff)
			}
			if !res.Compacted || res.After >= res.Before || res.Summary != nil || res.Strategy != "keep_last_n" {
				t.Errorf("result = %+v, want a compaction without summary", res)
			}
			if h.Current != "Yes, draft it." {
				t.Errorf("current message changed: %q", h.Current)
			}
		})
	}
}

func TestCompactWholeHistory(t *testing.T) {
	eng := newScript(t, `{"roles":{"summarizer":[
		{"text":"TL;DR: kinases on chromosome 5, GenesByText with GenesByLocation.","usage":{"promptTokens":900,"completionTokens":20}}]}}`)
	h := longHistory(t)
	c := Compactor{Strategy: WholeHistory{}, Budget: 200, Engine: eng, Model: "m"}
	res, err := c.Compact(t.Context(), h, "system", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantSummary := &StoredMessage{Role: StoredSummary, Content: "TL;DR: kinases on chromosome 5, GenesByText with GenesByLocation.",
		Data: json.RawMessage(`{"coversThrough":"m10"}`)}
	if diff := cmp.Diff(wantSummary, res.Summary); diff != "" {
		t.Errorf("Summary mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]llm.Message{{Role: llm.RoleUser, Text: summaryPrefix + wantSummary.Content}}, h.Messages); diff != "" {
		t.Errorf("history mismatch (-want +got):\n%s", diff)
	}
	if res.Usage.TotalTokens != 920 || !res.Compacted || res.After >= res.Before {
		t.Errorf("result = %+v", res)
	}
	req := eng.Requests()[0]
	transcript := req.Messages[0].Text
	for _, want := range []string{"Researcher: I study kinases.", "Assistant called search_for_searches {\"query\":\"kinase\"}",
		`Result of search_for_searches: {"ok":true,"searches":["GenesByText"]}`, "Assistant: Shall I draft the plan?"} {
		if !strings.Contains(transcript, want) {
			t.Errorf("summary request lacks %q", want)
		}
	}
	if len(req.Tools) != 0 || req.Agent != "summarizer" || strings.Contains(transcript, "Yes, draft it.") {
		t.Errorf("summary request: %d tools, agent %q; current message included: %v", len(req.Tools), req.Agent,
			strings.Contains(transcript, "Yes, draft it."))
	}

	// The next turn starts from the stored summary.
	stored := []StoredMessage{
		{ID: "m9", Role: StoredUser, Content: "Good."}, {ID: "m10", Role: StoredAssistant, Content: "Shall I draft the plan?"},
		{ID: "now", Role: StoredUser, Content: "Yes, draft it."},
		{ID: "s1", Role: res.Summary.Role, Content: res.Summary.Content, Data: res.Summary.Data},
		{ID: "a1", Role: StoredAssistant, Content: "Drafted."},
		{ID: "next", Role: StoredUser, Content: "Build it."},
	}
	next, err := BuildHistory(stored, "next")
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Message{
		{Role: llm.RoleUser, Text: summaryPrefix + wantSummary.Content},
		{Role: llm.RoleUser, Text: "Yes, draft it."},
		{Role: llm.RoleAssistant, Text: "Drafted."},
	}
	if diff := cmp.Diff(want, next.Messages); diff != "" {
		t.Errorf("next turn's history mismatch (-want +got):\n%s", diff)
	}
}

func TestCompactChunked(t *testing.T) {
	eng := newScript(t, `{"roles":{"summarizer":[
		{"text":"They study kinases; GenesByText fits."},
		{"text":"Chromosome 5 only; combine with GenesByLocation."},
		{"text":"A plan draft was offered."}]}}`)
	h := longHistory(t)
	c := Compactor{Strategy: Chunked{Size: 4}, Budget: 200, Engine: eng}
	res, err := c.Compact(t.Context(), h, "system", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "Part 1 of 3:\nThey study kinases; GenesByText fits.\n\n" +
		"Part 2 of 3:\nChromosome 5 only; combine with GenesByLocation.\n\n" +
		"Part 3 of 3:\nA plan draft was offered."
	if res.Summary == nil || res.Summary.Content != want {
		t.Fatalf("Summary = %+v, want the three parts", res.Summary)
	}
	// Chunks of 4: m1-m4, m5-m8 (m7's call m6 keeps m7 with it), m9-m10.
	reqs := eng.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d summary calls, want 3", len(reqs))
	}
	if s := reqs[1].Messages[0].Text; !strings.Contains(s, "Only chromosome 5") || strings.Contains(s, "I study kinases") || strings.Contains(s, "Shall I draft") {
		t.Errorf("second chunk transcript = %q, want m5–m8 only", s)
	}
	if diff := cmp.Diff([]string{"m10"}, h.IDs); diff != "" {
		t.Errorf("IDs mismatch (-want +got):\n%s", diff)
	}
}

func TestChunkKeepsResultsWithCalls(t *testing.T) {
	msgs := []llm.Message{{Role: llm.RoleUser}, {Role: llm.RoleAssistant}, {Role: llm.RoleTool}, {Role: llm.RoleTool}, {Role: llm.RoleUser}}
	var sizes []int
	for _, c := range chunk(msgs, 2) {
		sizes = append(sizes, len(c))
	}
	if diff := cmp.Diff([]int{4, 1}, sizes); diff != "" {
		t.Errorf("chunk sizes mismatch (-want +got):\n%s", diff)
	}
}

func TestCompactErrors(t *testing.T) {
	tests := []struct {
		name   string
		c      Compactor
		script string
		is     error
	}{
		{name: "no strategy", c: Compactor{Budget: 1}},
		{name: "summary without engine", c: Compactor{Strategy: WholeHistory{}, Budget: 1}},
		{name: "bad chunk size", c: Compactor{Strategy: Chunked{}, Budget: 1}},
		{name: "negative N", c: Compactor{Strategy: KeepLastN{N: -1}, Budget: 1}},
		{name: "engine fails", c: Compactor{Strategy: WholeHistory{}, Budget: 1},
			script: `{"roles":{"summarizer":[{"error":"overloaded","errorKind":"retryable"}]}}`},
		{name: "empty summary", c: Compactor{Strategy: WholeHistory{}, Budget: 1},
			script: `{"roles":{"summarizer":[{"toolCalls":[{"name":"x"}]}]}}`, is: ErrEmptySummary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.script != "" {
				tt.c.Engine = newScript(t, tt.script)
			}
			h := longHistory(t)
			_, err := tt.c.Compact(t.Context(), h, "system", nil)
			if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("Compact error = %v, want %v", err, tt.is)
			}
			if len(h.Messages) != 10 {
				t.Errorf("a failed compaction changed the history (%d messages)", len(h.Messages))
			}
		})
	}
}
