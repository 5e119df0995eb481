package strategy

// Snapshot is a strategy as the browser, the event stream (the body of a
// graph_snapshot event) and GET /api/v1/conversations/{id}/strategy show it:
// the whole graph with full step objects, every root, and RootStepID when
// there is exactly one.
type Snapshot struct {
	// ConversationID is the conversation the strategy belongs to, set by
	// the strategy service so the change hook knows where the graph_snapshot event
	// goes; it is not part of the JSON.
	ConversationID string `json:"-"`

	StrategyID string   `json:"strategyId"`
	Version    int      `json:"version"`
	Name       string   `json:"name"`
	RecordType string   `json:"recordType"`
	SiteID     string   `json:"siteId"`
	RootStepID StepID   `json:"rootStepId,omitempty"`
	Roots      []StepID `json:"roots"`
	Steps      []Step   `json:"steps"`
}

// Snapshot returns the graph as strategy strategyID at version.
func (g *Graph) Snapshot(strategyID string, version int) Snapshot {
	c := g.Clone()
	roots := c.Roots()
	s := Snapshot{
		StrategyID: strategyID,
		Version:    version,
		Name:       c.Name,
		RecordType: c.RecordType,
		SiteID:     c.SiteID,
		Roots:      roots,
		Steps:      c.Steps,
	}
	if len(roots) == 1 {
		s.RootStepID = roots[0]
	}
	return s
}

// Step finds a step of the snapshot by id.
func (s Snapshot) Step(id StepID) (Step, bool) {
	for _, st := range s.Steps {
		if st.ID == id {
			return st, true
		}
	}
	return Step{}, false
}

// Subtree returns root and every step below it (its inputs, their inputs,
// ...); a step that does not exist gives just itself.
func (s Snapshot) Subtree(root StepID) map[StepID]bool {
	seen := map[StepID]bool{}
	var walk func(id StepID)
	walk = func(id StepID) {
		if seen[id] {
			return // a corrupt graph with a cycle
		}
		seen[id] = true
		if st, ok := s.Step(id); ok {
			for _, in := range st.Inputs {
				walk(in)
			}
		}
	}
	walk(root)
	return seen
}
