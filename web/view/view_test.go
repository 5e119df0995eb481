package view_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/web/view"
)

// transcript builds a log of records from events, one second apart.
type transcript struct {
	t    *testing.T
	recs []event.Record
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func (tr *transcript) add(evs ...event.Event) *transcript {
	tr.t.Helper()
	for _, e := range evs {
		name, payload, err := event.Encode(e)
		if err != nil {
			tr.t.Fatal(err)
		}
		seq := int64(len(tr.recs) + 1)
		tr.recs = append(tr.recs, event.Record{ConversationID: "c1", Seq: seq, TurnID: e.Turn(), Type: name, Payload: payload, CreatedAt: t0.Add(time.Duration(seq) * time.Second)})
	}
	return tr
}

func fold(t *testing.T, recs []event.Record) *view.Conversation {
	t.Helper()
	c := view.New(view.Start{ID: "c1", Title: "T", SiteID: "plasmodb", Mode: "plan", Model: "offline"})
	for _, r := range recs {
		if _, err := c.Apply(r); err != nil {
			t.Fatalf("Apply(%d %s): %v", r.Seq, r.Type, err)
		}
	}
	return c
}

func base(turn string) event.Base { return event.Base{TurnID: turn} }

func TestChatFold(t *testing.T) {
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "plan", Model: "offline", UserMessageID: "u1", Message: "genes <b>please</b>"},
		&event.AssistantDelta{Base: base("t1"), MessageID: "m1", Delta: "Look"},
		&event.AssistantDelta{Base: base("t1"), MessageID: "m1", Delta: "ing."},
		&event.ToolCallStart{Base: base("t1"), CallID: "c1", Name: "search_for_searches", Args: json.RawMessage(`{"query":"GO"}`)},
		&event.ToolCallEnd{Base: base("t1"), CallID: "c1", Name: "search_for_searches", OK: false, Error: &event.ToolError{Code: "VALIDATION_ERROR", Message: "bad"}, DurationMs: 12},
		&event.AssistantMessage{Base: base("t1"), MessageID: "m1", Content: "Looking."},
		&event.Usage{Base: base("t1"), Scope: "main", Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
		&event.Error{Base: base("t1"), Code: "MODEL_ERROR", Message: "quota", Retryable: true},
		&event.TurnEnd{Base: base("t1"), Status: "failed", Error: "quota", DurationMs: 900, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
	)
	c := fold(t, tr.recs)
	if len(c.Turns) != 1 {
		t.Fatalf("turns = %d, want 1", len(c.Turns))
	}
	got := c.Turns[0]
	want := &view.Turn{
		Key: 1, ID: "t1", Mode: "plan", Model: "offline", UserMessageID: "u1", UserText: "genes <b>please</b>",
		StartedAt: t0.Add(time.Second),
		Items: []view.Item{
			&view.Message{Key: 2, ID: "m1", Text: "Looking.", Final: true},
			&view.ToolCall{Key: 4, ID: "c1", Name: "search_for_searches", Args: json.RawMessage(`{"query":"GO"}`), Status: view.CallError,
				Error: &event.ToolError{Code: "VALIDATION_ERROR", Message: "bad"}, DurationMs: 12},
			&view.TurnError{Key: 8, Code: "MODEL_ERROR", Message: "quota", Retryable: true},
		},
		Status: "failed", Error: "quota", DurationMs: 900, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12},
	}
	// The unexported fields link items to their turn and turns to their place.
	opt := cmpopts.IgnoreUnexported(view.Turn{}, view.Message{}, view.ToolCall{})
	if diff := cmp.Diff(want, got, opt); diff != "" {
		t.Errorf("turn mismatch (-want +got):\n%s", diff)
	}
	if _, running := c.Running(); running {
		t.Error("Running() = true after turn_end")
	}
}

