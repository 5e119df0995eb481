package graphtool

import (
	"context"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// UpdateArgs are the arguments of update_step. Fields left out are left
// alone.
type UpdateArgs struct {
	StepID      string          `json:"step_id" jsonschema:"the step to change"`
	Parameters  map[string]any  `json:"parameters,omitempty" jsonschema:"values to change; the others keep theirs (search and transform steps)"`
	DisplayName *string         `json:"display_name,omitempty" jsonschema:"a new name for the step"`
	Weight      *int            `json:"weight,omitempty" jsonschema:"a new WDK weight (search and transform steps)"`
	Operator    *string         `json:"operator,omitempty" jsonschema:"a new operator (combine steps)"`
	Colocation  *ColocationArgs `json:"colocation,omitempty" jsonschema:"new COLOCATE distances (combine steps)"`
}

func (t *tools) updateStep() tool.Tool {
	return tool.NewTool("update_step",
		"Change a step in place: its parameters (merged into the current values and validated again), display name or weight; "+
			"for a combine, its operator or colocation. Counts of the step and everything built on it are recomputed. "+parametersHelp,
		t.doUpdateStep, tool.WithSchema(func(s *jsonschema.Schema) {
			s.Properties["step_id"].MinLength = ptr(1)
			paramSchema(s)
		}))
}

// doUpdateStep is the update_step tool.
func (t *tools) doUpdateStep(ctx context.Context, a UpdateArgs) (*StepResult, error) {
	m := strategy.UpdateStep{Step: strategy.StepID(strings.TrimSpace(a.StepID)), DisplayName: a.DisplayName, Weight: a.Weight}
	if a.Parameters != nil {
		params, err := encodeParams("step "+string(m.Step), a.Parameters)
		if err != nil {
			return nil, err
		}
		m.Parameters = params
	}
	if a.Operator != nil {
		op, err := strategy.ParseOperator(*a.Operator)
		if err != nil {
			return nil, &tool.ToolError{Code: strategy.Code(err), Message: err.Error(), Err: err,
				Details: map[string]any{"operator": *a.Operator, "allowed": strategy.Operators()}}
		}
		m.Operator = &op
	}
	if a.Colocation != nil {
		strand, err := strategy.ParseStrand(a.Colocation.Strand)
		if err != nil {
			return nil, &tool.ToolError{Code: strategy.Code(err), Message: trimPrefix(err.Error()), Err: err}
		}
		m.Colocation = &strategy.Colocation{Upstream: a.Colocation.Upstream, Downstream: a.Colocation.Downstream, Strand: strand}
	}
	return t.apply(ctx, "update step", m, false)
}

// StepArgs name one step.
type StepArgs struct {
	StepID string `json:"step_id" jsonschema:"the step"`
}

// DeleteResult is the result of delete_step.
type DeleteResult struct {
	Deleted strategy.StepID `json:"deleted"`
	Change  string          `json:"change"`
	// RestoredRoots are the deleted step's inputs, roots again.
	RestoredRoots []strategy.StepID `json:"restoredRoots,omitempty"`
	Version       int               `json:"strategyVersion"`
	Roots         []Root            `json:"roots"`
}

func (t *tools) deleteStep() tool.Tool {
	return tool.NewTool("delete_step",
		"Delete a root step. A step that another step takes as input cannot be deleted until that step is; "+
			"deleting a transform or combine makes its inputs roots again. undo_last_change reverts a deletion.",
		t.doDeleteStep, tool.WithSchema(func(s *jsonschema.Schema) { s.Properties["step_id"].MinLength = ptr(1) }))
}

// doDeleteStep is the delete_step tool.
func (t *tools) doDeleteStep(ctx context.Context, a StepArgs) (*DeleteResult, error) {
	const op = "delete step"
	step := strategy.StepID(strings.TrimSpace(a.StepID))
	id, ok, err := t.s.forRead(ctx)
	if err == nil && !ok {
		return nil, noStrategyYet(op, step)
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	res, err := t.s.b.Service.Apply(ctx, t.s.b.UserID, id, strategy.DeleteStep{Step: step})
	if err != nil {
		return nil, t.fail(op, err)
	}
	return &DeleteResult{Deleted: res.Change.Step, Change: res.Change.Summary, RestoredRoots: res.Change.RestoredRoots,
		Version: res.Snapshot.Version, Roots: t.roots(res.Snapshot)}, nil
}

func (t *tools) listSteps() tool.Tool {
	return tool.NewTool("list_steps",
		"List the strategy's steps (search, parameters, inputs, counts) and its roots. rootStepId is set when the strategy is complete (one root).",
		t.doListSteps)
}

// NoArgs are the arguments of a tool that takes none.
type NoArgs struct{}

// doListSteps is the list_steps tool.
func (t *tools) doListSteps(ctx context.Context, _ NoArgs) (*StrategyView, error) {
	const op = "list steps"
	id, ok, err := t.s.forRead(ctx)
	if err != nil {
		return nil, t.fail(op, err)
	}
	if !ok {
		return &StrategyView{Steps: []StepView{}, Roots: []Root{}}, nil
	}
	snap, err := t.s.b.Service.Get(ctx, t.s.b.UserID, id)
	if err != nil {
		return nil, t.fail(op, err)
	}
	v := t.strategyView(snap)
	return &v, nil
}

// ValidateResult is the result of validate_strategy.
type ValidateResult struct {
	// Valid is true when the strategy is complete: steps, one root, no
	// problem.
	Valid      bool               `json:"valid"`
	Problems   []strategy.Problem `json:"problems"`
	Steps      int                `json:"steps"`
	Roots      []Root             `json:"roots"`
	RootStepID strategy.StepID    `json:"rootStepId,omitempty"`
	Hint       string             `json:"hint,omitempty"`
}

func (t *tools) validateStrategy() tool.Tool {
	return tool.NewTool("validate_strategy",
		"Check that the strategy is complete and sound: at least one step, every input used once, exactly one root. "+
			"Lists every problem; with several roots, combine them.",
		t.doValidateStrategy)
}

// doValidateStrategy is the validate_strategy tool.
func (t *tools) doValidateStrategy(ctx context.Context, _ NoArgs) (*ValidateResult, error) {
	const op = "validate strategy"
	id, ok, err := t.s.forRead(ctx)
	if err != nil {
		return nil, t.fail(op, err)
	}
	if !ok {
		return &ValidateResult{Problems: []strategy.Problem{{Code: strategy.ProblemEmpty, Message: "the strategy has no steps"}},
			Roots: []Root{}, Hint: "start with create_step"}, nil
	}
	problems, snap, err := t.s.b.Service.Validate(ctx, t.s.b.UserID, id)
	if err != nil {
		return nil, t.fail(op, err)
	}
	if problems == nil {
		problems = []strategy.Problem{}
	}
	out := &ValidateResult{Valid: len(problems) == 0, Problems: problems, Steps: len(snap.Steps), Roots: t.roots(snap), RootStepID: snap.RootStepID}
	switch {
	case len(snap.Steps) == 0:
		out.Hint = "start with create_step"
	case len(snap.Roots) > 1:
		out.Hint = "combine the roots with combine_steps (UNION when the researcher wants genes from any of them), or delete the ones not wanted"
	}
	return out, nil
}

// UndoResult is the result of undo_last_change.
type UndoResult struct {
	Change string `json:"change"`
	// RestoredVersion is the version whose graph is back.
	RestoredVersion int          `json:"restoredVersion"`
	Strategy        StrategyView `json:"strategy"`
}

func (t *tools) undoLastChange() tool.Tool {
	return tool.NewTool("undo_last_change",
		"Revert the strategy's last change exactly (steps, parameters and counts as they were). Repeating it walks further back.",
		t.doUndoLastChange)
}

// doUndoLastChange is the undo_last_change tool.
func (t *tools) doUndoLastChange(ctx context.Context, _ NoArgs) (*UndoResult, error) {
	const op = "undo last change"
	id, ok, err := t.s.forRead(ctx)
	if err == nil && !ok {
		return nil, &tool.ToolError{Code: strategy.Code(strategy.ErrNothingToUndo), Message: "nothing to undo: the strategy has no changes yet"}
	}
	if err != nil {
		return nil, t.fail(op, err)
	}
	res, err := t.s.b.Service.Undo(ctx, t.s.b.UserID, id)
	if err != nil {
		return nil, t.fail(op, err)
	}
	out := &UndoResult{Change: res.Change.Summary, Strategy: t.strategyView(res.Snapshot)}
	if res.Change.RestoredVersion != nil {
		out.RestoredVersion = *res.Change.RestoredVersion
	}
	return out, nil
}

// RenameArgs are the arguments of rename_strategy.
type RenameArgs struct {
	Name string `json:"name" jsonschema:"the strategy's new name"`
}

// RenameResult is the result of rename_strategy.
type RenameResult struct {
	Name    string `json:"name"`
	Version int    `json:"strategyVersion"`
}

func (t *tools) renameStrategy() tool.Tool {
	return tool.NewTool("rename_strategy", "Give the strategy a short name that says what it finds.",
		t.doRenameStrategy, tool.WithSchema(func(s *jsonschema.Schema) {
			s.Properties["name"].MinLength = ptr(1)
			s.Properties["name"].MaxLength = ptr(strategy.MaxNameLength)
		}))
}

// doRenameStrategy is the rename_strategy tool.
func (t *tools) doRenameStrategy(ctx context.Context, a RenameArgs) (*RenameResult, error) {
	const op = "rename strategy"
	id, err := t.s.forWrite(ctx)
	if err != nil {
		return nil, t.fail(op, err)
	}
	res, err := t.s.b.Service.Apply(ctx, t.s.b.UserID, id, strategy.Rename{Name: a.Name})
	if err != nil {
		return nil, t.fail(op, err)
	}
	return &RenameResult{Name: res.Snapshot.Name, Version: res.Snapshot.Version}, nil
}
