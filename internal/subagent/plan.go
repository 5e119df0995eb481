package subagent

import (
	"encoding/json"
	"errors"

	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/tool"
)

// ToolError renders a rejected plan's problems for a model: code
// DELEGATION_PLAN_INVALID with details.problems in the shape of the
// agent's argument problems (field, problem, allowed). field is the
// pointer of the plan within the tool's arguments ("/plan"), prefixed to
// every path.
func ToolError(e *plan.PlanError, field string) *tool.ToolError {
	problems := make([]tool.Problem, len(e.Problems))
	for i, p := range e.Problems {
		problems[i] = tool.Problem{Field: field + p.Path, Problem: p.Message, Allowed: p.Allowed}
	}
	details := map[string]any{"problems": problems}
	if e.Omitted > 0 {
		details["omitted"] = e.Omitted
	}
	return &tool.ToolError{Code: plan.CodeInvalidPlan, Message: e.Summary(), Details: details, Err: e}
}

// ParseArg parses a plan a tool received in its argument field ("/plan"):
// a rejected plan comes back as the *tool.ToolError a model can fix it
// from, every problem's path prefixed with field.
func ParseArg(raw json.RawMessage, field string) (*plan.Plan, error) {
	p, err := plan.Parse(raw)
	if pe, ok := errors.AsType[*plan.PlanError](err); ok {
		return nil, ToolError(pe, field)
	}
	return p, err
}

// eventNodes returns a plan's nodes as the subagent_plan event lists them.
func eventNodes(p *plan.Plan) []event.PlanNode {
	out := make([]event.PlanNode, len(p.Nodes))
	for i, n := range p.Nodes {
		out[i] = event.PlanNode{ID: n.ID, Kind: n.Kind.String(), Label: n.Label,
			DependsOn: append([]string{}, n.DependsOn...), Operator: string(n.Operator)}
	}
	return out
}