// TestChanges pins what each event says changed: the stream sends exactly
// these parts of the page.
func TestChanges(t *testing.T) {
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "execute", UserMessageID: "u1", Message: "go"},
		&event.AssistantDelta{Base: base("t1"), MessageID: "m1", Delta: "a"},
		&event.AssistantDelta{Base: base("t1"), MessageID: "m1", Delta: "b"},
		&event.AssistantMessage{Base: base("t1"), MessageID: "m1", Content: "ab"},
		&event.AssistantMessage{Base: base("t1"), MessageID: "m2", Content: "whole"},
		&event.ToolCallStart{Base: base("t1"), CallID: "x", Name: "delegate_strategy_subtasks"},
		&event.SubagentPlan{Base: base("t1"), DelegationID: "d1", Goal: "g", Nodes: []event.PlanNode{{ID: "n1", Kind: "task", Label: "A"}}},
		&event.SubagentTaskStart{Base: base("t1"), DelegationID: "d1", NodeID: "n1", Attempt: 1},
		&event.SubagentTaskStart{Base: base("t1"), DelegationID: "old", NodeID: "n1", Attempt: 1},
		&event.GraphSnapshot{Base: base("t1"), StrategyID: "s", Version: 1, Snapshot: json.RawMessage(`{"strategyId":"s","version":1,"roots":[],"steps":[]}`)},
		&event.ArtifactSaved{Base: base("t1"), Artifact: event.Artifact{ID: "a1", Kind: "planning", Title: "A", Version: 1}},
		&event.HandoffAccepted{Base: base("t1"), HandoffID: "unknown"},
		&event.ToolCallEnd{Base: base("t1"), CallID: "x", Name: "delegate_strategy_subtasks", OK: true},
		&event.Usage{Base: base("t1"), Scope: "main"},
		&event.TurnEnd{Base: base("t1"), Status: "completed"},
		&event.Usage{Base: base("t1"), Scope: "main"},
	)
	want := [][]string{
		{"TurnAdded", "ComposerChanged"},
		{"ItemAdded"},
		{"DeltaAppended"},
		{"ItemReplaced"},
		{"ItemAdded"},
		{"ItemAdded"},
		{"DelegationChanged"},
		{"NodeChanged"},
		nil, // another delegation's node
		{"StrategyChanged"},
		{"ArtifactsChanged"},
		nil, // a handoff the log never requested
		{"ItemReplaced"},
		{"TurnUpdated"},
		{"TurnUpdated", "ComposerChanged", "StrategyChanged"}, // Undo waited for the turn
		nil, // usage after the end
	}
	c := view.New(view.Start{ID: "c1"})
	for i, r := range tr.recs {
		changes, err := c.Apply(r)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ch := range changes {
			names = append(names, reflect.TypeOf(ch).Name())
		}
		if diff := cmp.Diff(want[i], names); diff != "" {
			t.Errorf("event %d (%s) changes mismatch (-want +got):\n%s", r.Seq, r.Type, diff)
		}
	}
	// A record replayed (seq not above the last) changes nothing.
	if changes, _ := c.Apply(tr.recs[1]); changes != nil {
		t.Errorf("replayed record changed %v", changes)
	}
}

