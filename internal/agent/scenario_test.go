package agent

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/llm/scripted"
	"strategist/internal/tool"
)

// TestExampleScenario plays the scripted engine's example file through the
// loop the way Strategist's roles use it: a planner that calls tools then
// answers; an executor whose delegate tool runs two sub-agents in parallel
// on one shared engine; sub-agents that create a step and end their run with
// finish_subtask; a sub-agent that fails, then times out, then succeeds on
// its third attempt. Fake time (synctest) makes the 120 s timeout instant.
func TestExampleScenario(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng, err := scripted.Load(os.DirFS("../llm/scripted/testdata"), "example.json")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()

		// Planner.
		type searchArgs struct {
			Query      string `json:"query"`
			RecordType string `json:"record_type,omitempty"`
		}
		type paramArgs struct {
			RecordType string `json:"record_type"`
			SearchName string `json:"search_name"`
		}
		planner := newAgent(t, Config{Engine: eng, Agent: "planner", Tools: newToolset(t,
			tool.NewTool("search_for_searches", "Find searches.", func(_ context.Context, a searchArgs) ([]string, error) {
				return []string{"GenesByText"}, nil
			}),
			tool.NewTool("list_record_types", "List record types.", func(context.Context, noArgs) ([]string, error) {
				return []string{"transcript"}, nil
			}),
			tool.NewTool("get_search_parameters", "Describe a search.", func(_ context.Context, a paramArgs) (map[string]string, error) {
				return map[string]string{"text_expression": "string"}, nil
			}),
		)})
		_, end := collect(planner.Run(t.Context(), Input{User: "Which genes are protein kinases on chromosome 5?"}))
		if end.Reason != StopCompleted || end.Rounds != 3 {
			t.Fatalf("planner run = %v after %d rounds (%v), want completed after 3", end.Reason, end.Rounds, end.Err)
		}

		// Sub-agents share one engine and one tool set.
		type createArgs struct {
			SearchName string            `json:"search_name"`
			Parameters map[string]string `json:"parameters"`
		}
		type finishArgs struct {
			RootStepID string `json:"root_step_id"`
			Summary    string `json:"summary"`
		}
		sub := newAgent(t, Config{Engine: eng, Agent: "subagent", NewID: func() string { return "sub" }, Tools: newToolset(t,
			tool.NewTool("create_step", "Create a step.", func(_ context.Context, a createArgs) (map[string]string, error) {
				return map[string]string{"searchName": a.SearchName}, nil
			}),
			tool.NewTool("finish_subtask", "Finish.", func(_ context.Context, a finishArgs) (finishArgs, error) {
				return a, nil
			}, tool.EndsRun()),
		)})
		// runTask is the scheduler's retry policy in miniature: a fresh run
		// per attempt, each under its own 120 s timeout.
		runTask := func(ctx context.Context, task string) (string, int) {
			for attempt := 1; attempt <= 3; attempt++ {
				actx, cancel := context.WithTimeout(ctx, 120*time.Second)
				events, end := collect(sub.Run(actx, Input{User: task}))
				cancel()
				if end.Reason != StopCompleted || end.EndedBy == "" {
					continue
				}
				for _, ev := range events {
					if e, ok := ev.(ToolCallEnd); ok && e.CallID == end.EndedBy {
						return e.Output.(finishArgs).RootStepID, attempt
					}
				}
			}
			return "", 3
		}

		// Executor with the delegate tool.
		type planNode struct {
			Type     string    `json:"type"`
			Task     string    `json:"task,omitempty"`
			Operator string    `json:"operator,omitempty"`
			Left     *planNode `json:"left,omitempty"`
			Right    *planNode `json:"right,omitempty"`
		}
		type delegateArgs struct {
			Goal string          `json:"goal"`
			Plan json.RawMessage `json:"plan" jsonschema:"the delegation plan tree"`
		}
		attempts := map[string]int{}
		delegate := tool.NewTool("delegate_strategy_subtasks", "Delegate.", func(ctx context.Context, a delegateArgs) (map[string]string, error) {
			var plan planNode
			if err := json.Unmarshal(a.Plan, &plan); err != nil {
				return nil, &tool.ToolError{Code: tool.CodeValidation, Message: err.Error()}
			}
			tasks := []string{plan.Left.Task, plan.Right.Task}
			roots := make([]string, len(tasks))
			var mu sync.Mutex
			var wg sync.WaitGroup
			for i, task := range tasks {
				wg.Go(func() {
					root, n := runTask(ctx, task)
					mu.Lock()
					defer mu.Unlock()
					roots[i], attempts[task] = root, n
				})
			}
			wg.Wait()
			return map[string]string{"left": roots[0], "right": roots[1], "operator": plan.Operator}, nil
		}, tool.WithTimeout(15*time.Minute))
		executor := newAgent(t, Config{Engine: eng, Agent: "executor", Tools: newToolset(t, delegate)})
		events, end := collect(executor.Run(t.Context(), Input{User: "Build it."}))
		if end.Reason != StopCompleted || end.Text != "The strategy intersects the kinase search with the chromosome 5 search." {
			t.Fatalf("executor run = %v (%v): %q", end.Reason, end.Err, end.Text)
		}
		var result string
		for _, ev := range events {
			if e, ok := ev.(ToolCallEnd); ok {
				result = string(e.Result)
			}
		}
		if want := `{"ok":true,"left":"step-1","operator":"INTERSECT","right":"step-2"}`; result != want {
			t.Errorf("delegate result = %s, want %s", result, want)
		}
		wantAttempts := map[string]int{"Find genes whose product mentions protein kinase": 1, "Find genes on chromosome 5": 3}
		if diff := cmp.Diff(wantAttempts, attempts); diff != "" {
			t.Errorf("attempts mismatch (-want +got):\n%s", diff)
		}
		if got := time.Since(start); got != 120*time.Second {
			t.Errorf("scenario took %v, want the one 120s timeout", got)
		}
		if diff := cmp.Diff([]string{"summarizer[0]"}, eng.Unused()); diff != "" {
			t.Errorf("unused responses mismatch (-want +got):\n%s", diff)
		}
	})
}
