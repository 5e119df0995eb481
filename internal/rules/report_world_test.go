package rules_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/event"
)

// TestReportCounts builds strategies through the real roles and checks how
// the executor's report says their root counts: an approximate one with
// "≈" and what makes it so, an approximate zero as no text matches, and a
// root the catalog cannot compute as not evaluable offline, with no
// number. Expected counts come from the raw files.
func TestReportCounts(t *testing.T) {
	data := loadData(t)
	build := func(t *testing.T, request string) string {
		t.Helper()
		w := newWorld(t)
		plan := w.turn(t, "plan", request)
		handoffs := find[*event.HandoffRequested](plan.emitted)
		if len(handoffs) != 1 {
			t.Fatalf("no build requested; planner said:\n%s", plan.end.Text)
		}
		b := w.turn(t, "execute", buildMessage(t, handoffs[0]))
		if b.end.Reason != agent.StopCompleted {
			t.Fatalf("execute turn ended %v: %v", b.end.Reason, b.end.Err)
		}
		return b.end.Text
	}
	t.Run("approximate", func(t *testing.T) {
		text := build(t, "text search for kinases")
		want := fmt.Sprintf("Root step s1: **≈ %d genes (approximate: text search)**", len(data.Words("kinase")))
		if !strings.Contains(text, want) {
			t.Errorf("report does not say %q:\n%s", want, text)
		}
	})
	t.Run("approximate zero", func(t *testing.T) {
		text := build(t, "text search for zzqx flurble")
		if !strings.Contains(text, "Root step s1: **no text matches**") || strings.Contains(text, "0 genes") {
			t.Errorf("report does not say no text matches:\n%s", text)
		}
	})
	t.Run("not evaluable", func(t *testing.T) {
		w := newWorld(t)
		ctx := map[string]any{"searchName": "GenesByGoTerm", "parameters": map[string]string{
			"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["GO:0006281"]`, "go_term_evidence": `["Curated"]`,
		}, "displayName": "DNA repair, curated evidence"}
		msg, err := json.MarshalIndent(map[string]any{"handoffId": "h1", "goal": "curated DNA repair genes",
			"plan": map[string]any{"type": "task", "task": "DNA repair genes with curated evidence", "context": ctx}}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		b := w.turn(t, "execute", "Build the approved plan:\n```json\n"+string(msg)+"\n```")
		if b.end.Reason != agent.StopCompleted {
			t.Fatalf("execute turn ended %v: %v", b.end.Reason, b.end.Err)
		}
		line := regexp.MustCompile(`Root step s1: (.*)`).FindStringSubmatch(b.end.Text)
		if line == nil {
			t.Fatalf("no root line in the report:\n%s", b.end.Text)
		}
		if !strings.HasPrefix(line[1], "**not evaluable offline** (GenesByGoTerm: go_term_evidence") ||
			regexp.MustCompile(`\d+ genes?\b`).MatchString(line[1]) {
			t.Errorf("root line = %q, want not evaluable offline naming go_term_evidence, with no number", line[1])
		}
		_, root := rootCount(t, b.emitted)
		if root.Count != nil {
			t.Errorf("the root has a count: %d", *root.Count)
		}
	})
}