func TestDelegationFold(t *testing.T) {
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "execute"},
		&event.SubagentPlan{Base: base("t1"), DelegationID: "d1", Goal: "g", Nodes: []event.PlanNode{
			{ID: "n1", Kind: "task", Label: "A"}, {ID: "n2", Kind: "task", Label: "B"},
			{ID: "n3", Kind: "combine", Label: "A or B", DependsOn: []string{"n1", "n2"}, Operator: "UNION"},
		}},
		&event.SubagentTaskStart{Base: base("t1"), DelegationID: "d1", NodeID: "n1", Attempt: 1},
		&event.SubagentToolCallStart{Base: base("t1"), DelegationID: "d1", NodeID: "n1", CallID: "k1", Name: "create_step"},
		&event.SubagentToolCallEnd{Base: base("t1"), DelegationID: "d1", NodeID: "n1", CallID: "k1", Name: "create_step", OK: true, DurationMs: 5},
		&event.SubagentTaskEnd{Base: base("t1"), DelegationID: "d1", NodeID: "n1", Status: "done", Attempt: 1, RootStepID: "s1", DurationMs: 2000},
		&event.SubagentTaskStart{Base: base("t1"), DelegationID: "d1", NodeID: "n2", Attempt: 1},
		&event.SubagentMessage{Base: base("t1"), DelegationID: "d1", NodeID: "n2", Content: "no search fits"},
		&event.SubagentTaskEnd{Base: base("t1"), DelegationID: "d1", NodeID: "n2", Status: "failed", Attempt: 1, Error: "no finish", DurationMs: 1000},
		&event.SubagentTaskStart{Base: base("t1"), DelegationID: "d1", NodeID: "n2", Attempt: 2},
		&event.SubagentToolCallStart{Base: base("t1"), DelegationID: "d1", NodeID: "n2", CallID: "k2", Name: "create_step"},
		&event.SubagentTaskEnd{Base: base("t1"), DelegationID: "d1", NodeID: "n2", Status: "timeout", Attempt: 2, Error: "took too long", DurationMs: 120000},
		&event.SubagentTaskEnd{Base: base("t1"), DelegationID: "d1", NodeID: "n3", Status: "skipped", Error: "skipped: n2 did not finish"},
	)
	c := fold(t, tr.recs)
	type nodeState struct {
		ID, Status, Error string
		Attempt           int
		DurationMs        int64
		Calls             []string
		Messages          []string
	}
	var got []nodeState
	for _, n := range c.Delegation.Nodes {
		ns := nodeState{ID: n.ID, Status: string(n.Status), Error: n.Error, Attempt: n.Attempt, DurationMs: n.DurationMs, Messages: n.Messages}
		for _, tc := range n.Calls {
			ns.Calls = append(ns.Calls, tc.Name+":"+string(tc.Status))
		}
		got = append(got, ns)
	}
	want := []nodeState{
		{ID: "n1", Status: "done", Attempt: 1, DurationMs: 2000, Calls: []string{"create_step:ok"}},
		{ID: "n2", Status: "timeout", Error: "took too long", Attempt: 2, DurationMs: 120000, Calls: []string{"create_step:error"}, Messages: []string{"no search fits"}},
		{ID: "n3", Status: "skipped", Error: "skipped: n2 did not finish"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nodes mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[event.NodeStatus]int{event.NodeDone: 1, event.NodeTimeout: 1, event.NodeSkipped: 1}, c.Delegation.Counts()); diff != "" {
		t.Errorf("Counts() mismatch (-want +got):\n%s", diff)
	}
}

func TestHandoffs(t *testing.T) {
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "plan"},
		&event.ArtifactSaved{Base: base("t1"), Artifact: event.Artifact{ID: "a1", Kind: event.ArtifactDelegationDraft, Title: "Plan", Version: 1,
			Plan: json.RawMessage(`{"type":"task","task":"A"}`), Validation: json.RawMessage(`{"valid":true,"tasks":1,"nodes":1}`)}},
		&event.HandoffRequested{Base: base("t1"), HandoffID: "h1", Goal: "g1", ArtifactID: "a1"},
		&event.ArtifactSaved{Base: base("t1"), Artifact: event.Artifact{ID: "a1", Kind: event.ArtifactDelegationDraft, Title: "Plan v2", Version: 2,
			Plan: json.RawMessage(`{"type":"task","task":"B"}`), Validation: json.RawMessage(`{"valid":true,"tasks":1,"nodes":1}`)}},
		&event.HandoffRequested{Base: base("t1"), HandoffID: "h2", Goal: "g2", ArtifactID: "a1"},
		&event.HandoffRequested{Base: base("t1"), HandoffID: "h3", Goal: "g3", ArtifactID: "a9"},
		&event.TurnEnd{Base: base("t1"), Status: "completed"},
		&event.TurnStart{Base: base("t2"), Mode: "execute", HandoffID: "h3"},
		&event.HandoffAccepted{Base: base("t2"), HandoffID: "h3", ExecuteTurnID: "t2"},
	)
	c := fold(t, tr.recs)
	var got []string
	for _, h := range c.Handoffs {
		got = append(got, h.ID+":"+string(h.Status))
	}
	if diff := cmp.Diff([]string{"h1:superseded", "h2:superseded", "h3:accepted"}, got); diff != "" {
		t.Errorf("handoffs mismatch (-want +got):\n%s", diff)
	}
	if len(c.Artifacts) != 1 || c.Artifacts[0].Version != 2 || c.Artifacts[0].Draft.Task != "B" || !c.Artifacts[0].Validation.Valid {
		t.Errorf("artifacts = %+v, want one at version 2 with task B, valid", c.Artifacts)
	}
	if n := len(c.HandoffsOf("a1")); n != 2 {
		t.Errorf("HandoffsOf(a1) = %d handoffs, want 2", n)
	}
	if loose := c.LooseHandoffs(); len(loose) != 1 || loose[0].ID != "h3" {
		t.Errorf("LooseHandoffs() = %v, want h3", loose)
	}
	if c.Mode != "execute" {
		t.Errorf("Mode = %q, want execute (the latest turn's)", c.Mode)
	}
}

