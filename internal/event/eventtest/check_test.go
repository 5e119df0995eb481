package eventtest_test

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/llm"
)

var _ = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	conv   = "c0000000-0000-4000-8000-000000000001"
	turnP  = "7a000000-0000-4000-8000-00000000000a"
	turnE  = "7b000000-0000-4000-8000-00000000000b"
	deleg  = "d0000000-0000-4000-8000-00000000000d"
	strat  = "50000000-0000-4000-8000-000000000005"
	handof = "4a000000-0000-4000-8000-00000000004a"
)

// transcript builds records as the log would store them.
type transcript struct {
	recs []event.Record
}

func (tr *transcript) add(es ...event.Event) *transcript {
	for _, e := range es {
		name, payload, err := event.Encode(e)
		if err != nil {
			panic(err)
		}
		tr.recs = append(tr.recs, event.Record{
			ConversationID: conv, Seq: int64(len(tr.recs) + 1), TurnID: e.Turn(), Type: name, Payload: payload,
			CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		})
	}
	return tr
}

func b(turn string) event.Base { return event.Base{TurnID: turn} }

// goodTranscript is a plan turn ending in a handoff, then an execute turn
// whose delegation has a retried task, a failed task with a skipped
// dependent, and a combine.
func goodTranscript() []event.Record {
	tr := &transcript{}
	tr.add(
		&event.TurnStart{Base: b(turnP), Mode: "plan", Model: "offline", UserMessageID: "m-user-1"},
		&event.AssistantDelta{Base: b(turnP), MessageID: "m-a-1", Delta: "Let me look "},
		&event.ToolCallStart{Base: b(turnP), CallID: "call-x1", Name: "search_for_searches", Args: json.RawMessage(`{"query":"kinase"}`)},
		&event.ToolCallStart{Base: b(turnP), CallID: "call-x2", Name: "list_sites", Args: json.RawMessage(`{}`)},
		&event.ToolCallEnd{Base: b(turnP), CallID: "call-x2", Name: "list_sites", OK: true, Result: json.RawMessage(`{"sites":["plasmodb"]}`), DurationMs: 3},
		&event.ToolCallEnd{Base: b(turnP), CallID: "call-x1", Name: "search_for_searches", OK: false, Error: &event.ToolError{Code: "VALIDATION_ERROR", Message: "bad"}, DurationMs: 12},
		&event.HandoffRequested{Base: b(turnP), HandoffID: handof, Goal: "kinases on chr 5", ArtifactID: "a0000000-0000-4000-8000-0000000000aa", Plan: json.RawMessage(`{"type":"task","task":"x"}`)},
		&event.AssistantMessage{Base: b(turnP), MessageID: "m-a-1", Content: "Let me look at kinases."},
		&event.TurnEnd{Base: b(turnP), Status: event.TurnCompleted, DurationMs: 1234, Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}},

		&event.TurnStart{Base: b(turnE), Mode: "execute", Model: "offline", UserMessageID: "m-user-2", HandoffID: handof},
		&event.SubagentPlan{Base: b(turnE), DelegationID: deleg, Goal: "g", Nodes: []event.PlanNode{
			{ID: "n1", Kind: "task", Label: "kinases"},
			{ID: "n2", Kind: "task", Label: "chromosome 5"},
			{ID: "n3", Kind: "combine", Label: "both", DependsOn: []string{"n1", "n2"}, Operator: "INTERSECT"},
			{ID: "n4", Kind: "task", Label: "fails"},
			{ID: "n5", Kind: "task", Label: "after fails", DependsOn: []string{"n4"}},
		}},
		&event.SubagentTaskStart{Base: b(turnE), DelegationID: deleg, NodeID: "n1", Attempt: 1},
		&event.SubagentTaskStart{Base: b(turnE), DelegationID: deleg, NodeID: "n2", Attempt: 1},
		&event.SubagentTaskStart{Base: b(turnE), DelegationID: deleg, NodeID: "n4", Attempt: 1},
		&event.SubagentToolCallStart{Base: b(turnE), DelegationID: deleg, NodeID: "n1", CallID: "call-s1", Name: "create_step", Args: json.RawMessage(`{}`)},
		&event.SubagentTaskEnd{Base: b(turnE), DelegationID: deleg, NodeID: "n2", Status: event.NodeTimeout, Attempt: 1, DurationMs: 120000},
		&event.GraphSnapshot{Base: b(turnE), StrategyID: strat, Version: 1, Snapshot: json.RawMessage(`{"steps":[{"id":"s1"}]}`)},
		&event.SubagentToolCallEnd{Base: b(turnE), DelegationID: deleg, NodeID: "n1", CallID: "call-s1", Name: "create_step", OK: true, Result: json.RawMessage(`{"stepId":"s1"}`), DurationMs: 4},
		&event.SubagentMessage{Base: b(turnE), DelegationID: deleg, NodeID: "n1", Content: "done"},
		&event.SubagentTaskEnd{Base: b(turnE), DelegationID: deleg, NodeID: "n1", Status: event.NodeDone, Attempt: 1, RootStepID: "s1", DurationMs: 50},
		&event.SubagentTaskRetry{Base: b(turnE), DelegationID: deleg, NodeID: "n2", Attempt: 2, Cause: "attempt 1 timed out after 2m0s"},
		&event.SubagentTaskStart{Base: b(turnE), DelegationID: deleg, NodeID: "n2", Attempt: 2},
		&event.SubagentTaskEnd{Base: b(turnE), DelegationID: deleg, NodeID: "n4", Status: event.NodeFailed, Attempt: 1, Error: "no such search", DurationMs: 10},
		&event.SubagentTaskEnd{Base: b(turnE), DelegationID: deleg, NodeID: "n5", Status: event.NodeSkipped},
		&event.GraphSnapshot{Base: b(turnE), StrategyID: strat, Version: 2, Snapshot: json.RawMessage(`{"steps":[{"id":"s1"},{"id":"s2"}]}`)},
		&event.SubagentTaskEnd{Base: b(turnE), DelegationID: deleg, NodeID: "n2", Status: event.NodeDone, Attempt: 2, RootStepID: "s2", DurationMs: 70},
		&event.SubagentTaskStart{Base: b(turnE), DelegationID: deleg, NodeID: "n3", Attempt: 1},
		&event.GraphSnapshot{Base: b(turnE), StrategyID: strat, Version: 3, Snapshot: json.RawMessage(`{"steps":[{"id":"s1"},{"id":"s2"},{"id":"s3"}]}`)},
		&event.SubagentTaskEnd{Base: b(turnE), DelegationID: deleg, NodeID: "n3", Status: event.NodeDone, Attempt: 1, RootStepID: "s3", DurationMs: 1},
		&event.Usage{Base: b(turnE), Scope: "subagent", NodeID: "n1", Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
		&event.Error{Base: b(turnE), Code: "PARTIAL", Message: "one task failed", Retryable: false},
		&event.TurnEnd{Base: b(turnE), Status: event.TurnFailed, Error: "one task failed", DurationMs: 99},
	)
	return tr.recs
}

