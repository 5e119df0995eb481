package subagent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"strategist/internal/catalog"
	"strategist/internal/event"
	"strategist/internal/llm"
	"strategist/internal/llm/scripted"
	"strategist/internal/pgtest"
	"strategist/internal/plan"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

const (
	testSite       = "plasmodb"
	testRecordType = "transcript"
	booleanName    = "boolean_question_TranscriptRecordClasses_TranscriptRecordClass"
)

// fakeCatalog knows a few searches of each kind and accepts any parameter
// values: these tests are about scheduling, not WDK validation.
type fakeCatalog struct{}

var fakeSearches = []catalog.Search{
	{SearchSummary: catalog.SearchSummary{Name: "GenesByText", RecordType: testRecordType, Kind: catalog.KindLeaf, DisplayName: "Text"}},
	{SearchSummary: catalog.SearchSummary{Name: "GenesByLocation", RecordType: testRecordType, Kind: catalog.KindLeaf, DisplayName: "Location"}},
	{SearchSummary: catalog.SearchSummary{Name: "GenesByOrthologs", RecordType: testRecordType, Kind: catalog.KindTransform, DisplayName: "Orthologs"},
		InputParams: []string{"gene_result"}},
	{SearchSummary: catalog.SearchSummary{Name: booleanName, RecordType: testRecordType, Kind: catalog.KindCombine, DisplayName: "Combine"},
		InputParams: []string{"bq_left_op", "bq_right_op"}},
	{SearchSummary: catalog.SearchSummary{Name: strategy.SpanSearch, RecordType: testRecordType, Kind: catalog.KindCombine, DisplayName: "Span"},
		InputParams: []string{"span_a", "span_b"}},
}

func (fakeCatalog) RecordTypes(context.Context, string) ([]catalog.RecordType, error) {
	return []catalog.RecordType{{Name: testRecordType, FullName: "TranscriptRecordClasses.TranscriptRecordClass"}}, nil
}

func (fakeCatalog) Searches(context.Context, string, string) ([]catalog.SearchSummary, error) {
	out := make([]catalog.SearchSummary, len(fakeSearches))
	for i, s := range fakeSearches {
		out[i] = s.SearchSummary
	}
	return out, nil
}

func (fakeCatalog) Search(_ context.Context, _, _, name string) (*catalog.Search, error) {
	for _, s := range fakeSearches {
		if s.Name == name {
			c := s
			return &c, nil
		}
	}
	return nil, catalog.ErrNotFound
}

func (fakeCatalog) Validate(_ context.Context, _, _ string, params map[string]string) (map[string]string, error) {
	return params, nil
}

// memGraph is an in-memory strategy behind the Graph interface, applying
// mutations with the strategy package's own rules, one at a time.
type memGraph struct {
	mu      sync.Mutex
	g       *strategy.Graph
	version int
	changes []strategy.Change
	// lazy makes the strategy not exist (store.ErrNotFound) until its
	// first change, as a conversation's persisted strategy does.
	lazy bool
}

func newMemGraph(t testing.TB) *memGraph {
	g, err := strategy.New(testSite, testRecordType, "test")
	if err != nil {
		t.Fatal(err)
	}
	return &memGraph{g: g}
}

func (m *memGraph) Snapshot(context.Context) (strategy.Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lazy && m.version == 0 {
		return strategy.Snapshot{}, fmt.Errorf("subagent: read strategy: %w", store.ErrNotFound)
	}
	return m.g.Snapshot("strategy-1", m.version), nil
}

func (m *memGraph) Apply(ctx context.Context, mut strategy.Mutation) (strategies.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	next, change, err := m.g.Apply(ctx, fakeCatalog{}, mut)
	if err != nil {
		return strategies.Result{}, err
	}
	m.g, m.version = next, m.version+1
	m.changes = append(m.changes, change)
	return strategies.Result{Snapshot: next.Snapshot("strategy-1", m.version), Change: change}, nil
}

