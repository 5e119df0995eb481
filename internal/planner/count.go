package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"strategist/internal/plan"
	"strategist/internal/store"
	"strategist/internal/strategy"
	"strategist/internal/subagent"
)

const countPlanDoc = `Count a plan before it is built: give the plan tree exactly as save_delegation_draft takes it (tasks whose context names searchName and parameters, combines, step nodes of the strategy), and the catalog counts every node, or says why it cannot (not evaluable offline, a value it refuses). Nothing is saved or built. Use it to see whether an exclusion or a restriction would change nothing (the combine's count equals its left input's), or whether two readings of a word give different counts, and ask the researcher (ask_researcher) with the counts before planning a step that changes nothing.`

// CountPlanArgs are count_plan's arguments.
type CountPlanArgs struct {
	Plan json.RawMessage `json:"plan" jsonschema:"the plan tree, as save_delegation_draft takes it"`
}

// CountedNode is one node of a counted plan.
type CountedNode struct {
	Node  string `json:"node"` // the plan's node id (n1, n2, ...; the root last)
	Kind  string `json:"kind"`
	Label string `json:"label"`
	// Inputs are the node's input nodes (a combine's left then right).
	Inputs []string `json:"inputs,omitempty"`
	// Count is the catalog's count; nil with Note when it has none.
	Count *int   `json:"count"`
	Note  string `json:"note,omitempty"`
}

// CountedPlan is count_plan's result, its nodes in post-order.
type CountedPlan struct {
	Root  string        `json:"root"`
	Nodes []CountedNode `json:"nodes"`
}

// countPlan builds the plan on a scratch copy of the conversation's graph
// (never saved) and counts each node with the catalog.
func (t *tools) countPlan(ctx context.Context, a CountPlanArgs) (*CountedPlan, error) {
	p, err := subagent.ParseArg(a.Plan, "/plan")
	if err != nil {
		return nil, err
	}
	g, err := t.scratchGraph(ctx)
	if err != nil {
		return nil, err
	}
	ids := map[string]strategy.StepID{}
	out := &CountedPlan{Root: p.Root}
	for _, n := range p.Nodes {
		cn := CountedNode{Node: n.ID, Kind: n.Kind.String(), Label: n.Label, Inputs: n.DependsOn}
		id, why := t.place(ctx, &g, n, ids)
		if why == "" {
			ids[n.ID] = id
			cn.Count, cn.Note = t.countStep(ctx, g, id)
		} else {
			cn.Note = why
		}
		out.Nodes = append(out.Nodes, cn)
	}
	return out, nil
}

// scratchGraph is a copy of the conversation's graph to build on, or an
// empty one.
func (t *tools) scratchGraph(ctx context.Context) (*strategy.Graph, error) {
	snap, err := t.strategies.Conversation(ctx, t.env.UserID, t.env.ConversationID)
	if errors.Is(err, store.ErrNotFound) || err == nil && snap.StrategyID == "" {
		return strategy.New(t.env.SiteID, recordType(snap), "count")
	}
	if err != nil {
		return nil, err
	}
	g := &strategy.Graph{Name: snap.Name, SiteID: snap.SiteID, RecordType: snap.RecordType, NextStep: 1}
	for _, s := range snap.Steps {
		g.Steps = append(g.Steps, s)
		if n, err := strconv.Atoi(strings.TrimPrefix(string(s.ID), "s")); err == nil && n >= g.NextStep {
			g.NextStep = n + 1
		}
	}
	return g, nil
}

// recordType is a snapshot's record type, genes' when it has none.
func recordType(snap strategy.Snapshot) string {
	if snap.RecordType != "" {
		return snap.RecordType
	}
	return "transcript"
}

// place adds one plan node to the scratch graph and returns its step, or
// why it could not.
func (t *tools) place(ctx context.Context, g **strategy.Graph, n plan.Node, ids map[string]strategy.StepID) (strategy.StepID, string) {
	var m strategy.Mutation
	switch n.Kind {
	case plan.KindStep:
		if _, ok := (*g).Step(n.StepID); !ok {
			return "", fmt.Sprintf("the strategy has no step %s", n.StepID)
		}
		return n.StepID, ""
	case plan.KindTask:
		hint, ok := n.TaskContext()
		if !ok {
			return "", "its context names no search, so only a sub-agent can choose one"
		}
		if n.Input == "" {
			m = strategy.AddSearch{SearchName: hint.SearchName, Parameters: hint.Parameters, DisplayName: hint.DisplayName}
		} else {
			in, ok := ids[n.Input]
			if !ok {
				return "", "its input has no count"
			}
			m = strategy.AddTransform{Input: in, SearchName: hint.SearchName, Parameters: hint.Parameters, DisplayName: hint.DisplayName}
		}
	case plan.KindCombine:
		l, okL := ids[n.Left]
		r, okR := ids[n.Right]
		if !okL || !okR {
			return "", "an input has no count"
		}
		m = strategy.Combine{Left: l, Right: r, Operator: n.Operator, Colocation: n.Colocation, DisplayName: n.DisplayName}
	default:
		return "", "unknown node kind"
	}
	next, change, err := (*g).Apply(ctx, t.catalog, m)
	if err != nil {
		return "", "the catalog refused it: " + err.Error()
	}
	*g = next
	return change.Step, ""
}

// countStep is the catalog's count for a step of the scratch graph.
func (t *tools) countStep(ctx context.Context, g *strategy.Graph, id strategy.StepID) (*int, string) {
	q, err := g.Query(id)
	if err != nil {
		return nil, err.Error()
	}
	return t.countQuery(ctx, q)
}
