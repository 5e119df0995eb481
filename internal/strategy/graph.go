// Package strategy is Strategist's strategy graph: the steps a researcher
// (or an agent) builds on a VEuPathDB site, the mutations that change them,
// the invariants every graph keeps, counts through the catalog, the snapshot
// the browser and the event stream show, and the export to WDK's step bodies
// and stepTree.
//
// A Graph is a value: every mutation returns a new graph and a Change and
// leaves its input alone, so versions, undo and concurrent readers need no
// copying discipline from callers. The package is the model only: it links
// no store. Persisted strategies are changed by the service of
// internal/strategies, which serialises writers on the strategy row,
// records every change as a version, and reports each new snapshot through
// one hook.
package strategy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"strategist/internal/catalog"
)

// StepID is a step's id within its strategy: "s1", "s2", ... allocated from
// a per-strategy counter that never goes back, so an id is never reused for
// a different step, not even after undo.
type StepID string

// Kind is how many inputs a step has.
type Kind int

// The step kinds. The zero value is unknown, which no valid step has.
const (
	KindUnknown   Kind = iota
	KindSearch         // a leaf search, no inputs
	KindTransform      // one input
	KindCombine        // two inputs and an operator
)

// String is the kind's name as JSON carries it.
func (k Kind) String() string {
	switch k {
	case KindSearch:
		return "search"
	case KindTransform:
		return "transform"
	case KindCombine:
		return "combine"
	}
	return "unknown"
}

// valid reports whether k is one of the three step kinds.
func (k Kind) valid() bool { return k == KindSearch || k == KindTransform || k == KindCombine }

// inputs is the number of inputs a step of kind k takes.
func (k Kind) inputs() int {
	switch k {
	case KindTransform:
		return 1
	case KindCombine:
		return 2
	}
	return 0
}