// scopeHolder is an attempt's growing scope, as the graph tools keep it.
type scopeHolder struct {
	mu sync.Mutex
	s  strategy.Scope
}

func (h *scopeHolder) get() strategy.Scope {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.s
}

func (h *scopeHolder) add(id strategy.StepID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.s = h.s.With(id)
}

type createArgs struct {
	SearchName string            `json:"search_name"`
	Parameters map[string]string `json:"parameters,omitempty"`
}

type transformArgs struct {
	Input      string            `json:"input_step_id"`
	SearchName string            `json:"search_name"`
	Parameters map[string]string `json:"parameters,omitempty"`
}

type combineArgs struct {
	Left     string `json:"left_step_id"`
	Right    string `json:"right_step_id"`
	Operator string `json:"operator"`
}

type stepOut struct {
	StepID strategy.StepID `json:"stepId"`
}

// testTools stands in for the sub-agent graph tools: create_step,
// transform_step and combine_steps, scoped to the attempt's inputs and the
// steps it creates.
func testTools(g Graph) ToolsFunc {
	return func(_ context.Context, r ToolRequest) (AttemptTools, error) {
		h := &scopeHolder{s: strategy.NewScope(r.Inputs...)}
		apply := func(ctx context.Context, m strategy.Mutation) (stepOut, error) {
			res, err := g.Apply(ctx, strategy.Scoped(h.get(), m))
			if err != nil {
				return stepOut{}, &tool.ToolError{Code: strategy.Code(err), Message: err.Error()}
			}
			h.add(res.Change.Step)
			return stepOut{StepID: res.Change.Step}, nil
		}
		tools := []tool.Tool{
			tool.NewTool("create_step", "Add a search step.", func(ctx context.Context, a createArgs) (stepOut, error) {
				return apply(ctx, strategy.AddSearch{SearchName: a.SearchName, Parameters: a.Parameters})
			}),
			tool.NewTool("transform_step", "Transform a step.", func(ctx context.Context, a transformArgs) (stepOut, error) {
				return apply(ctx, strategy.AddTransform{Input: strategy.StepID(a.Input), SearchName: a.SearchName, Parameters: a.Parameters})
			}),
			tool.NewTool("combine_steps", "Combine two steps.", func(ctx context.Context, a combineArgs) (stepOut, error) {
				return apply(ctx, strategy.Combine{Left: strategy.StepID(a.Left), Right: strategy.StepID(a.Right), Operator: strategy.Operator(a.Operator)})
			}),
		}
		return AttemptTools{Tools: tools, Scope: h.get}, nil
	}
}

// recorder is an Emitter keeping every event; failAt makes the n-th emit
// (1-based) and every later one fail.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
	failAt int
}

func (r *recorder) Emit(_ context.Context, events ...event.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failAt > 0 && len(r.events)+len(events) >= r.failAt {
		return errors.New("event log unavailable")
	}
	r.events = append(r.events, events...)
	return nil
}

func (r *recorder) all() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// transcript renders the events as short lines, the sub-agents' tool
// results left out. Nodes started together emit their starts from their
// own workers in no set order, so each run of consecutive starts is
// sorted.
func transcript(events []event.Event) []string {
	out := lines(events)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && strings.HasPrefix(out[j], "start ") {
			j++
		}
		slices.Sort(out[i:j])
		i = max(j, i+1)
	}
	return out
}

