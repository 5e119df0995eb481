package view_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/plan"
	"strategist/internal/strategy"
	"strategist/web/view"
)

// A turn's consecutive tool calls are one group; a message between calls
// starts a new one.
func TestCallGroups(t *testing.T) {
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "plan", Message: "go"},
		&event.ToolCallStart{Base: base("t1"), CallID: "a", Name: "search_for_searches"},
		&event.ToolCallStart{Base: base("t1"), CallID: "b", Name: "get_search_parameters"},
		&event.ToolCallEnd{Base: base("t1"), CallID: "a", Name: "search_for_searches", OK: true},
		&event.AssistantMessage{Base: base("t1"), MessageID: "m1", Content: "so far"},
		&event.ToolCallStart{Base: base("t1"), CallID: "c", Name: "create_step"},
		&event.ToolCallEnd{Base: base("t1"), CallID: "z", Name: "create_step", OK: true}, // an end without its start
	)
	c := fold(t, tr.recs)
	var got []string
	for _, it := range c.Turns[0].Grouped() {
		switch it := it.(type) {
		case *view.CallGroup:
			s := "group"
			for _, tc := range it.Calls {
				s += " " + tc.ID
			}
			got = append(got, s)
		case *view.Message:
			got = append(got, "message")
		}
	}
	if diff := cmp.Diff([]string{"group a b", "message", "group c z"}, got); diff != "" {
		t.Errorf("grouped items mismatch (-want +got):\n%s", diff)
	}
	b := c.ToolCall(3)
	if b == nil || b.FirstOfGroup() || b.Group() != 2 || len(b.GroupOf().Calls) != 2 {
		t.Errorf("call b: group %d, first %v, want group 2 of 2 calls, not first", b.Group(), b.FirstOfGroup())
	}
}

// A build request changes the turn that asked for it, and the turns of
// the requests it supersedes; its approval changes the asking turn.
func TestHandoffChanges(t *testing.T) {
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "plan"},
		&event.HandoffRequested{Base: base("t1"), HandoffID: "h1", Goal: "g1", ArtifactID: "a1"},
		&event.TurnEnd{Base: base("t1"), Status: "completed"},
		&event.TurnStart{Base: base("t2"), Mode: "plan"},
		&event.HandoffRequested{Base: base("t2"), HandoffID: "h2", Goal: "g2", ArtifactID: "a1"},
		&event.TurnEnd{Base: base("t2"), Status: "completed"},
		&event.TurnStart{Base: base("t3"), Mode: "execute", HandoffID: "h2"},
		&event.HandoffAccepted{Base: base("t3"), HandoffID: "h2", ExecuteTurnID: "t3"},
	)
	c := view.New(view.Start{ID: "c1"})
	var got [][]string
	for _, r := range tr.recs {
		changes, err := c.Apply(r)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ch := range changes {
			n := reflect.TypeOf(ch).Name()
			if hc, ok := ch.(view.HandoffChanged); ok {
				n += ":" + hc.Turn.ID
			}
			names = append(names, n)
		}
		got = append(got, names)
	}
	want := [][]string{
		{"TurnAdded", "ComposerChanged"},
		{"ArtifactsChanged", "HandoffChanged:t1"},
		{"TurnUpdated", "ComposerChanged"},
		{"TurnAdded", "ComposerChanged"},
		{"ArtifactsChanged", "HandoffChanged:t1", "HandoffChanged:t2"},
		{"TurnUpdated", "ComposerChanged"},
		// t1 is folded now: the new turn redraws its summary line.
		{"TurnFolded", "TurnAdded", "ComposerChanged"},
		{"ArtifactsChanged", "HandoffChanged:t2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes mismatch (-want +got):\n%s", diff)
	}
	if hs := c.TurnHandoffs(c.Turn("t2")); len(hs) != 1 || hs[0].ID != "h2" || hs[0].Status != view.HandoffAccepted {
		t.Errorf("TurnHandoffs(t2) = %+v, want h2 accepted", hs)
	}
}

