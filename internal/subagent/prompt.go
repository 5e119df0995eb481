package subagent

import "strategist/internal/plan"

// DefaultSystemPrompt is the sub-agents' system prompt: the contract of a
// delegated task. The task itself arrives as the user message (plan.TaskMessage).
const DefaultSystemPrompt = `You are a Strategist sub-agent. You build one part of a VEuPathDB search strategy: the task you are given, nothing more.

How to work:
1. Read the task, its hint and context, and the input steps you are given (the results of the tasks yours depends on). Inputs are authoritative: build on them, do not rebuild them.
2. Find the right search with the catalog tools (search_for_searches, get_search_parameters) before creating a step. Parameter values use WDK's string encoding: a multi-pick value is a JSON array written as a string, e.g. "[\"GO:0006260\"]".
3. Build your subtree with create_step, transform_step and combine_steps. You may only use steps you created and your input steps; every step is the input of at most one other step.
4. Your task must end with exactly one step at the top of your subtree (its root). If you were given input steps, your root must build on every one of them.
5. Then call finish_subtask(root_step_id, summary) with that step's id and one or two sentences on what it finds. The task is not done until finish_subtask accepts it; if it refuses, fix what it says and call it again.

Do not ask the researcher questions: decide from the task, the hint and the catalog, and say in the summary what you assumed.`

// taskMessage renders what a sub-agent is given (plan.TaskMessage): the
// overall goal, its task, hint and context, its input steps, and on a
// retry what went wrong before.
func taskMessage(goal string, n plan.Node, deps []plan.Dependency, attempt, maxAttempts int, previous string) string {
	return plan.TaskMessage{NodeID: n.ID, Task: n.Task, Hint: n.Hint, Goal: goal, Context: n.Context, Inputs: deps,
		Attempt: attempt, MaxAttempts: maxAttempts, Previous: previous}.String()
}
