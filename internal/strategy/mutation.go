package strategy

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"strategist/internal/catalog"
)

// Mutation is one change to a graph: AddSearch, AddTransform, Combine,
// UpdateStep, DeleteStep, Rename, ImportWDK, or one of them wrapped by Scoped or Keyed. The set
// is closed so that every change goes through the invariants here.
//
// A mutation runs in two parts. prepare does the catalog work (finding the
// search, validating parameters) against the graph as last read; apply is
// pure and runs on the graph as it stands under the strategy's lock. The
// service (internal/strategies, through Prepare) can therefore talk to the
// catalog before it takes the lock, and only redoes prepare under the lock
// when holds says a concurrent change invalidated what prepare read.
type Mutation interface {
	prepare(ctx context.Context, cat SearchCatalog, base *Graph) (plan, error)
	// refs are the existing steps the mutation reads or changes.
	refs() []StepID
}

// plan is a prepared mutation.
type plan interface {
	holds(g *Graph) bool
	apply(g *Graph) (*Graph, Change, error)
}

// ChangeOp names a kind of change in a version's change record.
type ChangeOp string

// The change operations recorded with each version.
const (
	OpCreate       ChangeOp = "create"
	OpAddSearch    ChangeOp = "add_search"
	OpAddTransform ChangeOp = "add_transform"
	OpCombine      ChangeOp = "combine"
	OpUpdateStep   ChangeOp = "update_step"
	OpDeleteStep   ChangeOp = "delete_step"
	OpRename       ChangeOp = "rename"
	OpUndo         ChangeOp = "undo"
	OpRedo         ChangeOp = "redo"
	OpRestore      ChangeOp = "restore"
	OpImport       ChangeOp = "import"
)

// Change records what a version changed and its consequences, for the
// version history, the event stream and the model's tool result.
type Change struct {
	Op      ChangeOp `json:"op"`
	Step    StepID   `json:"stepId,omitempty"`
	Summary string   `json:"summary"`
	// Fields lists what an update_step changed.
	Fields []string `json:"fields,omitempty"`
	// RestoredRoots are the inputs a delete_step made roots again.
	RestoredRoots []StepID `json:"restoredRoots,omitempty"`
	// UndoneVersion and RestoredVersion say what an undo reverted to (a
	// redo: which version it restored again).
	UndoneVersion   int  `json:"undoneVersion,omitempty"`
	RestoredVersion *int `json:"restoredVersion,omitempty"`
	// Turn is the conversation turn that made the change ("" for a
	// researcher's own edit): Undo and Redo take back or restore a turn's
	// changes together.
	Turn string `json:"turn,omitempty"`
	// Undone counts the changes an undo took back (a redo: restored).
	Undone int `json:"undone,omitempty"`
}

// Affected are the steps whose counts the change invalidates: the added or
// updated step and every step downstream of it.
func (c Change) Affected(g *Graph) []StepID {
	switch c.Op {
	case OpAddSearch, OpAddTransform, OpCombine, OpUpdateStep:
		return g.downstream(c.Step)
	case OpImport:
		ids := make([]StepID, len(g.Steps))
		for i, s := range g.Steps {
			ids[i] = s.ID
		}
		return ids
	}
	return nil
}

// Apply runs m on g and returns the new graph and its change record; g is
// left unchanged. Refusals are *StepError values naming the step and the
// current roots.
func (g *Graph) Apply(ctx context.Context, cat SearchCatalog, m Mutation) (*Graph, Change, error) {
	p, err := m.prepare(ctx, cat, g)
	if err != nil {
		return nil, Change{}, err
	}
	return p.apply(g)
}

// Prepared is a mutation checked against the catalog and a graph as read,
// ready to be applied, purely, to the graph as it stands under the
// strategy's lock (the service in internal/strategies does this).
type Prepared struct{ p plan }

// Prepare checks m against cat and base (looking up searches, validating
// parameters) without changing base. Refusals are *StepError values.
func Prepare(ctx context.Context, cat SearchCatalog, base *Graph, m Mutation) (*Prepared, error) {
	p, err := m.prepare(ctx, cat, base)
	if err != nil {
		return nil, err
	}
	return &Prepared{p: p}, nil
}