func TestCheckAcceptsAGoodTranscript(t *testing.T) {
	recs := goodTranscript()
	eventtest.Check(t, recs)
	// Any suffix is a resumed stream: still valid.
	for from := range recs {
		if v := eventtest.Violations(recs[from:], false); len(v) != 0 {
			t.Errorf("transcript resumed at seq %d: %v", recs[from].Seq, v)
		}
	}
	// Cut before the end, it is valid only as an open transcript.
	cut := recs[:len(recs)-1]
	if v := eventtest.Violations(cut, true); len(v) != 0 {
		t.Errorf("open transcript: %v", v)
	}
	if v := eventtest.Violations(cut, false); len(v) != 1 || !strings.Contains(v[0], "has no turn_end") {
		t.Errorf("cut transcript violations = %v, want the missing turn_end", v)
	}
}

// edit returns the good transcript changed by fn, renumbered.
func edit(fn func([]event.Record) []event.Record) []event.Record {
	recs := fn(goodTranscript())
	for i := range recs {
		recs[i].Seq = int64(i + 1)
	}
	return recs
}

// at finds the first record of a type (and node, for node events).
func at(recs []event.Record, typ, node string) int {
	for i, r := range recs {
		if r.Type == typ && (node == "" || strings.Contains(string(r.Payload), `"nodeId":"`+node+`"`)) {
			return i
		}
	}
	panic("no " + typ + " " + node)
}

