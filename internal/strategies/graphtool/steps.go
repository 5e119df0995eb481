package graphtool

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"strategist/internal/catalog"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// StepResult is the result of a tool that adds or changes a step: the step
// as stored, what changed, the strategy version, and the roots the next
// call can build on.
type StepResult struct {
	Step    StepView `json:"step"`
	Change  string   `json:"change"`
	Version int      `json:"strategyVersion"`
	Roots   []Root   `json:"roots"`
	// Scope lists the steps a sub-agent may use (sub-agents only).
	Scope []strategy.StepID `json:"scope,omitempty"`
	// Reused is set when the step was not added by this call but by an
	// earlier, cut-short attempt of the same task with the same call.
	Reused bool `json:"reused,omitempty"`
}

// CreateArgs are the arguments of create_step.
type CreateArgs struct {
	SearchName  string         `json:"search_name" jsonschema:"the search, e.g. GenesByGoTerm"`
	Parameters  map[string]any `json:"parameters" jsonschema:"parameter values; leave one out to use its default"`
	DisplayName string         `json:"display_name,omitempty" jsonschema:"a short name for the step"`
	Weight      int            `json:"weight,omitempty" jsonschema:"WDK weight given to the step's genes (default 0)"`
}

// TransformArgs are the arguments of transform_step.
type TransformArgs struct {
	InputStepID string         `json:"input_step_id" jsonschema:"the root step to transform"`
	SearchName  string         `json:"search_name" jsonschema:"a transform search, e.g. GenesByWeightFilter"`
	Parameters  map[string]any `json:"parameters" jsonschema:"parameter values, without the input-step parameter"`
	DisplayName string         `json:"display_name,omitempty" jsonschema:"a short name for the step"`
}

// ColocationArgs are the distances of a COLOCATE combine.
type ColocationArgs struct {
	Upstream   int    `json:"upstream" jsonschema:"bases upstream of the right input's genes"`
	Downstream int    `json:"downstream" jsonschema:"bases downstream of the right input's genes"`
	Strand     string `json:"strand,omitempty" jsonschema:"same, opposite or both (default both)"`
}

// CombineArgs are the arguments of combine_steps.
type CombineArgs struct {
	LeftStepID  string          `json:"left_step_id" jsonschema:"the left (primary) root step"`
	RightStepID string          `json:"right_step_id" jsonschema:"the right root step"`
	Operator    string          `json:"operator" jsonschema:"INTERSECT, UNION, MINUS (left minus right), RMINUS (right minus left), LONLY, RONLY or COLOCATE"`
	DisplayName string          `json:"display_name,omitempty" jsonschema:"a short name for the combined step"`
	Colocation  *ColocationArgs `json:"colocation,omitempty" jsonschema:"required with COLOCATE only"`
}

const parametersHelp = "Parameter values are strings in the site's encoding (get_search_parameters shows each format): " +
	`multi-pick values are JSON-array strings such as "[\"GO:0006260\"]" (a JSON array is accepted and encoded for you), ` +
	"numbers may be written as strings. Parameters left out take their defaults; the result shows every value as stored."

// paramSchema lets parameter values be strings, numbers, booleans, lists
// or objects: models send all of them, and the tools encode them once.
func paramSchema(s *jsonschema.Schema) {
	if p, ok := s.Properties["parameters"]; ok {
		p.AdditionalProperties = &jsonschema.Schema{Types: []string{"string", "number", "boolean", "array", "object"}}
	}
}

func (t *tools) createStep() tool.Tool {
	return tool.NewTool("create_step",
		"Add a search step (a leaf with no input) to the strategy. "+parametersHelp+
			" The new step becomes a root; combine or transform roots to build the strategy up.",
		t.doCreateStep, tool.WithSchema(func(s *jsonschema.Schema) {
			s.Properties["search_name"].MinLength = ptr(1)
			paramSchema(s)
		}))
}

func (t *tools) transformStep() tool.Tool {
	return tool.NewTool("transform_step",
		"Add a transform step that takes one root step as input (e.g. GenesByWeightFilter, GenesByOrthologs). "+parametersHelp+
			" The input stops being a root; the new step is one.",
		t.doTransformStep, tool.WithSchema(func(s *jsonschema.Schema) {
			s.Properties["search_name"].MinLength = ptr(1)
			s.Properties["input_step_id"].MinLength = ptr(1)
			paramSchema(s)
		}))
}