// After a stopped build, Retry is the researcher's last message and Build
// again the build; a completed turn offers neither.
func TestRecovery(t *testing.T) {
	build := plan.BuildPrefix + "\n```json\n{\"handoffId\":\"h1\",\"goal\":\"G\",\"plan\":{\"type\":\"task\",\"task\":\"A\"}}\n```"
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "plan", Model: "m1", Message: "find genes"},
		&event.TurnEnd{Base: base("t1"), Status: "completed"},
		&event.TurnStart{Base: base("t2"), Mode: "execute", Model: "m2", HandoffID: "h1", Message: build},
		&event.TurnEnd{Base: base("t2"), Status: "cancelled"},
	)
	c := fold(t, tr.recs[:2])
	if r := c.Recovery(); r != nil {
		t.Errorf("Recovery() after a completed turn = %+v, want nil", r)
	}
	c = fold(t, tr.recs)
	r := c.Recovery()
	if r == nil || r.Turn.ID != "t2" || r.Retry == nil || r.Retry.ID != "t1" || r.Build == nil || r.Build.ID != "t2" {
		t.Fatalf("Recovery() = %+v, want t2 stopped, retry t1, build t2", r)
	}
	// Build again's turn is a build too, recognised by its message.
	tr.add(
		&event.TurnStart{Base: base("t3"), Mode: "execute", Message: build},
		&event.TurnEnd{Base: base("t3"), Status: "failed", Error: "boom"},
	)
	c = fold(t, tr.recs)
	if goal, ok := c.Turn("t3").Rebuild(); !ok || goal != "G" {
		t.Errorf("Rebuild() = %q, %v, want G, true", goal, ok)
	}
	if r := c.Recovery(); r == nil || r.Retry.ID != "t1" || r.Build == nil || r.Build.ID != "t3" {
		t.Errorf("Recovery() after a failed rebuild = %+v, want retry t1, build t3", r)
	}
}

// The offline engine's introduction shows in the first message that has
// it, not in later ones.
func TestOfflineIntroOnce(t *testing.T) {
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "plan", Message: "x"},
		&event.AssistantDelta{Base: base("t1"), MessageID: "m1", Delta: llm.OfflineIntro},
		&event.AssistantMessage{Base: base("t1"), MessageID: "m1", Content: llm.OfflineIntro + "\n\nFirst."},
		&event.AssistantMessage{Base: base("t1"), MessageID: "m2", Content: llm.OfflineIntro + "\n\nSecond."},
		&event.AssistantMessage{Base: base("t1"), MessageID: "m3", Content: "Third."},
	)
	c := fold(t, tr.recs)
	var got []string
	for _, it := range c.Turns[0].Items {
		got = append(got, it.(*view.Message).Shown())
	}
	want := []string{llm.OfflineIntro + "\n\nFirst.", "Second.", "Third."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shown texts mismatch (-want +got):\n%s", diff)
	}
}

// Undo names the change it would revert, walking back through undos as
// the strategy service does.
func TestUndoLabel(t *testing.T) {
	snap := func(v int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"strategyId":"s","version":%d,"roots":[],"steps":[]}`, v))
	}
	change := func(c strategy.Change) json.RawMessage {
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	one := 1
	tr := &transcript{t: t}
	tr.add(
		&event.TurnStart{Base: base("t1"), Mode: "execute"},
		&event.GraphSnapshot{Base: base("t1"), StrategyID: "s", Version: 0, Snapshot: snap(0)},
		&event.GraphSnapshot{Base: base("t1"), StrategyID: "s", Version: 1, Snapshot: snap(1), Change: change(strategy.Change{Op: strategy.OpAddSearch, Summary: "added search step s1"})},
		&event.GraphSnapshot{Base: base("t1"), StrategyID: "s", Version: 2, Snapshot: snap(2), Change: change(strategy.Change{Op: strategy.OpCombine, Summary: "combined s1 UNION s2 into s3"})},
		&event.GraphSnapshot{Base: base("t1"), StrategyID: "s", Version: 3, Snapshot: snap(3), Change: change(strategy.Change{Op: strategy.OpUndo, UndoneVersion: 2, RestoredVersion: &one})},
	)
	two := 2
	tr.add(&event.GraphSnapshot{Base: base("t1"), StrategyID: "s", Version: 4, Snapshot: snap(4), Change: change(strategy.Change{Op: strategy.OpRedo, UndoneVersion: 1, RestoredVersion: &two})})
	want := []string{"", "", "", "added search step s1", "combined s1 UNION s2 into s3", "added search step s1", "combined s1 UNION s2 into s3"}
	wantRedo := []string{"", "", "", "", "", "combined s1 UNION s2 into s3", ""}
	for n := 0; n <= len(tr.recs); n++ {
		c := fold(t, tr.recs[:n])
		if got := c.UndoLabel(); got != want[n] {
			t.Errorf("after %d events: UndoLabel() = %q, want %q", n, got, want[n])
		}
		if got, ok := c.RedoLabel(); got != wantRedo[n] || ok != (wantRedo[n] != "") {
			t.Errorf("after %d events: RedoLabel() = %q, %v, want %q", n, got, ok, wantRedo[n])
		}
	}
}
