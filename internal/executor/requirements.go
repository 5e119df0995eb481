package executor

import (
	"context"
	"encoding/json"
	"errors"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
	"strategist/internal/subagent"
	"strategist/internal/tool"
)

// RequirementChecker checks a built strategy against the plan that stated
// the request (*strategies.Service).
type RequirementChecker interface {
	CheckRequirements(ctx context.Context, userID, strategyID string, p *plan.Plan, bound map[string]strategy.StepID) (*strategies.RequirementReport, error)
}

const checkDoc = `Check the strategy against what the request asked for, after building it without delegate_strategy_subtasks (a delegation checks its plan itself): plan is the plan of what the request stated, in delegate_strategy_subtasks' form, each task with its context {"searchName", "parameters", "phrase"} (the researcher's words). For each requirement (each search with its stated values, restriction, exclusion, union, reused step) it returns the step that implements it, its count, how many of its genes the result keeps (an exclusion: how many it removed), a few genes with the attribute that qualified them, and which requirements no step implements or cannot be evaluated here; with control lists set, the result's positives found and lost. The researcher sees it as a card. Report it as it is: its counts are the only ones to give.`

// CheckArgs are check_requirements' arguments.
type CheckArgs struct {
	Plan json.RawMessage `json:"plan" jsonschema:"the plan of what the request stated: tasks with context {searchName, parameters, phrase} and combines, as delegate_strategy_subtasks takes it"`
}

// checkTool is check_requirements for one turn.
func (x *Executor) checkTool(env agent.Env) tool.Tool {
	return tool.NewTool("check_requirements", checkDoc, func(ctx context.Context, a CheckArgs) (*event.RequirementsChecked, error) {
		p, err := subagent.ParseArg(a.Plan, "/plan")
		if err != nil {
			return nil, err
		}
		ev, err := x.check(ctx, env, p, nil)
		if errors.Is(err, store.ErrNotFound) {
			return nil, &tool.ToolError{Code: "NO_STRATEGY", Message: "this conversation has no strategy yet: build it first", Err: err}
		}
		if se, ok := errors.AsType[*strategy.StepError](err); ok {
			return nil, &tool.ToolError{Code: tool.CodeValidation, Message: se.Error(), Err: err}
		}
		return ev, err
	})
}

// check computes the requirement check of the conversation's strategy
// against p (bound: the steps a delegation built for its nodes), adds the
// result's figures against the conversation's controls when it has
// them, and emits it as the turn's requirements_checked.
func (x *Executor) check(ctx context.Context, env agent.Env, p *plan.Plan, bound map[string]strategy.StepID) (*event.RequirementsChecked, error) {
	snap, err := x.cfg.Strategies.Conversation(ctx, env.UserID, env.ConversationID)
	if err != nil {
		return nil, err
	}
	rep, err := x.cfg.Strategies.CheckRequirements(ctx, env.UserID, snap.StrategyID, p, bound)
	if err != nil {
		return nil, err
	}
	ev := &event.RequirementsChecked{StrategyID: rep.StrategyID, Version: rep.Version, RootStepID: string(rep.RootStepID),
		RootCount: rep.RootCount, RootApproximate: rep.RootApproximate, Requirements: rep.Requirements}
	if ev.Controls, err = x.rootControls(ctx, env, rep); err != nil {
		return nil, err
	}
	if env.Emit != nil {
		if err := env.Emit(ctx, ev); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

// rootControls are the result's figures against the conversation's
// controls; nil without controls (or without the list services).
func (x *Executor) rootControls(ctx context.Context, env agent.Env, rep *strategies.RequirementReport) (*event.RootControls, error) {
	if x.cfg.Lists == nil || x.cfg.Scorer == nil || rep.RootStepID == "" {
		return nil, nil
	}
	ctl, err := x.cfg.Lists.Controls(ctx, env.UserID, env.ConversationID)
	if err != nil || ctl.Positives == nil && ctl.Negatives == nil {
		return nil, err
	}
	out := &event.RootControls{PositivesLost: []string{}}
	var pos, neg []string
	if ctl.Positives != nil {
		out.PositivesName, pos = ctl.Positives.Name, ctl.Positives.Genes
	}
	if ctl.Negatives != nil {
		out.NegativesName, neg = ctl.Negatives.Name, ctl.Negatives.Genes
	}
	figures, err := x.cfg.Scorer.Controls(ctx, env.UserID, rep.StrategyID, pos, neg)
	if err != nil {
		return nil, err
	}
	for _, sc := range figures.Steps {
		if sc.StepID != rep.RootStepID {
			continue
		}
		out.PositivesFound, out.PositivesTotal, out.NegativesFound, out.NegativesTotal = sc.PositivesFound, sc.PositivesTotal, sc.NegativesFound, sc.NegativesTotal
		out.Recall, out.Precision, out.Message = sc.Recall, sc.Precision, sc.Message
		out.PositivesLost = sc.PositivesMissed
	}
	return out, nil
}

// DelegateResult is delegate_strategy_subtasks' result: the delegation's,
// and once it completed, the requirement check of its plan.
type DelegateResult struct {
	*subagent.Result
	Requirements *event.RequirementsChecked `json:"requirements,omitempty"`
	// RequirementsError says why the check could not be made.
	RequirementsError string `json:"requirementsError,omitempty"`
}

// checkDelegation checks a completed delegation's plan against the steps
// its nodes built.
func (x *Executor) checkDelegation(ctx context.Context, env agent.Env, p *plan.Plan, res *subagent.Result) *DelegateResult {
	out := &DelegateResult{Result: res}
	if res == nil || res.Status != store.DelegationCompleted {
		return out
	}
	bound := map[string]strategy.StepID{}
	for _, n := range res.Nodes {
		if n.RootStepID != "" {
			bound[n.ID] = n.RootStepID
		}
	}
	ev, err := x.check(ctx, env, p, bound)
	if err != nil {
		out.RequirementsError = "the requirements could not be checked: " + err.Error()
		return out
	}
	out.Requirements = ev
	return out
}
