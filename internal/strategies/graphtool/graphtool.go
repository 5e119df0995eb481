// Package graphtool offers one conversation's persisted strategy to
// Strategist's agents as tools: the executor's set (create_step,
// transform_step, combine_steps, update_step, delete_step, list_steps,
// validate_strategy, get_result_count, enrich_step, undo_last_change,
// rename_strategy, and create_list_step, save_gene_list, score_controls
// and trace_gene when the researcher's gene lists are offered)
// and a sub-agent's set (create_step, transform_step, combine_steps,
// get_result_count), the latter confined to a Scope; and get_strategy
// (GetStrategy), the read-only overview the planner and the executor read
// before planning a change: steps with their key values and counts, roots,
// and the previous version with another result.
//
// Every change goes through strategies.Service, the one place that mutates
// strategies, versions each change and reports the graph_snapshot; the tools
// never emit graph events themselves, and nothing downstream inspects their
// results for magic keys. A result is a typed struct: the step as the
// service filled it (parameters complete, count with its status and
// provenance, or "count unavailable offline", never an invented number) and
// the current roots, so a model can chain its next call. A refusal is an
// *tool.ToolError carrying the strategy error code, the offending step and
// the current roots.
package graphtool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"strategist/internal/catalog/enrich"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// Service is what the tools need from strategies.Service, which satisfies it.
type Service interface {
	ForConversation(ctx context.Context, userID, conversationID, recordType, name string) (strategy.Snapshot, error)
	Conversation(ctx context.Context, userID, conversationID string) (strategy.Snapshot, error)
	Get(ctx context.Context, userID, strategyID string) (strategy.Snapshot, error)
	Apply(ctx context.Context, userID, strategyID string, m strategy.Mutation) (strategies.Result, error)
	Undo(ctx context.Context, userID, strategyID string) (strategies.Result, error)
	Validate(ctx context.Context, userID, strategyID string) ([]strategy.Problem, strategy.Snapshot, error)
	StepCount(ctx context.Context, userID, strategyID string, stepID strategy.StepID) (strategy.CountResult, error)
	StepEnrichment(ctx context.Context, userID, strategyID string, stepID strategy.StepID, cutoff float64) (*enrich.Result, error)
}

var _ Service = (*strategies.Service)(nil)

// Binding ties the tools to one conversation's strategy for one turn. It is
// given explicitly, never carried in a context.
type Binding struct {
	Service        Service // required
	UserID         string  // required: every read and write is the owner's
	ConversationID string  // required
	// Site is the conversation's site (required); a strategy on another
	// site is refused rather than edited.
	Site string
	// RecordType is the record type of a strategy created by the first
	// write (required; "transcript" for gene strategies).
	RecordType string
	// StrategyName names a strategy created by the first write.
	StrategyName string
	// Ensure, when set, gets or creates the conversation's strategy on the
	// first write (the orchestrator may link one made elsewhere); nil means
	// Service.ForConversation with RecordType and StrategyName. Reads never
	// create a strategy.
	Ensure func(ctx context.Context) (strategy.Snapshot, error)
	// Origin, for a sub-agent's tools, names the task its steps are made
	// for, the same for every attempt and every run of the turn (the
	// scheduler's task key); for the executor's, the turn. Each step the
	// tools add is keyed with it and a digest of the call (strategy.Keyed);
	// a call whose key names a step an earlier attempt of the task (an
	// earlier run of the turn) made, outside this attempt's scope (not made
	// by this run), returns that step instead of adding another (reuse.go).
	// Empty: no keys.
	Origin string
	// Lists and Scorer, when both set, offer the list tools:
	// create_list_step, save_gene_list, score_controls and trace_gene.
	Lists  Lists
	Scorer Scorer
}

func (b Binding) check() error {
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"UserID", b.UserID}, {"ConversationID", b.ConversationID}, {"Site", b.Site}, {"RecordType", b.RecordType},
	} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if b.Service == nil {
		missing = append(missing, "Service")
	}
	if len(missing) > 0 {
		return fmt.Errorf("graphtool: binding: %s required", strings.Join(missing, ", "))
	}
	return nil
}