func (t *tools) combineSteps() tool.Tool {
	return tool.NewTool("combine_steps",
		"Combine two root steps into one: INTERSECT (in both), UNION (in either), MINUS (left but not right), RMINUS (right but not left), "+
			"LONLY / RONLY (one side only), or COLOCATE (left genes near right genes; needs colocation). "+
			"AND, OR, NOT, MINUS_LEFT, LMINUS and MINUS_RIGHT are accepted aliases. A step is consumed at most once: both inputs must be roots.",
		t.doCombineSteps, tool.WithSchema(func(s *jsonschema.Schema) {
			for _, p := range []string{"left_step_id", "right_step_id", "operator"} {
				s.Properties[p].MinLength = ptr(1)
			}
		}))
}

func ptr[T any](v T) *T { return &v }

// encodeParams turns the model's values into the site's string encoding,
// reporting every value that cannot be encoded by parameter.
func encodeParams(search string, in map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(in))
	ve := &catalog.ValidationError{Search: search}
	for k, v := range in {
		enc, err := strategy.EncodeParameters(map[string]any{k: v})
		if err != nil {
			ve.Add(k, trimPrefix(err.Error()))
			continue
		}
		out[k] = enc[k]
	}
	if !ve.Empty() {
		return nil, &tool.ToolError{Code: tool.CodeValidation, Err: ve,
			Message: "parameter values that cannot be encoded: " + ve.Error(),
			Details: map[string]any{"byKey": ve.ByKey}}
	}
	return out, nil
}

// doCreateStep is the create_step tool.
func (t *tools) doCreateStep(ctx context.Context, a CreateArgs) (*StepResult, error) {
	params, err := encodeParams(a.SearchName, a.Parameters)
	if err != nil {
		return nil, err
	}
	return t.apply(ctx, "create step", strategy.AddSearch{
		SearchName: strings.TrimSpace(a.SearchName), Parameters: params, DisplayName: a.DisplayName, Weight: a.Weight,
	}, true)
}

// doTransformStep is the transform_step tool.
func (t *tools) doTransformStep(ctx context.Context, a TransformArgs) (*StepResult, error) {
	params, err := encodeParams(a.SearchName, a.Parameters)
	if err != nil {
		return nil, err
	}
	return t.apply(ctx, "transform step", strategy.AddTransform{
		Input: strategy.StepID(strings.TrimSpace(a.InputStepID)), SearchName: strings.TrimSpace(a.SearchName),
		Parameters: params, DisplayName: a.DisplayName,
	}, false)
}

// doCombineSteps is the combine_steps tool.
func (t *tools) doCombineSteps(ctx context.Context, a CombineArgs) (*StepResult, error) {
	const op = "combine steps"
	// A bad operator or strand is refused before anything is read or
	// created.
	operator, err := strategy.ParseOperator(a.Operator)
	if err != nil {
		return nil, &tool.ToolError{Code: strategy.Code(err), Message: err.Error(), Err: err,
			Details: map[string]any{"operator": a.Operator, "allowed": strategy.Operators()}}
	}
	m := strategy.Combine{
		Left: strategy.StepID(strings.TrimSpace(a.LeftStepID)), Right: strategy.StepID(strings.TrimSpace(a.RightStepID)),
		Operator: operator, DisplayName: a.DisplayName,
	}
	if a.Colocation != nil {
		strand, err := strategy.ParseStrand(a.Colocation.Strand)
		if err != nil {
			return nil, &tool.ToolError{Code: strategy.Code(err), Message: trimPrefix(err.Error()), Err: err,
				Details: map[string]any{"strand": a.Colocation.Strand, "allowed": []strategy.Strand{strategy.StrandSame, strategy.StrandOpposite, strategy.StrandBoth}}}
		}
		m.Colocation = &strategy.Colocation{Upstream: a.Colocation.Upstream, Downstream: a.Colocation.Downstream, Strand: strand}
	}
	return t.apply(ctx, op, m, false)
}