func lines(events []event.Event) []string {
	var out []string
	for _, ev := range events {
		switch e := ev.(type) {
		case *event.SubagentPlan:
			var ids []string
			for _, n := range e.Nodes {
				ids = append(ids, n.ID)
			}
			out = append(out, "plan "+strings.Join(ids, ","))
		case *event.SubagentTaskRetry:
			out = append(out, fmt.Sprintf("retry %s #%d", e.NodeID, e.Attempt))
		case *event.SubagentTaskStart:
			out = append(out, fmt.Sprintf("start %s #%d", e.NodeID, e.Attempt))
		case *event.SubagentToolCallStart:
			out = append(out, fmt.Sprintf("call %s %s", e.NodeID, e.Name))
		case *event.SubagentToolCallEnd:
			res := "ok"
			if e.Error != nil {
				res = e.Error.Code
			}
			out = append(out, fmt.Sprintf("return %s %s %s", e.NodeID, e.Name, res))
		case *event.SubagentMessage:
			out = append(out, fmt.Sprintf("say %s %s", e.NodeID, e.Content))
		case *event.Usage:
			out = append(out, "usage "+e.NodeID)
		case *event.SubagentTaskEnd:
			line := fmt.Sprintf("end %s %s #%d", e.NodeID, e.Status, e.Attempt)
			if e.RootStepID != "" {
				line += " " + e.RootStepID
			}
			if e.Error != "" {
				line += ": " + e.Error
			}
			out = append(out, line)
		default:
			out = append(out, fmt.Sprintf("%T", ev))
		}
	}
	return out
}

// fakeStore keeps the delegation rows in memory; failAfter makes node
// writes fail once that many node rows were written.
type fakeStore struct {
	mu        sync.Mutex
	created   []store.NewDelegation
	nodes     map[string]store.DelegationNodeUpdate
	updates   int
	failAfter int
	failure   error // what a failing write returns (default a plain error)
	status    store.DelegationStatus
	usage     json.RawMessage
	// previous is what PreviousNodes returns: the turn's previous run.
	previous map[string]store.PreviousNode
}

func newFakeStore() *fakeStore { return &fakeStore{nodes: map[string]store.DelegationNodeUpdate{}} }

func (s *fakeStore) CreateDelegation(_ context.Context, _ string, d store.NewDelegation) (store.Delegation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created = append(s.created, d)
	return store.Delegation{ID: "del-1", ConversationID: d.ConversationID, Goal: d.Goal, Plan: d.Plan, Status: "running"}, nil
}

func (s *fakeStore) UpdateDelegationNodes(_ context.Context, _, _ string, us []store.DelegationNodeUpdate) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Rows, not calls, are counted: the scheduler batches the rows of
	// one moment into one write, and how many share a batch depends on
	// timing.
	if s.failAfter > 0 && s.updates+len(us) > s.failAfter {
		return cmp.Or(s.failure, errors.New("database unavailable"))
	}
	s.updates += len(us)
	for _, u := range us {
		s.nodes[u.NodeID] = u
	}
	return nil
}

func (s *fakeStore) FinishDelegation(_ context.Context, _, _ string, status store.DelegationStatus, usage json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.usage = status, usage
	return nil
}

// nodeRows renders the stored node states as "id:status#attempt root".
// PreviousNodes returns previous: the nodes of the turn's previous run.
func (s *fakeStore) PreviousNodes(context.Context, string, string, json.RawMessage) (map[string]store.PreviousNode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.previous, nil
}

func (s *fakeStore) nodeRows(ids ...string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, id := range ids {
		u := s.nodes[id]
		out = append(out, fmt.Sprintf("%s:%s#%d %s", id, u.Status, u.Attempt, u.RootStepID))
	}
	return out
}

// countingEngine wraps an engine and records how many calls run at once.
type countingEngine struct {
	llm.Engine
	mu       sync.Mutex
	cur, max int
}

func (e *countingEngine) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	inner := e.Engine.Stream(ctx, req)
	return func(yield func(llm.Chunk, error) bool) {
		e.mu.Lock()
		e.cur++
		e.max = max(e.max, e.cur)
		e.mu.Unlock()
		defer func() {
			e.mu.Lock()
			e.cur--
			e.mu.Unlock()
		}()
		for c, err := range inner {
			if !yield(c, err) {
				return
			}
		}
	}
}

func (e *countingEngine) peak() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.max
}

// In a scripted tool call's arguments, createdStep stands for the step the
// sub-agent created last and inputStep for its first input step (see
// resolving).
const (
	createdStep = "$created"
	inputStep   = "$input"
)