// session is the tools' view of the conversation's strategy for one set of
// tools: it finds the strategy once and remembers its id. Its mutex guards
// strategyID; concurrent calls of one response share it.
type session struct {
	b          Binding
	mu         sync.Mutex
	strategyID string // "" until known
}

func (s *session) known() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.strategyID
}

func (s *session) remember(snap strategy.Snapshot) (string, error) {
	if snap.SiteID != s.b.Site {
		return "", fmt.Errorf("the conversation's strategy %s is on site %s, not %s", snap.StrategyID, snap.SiteID, s.b.Site)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strategyID = snap.StrategyID
	return snap.StrategyID, nil
}

// forWrite returns the strategy id, creating the strategy on first use.
func (s *session) forWrite(ctx context.Context) (string, error) {
	if id := s.known(); id != "" {
		return id, nil
	}
	ensure := s.b.Ensure
	if ensure == nil {
		ensure = func(ctx context.Context) (strategy.Snapshot, error) {
			return s.b.Service.ForConversation(ctx, s.b.UserID, s.b.ConversationID, s.b.RecordType, s.b.StrategyName)
		}
	}
	snap, err := ensure(ctx)
	if err != nil {
		return "", err
	}
	return s.remember(snap)
}

// forRead returns the strategy id, or ok false when the conversation has no
// strategy yet.
func (s *session) forRead(ctx context.Context) (id string, ok bool, err error) {
	if id := s.known(); id != "" {
		return id, true, nil
	}
	snap, err := s.b.Service.Conversation(ctx, s.b.UserID, s.b.ConversationID)
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	id, err = s.remember(snap)
	return id, err == nil, err
}

// ExecutorTools returns the executor's graph tools over the binding's
// strategy, in declaration order. The executor adds the catalog tools and
// delegate_strategy_subtasks to them in tool.NewToolset. Build them once
// per turn: they share the turn's view of the strategy.
func ExecutorTools(b Binding) ([]tool.Tool, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	t := &tools{s: &session{b: b}}
	if b.Origin != "" {
		t.made = NewScope()
	}
	out := []tool.Tool{
		t.createStep(), t.transformStep(), t.combineSteps(), t.updateStep(), t.deleteStep(),
		t.listSteps(), t.validateStrategy(), t.getResultCount(), t.enrichStep(), t.undoLastChange(), t.renameStrategy(),
	}
	if b.Lists != nil && b.Scorer != nil {
		out = append(out, t.createListStep(), t.saveGeneList(), t.setControls(), t.scoreControls(), t.traceGene())
	}
	return out, nil
}

// SubagentTools returns a sub-agent's graph tools (create_step,
// transform_step, combine_steps, get_result_count), each refusing steps
// outside scope with OUT_OF_SCOPE. Steps the sub-agent creates join scope
// as they are created. scope belongs to the one sub-agent run the tools are
// built for (build both per attempt); its finish_subtask checks the root
// it is given against the same scope.
func SubagentTools(b Binding, scope *Scope) ([]tool.Tool, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	if scope == nil {
		return nil, errors.New("graphtool: sub-agent tools: nil scope")
	}
	t := &tools{s: &session{b: b}, scope: scope}
	return []tool.Tool{t.createStep(), t.transformStep(), t.combineSteps(), t.getResultCount()}, nil
}

// tools holds what the handlers share: the session and, for a sub-agent,
// its scope (nil for the executor). made is, for the executor's tools of a
// keyed turn (Binding.Origin), the steps this run of the turn added or took
// back: a call whose key names a step an earlier run made, and this run
// has not, returns that step (the round that made it was cut short and is
// being asked again), while the same call made twice in one run adds two.
type tools struct {
	s     *session
	scope *Scope
	made  *Scope
}

// tracked is the set the tools' new and taken-back steps join, which a
// keyed call's step must be outside of to be taken back: the sub-agent's
// scope, or the executor run's steps (a keyed turn only); nil for neither.
func (t *tools) tracked() *Scope {
	if t.scope != nil {
		return t.scope
	}
	return t.made
}