// Holds reports whether what Prepare read still holds in g; when it does
// not (a concurrent update of the same step), the mutation must be
// prepared again against g.
func (p *Prepared) Holds(g *Graph) bool { return p.p.holds(g) }

// Apply applies the prepared mutation to g and returns the new graph and
// its change record; g is left unchanged.
func (p *Prepared) Apply(g *Graph) (*Graph, Change, error) { return p.p.apply(g) }

// planFunc is a plan whose prepare read nothing of the graph that could go
// stale.
type planFunc func(g *Graph) (*Graph, Change, error)

func (f planFunc) holds(*Graph) bool                      { return true }
func (f planFunc) apply(g *Graph) (*Graph, Change, error) { return f(g) }

// MaxNameLength bounds strategy and step display names.
const MaxNameLength = 200

// cleanName trims a name and checks it is printable and not too long.
func cleanName(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", fmt.Errorf("%w: a name cannot be empty", ErrInvalidName)
	case utf8.RuneCountInString(s) > MaxNameLength:
		return "", fmt.Errorf("%w: a name has at most %d characters", ErrInvalidName, MaxNameLength)
	case strings.ContainsFunc(s, unicode.IsControl):
		return "", fmt.Errorf("%w: a name cannot contain control characters", ErrInvalidName)
	}
	return s, nil
}

// displayName returns the cleaned name given, or fallback when none was.
func displayName(g *Graph, op, given, fallback string) (string, error) {
	if strings.TrimSpace(given) == "" {
		given = fallback
	}
	n, err := cleanName(given)
	if err != nil {
		return "", &StepError{Kind: ErrInvalidName, Op: op, Roots: g.Roots(), Cause: err}
	}
	return n, nil
}

// MaxSteps bounds a strategy's size: far beyond any real strategy, it stops
// a runaway agent before the graph becomes unusable.
const MaxSteps = 300

// checkRoom refuses a new step in a full graph.
func checkRoom(g *Graph, op string) error {
	if len(g.Steps) >= MaxSteps {
		return &StepError{Kind: ErrTooManySteps, Op: op, Roots: g.Roots(),
			Detail: fmt.Sprintf("a strategy has at most %d steps", MaxSteps)}
	}
	return nil
}

// takeInput checks that id can become an input of a new step: it exists
// and no other step consumes it yet.
func takeInput(g *Graph, op string, id StepID) (Step, error) {
	i := g.index(id)
	if i < 0 {
		return Step{}, &StepError{Kind: ErrStepNotFound, Op: op, Step: id, Roots: g.Roots(),
			Detail: fmt.Sprintf("there is no step %s", id)}
	}
	if by, ok := g.ConsumerOf(id); ok {
		return Step{}, &StepError{Kind: ErrStepConsumed, Op: op, Step: id, ConsumedBy: by, Roots: g.Roots(),
			Detail: fmt.Sprintf("step %s is already the input of %s; a step is consumed at most once, use a root", id, by)}
	}
	return g.Steps[i], nil
}

// AddSearch adds a search step (a leaf). Parameters are validated through
// the catalog and stored complete, defaults filled in.
type AddSearch struct {
	SearchName  string
	Parameters  map[string]string
	DisplayName string
	Weight      int
}

func (m AddSearch) refs() []StepID { return nil }

func (m AddSearch) prepare(ctx context.Context, cat SearchCatalog, base *Graph) (plan, error) {
	const op = "add search step"
	s, params, name, err := prepareSearchStep(ctx, cat, base, op, catalog.KindLeaf, m.SearchName, m.Parameters, m.DisplayName)
	if err != nil {
		return nil, err
	}
	return planFunc(func(g *Graph) (*Graph, Change, error) {
		if err := checkRoom(g, op); err != nil {
			return nil, Change{}, err
		}
		next := g.Clone()
		id := next.allocID()
		next.Steps = append(next.Steps, Step{
			ID: id, Kind: KindSearch, SearchName: s.Name, Parameters: cloneParams(params),
			Inputs: []StepID{}, DisplayName: name, RecordType: s.RecordType, Weight: m.Weight,
		})
		return next, Change{Op: OpAddSearch, Step: id,
			Summary: fmt.Sprintf("added search step %s %q (%s)", id, name, s.Name)}, nil
	}), nil
}

