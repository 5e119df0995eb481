package chat_test

import (
	"context"
	"strings"
	"testing"

	"strategist/internal/agent"
	"strategist/internal/chat"
	"strategist/internal/event"
	"strategist/internal/tool"
)

// delegating is an executor whose delegate tool plays a delegation of two
// tasks and their combine on the stream, as the scheduler does, each task
// ending with the status the test gives (the combine skipped unless both
// are done).
func delegating(n1, n2 event.NodeStatus) role {
	type none struct{}
	type result struct {
		Status string `json:"status"`
	}
	return role{name: "executor", tools: func(env agent.Env) []tool.Tool {
		return []tool.Tool{tool.NewTool("delegate", "Build the plan with sub-agents.", func(ctx context.Context, _ none) (*result, error) {
			const d = "d1"
			evs := []event.Event{&event.SubagentPlan{DelegationID: d, Goal: "kinases", Nodes: []event.PlanNode{
				{ID: "n1", Kind: "task", Label: "kinases"}, {ID: "n2", Kind: "task", Label: "chromosome 7"},
				{ID: "n3", Kind: "combine", Label: "both", DependsOn: []string{"n1", "n2"}, Operator: "INTERSECT"}}}}
			root, status := "", "failed"
			for _, n := range []struct {
				id     string
				status event.NodeStatus
			}{{"n1", n1}, {"n2", n2}} {
				end := &event.SubagentTaskEnd{DelegationID: d, NodeID: n.id, Status: n.status, Attempt: 1}
				if n.status == event.NodeDone {
					end.RootStepID = "s-" + n.id
				} else {
					end.Error = "NOT_A_ROOT: the step is consumed by another step"
				}
				evs = append(evs, &event.SubagentTaskStart{DelegationID: d, NodeID: n.id, Attempt: 1}, end)
			}
			if n1 == event.NodeDone && n2 == event.NodeDone {
				root, status = "s3", "completed"
				evs = append(evs, &event.SubagentTaskStart{DelegationID: d, NodeID: "n3", Attempt: 1},
					&event.SubagentTaskEnd{DelegationID: d, NodeID: "n3", Status: event.NodeDone, Attempt: 1, RootStepID: root})
			} else {
				evs = append(evs, &event.SubagentTaskEnd{DelegationID: d, NodeID: "n3", Status: event.NodeSkipped, Error: "skipped: an input did not finish"})
			}
			if err := env.Emit(ctx, evs...); err != nil {
				return nil, err
			}
			return &result{Status: status}, nil
		})}
	}}
}

// TestBuildWithoutBuiltTasksFails: a build turn whose delegation built no
// task (every task failed, the combine skipped) ends failed, with an error
// event saying why, even though the executor's model went on to answer; a
// build in which a task was built ends as its agent did.
func TestBuildWithoutBuiltTasksFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		n1, n2 event.NodeStatus
		want   event.TurnStatus
	}{
		{"nothing built", event.NodeFailed, event.NodeFailed, event.TurnFailed},
		{"one task built", event.NodeDone, event.NodeFailed, event.TurnCompleted},
		{"everything built", event.NodeDone, event.NodeDone, event.TurnCompleted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := engine(t, `{"roles":{"executor":[{"toolCalls":[{"name":"delegate","args":{}}]},{"text":"The delegation ended; see its nodes."}]}}`)
			w := newWorld(t)
			p := w.start(options{engine: e, executor: delegating(tc.n1, tc.n2)})
			id, err := p.startTurn(t, chat.TurnRequest{UserID: w.userID, ConversationID: w.convID, Message: "Build kinases on chromosome 7", Mode: chat.ModeExecute})
			if err != nil {
				t.Fatal(err)
			}
			tr := w.waitEnd(w.convID, id)
			if tr.Status != tc.want {
				t.Errorf("build ended %s (%q), want %s", tr.Status, tr.Error, tc.want)
			}
			recs := w.checkLog(w.convID)
			if tc.want != event.TurnFailed {
				return
			}
			if !strings.Contains(tr.Error, "NOT_A_ROOT") {
				t.Errorf("the failed build's error %q does not say why its tasks failed", tr.Error)
			}
			if got := decode[*event.Error](t, recs, id, "error"); got.Code != "TURN_FAILED" {
				t.Errorf("error event = %+v, want TURN_FAILED", got)
			}
		})
	}
}
