// Package subagent runs Strategist's delegations: a nested plan of tasks
// and combines, drafted by the planner or the executor, is parsed and
// normalised into nodes with stable ids (plan.Parse; ParseArg for a tool's
// argument), then a single-owner scheduler (Scheduler.Run) runs it in
// dependency order. Each task node is
// a sub-agent with its own fresh agent loop, catalog tools and graph tools
// scoped to its own steps and its dependencies' roots; it must name the
// step it built with finish_subtask, so a node's result is never guessed
// from the graph. Combine nodes need no model: the scheduler joins their
// inputs' roots through the strategy service as soon as both are done.
// Step nodes reuse a step the strategy already has, so a follow-up edits
// what exists: they are done at once, the steps above a reused step are
// deleted just before it is consumed, and a completed plan leaves the
// strategy one root, its result (reuse.go).
//
// Everything a delegation does is reported as the subagent_* events of the
// stream, keyed by node id, and mirrored in the delegations and
// delegation_nodes rows so that a reloaded page shows the live state.
//
// The failure policy is explicit: a task gets a bounded number of attempts,
// each with a fresh agent, its own deadline and a summary of the previous
// attempt's error; the steps a failed attempt created are removed; a node
// that fails for good marks every node depending on it skipped, so no model
// call is spent on work that cannot be used; cancellation reaches every
// running task and Run returns only after every worker it started is done.
package subagent
