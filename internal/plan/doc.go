// Package plan is Strategist's one model of a delegation plan: the nested
// tree the planner drafts and the executor hands to sub-agents, and
// everything that reads or writes it.
//
//   - TreeNode is the written form, for those who write plans (the offline
//     rules engine) and those who only show them (the draft tree of the
//     browser).
//   - Parse validates a plan and normalises it into a Plan of Nodes with
//     stable ids (n1, n2, ... in post-order); a rejected plan is a
//     *PlanError listing every problem with its JSON pointer, so a model can
//     fix them all in one go.
//   - A step node ({"type":"step","stepId":"s3"}) reuses a step of the
//     conversation's strategy, so a follow-up edits what exists;
//     Plan.CheckSteps checks such nodes against the strategy at build time.
//   - TaskContext is what a task's context tells its sub-agent: the search
//     and parameter values the planner chose.
//   - messages.go holds the text contracts between the roles: the build
//     message an approved plan starts an execute turn with, and the task
//     message a sub-agent is given.
//
// The package sits low: it uses the strategy package's operator and
// colocation types and nothing of the agent layers or the store, so every
// role (and the browser's view) can share it.
package plan