func TestParseDraft(t *testing.T) {
	plan := `{"type":"combine","operator":"not","displayName":"off 14",
		"left":{"type":"combine","operator":"OR","left":{"type":"task","task":"A","context":{"searchName":"GenesByGoTerm"}},
			"right":{"type":"task","task":"B","hint":"h","input":{"type":"task","task":"C"}}},
		"right":{"type":"combine","operator":"AND","left":{"type":"step","stepId":"s3"},"right":{"type":"task","task":"D"}}}`
	got := view.ParseDraft(json.RawMessage(plan))
	want := &view.DraftNode{Kind: "combine", Operator: "MINUS", DisplayName: "off 14", Children: []*view.DraftNode{
		{Kind: "combine", Operator: "UNION", Children: []*view.DraftNode{
			{Kind: "task", Task: "A", SearchName: "GenesByGoTerm"},
			{Kind: "task", Task: "B", Hint: "h", Children: []*view.DraftNode{{Kind: "task", Task: "C"}}},
		}},
		{Kind: "combine", Operator: "INTERSECT", Children: []*view.DraftNode{{Kind: "step", StepID: "s3"}, {Kind: "task", Task: "D"}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseDraft() mismatch (-want +got):\n%s", diff)
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{"type":`} {
		if d := view.ParseDraft(json.RawMessage(bad)); d != nil {
			t.Errorf("ParseDraft(%q) = %+v, want nil", bad, d)
		}
	}
}

func TestUserTextFallback(t *testing.T) {
	tr := &transcript{t: t}
	tr.add(&event.TurnStart{Base: base("t1"), Mode: "plan", UserMessageID: "u1"})
	c := view.New(view.Start{ID: "c1", UserText: func(id string) string { return map[string]string{"u1": "from the table"}[id] }})
	if _, err := c.Apply(tr.recs[0]); err != nil {
		t.Fatal(err)
	}
	if got := c.Turns[0].UserText; got != "from the table" {
		t.Errorf("UserText = %q, want the stored message", got)
	}
}

// readRecorded reads a transcript recorded from a real server (see
// web/testdata/README.md).
func readRecorded(t *testing.T, name string) []event.Record {
	t.Helper()
	f, err := os.Open("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []event.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var r event.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestRecordedTranscript(t *testing.T) {
	c := fold(t, readRecorded(t, "recorded.jsonl"))
	var statuses []string
	for _, tu := range c.Turns {
		statuses = append(statuses, string(tu.Status))
	}
	wantStatuses := []string{"completed", "cancelled", "completed", "completed", "completed", "failed", "completed", "completed"}
	if diff := cmp.Diff(wantStatuses, statuses); diff != "" {
		t.Errorf("turn statuses mismatch (-want +got):\n%s", diff)
	}
	if got := c.Turns[0].UserText; got != "Replication or repair genes off chromosome 14 <script>alert(1)</script>" {
		t.Errorf("first user text = %q", got)
	}
	var errs int
	for _, it := range c.Turns[5].Items {
		if _, ok := it.(*view.TurnError); ok {
			errs++
		}
	}
	if errs != 1 {
		t.Errorf("failed turn has %d error items, want 1", errs)
	}
	var handoffs []string
	for _, h := range c.Handoffs {
		handoffs = append(handoffs, string(h.Status))
	}
	if diff := cmp.Diff([]string{"accepted", "superseded", "pending"}, handoffs); diff != "" {
		t.Errorf("handoffs mismatch (-want +got):\n%s", diff)
	}
	if c.Strategy == nil || c.Strategy.Version != 9 {
		t.Fatalf("strategy = %+v, want version 9", c.Strategy)
	}
	for _, n := range c.Delegation.Nodes {
		if n.Status != "done" {
			t.Errorf("last delegation's node %s = %s, want done", n.ID, n.Status)
		}
	}
	if c.Seq != 243 {
		t.Errorf("Seq = %d, want 243", c.Seq)
	}
}

// TestFolding pins when a turn folds into its summary line: when a new turn
// pushes it out of the latest OpenTurns, when it ends outside them, and
// when a late event changes it while folded.
func TestFolding(t *testing.T) {
	tr := &transcript{t: t}
	turn := func(id string) []event.Event {
		return []event.Event{
			&event.TurnStart{Base: base(id), Mode: "plan", Message: "ask " + id},
			&event.ToolCallStart{Base: base(id), CallID: "k", Name: "search_for_searches"},
			&event.ToolCallEnd{Base: base(id), CallID: "k", Name: "search_for_searches", OK: true},
			&event.TurnEnd{Base: base(id), Status: "completed"},
		}
	}
	tr.add(turn("t1")...).add(turn("t2")...)
	tr.add(&event.TurnStart{Base: base("t3"), Mode: "plan"})              // 9: t1 folds
	tr.add(&event.Error{Base: base("t1"), Code: "LATE", Message: "late"}) // 10: a change inside folded t1
	tr.add(&event.TurnEnd{Base: base("t3"), Status: "completed"})
	// t4 starts while t5's start comes before t4 ended (a placeholder-free
	// overlap): t3 folds at t5's start, t4 only when it ends.
	tr.add(&event.TurnStart{Base: base("t4"), Mode: "plan"})      // 12: t2 folds
	tr.add(&event.TurnStart{Base: base("t5"), Mode: "plan"})      // 13: t3 folds; t4 runs
	tr.add(&event.TurnStart{Base: base("t6"), Mode: "plan"})      // 14: t4 is out of the open turns but running
	tr.add(&event.TurnEnd{Base: base("t4"), Status: "cancelled"}) // 15: t4 folds
	want := map[int64][]string{
		9:  {"TurnFolded:t1", "TurnAdded:t3", "ComposerChanged"},
		10: {"TurnFolded:t1"},
		11: {"TurnUpdated:t3", "ComposerChanged"},
		12: {"TurnFolded:t2", "TurnAdded:t4", "ComposerChanged"},
		13: {"TurnFolded:t3", "TurnAdded:t5", "ComposerChanged"},
		14: {"TurnAdded:t6", "ComposerChanged"},
		15: {"TurnFolded:t4", "ComposerChanged"},
	}
	c := view.New(view.Start{ID: "c1"})
	for _, r := range tr.recs {
		changes, err := c.Apply(r)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[r.Seq]
		if !ok {
			continue
		}
		var names []string
		for _, ch := range changes {
			name := reflect.TypeOf(ch).Name()
			if f := reflect.ValueOf(ch).FieldByName("Turn"); f.IsValid() {
				name += ":" + f.Interface().(*view.Turn).ID
			}
			names = append(names, name)
		}
		if diff := cmp.Diff(w, names); diff != "" {
			t.Errorf("event %d (%s) changes mismatch (-want +got):\n%s", r.Seq, r.Type, diff)
		}
	}
	var folded []string
	for _, tn := range c.Turns {
		if c.Folded(tn) {
			folded = append(folded, tn.ID)
		}
	}
	if diff := cmp.Diff([]string{"t1", "t2", "t3", "t4"}, folded); diff != "" {
		t.Errorf("folded turns (-want +got):\n%s", diff)
	}
	if got := c.Turn("t2"); got == nil || got.UserText != "ask t2" {
		t.Errorf("Turn(t2) = %+v", got)
	}
	if c.Turn("nope") != nil {
		t.Error("Turn(nope) is not nil")
	}
	if tc := c.ToolCall(6); tc == nil || tc.Name != "search_for_searches" {
		t.Errorf("ToolCall(6) = %+v, want t2's call", tc)
	}
	if tc := c.ToolCall(7); tc != nil {
		t.Errorf("ToolCall(7) = %+v, want nil (7 is a tool_call_end)", tc)
	}
}

// TestRetryFold: a retried node shows as retrying, with the cause, from
// its subagent_task_retry until the retried attempt ends.
func TestRetryFold(t *testing.T) {
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "execute"},
		&event.SubagentPlan{Base: base("t1"), DelegationID: "d2", Goal: "g", Nodes: []event.PlanNode{{ID: "n2", Kind: "task", Label: "B"}}},
		&event.SubagentTaskRetry{Base: base("t1"), DelegationID: "d2", NodeID: "n2", Attempt: 2, Cause: "attempt 1 was cut short"},
		&event.SubagentTaskStart{Base: base("t1"), DelegationID: "d2", NodeID: "n2", Attempt: 2},
	)
	c := fold(t, tr.recs)
	n := c.Delegation.Nodes[0]
	if n.Status != view.NodeRetrying || n.Retry != "attempt 1 was cut short" || n.Attempt != 2 || !n.Active() {
		t.Errorf("retried node = %s attempt %d retry %q", n.Status, n.Attempt, n.Retry)
	}
	tr.add(&event.SubagentTaskEnd{Base: base("t1"), DelegationID: "d2", NodeID: "n2", Status: "done", Attempt: 2, RootStepID: "s3"})
	c = fold(t, tr.recs)
	if n := c.Delegation.Nodes[0]; n.Status != event.NodeDone || n.Retry != "" {
		t.Errorf("after its end the node is %s retry %q", n.Status, n.Retry)
	}
}

// TestUndoByTurn: Undo and Redo name a turn's changes as one unit, and the
// history offers the version before each turn with its result.
func TestUndoByTurn(t *testing.T) {
	snap := func(v int, count int) event.Event {
		body := fmt.Sprintf(`{"strategyId":"s","version":%d,"rootStepId":"s1","roots":["s1"],"steps":[{"id":"s1","kind":"search","inputs":[],"count":%d,"countStatus":"ok"}]}`, v, count)
		if count < 0 {
			body = fmt.Sprintf(`{"strategyId":"s","version":%d,"roots":[],"steps":[]}`, v)
		}
		return &event.GraphSnapshot{StrategyID: "s", Version: v, Snapshot: json.RawMessage(body)}
	}
	changed := func(turn string, e event.Event, ch string) event.Event {
		g := e.(*event.GraphSnapshot)
		g.Base = base(turn)
		g.Change = json.RawMessage(ch)
		return g
	}
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "execute", UserMessageID: "u1", Message: "kinases"},
		changed("t1", snap(0, -1), `{"op":"create","turn":"t1"}`),
		changed("t1", snap(1, 10), `{"op":"add_search","summary":"added s1","turn":"t1"}`),
		changed("t1", snap(2, 60), `{"op":"update_step","summary":"updated s1","turn":"t1"}`),
		&event.TurnStart{Base: base("t2"), Mode: "execute", UserMessageID: "u2", Message: "exclude chromosome 5"},
		changed("t2", snap(3, 50), `{"op":"update_step","summary":"a","turn":"t2"}`),
		changed("t2", snap(4, 40), `{"op":"update_step","summary":"b","turn":"t2"}`),
		changed("t2", snap(5, 30), `{"op":"update_step","summary":"c","turn":"t2"}`),
	)
	c := fold(t, tr.recs)
	// Turn t1 created the strategy and changed it twice: two changes, as
	// its note and Undo say.
	if got := c.Turns[0].StrategyChanges; got != 2 {
		t.Errorf("turn t1 made %d changes, want 2 (its creation is none)", got)
	}
	if got, want := c.UndoLabel(), "3 changes by “exclude chromosome 5”"; got != want {
		t.Errorf("UndoLabel() = %q, want %q", got, want)
	}
	var got []string
	for _, cp := range c.History() {
		count := "empty"
		if cp.Root != nil {
			count = fmt.Sprint(*cp.Root.Count)
		}
		got = append(got, fmt.Sprintf("%d %s %s", cp.Version, cp.Before, count))
	}
	if diff := cmp.Diff([]string{"2 “exclude chromosome 5” 60", "0 “kinases” empty"}, got); diff != "" {
		t.Errorf("History() (-want +got):\n%s", diff)
	}
	// After the undo of turn t2: Redo names it, Undo names turn t1, and the
	// history offers the latest version.
	restored := 2
	undo, _ := json.Marshal(map[string]any{"op": "undo", "restoredVersion": restored, "undoneVersion": 5, "summary": "undid"})
	tr.add(changed("", snap(6, 60), string(undo)))
	c = fold(t, tr.recs)
	if label, ok := c.RedoLabel(); !ok || label != "3 changes by “exclude chromosome 5”" {
		t.Errorf("RedoLabel() = %q, %v", label, ok)
	}
	if got := c.UndoLabel(); got != "2 changes by “kinases”" {
		t.Errorf("UndoLabel() after the undo = %q", got)
	}
	// The strategy stands at version 2 (before turn t2), which is not listed.
	if h := c.History(); len(h) != 2 || !h[0].Latest || h[0].Version != 5 || h[1].Version != 0 {
		t.Errorf("History() after the undo = %+v", h)
	}
}
