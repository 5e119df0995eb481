package planner

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"

	"strategist/internal/event"
	"strategist/internal/subagent"
)

const requestBuildDoc = `Ask the researcher to approve building the saved delegation draft. The executor starts only after they click "Build this plan". Call it once the draft is saved and valid; then tell the researcher what will be built. When the researcher's latest message agrees to build the plan already proposed ("yes, go ahead", "build it"), call it with confirmed true: the build then starts when this turn ends, with no click. A draft already built is not built again.`

// RequestBuildArgs are request_executor_build's arguments.
type RequestBuildArgs struct {
	Goal       string `json:"goal,omitempty" jsonschema:"the goal; defaults to the draft's"`
	ArtifactID string `json:"artifact_id,omitempty" jsonschema:"the delegation draft; defaults to this conversation's"`
	Confirmed  bool   `json:"confirmed,omitempty" jsonschema:"true only when the researcher's latest message agrees to build this plan"`
}

// BuildRequested is request_executor_build's result.
type BuildRequested struct {
	HandoffID string `json:"handoffId"`
	Status    string `json:"status"`
	Message   string `json:"message"`
}

func (t *tools) requestExecutorBuild(ctx context.Context, a RequestBuildArgs) (*BuildRequested, error) {
	draft, err := t.findDraft(ctx, a.ArtifactID)
	if err != nil {
		return nil, err
	}
	var body artifactBody
	if err := json.Unmarshal(draft.Body, &body); err != nil {
		return nil, err
	}
	p, err := subagent.ParseArg(body.Plan, "/plan")
	if err != nil {
		return nil, err
	}
	tree, err := p.Tree()
	if err != nil {
		return nil, err
	}
	goal := strings.TrimSpace(a.Goal)
	if goal == "" {
		goal = body.Goal
	}
	if a.Confirmed {
		built, err := t.alreadyBuilt(ctx, draft.ID, tree)
		if err != nil {
			return nil, err
		}
		if built {
			return &BuildRequested{Status: "already_built",
				Message: "This plan was built already: the strategy is the conversation's. Nothing new was started."}, nil
		}
	}
	h, err := t.store.CreateHandoff(ctx, t.env.UserID, t.env.ConversationID, draft.ID, t.env.TurnID, goal, tree)
	if err != nil {
		return nil, err
	}
	if err := t.env.Emit(ctx, &event.HandoffRequested{HandoffID: h.ID, Goal: goal, ArtifactID: draft.ID, Plan: tree, Confirmed: a.Confirmed}); err != nil {
		return nil, err
	}
	if a.Confirmed {
		return &BuildRequested{HandoffID: h.ID, Status: "confirmed",
			Message: "The researcher agreed: the executor starts building when this turn ends."}, nil
	}
	return &BuildRequested{HandoffID: h.ID, Status: "awaiting_approval",
		Message: "The researcher sees the plan with a Build button; the executor starts when they accept."}, nil
}

// alreadyBuilt reports whether the conversation's latest handoff was
// accepted with this draft's plan: a "yes" after the build builds nothing
// again.
func (t *tools) alreadyBuilt(ctx context.Context, draftID string, tree json.RawMessage) (bool, error) {
	hs, err := t.store.Handoffs(ctx, t.env.UserID, t.env.ConversationID)
	if err != nil || len(hs) == 0 {
		return false, err
	}
	last := hs[len(hs)-1]
	if last.Status != event.HandoffStatusAccepted || last.ArtifactID == nil || *last.ArtifactID != draftID {
		return false, nil
	}
	var a, b any
	if json.Unmarshal(last.Plan, &a) != nil || json.Unmarshal(tree, &b) != nil {
		return false, nil
	}
	return reflect.DeepEqual(a, b), nil
}