// prepareSearchStep checks what a new search or transform step needs
// before the graph is locked: the search exists and is of the wanted kind,
// its parameters validate (filled from defaults), and its display name.
func prepareSearchStep(ctx context.Context, cat SearchCatalog, base *Graph, op string, kind catalog.SearchKind,
	searchName string, parameters map[string]string, display string) (*catalog.Search, map[string]string, string, error) {
	s, err := lookupSearch(ctx, cat, base, op, searchName)
	if err != nil {
		return nil, nil, "", err
	}
	if err := checkKind(base, op, s, kind); err != nil {
		return nil, nil, "", err
	}
	params, err := validateParams(ctx, cat, base, op, s, parameters)
	if err != nil {
		return nil, nil, "", err
	}
	name, err := displayName(base, op, display, searchStepName(s, params))
	if err != nil {
		return nil, nil, "", err
	}
	return s, params, name, nil
}

// AddTransform adds a transform step over one root step.
type AddTransform struct {
	Input       StepID
	SearchName  string
	Parameters  map[string]string
	DisplayName string
	Weight      int
}

func (m AddTransform) refs() []StepID { return []StepID{m.Input} }

func (m AddTransform) prepare(ctx context.Context, cat SearchCatalog, base *Graph) (plan, error) {
	const op = "add transform step"
	s, params, name, err := prepareSearchStep(ctx, cat, base, op, catalog.KindTransform, m.SearchName, m.Parameters, m.DisplayName)
	if err != nil {
		return nil, err
	}
	return planFunc(func(g *Graph) (*Graph, Change, error) {
		if err := checkRoom(g, op); err != nil {
			return nil, Change{}, err
		}
		in, err := takeInput(g, op, m.Input)
		if err != nil {
			return nil, Change{}, err
		}
		if in.RecordType != s.RecordType {
			return nil, Change{}, &StepError{Kind: ErrRecordTypeMismatch, Op: op, Step: in.ID, Roots: g.Roots(),
				Detail: fmt.Sprintf("%s takes %q records but step %s returns %q", s.Name, s.RecordType, in.ID, in.RecordType)}
		}
		next := g.Clone()
		id := next.allocID()
		next.Steps = append(next.Steps, Step{
			ID: id, Kind: KindTransform, SearchName: s.Name, Parameters: cloneParams(params),
			Inputs: []StepID{in.ID}, DisplayName: name, RecordType: s.RecordType, Weight: m.Weight,
		})
		return next, Change{Op: OpAddTransform, Step: id,
			Summary: fmt.Sprintf("added transform step %s %q (%s of %s)", id, name, s.Name, in.ID)}, nil
	}), nil
}

// Combine joins two root steps with an operator. Operator may be an alias
// (AND, NOT, ...); Colocation is required for COLOCATE and refused
// otherwise.
type Combine struct {
	Left, Right StepID
	Operator    Operator
	Colocation  *Colocation
	DisplayName string
}

func (m Combine) refs() []StepID { return []StepID{m.Left, m.Right} }

func (m Combine) prepare(ctx context.Context, cat SearchCatalog, base *Graph) (plan, error) {
	const op = "combine"
	operator, err := ParseOperator(string(m.Operator))
	if err != nil {
		return nil, &StepError{Kind: ErrInvalidOperator, Op: op, Roots: base.Roots(), Cause: err}
	}
	col := normaliseColocation(m.Colocation)
	s, params, err := combineSearch(ctx, cat, base, op, operator, col)
	if err != nil {
		return nil, err
	}
	return planFunc(func(g *Graph) (*Graph, Change, error) {
		if err := checkRoom(g, op); err != nil {
			return nil, Change{}, err
		}
		if m.Left == m.Right {
			return nil, Change{}, &StepError{Kind: ErrInvalidInput, Op: op, Step: m.Left, Roots: g.Roots(),
				Detail: fmt.Sprintf("cannot combine step %s with itself", m.Left)}
		}
		left, err := takeInput(g, op, m.Left)
		if err != nil {
			return nil, Change{}, err
		}
		right, err := takeInput(g, op, m.Right)
		if err != nil {
			return nil, Change{}, err
		}
		for _, in := range []Step{left, right} {
			if in.RecordType != g.RecordType {
				return nil, Change{}, &StepError{Kind: ErrRecordTypeMismatch, Op: op, Step: in.ID, Roots: g.Roots(),
					Detail: fmt.Sprintf("step %s returns %q records, %s returns %q", left.ID, left.RecordType, right.ID, right.RecordType)}
			}
		}
		name, err := displayName(g, op, m.DisplayName, combineName(operator, col, left, right))
		if err != nil {
			return nil, Change{}, err
		}
		next := g.Clone()
		id := next.allocID()
		next.Steps = append(next.Steps, Step{
			ID: id, Kind: KindCombine, SearchName: s.Name, Parameters: cloneParams(params),
			Operator: operator, Colocation: cloneColocation(col), Inputs: []StepID{left.ID, right.ID},
			DisplayName: name, RecordType: g.RecordType,
		})
		return next, Change{Op: OpCombine, Step: id,
			Summary: fmt.Sprintf("combined %s %s %s into %s %q", left.ID, operator, right.ID, id, name)}, nil
	}), nil
}