func remove(recs []event.Record, i int) []event.Record { return append(recs[:i:i], recs[i+1:]...) }

func move(recs []event.Record, from, to int) []event.Record {
	r := recs[from]
	recs = remove(recs, from)
	return append(recs[:to:to], append([]event.Record{r}, recs[to:]...)...)
}

func replacePayload(recs []event.Record, i int, old, new string) []event.Record {
	recs[i].Payload = json.RawMessage(strings.Replace(string(recs[i].Payload), old, new, 1))
	return recs
}

func TestCheckCatchesViolations(t *testing.T) {
	tests := []struct {
		name string
		recs []event.Record
		want string
	}{
		{"seq gap", func() []event.Record {
			r := goodTranscript()
			r[4].Seq = 40
			return r
		}(), "seq follows"},
		{"undecodable", edit(func(r []event.Record) []event.Record { r[1].Type = "mystery"; return r }), "does not decode"},
		{"turn id mismatch", edit(func(r []event.Record) []event.Record { r[1].TurnID = turnE; return r }), "payload turnId"},
		{"missing turnId", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, 1, `"turnId":"`+turnP+`"`, `"turnId":""`)
		}), "no turnId"},
		{"event before turn_start", edit(func(r []event.Record) []event.Record { return move(r, 1, 0) }), "before its turn_start"},
		{"second turn_start", edit(func(r []event.Record) []event.Record {
			return append(r[:2:2], append([]event.Record{r[0]}, r[2:]...)...)
		}), "second turn_start"},
		{"event after turn_end", edit(func(r []event.Record) []event.Record { return move(r, 1, 8) }), "after turn"},
		{"overlapping turns", edit(func(r []event.Record) []event.Record { return move(r, 9, 5) }), "still running"},
		{"missing turn_end", edit(func(r []event.Record) []event.Record { return r[:len(r)-1] }), "has no turn_end"},
		{"bad turn status", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, 8, `"status":"completed"`, `"status":"finished"`)
		}), "turn_end status"},
		{"tool end before start", edit(func(r []event.Record) []event.Record { return move(r, 5, 2) }), "ends without its start"},
		{"resumed with a call open", edit(func(r []event.Record) []event.Record {
			i := at(r, "tool_call_start", "")
			resumed := r[i]
			resumed.Type, resumed.Payload = "turn_resumed", json.RawMessage(`{"turnId":"`+resumed.TurnID+`","run":2,"reason":"stopped"}`)
			return append(r[:i+1:i+1], append([]event.Record{resumed}, r[i+1:]...)...)
		}), "turn resumes while tool call"},
		{"tool call never ends", edit(func(r []event.Record) []event.Record { return remove(r, 5) }), "never ended"},
		{"tool call started twice", edit(func(r []event.Record) []event.Record {
			return append(r[:3:3], append([]event.Record{r[2]}, r[3:]...)...)
		}), "started twice"},
		{"tool name changes", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, 5, `"name":"search_for_searches"`, `"name":"lookup_genes"`)
		}), "ends as lookup_genes"},
		{"sub-agent call outside its node", edit(func(r []event.Record) []event.Record {
			return move(r, at(r, "subagent_tool_call_start", "n1"), at(r, "subagent_task_start", "n1"))
		}), "is not running"},
		{"node starts before its dependency is done", edit(func(r []event.Record) []event.Record {
			return move(r, at(r, "subagent_task_start", "n3"), at(r, "subagent_task_end", "n1"))
		}), "starts before its dependency"},
		{"node with a failed dependency starts", edit(func(r []event.Record) []event.Record {
			i := at(r, "subagent_task_end", "n5")
			r[i] = r[at(r, "subagent_task_start", "n4")]
			return replacePayload(r, i, `"nodeId":"n4"`, `"nodeId":"n5"`)
		}), "starts before its dependency n4 ended done (failed)"},
		{"skipped without a failed dependency", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, at(r, "subagent_plan", ""), `"dependsOn":["n4"]`, `"dependsOn":["n1"]`)
		}), "skipped although"},
		{"attempt still running", edit(func(r []event.Record) []event.Record {
			r = remove(r, at(r, "subagent_task_end", "n2"))
			i := at(r, "subagent_task_start", "n2")
			j := i + 1 + at(r[i+1:], "subagent_task_start", "n2")
			return replacePayload(r, j, `"attempt":2`, `"attempt":1`)
		}), "while attempt 1 still runs"},
		{"attempt not increasing", edit(func(r []event.Record) []event.Record {
			i := at(r, "subagent_task_start", "n2")
			j := i + 1 + at(r[i+1:], "subagent_task_start", "n2")
			return replacePayload(r, j, `"attempt":2`, `"attempt":1`)
		}), "attempt 1 after attempt 1"},
		{"retry while the attempt runs", edit(func(r []event.Record) []event.Record {
			return move(r, at(r, "subagent_task_retry", "n2"), at(r, "subagent_task_end", "n2"))
		}), "is retried while attempt 1 runs"},
		{"retry of a done node", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, at(r, "subagent_task_retry", "n2"), `"nodeId":"n2"`, `"nodeId":"n1"`)
		}), "node n1 is retried after ending done"},
		{"retry announces another attempt", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, at(r, "subagent_task_retry", "n2"), `"attempt":2`, `"attempt":3`)
		}), "its retry announced attempt 3"},
		{"retry without a cause", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, at(r, "subagent_task_retry", "n2"), `"cause":"attempt 1 timed out after 2m0s"`, `"cause":""`)
		}), "without a cause"},
		{"node never ends", edit(func(r []event.Record) []event.Record {
			return remove(r, at(r, "subagent_task_end", "n3"))
		}), "never ended"},
		{"done without root", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, at(r, "subagent_task_end", "n1"), `"rootStepId":"s1",`, ``)
		}), "without a root step"},
		{"bad node status", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, at(r, "subagent_task_end", "n1"), `"status":"done"`, `"status":"ok"`)
		}), `status "ok"`},
		{"node outside the plan", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, at(r, "subagent_task_start", "n1"), `"nodeId":"n1"`, `"nodeId":"n9"`)
		}), "has no node n9"},
		{"delegation without plan", edit(func(r []event.Record) []event.Record {
			return remove(r, at(r, "subagent_plan", ""))
		}), "has no subagent_plan"},
		{"plan with unknown dependency", edit(func(r []event.Record) []event.Record {
			return replacePayload(r, at(r, "subagent_plan", ""), `"dependsOn":["n4"]`, `"dependsOn":["n8"]`)
		}), `unknown node "n8"`},
		{"graph version repeats", edit(func(r []event.Record) []event.Record {
			i := at(r, "graph_snapshot", "")
			return replacePayload(r, i+1+at(r[i+1:], "graph_snapshot", ""), `"version":2`, `"version":1`)
		}), "version 1 after version 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := eventtest.Violations(tt.recs, false)
			for _, p := range v {
				if strings.Contains(p, tt.want) {
					return
				}
			}
			t.Errorf("Violations() = %q, want one containing %q", v, tt.want)
		})
	}
}