var inputRE = regexp.MustCompile(`"stepId": "(s\d+)"`)

// resolving wraps the scripted engine like a model that reads its task and
// its tool results: it replaces createdStep in the arguments of the calls
// it returns with the stepId of the newest tool result in the request, and
// inputStep with the first input step of the task. (A result names its
// step as stepId, or as step.stepId as the graph tools do.) Tasks running in
// parallel get step ids in an order a script cannot know.
type resolving struct{ llm.Engine }

func (e resolving) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	last, input := "", ""
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser && input == "" {
			if sm := inputRE.FindStringSubmatch(m.Text); sm != nil {
				input = sm[1]
			}
		}
		for _, r := range m.ToolResults {
			var out struct {
				StepID string `json:"stepId"`
				Step   struct {
					StepID string `json:"stepId"`
				} `json:"step"`
			}
			if json.Unmarshal(r.Content, &out) == nil && out.StepID+out.Step.StepID != "" {
				last = out.StepID + out.Step.StepID
			}
		}
	}
	inner := e.Engine.Stream(ctx, req)
	return func(yield func(llm.Chunk, error) bool) {
		for c, err := range inner {
			if c.ToolCall != nil {
				call := *c.ToolCall
				call.Args = json.RawMessage(strings.NewReplacer(createdStep, last, inputStep, input).Replace(string(call.Args)))
				c.ToolCall = &call
			}
			if !yield(c, err) {
				return
			}
		}
	}
}

// script builds a scripted engine from sub-agent responses.
func script(t testing.TB, responses ...string) *scripted.Engine {
	t.Helper()
	s, err := scripted.Parse([]byte(`{"roles":{"subagent":[` + strings.Join(responses, ",") + `]}}`))
	if err != nil {
		t.Fatalf("scripted.Parse: %v", err)
	}
	e, err := scripted.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// reply is one scripted response for a node (matched on the heading of
// its task message), after latencyMs, with body the rest of the response
// object.
func reply(node string, latencyMs int, body string) string {
	match, _ := json.Marshal("# Task " + node + "\n")
	return fmt.Sprintf(`{"match":%s,"latencyMs":%d,%s}`, match, latencyMs, body)
}

func createCall(search string) string {
	return fmt.Sprintf(`"toolCalls":[{"name":"create_step","args":{"search_name":%q}}]`, search)
}

func transformCall(input string) string {
	return fmt.Sprintf(`"toolCalls":[{"name":"transform_step","args":{"input_step_id":%q,"search_name":"GenesByOrthologs"}}]`, input)
}

func finishCall(root string) string {
	return fmt.Sprintf(`"toolCalls":[{"name":"finish_subtask","args":{"root_step_id":%q,"summary":"built %s"}}]`, root, root)
}

// harness runs delegations against fakes.
type harness struct {
	graph  *memGraph
	store  *fakeStore
	events *recorder
	engine *countingEngine
	sched  *Scheduler
}

func newHarness(t testing.TB, engine llm.Engine, cfg Config) *harness {
	t.Helper()
	h := &harness{graph: newMemGraph(t), store: newFakeStore(), events: &recorder{}, engine: &countingEngine{Engine: engine}}
	cfg.Store = h.store
	s, err := NewScheduler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.sched = s
	return h
}

func (h *harness) delegation(t testing.TB, raw string) Delegation {
	t.Helper()
	p, err := plan.Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return Delegation{TurnID: "turn-1", UserID: "user-1", ConversationID: "conv-1", Goal: "Test goal", Plan: p,
		Graph: h.graph, Agent: AgentConfig{Engine: h.engine}, Tools: testTools(h.graph), Emitter: h.events}
}

// requestsFor returns the engine requests made for a node.
func requestsFor(e *scripted.Engine, node string) []llm.Request {
	var out []llm.Request
	for _, r := range e.Requests() {
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser && strings.HasPrefix(m.Text, "# Task "+node+"\n") {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
