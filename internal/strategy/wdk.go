package strategy

// WDKStrategy is a complete strategy in WDK's terms: the body of each step
// to create (POST /users/{u}/steps) keyed by its local id, and the stepTree
// over those local ids for POST /users/{u}/strategies. WDK creates steps
// without wiring inputs, so the steps can be created in any order (even
// concurrently); a client then replaces each local id in StepTree by the id
// WDK returned for that step.
type WDKStrategy struct {
	Name       string             `json:"name"`
	RecordType string             `json:"recordClassName"`
	Steps      map[StepID]WDKStep `json:"steps"`
	StepTree   WDKStepTree        `json:"stepTree"`
}

// WDKStep is a step creation request (WDK users/steps/post-request.json).
type WDKStep struct {
	SearchName   string          `json:"searchName"`
	SearchConfig WDKSearchConfig `json:"searchConfig"`
	CustomName   string          `json:"customName,omitempty"`
}

// WDKSearchConfig is a step's answer spec: every parameter in WDK's string
// encoding, input-step parameters "", and the weight of search and
// transform steps.
type WDKSearchConfig struct {
	Parameters map[string]string `json:"parameters"`
	WDKWeight  *int              `json:"wdkWeight,omitempty"`
}

// WDKStepTree is WDK's stepTree: a step and its inputs, primary first
// (a boolean's left input, GenesBySpanLogic's span_a).
type WDKStepTree struct {
	StepID         StepID       `json:"stepId"`
	PrimaryInput   *WDKStepTree `json:"primaryInput,omitempty"`
	SecondaryInput *WDKStepTree `json:"secondaryInput,omitempty"`
}

// WDK exports a complete graph. It is a pure function of the graph: every
// parameter was validated and completed when its step was stored, booleans
// already run as the record type's boolean search with bq_operator, and
// COLOCATE as GenesBySpanLogic with its span parameters. A graph with
// problems (including zero or several roots) is an *InvalidGraphError.
func (g *Graph) WDK() (*WDKStrategy, error) {
	if err := g.Check(); err != nil {
		return nil, err
	}
	root, _ := g.Root()
	out := &WDKStrategy{
		Name:       g.Name,
		RecordType: g.RecordType,
		Steps:      make(map[StepID]WDKStep, len(g.Steps)),
	}
	for _, s := range g.Steps {
		body := WDKStep{
			SearchName:   s.SearchName,
			SearchConfig: WDKSearchConfig{Parameters: cloneParams(s.Parameters)},
			CustomName:   s.DisplayName,
		}
		if s.Kind != KindCombine {
			w := s.Weight
			body.SearchConfig.WDKWeight = &w
		}
		out.Steps[s.ID] = body
	}
	out.StepTree = g.stepTree(root)
	return out, nil
}

// stepTree builds the tree under id; Check has ruled out cycles.
func (g *Graph) stepTree(id StepID) WDKStepTree {
	t := WDKStepTree{StepID: id}
	s := g.Steps[g.index(id)]
	if len(s.Inputs) > 0 {
		p := g.stepTree(s.Inputs[0])
		t.PrimaryInput = &p
	}
	if len(s.Inputs) > 1 {
		sec := g.stepTree(s.Inputs[1])
		t.SecondaryInput = &sec
	}
	return t
}