// MarshalText encodes the kind by name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a kind name.
func (k *Kind) UnmarshalText(b []byte) error {
	for _, c := range []Kind{KindUnknown, KindSearch, KindTransform, KindCombine} {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("strategy: unknown step kind %q", b)
}

// CountStatus says what is known about a step's count. A count is shown
// only with status ok; the other statuses carry a message instead, never a
// number.
type CountStatus int

// The count statuses. The zero value is unknown (not computed yet).
const (
	CountUnknown      CountStatus = iota
	CountOK                       // Count holds the number of genes
	CountNotEvaluable             // the catalog cannot compute it (offline limits)
	CountError                    // computing it failed; CountMessage says why
)

// String is the status's name as JSON carries it.
func (s CountStatus) String() string {
	switch s {
	case CountOK:
		return "ok"
	case CountNotEvaluable:
		return "not_evaluable"
	case CountError:
		return "error"
	}
	return "unknown"
}

// MarshalText encodes the status by name.
func (s CountStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a status name.
func (s *CountStatus) UnmarshalText(b []byte) error {
	for _, c := range []CountStatus{CountUnknown, CountOK, CountNotEvaluable, CountError} {
		if c.String() == string(b) {
			*s = c
			return nil
		}
	}
	return fmt.Errorf("strategy: unknown count status %q", b)
}

// Step is one node of a strategy.
//
// Parameters are in WDK's string encoding (multi-pick values are JSON-array
// strings), complete as the catalog validated and filled them, with every
// input-step parameter present and "" (inputs are wired by Inputs, as WDK
// wires them by the stepTree). For a combine they are the boolean search's
// (or, for COLOCATE, GenesBySpanLogic's) parameters, derived from Operator
// and Colocation.
type Step struct {
	ID          StepID            `json:"id"`
	Kind        Kind              `json:"kind"`
	SearchName  string            `json:"searchName"`
	Parameters  map[string]string `json:"parameters"`
	Operator    Operator          `json:"operator,omitempty"`
	Colocation  *Colocation       `json:"colocation,omitempty"`
	Inputs      []StepID          `json:"inputs"` // primary first
	DisplayName string            `json:"displayName"`
	// Named is true when the researcher set DisplayName: their name is
	// kept through every change. Otherwise the name follows the step's
	// search, parameters and inputs (see naming.go).
	Named      bool   `json:"named,omitempty"`
	RecordType string `json:"recordType"`
	// Weight is WDK's wdkWeight of a search or transform step; combines
	// derive theirs from their inputs.
	Weight int `json:"weight"`

	// Key says which request made the step, when a sub-agent made it
	// (Keyed): the task of the turn's plan and a digest of the call. A
	// task retried after its server stopped finds the steps its cut-short
	// attempt made by their keys and uses them instead of making them
	// again. Empty for every other step.
	Key string `json:"key,omitempty"`

	Count           *int                `json:"count"`
	CountStatus     CountStatus         `json:"countStatus"`
	CountMessage    string              `json:"countMessage,omitempty"`
	CountProvenance *catalog.Provenance `json:"countProvenance,omitempty"`
}

// clone returns a deep copy of s.
func (s Step) clone() Step {
	c := s
	c.Parameters = cloneParams(s.Parameters)
	c.Inputs = append([]StepID{}, s.Inputs...)
	if s.Colocation != nil {
		col := *s.Colocation
		c.Colocation = &col
	}
	if s.Count != nil {
		n := *s.Count
		c.Count = &n
	}
	if s.CountProvenance != nil {
		p := *s.CountProvenance
		c.CountProvenance = &p
	}
	return c
}

func cloneParams(p map[string]string) map[string]string {
	c := make(map[string]string, len(p))
	for k, v := range p {
		c[k] = v
	}
	return c
}

// Graph is a strategy's working graph: its identity on the site and its
// steps in creation order (every step after its inputs). It is the whole
// persisted document: several roots are kept as they are, never trimmed to
// one subtree.
type Graph struct {
	Name       string `json:"name"`
	SiteID     string `json:"siteId"`
	RecordType string `json:"recordType"`
	// NextStep numbers the next step id ("s<NextStep>").
	NextStep int    `json:"nextStep"`
	Steps    []Step `json:"steps"`
}

// New returns an empty graph for a site and record type.
func New(siteID, recordType, name string) (*Graph, error) {
	if siteID == "" || recordType == "" {
		return nil, fmt.Errorf("strategy: new graph: site and record type are required")
	}
	return &Graph{Name: name, SiteID: siteID, RecordType: recordType, NextStep: 1, Steps: []Step{}}, nil
}

// Decode reads a graph persisted by Encode.
func Decode(b []byte) (*Graph, error) {
	var g Graph
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("strategy: decode graph: %w", err)
	}
	if g.Steps == nil {
		g.Steps = []Step{}
	}
	for i := range g.Steps {
		if g.Steps[i].Inputs == nil {
			g.Steps[i].Inputs = []StepID{}
		}
		if g.Steps[i].Parameters == nil {
			g.Steps[i].Parameters = map[string]string{}
		}
	}
	if g.NextStep < 1 {
		g.NextStep = 1
	}
	return &g, nil
}

// Encode is the persisted form of the graph.
func (g *Graph) Encode() ([]byte, error) {
	b, err := json.Marshal(g)
	if err != nil {
		return nil, fmt.Errorf("strategy: encode graph: %w", err)
	}
	return b, nil
}

// Clone returns a deep copy of g.
func (g *Graph) Clone() *Graph {
	c := *g
	c.Steps = make([]Step, len(g.Steps))
	for i, s := range g.Steps {
		c.Steps[i] = s.clone()
	}
	return &c
}

// Step returns a copy of the step with the given id.
func (g *Graph) Step(id StepID) (Step, bool) {
	i := g.index(id)
	if i < 0 {
		return Step{}, false
	}
	return g.Steps[i].clone(), true
}

func (g *Graph) index(id StepID) int {
	return slices.IndexFunc(g.Steps, func(s Step) bool { return s.ID == id })
}

// ConsumerOf returns the step that takes id as an input, if any.
func (g *Graph) ConsumerOf(id StepID) (StepID, bool) {
	for _, s := range g.Steps {
		if slices.Contains(s.Inputs, id) {
			return s.ID, true
		}
	}
	return "", false
}

// Roots returns the steps no other step consumes, in creation order. A
// complete strategy has exactly one.
func (g *Graph) Roots() []StepID {
	consumed := make(map[StepID]bool, len(g.Steps))
	for _, s := range g.Steps {
		for _, in := range s.Inputs {
			consumed[in] = true
		}
	}
	roots := []StepID{}
	for _, s := range g.Steps {
		if !consumed[s.ID] {
			roots = append(roots, s.ID)
		}
	}
	return roots
}

// Root returns the single root of a complete graph; ok is false with zero
// or several roots.
func (g *Graph) Root() (StepID, bool) {
	roots := g.Roots()
	if len(roots) != 1 {
		return "", false
	}
	return roots[0], true
}

// downstream returns id and every step whose result depends on it, from id
// up to its root: the steps whose counts change when id changes.
func (g *Graph) downstream(id StepID) []StepID {
	var ids []StepID
	for cur, ok := id, true; ok; cur, ok = g.ConsumerOf(cur) {
		if slices.Contains(ids, cur) { // a cycle in a corrupt graph
			break
		}
		ids = append(ids, cur)
	}
	return ids
}

// allocID returns the next step id and advances the counter.
func (g *Graph) allocID() StepID {
	if g.NextStep < 1 {
		g.NextStep = 1
	}
	id := StepID("s" + strconv.Itoa(g.NextStep))
	g.NextStep++
	// A graph written by hand could already use the id; skip past it.
	for g.index(id) >= 0 {
		id = StepID("s" + strconv.Itoa(g.NextStep))
		g.NextStep++
	}
	return id
}

// Query returns the catalog query tree of a step's subtree: what the
// catalog evaluates for its count and results. Equal subtrees give equal
// Query.Key values, which is what the count cache keys on.
func (g *Graph) Query(id StepID) (*catalog.Query, error) {
	return g.query(id, 0)
}

func (g *Graph) query(id StepID, depth int) (*catalog.Query, error) {
	if depth > len(g.Steps) {
		return nil, fmt.Errorf("strategy: query %s: %w: inputs form a cycle", id, ErrInvalidGraph)
	}
	i := g.index(id)
	if i < 0 {
		return nil, &StepError{Kind: ErrStepNotFound, Op: "query", Step: id, Roots: g.Roots(),
			Detail: fmt.Sprintf("no step %s", id)}
	}
	s := g.Steps[i]
	q := &catalog.Query{Search: s.SearchName, Params: cloneParams(s.Parameters)}
	if s.Kind != KindCombine {
		q.Weight = s.Weight
	}
	for _, in := range s.Inputs {
		iq, err := g.query(in, depth+1)
		if err != nil {
			return nil, err
		}
		q.Inputs = append(q.Inputs, iq)
	}
	return q, nil
}
