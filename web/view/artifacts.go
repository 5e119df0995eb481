package view

import (
	"encoding/json"

	"strategist/internal/event"
	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// Artifact is the latest version of a planning artifact or delegation
// draft.
type Artifact struct {
	event.Artifact
	// Draft is the delegation draft's plan as a tree (nil for planning
	// artifacts and unreadable plans).
	Draft *DraftNode
	// Validation is what the planner's validation said of the draft.
	Validation *Validation
	// saved is the sequence number of its latest artifact_saved.
	saved int64
}

// Validation is a draft's validation result as saved with it.
type Validation struct {
	Valid    bool     `json:"valid"`
	Tasks    int      `json:"tasks"`
	Nodes    int      `json:"nodes"`
	Warnings []string `json:"warnings"`
	Problems []string `json:"problems"`
}

// DraftNode is one node of a delegation draft: a task, a combine of two
// subtrees with an operator, or an existing step the plan reuses. A task
// may have an input (a transform of another subtree).
type DraftNode struct {
	Kind        string // task, combine or step
	StepID      string // the reused step of a step node
	Task        string
	Hint        string
	SearchName  string
	Operator    string // canonical when the alias is known, else as written
	DisplayName string
	Children    []*DraftNode
}

// ParseDraft reads a delegation plan for display; it returns nil when the
// plan is not a tree of the schema. It does not validate: the planner did.
func ParseDraft(raw json.RawMessage) *DraftNode {
	if len(raw) == 0 {
		return nil
	}
	t, err := plan.DecodeTree(raw)
	if err != nil {
		return nil
	}
	return draftNode(t, 0)
}

func draftNode(t *plan.TreeNode, depth int) *DraftNode {
	if t == nil || depth > plan.MaxDepth {
		return nil
	}
	n := &DraftNode{Kind: t.Type.String(), Task: t.Task, Hint: t.Hint, DisplayName: t.DisplayName}
	switch t.Type {
	case plan.KindCombine:
		n.Operator = string(t.Operator)
		if op, err := strategy.ParseOperator(string(t.Operator)); err == nil {
			n.Operator = string(op)
		}
	case plan.KindStep:
		n.StepID = string(t.StepID)
	default:
		n.Kind = plan.KindTask.String()
		if ctx, ok := t.TaskContext(); ok {
			n.SearchName = ctx.SearchName
		}
	}
	for _, c := range t.Children() {
		if cn := draftNode(c, depth+1); cn != nil {
			n.Children = append(n.Children, cn)
		}
	}
	return n
}

// Handoff is a plan the planner asked the researcher to approve.
type Handoff struct {
	ID            string
	Goal          string
	ArtifactID    string
	Status        event.HandoffStatus
	ExecuteTurnID string
	// TurnID is the turn that requested it: the chat offers the build
	// under that turn's answer too.
	TurnID string
}

// The statuses of a handoff (the store's vocabulary).
const (
	HandoffPending    = event.HandoffStatusPending
	HandoffAccepted   = event.HandoffStatusAccepted
	HandoffSuperseded = event.HandoffStatusSuperseded
)

// HandoffsOf returns the handoffs of an artifact, newest first.
func (c *Conversation) HandoffsOf(artifactID string) []*Handoff {
	var hs []*Handoff
	for i := len(c.Handoffs) - 1; i >= 0; i-- {
		if c.Handoffs[i].ArtifactID == artifactID {
			hs = append(hs, c.Handoffs[i])
		}
	}
	return hs
}

// LooseHandoffs returns the handoffs whose artifact is not shown, newest
// first.
func (c *Conversation) LooseHandoffs() []*Handoff {
	var hs []*Handoff
	for i := len(c.Handoffs) - 1; i >= 0; i-- {
		if _, ok := c.artifacts[c.Handoffs[i].ArtifactID]; !ok {
			hs = append(hs, c.Handoffs[i])
		}
	}
	return hs
}

// Handoff returns a handoff by id.
func (c *Conversation) Handoff(id string) *Handoff {
	for _, h := range c.Handoffs {
		if h.ID == id {
			return h
		}
	}
	return nil
}

func (c *Conversation) artifactSaved(rec event.Record, e *event.ArtifactSaved) []Change {
	a := &Artifact{Artifact: e.Artifact, saved: rec.Seq}
	if a.Kind == event.ArtifactDelegationDraft {
		a.Draft = ParseDraft(a.Plan)
		if len(a.Artifact.Validation) > 0 {
			var v Validation
			if json.Unmarshal(a.Artifact.Validation, &v) == nil {
				a.Validation = &v
			}
		}
	}
	if old, ok := c.artifacts[a.ID]; ok {
		*old = *a
	} else {
		c.artifacts[a.ID] = a
		c.Artifacts = append(c.Artifacts, a)
	}
	return []Change{ArtifactsChanged{}}
}

func (c *Conversation) handoffRequested(e *event.HandoffRequested) []Change {
	changes := []Change{ArtifactsChanged{}}
	// Only the latest plan can be approved (store.CreateHandoff).
	for _, h := range c.Handoffs {
		if h.Status == HandoffPending {
			h.Status = HandoffSuperseded
			changes = c.handoffTurnChanged(changes, h.TurnID)
		}
	}
	c.Handoffs = append(c.Handoffs, &Handoff{ID: e.HandoffID, Goal: e.Goal, ArtifactID: e.ArtifactID, Status: HandoffPending, TurnID: e.TurnID})
	return c.handoffTurnChanged(changes, e.TurnID)
}

// handoffTurnChanged adds the HandoffChanged of a turn on the page (once).
func (c *Conversation) handoffTurnChanged(changes []Change, turnID string) []Change {
	t := c.turns[turnID]
	if t == nil {
		return changes
	}
	for _, ch := range changes {
		if hc, ok := ch.(HandoffChanged); ok && hc.Turn == t {
			return changes
		}
	}
	return append(changes, HandoffChanged{Turn: t})
}

func (c *Conversation) handoffAccepted(e *event.HandoffAccepted) []Change {
	h := c.Handoff(e.HandoffID)
	if h == nil {
		return nil
	}
	h.Status, h.ExecuteTurnID = HandoffAccepted, e.ExecuteTurnID
	return c.handoffTurnChanged([]Change{ArtifactsChanged{}}, h.TurnID)
}

// TurnHandoffs returns the handoffs a turn requested, in order.
func (c *Conversation) TurnHandoffs(t *Turn) []*Handoff {
	var hs []*Handoff
	for _, h := range c.Handoffs {
		if h.TurnID == t.ID {
			hs = append(hs, h)
		}
	}
	return hs
}

// OpenArtifacts is how many of the most recently saved artifacts the plan
// panel draws whole (in a planning round, its notes and its draft). Older
// ones are folded into their title line and drawn when opened, unless a
// plan of theirs waits for approval.
const OpenArtifacts = 2

// ArtifactFolded reports whether the plan panel shows a as its title line.
func (c *Conversation) ArtifactFolded(a *Artifact) bool {
	newer := 0
	for _, o := range c.Artifacts {
		if o.saved > a.saved {
			newer++
		}
	}
	if newer < OpenArtifacts {
		return false
	}
	for _, h := range c.Handoffs {
		if h.ArtifactID == a.ID && h.Status == HandoffPending {
			return false
		}
	}
	return true
}

// Artifact returns the artifact with the id, or nil.
func (c *Conversation) Artifact(id string) *Artifact { return c.artifacts[id] }
