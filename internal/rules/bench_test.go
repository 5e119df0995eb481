package rules_test

import (
	"testing"

	"strategist/internal/agent"
	"strategist/internal/llm"
	"strategist/internal/rules"
)

// BenchmarkStreamFirstRound measures one engine call: reading the request
// and answering with the first round of catalog calls.
func BenchmarkStreamFirstRound(b *testing.B) {
	e, err := rules.New(rules.Config{})
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Agent: rules.RolePlanner, Messages: []llm.Message{{Role: llm.RoleUser, Text: acceptanceRequest}},
		Tools: []llm.ToolDecl{{Name: "search_for_searches"}, {Name: "get_search_parameters"}, {Name: "set_conversation_title"}}}
	for b.Loop() {
		for _, err := range e.Stream(b.Context(), req) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPlanTurn measures a whole plan turn of the acceptance request:
// the real planner tools, the agent loop, the offline catalog and
// Postgres (artifacts, handoff).
func BenchmarkPlanTurn(b *testing.B) {
	w := newWorld(b)
	for b.Loop() {
		r := w.turn(b, "plan", acceptanceRequest)
		if r.end.Reason != agent.StopCompleted {
			b.Fatalf("plan turn ended %v: %v", r.end.Reason, r.end.Err)
		}
	}
}