// apply runs m on the conversation's strategy (scoped for a sub-agent)
// and describes the step it added or changed. create says whether m may
// create the strategy: a change that names existing steps is refused
// while there is none, without creating an empty strategy.
func (t *tools) apply(ctx context.Context, op string, m strategy.Mutation, create bool) (*StepResult, error) {
	var (
		id  string
		err error
	)
	if create {
		id, err = t.s.forWrite(ctx)
	} else {
		var ok bool
		id, ok, err = t.s.forRead(ctx)
		if err == nil && !ok {
			return nil, noStrategyYet(op, firstRef(m))
		}
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	var key string
	if t.s.b.Origin != "" {
		key = stepKey(t.s.b.Origin, m)
		out, err := t.reuse(ctx, id, key, m)
		if err != nil {
			return nil, t.fail(op, err)
		}
		if out != nil {
			return out, nil
		}
	}
	if t.scope != nil {
		m = strategy.Scoped(t.scope.Value(), m)
	}
	if key != "" {
		m = strategy.Keyed(key, m)
	}
	res, err := t.s.b.Service.Apply(ctx, t.s.b.UserID, id, m)
	if err != nil {
		return nil, t.fail(op, err)
	}
	step, ok := res.Snapshot.Step(res.Change.Step)
	if !ok {
		return nil, fmt.Errorf("graphtool: %s: step %s is missing from version %d", op, res.Change.Step, res.Snapshot.Version)
	}
	if set := t.tracked(); set != nil {
		set.Add(step.ID)
	}
	out := &StepResult{Step: stepView(step), Change: res.Change.Summary, Version: res.Snapshot.Version, Roots: t.roots(res.Snapshot)}
	if t.scope != nil {
		out.Scope = t.scope.IDs()
	}
	return out, nil
}

// firstRef names the first existing step a mutation refers to.
func firstRef(m strategy.Mutation) strategy.StepID {
	switch m := m.(type) {
	case strategy.AddTransform:
		return m.Input
	case strategy.Combine:
		return m.Left
	case strategy.UpdateStep:
		return m.Step
	case strategy.DeleteStep:
		return m.Step
	}
	return ""
}

// CountArgs are the arguments of get_result_count.
type CountArgs struct {
	StepID string `json:"step_id" jsonschema:"the step to count"`
}

// CountResult is the result of get_result_count.
type CountResult struct {
	StepID strategy.StepID `json:"stepId"`
	Count  Count           `json:"count"`
}

func (t *tools) getResultCount() tool.Tool {
	return tool.NewTool("get_result_count",
		"Get how many genes a step returns (its whole subtree). A count the offline snapshot cannot compute says so instead of giving a number.",
		t.doGetResultCount, tool.WithSchema(func(s *jsonschema.Schema) { s.Properties["step_id"].MinLength = ptr(1) }))
}

// doGetResultCount is the get_result_count tool.
func (t *tools) doGetResultCount(ctx context.Context, a CountArgs) (*CountResult, error) {
	const op = "get result count"
	step := strategy.StepID(strings.TrimSpace(a.StepID))
	if t.scope != nil && !t.scope.Contains(step) {
		var roots []strategy.StepID
		if snap, err := t.s.b.Service.Conversation(ctx, t.s.b.UserID, t.s.b.ConversationID); err == nil {
			roots = snap.Roots
		}
		return nil, t.stepError(&strategy.StepError{Kind: strategy.ErrOutOfScope, Op: op, Step: step, Roots: roots,
			Detail: fmt.Sprintf("step %s is not yours to use; this task may use only %s", step, joinIDs(t.scope.IDs()))})
	}
	id, ok, err := t.s.forRead(ctx)
	if err == nil && !ok {
		return nil, noStrategyYet(op, step)
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	res, err := t.s.b.Service.StepCount(ctx, t.s.b.UserID, id, step)
	if err != nil {
		return nil, t.fail(op, err)
	}
	var value *int
	if res.Status == strategy.CountOK {
		value = &res.Count
	}
	return &CountResult{StepID: step, Count: countOf(res.Status, value, res.Message, res.Provenance)}, nil
}