func normaliseColocation(c *Colocation) *Colocation {
	if c == nil {
		return nil
	}
	n := *c
	if n.Strand == "" {
		n.Strand = StrandBoth
	}
	return &n
}

func cloneColocation(c *Colocation) *Colocation {
	if c == nil {
		return nil
	}
	n := *c
	return &n
}

// DeleteStep removes a step that nothing consumes (a root). Deleting a step
// another step consumes is refused with the consumer named: removing it
// would leave a hole in the consumer, and removing the consumer too would
// silently delete work. When the deleted root was a transform or a combine,
// its inputs become roots again, and the change lists them.
type DeleteStep struct {
	Step StepID
}

func (m DeleteStep) refs() []StepID { return []StepID{m.Step} }

func (m DeleteStep) prepare(context.Context, SearchCatalog, *Graph) (plan, error) {
	const op = "delete step"
	return planFunc(func(g *Graph) (*Graph, Change, error) {
		i := g.index(m.Step)
		if i < 0 {
			return nil, Change{}, &StepError{Kind: ErrStepNotFound, Op: op, Step: m.Step, Roots: g.Roots(),
				Detail: fmt.Sprintf("there is no step %s", m.Step)}
		}
		if by, ok := g.ConsumerOf(m.Step); ok {
			return nil, Change{}, &StepError{Kind: ErrStepInUse, Op: op, Step: m.Step, ConsumedBy: by, Roots: g.Roots(),
				Detail: fmt.Sprintf("step %s is the input of %s; delete %s first", m.Step, by, by)}
		}
		gone := g.Steps[i]
		next := g.Clone()
		next.Steps = slices.Delete(next.Steps, i, i+1)
		c := Change{Op: OpDeleteStep, Step: gone.ID, Summary: fmt.Sprintf("deleted step %s %q", gone.ID, gone.DisplayName)}
		if len(gone.Inputs) > 0 {
			c.RestoredRoots = slices.Clone(gone.Inputs)
			c.Summary += fmt.Sprintf("; %s became roots again", joinIDs(gone.Inputs))
		}
		return next, c, nil
	}), nil
}

// Rename sets the strategy's name.
type Rename struct {
	Name string
}

func (m Rename) refs() []StepID { return nil }

func (m Rename) prepare(_ context.Context, _ SearchCatalog, base *Graph) (plan, error) {
	name, err := cleanName(m.Name)
	if err != nil {
		return nil, &StepError{Kind: ErrInvalidName, Op: "rename strategy", Roots: base.Roots(), Cause: err}
	}
	return planFunc(func(g *Graph) (*Graph, Change, error) {
		next := g.Clone()
		next.Name = name
		return next, Change{Op: OpRename, Summary: fmt.Sprintf("renamed the strategy to %q", name)}, nil
	}), nil
}

// sameStep reports whether the parts of a step a prepared update read are
// unchanged.
func sameStep(a, b Step) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.SearchName == b.SearchName && a.Operator == b.Operator &&
		maps.Equal(a.Parameters, b.Parameters) && equalColocation(a.Colocation, b.Colocation)
}

func equalColocation(a, b *Colocation) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
