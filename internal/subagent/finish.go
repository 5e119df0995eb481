package subagent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// FinishTool is the name of the tool every sub-agent must call.
const FinishTool = "finish_subtask"

// Codes of finish_subtask's refusals.
const (
	CodeStepNotFound = "STEP_NOT_FOUND"
	CodeOutOfScope   = "OUT_OF_SCOPE"
	CodeNotRoot      = "NOT_A_ROOT"
	CodeInputUnused  = "INPUT_NOT_USED"
)

type finishArgs struct {
	RootStepID string `json:"root_step_id" jsonschema:"the id of the one step at the top of the subtree this task built (for example s7)"`
	Summary    string `json:"summary" jsonschema:"one or two sentences on what the step finds and what you assumed"`
}

type finishResult struct {
	RootStepID strategy.StepID `json:"rootStepId"`
	Message    string          `json:"message"`
}

// finisher is the state of one attempt's finish_subtask: the accepted root,
// guarded by mu because the calls of one response run concurrently.
type finisher struct {
	graph  Graph
	scope  func() strategy.Scope
	inputs []strategy.StepID

	mu      sync.Mutex
	root    strategy.StepID
	summary string
}

// result returns the accepted root, if any.
func (f *finisher) result() (strategy.StepID, string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.root, f.summary, f.root != ""
}

// own returns the steps of the attempt's scope it created (everything but
// its inputs) that exist, in creation order.
func (f *finisher) own(snap strategy.Snapshot) []strategy.StepID {
	scope := f.scope()
	var ids []strategy.StepID
	for _, s := range snap.Steps {
		if scope.Contains(s.ID) && !slices.Contains(f.inputs, s.ID) {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// tool is finish_subtask for this attempt. It accepts a step that exists,
// that this attempt created, that nothing consumes, and whose subtree uses
// every input step; anything else is refused with what to do instead.
func (f *finisher) tool() tool.Tool {
	return tool.NewTool(FinishTool,
		"Finish your task: name the one step at the top of the subtree you built (its root) and summarise it. "+
			"Required: the task is not done until this call is accepted.",
		func(ctx context.Context, a finishArgs) (finishResult, error) {
			id := strategy.StepID(strings.TrimSpace(a.RootStepID))
			snap, err := f.graph.Snapshot(ctx)
			if err != nil {
				return finishResult{}, err
			}
			own := f.own(snap)
			var candidates []strategy.StepID
			for _, s := range own {
				if _, used := consumerOf(snap, s); !used {
					candidates = append(candidates, s)
				}
			}
			refuse := func(code, msg string) (finishResult, error) {
				return finishResult{}, &tool.ToolError{Code: code, Message: msg,
					Details: map[string]any{"yourRoots": ids(candidates), "inputSteps": ids(f.inputs)}}
			}
			if _, ok := snap.Step(id); !ok {
				return refuse(CodeStepNotFound, fmt.Sprintf("there is no step %q", a.RootStepID))
			}
			if !slices.Contains(own, id) {
				if slices.Contains(f.inputs, id) {
					return refuse(CodeOutOfScope, fmt.Sprintf("step %s is an input of this task, not its result; build on it and return the step you created", id))
				}
				return refuse(CodeOutOfScope, fmt.Sprintf("step %s was not created by this task; return a step you created", id))
			}
			if by, used := consumerOf(snap, id); used {
				return refuse(CodeNotRoot, fmt.Sprintf("step %s is the input of %s; return the step at the top of your subtree", id, by))
			}
			below := snap.Subtree(id)
			for _, in := range f.inputs {
				if !below[in] {
					return refuse(CodeInputUnused, fmt.Sprintf("the result must build on input step %s, which is not below %s", in, id))
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.root == "" {
				f.root, f.summary = id, strings.TrimSpace(a.Summary)
			}
			return finishResult{RootStepID: f.root, Message: "accepted: the task is done"}, nil
		})
}

func ids(s []strategy.StepID) []string {
	out := make([]string, len(s))
	for i, id := range s {
		out[i] = string(id)
	}
	return out
}
