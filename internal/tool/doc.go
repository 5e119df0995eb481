// Package tool is the contract between a role's capabilities and the loop
// that offers them to a model: a Tool is a name, a description, the JSON
// schema of its arguments (inferred once from a Go struct by
// github.com/google/jsonschema-go) and a typed handler; a Toolset is the
// ordered list one role offers; a ToolError is a failure the model sees
// with a code and details.
//
// Arguments are validated and decoded strictly: a bad call is a
// *ToolError with CodeValidation whose details list each Problem (field,
// problem, allowed values), so the model can correct it.
//
// The package imports only internal/llm (for the declaration sent to
// engines), so the packages offering tools (catalog, graph, planner,
// executor, sub-agent tools) depend on the contract, not on the loop in
// internal/agent that runs them.
package tool
