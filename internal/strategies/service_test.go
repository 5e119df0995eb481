package strategies

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"strategist/internal/catalog"
	"strategist/internal/event"
	"strategist/internal/pgtest"
	"strategist/internal/store"
	"strategist/internal/strategy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Main(m)) }

// recorder is an OnChange hook that keeps every snapshot it was given.
type recorder struct {
	mu    sync.Mutex
	snaps []strategy.Snapshot
}

func (r *recorder) hook(_ context.Context, s strategy.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.snaps = append(r.snaps, s)
}

func (r *recorder) versions() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var vs []int
	for _, s := range r.snaps {
		vs = append(vs, s.Version)
	}
	return vs
}

func (r *recorder) last() strategy.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snaps[len(r.snaps)-1]
}

// serviceFixture is a Service on a fresh database, a conversation of owner
// with its strategy created, and another user.
type serviceFixture struct {
	svc          *Service
	db           *store.DB
	cat          *fakeCatalog
	rec          *recorder
	owner, other string
	conversation string
	strategy     string
}

func newServiceFixture(t *testing.T) serviceFixture {
	t.Helper()
	ctx := context.Background()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	owner, err := db.CreateUser(ctx, "owner@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.CreateUser(ctx, "other@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	conv, err := db.CreateConversation(ctx, owner.ID, testSite, "Translation", "offline")
	if err != nil {
		t.Fatal(err)
	}
	f := serviceFixture{db: db, cat: newFakeCatalog(), rec: &recorder{}, owner: owner.ID, other: other.ID, conversation: conv.ID}
	f.svc, err = NewService(Config{Store: db, Catalog: f.cat, OnChange: f.rec.hook, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := f.svc.ForConversation(ctx, owner.ID, conv.ID, testRT, "Translation genes")
	if err != nil {
		t.Fatal(err)
	}
	f.strategy = snap.StrategyID
	return f
}

func (f serviceFixture) apply(t *testing.T, m strategy.Mutation) Result {
	t.Helper()
	res, err := f.svc.Apply(context.Background(), f.owner, f.strategy, m)
	if err != nil {
		t.Fatalf("Apply(%T): %v", m, err)
	}
	return res
}

func TestServiceCreateOrGet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	want := strategy.Snapshot{ConversationID: f.conversation, StrategyID: f.strategy, Version: 0, Name: "Translation genes", RecordType: testRT, SiteID: testSite, Roots: []strategy.StepID{}, Steps: []strategy.Step{}}
	if diff := cmp.Diff([]strategy.Snapshot{want}, f.rec.snaps); diff != "" {
		t.Errorf("creation reported (-want +got):\n%s", diff)
	}
	again, err := f.svc.ForConversation(ctx, f.owner, f.conversation, testRT, "ignored")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("second ForConversation (-want +got):\n%s", diff)
	}
	if got, err := f.svc.Conversation(ctx, f.owner, f.conversation); err != nil || got.StrategyID != f.strategy {
		t.Errorf("Conversation = %s, %v", got.StrategyID, err)
	}
	if len(f.rec.snaps) != 1 {
		t.Errorf("getting an existing strategy reported %d snapshots", len(f.rec.snaps)-1)
	}

	conv, err := f.db.CreateConversation(ctx, f.owner, testSite, "", "offline")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ForConversation(ctx, f.owner, conv.ID, "orthomclGroup", ""); !errors.Is(err, strategy.ErrRecordTypeMismatch) {
		t.Errorf("unknown record type: %v, want ErrRecordTypeMismatch", err)
	}
	if _, err := f.svc.Conversation(ctx, f.owner, conv.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("refused creation left a strategy: %v", err)
	}
}

func TestServiceVersionsAndCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	steps := []strategy.Mutation{
		translation, replication, strategy.Combine{Left: "s1", Right: "s2", Operator: "OR", DisplayName: "Either"},
		strategy.AddSearch{SearchName: "GenesByMolecularWeight"},
		strategy.Combine{Left: "s3", Right: "s4", Operator: strategy.Intersect},
		strategy.DeleteStep{Step: "s5"},
		strategy.Rename{Name: "Renamed"},
	}
	for i, m := range steps {
		res := f.apply(t, m)
		if res.Snapshot.Version != i+1 {
			t.Errorf("mutation %d made version %d", i, res.Snapshot.Version)
		}
		if diff := cmp.Diff(res.Snapshot, f.rec.last()); diff != "" {
			t.Errorf("mutation %d: reported snapshot differs from the result (-result +reported):\n%s", i, diff)
		}
	}
	if diff := cmp.Diff([]int{0, 1, 2, 3, 4, 5, 6, 7}, f.rec.versions()); diff != "" {
		t.Errorf("reported versions (-want +got):\n%s", diff)
	}
	snap, err := f.svc.Get(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.rec.last(), snap); diff != "" {
		t.Errorf("Get differs from the last report (-reported +got):\n%s", diff)
	}
	want := map[strategy.StepID]string{"s1": "ok 40", "s2": "ok 30", "s3": "ok 60", "s4": "not_evaluable"}
	if diff := cmp.Diff(want, counts(graphOf(snap))); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	vs, err := f.svc.Versions(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	var ops []strategy.ChangeOp
	for i, v := range vs {
		if v.Version != i {
			t.Errorf("version %d at position %d", v.Version, i)
		}
		ops = append(ops, v.Change.Op)
	}
	wantOps := []strategy.ChangeOp{strategy.OpCreate, strategy.OpAddSearch, strategy.OpAddSearch, strategy.OpCombine, strategy.OpAddSearch, strategy.OpCombine, strategy.OpDeleteStep, strategy.OpRename}
	if diff := cmp.Diff(wantOps, ops); diff != "" {
		t.Errorf("change ops (-want +got):\n%s", diff)
	}
	if vs[6].Change.Summary != `deleted step s5 "Either and Genes by GenesByMolecularWeight"; s3, s4 became roots again` {
		t.Errorf("delete change summary = %q", vs[6].Change.Summary)
	}
}

// graphOf rebuilds a graph from a snapshot, for assertions.
func graphOf(s strategy.Snapshot) *strategy.Graph {
	return &strategy.Graph{Name: s.Name, SiteID: s.SiteID, RecordType: s.RecordType, Steps: s.Steps}
}

func TestServiceRefusalChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	f.apply(t, translation)
	f.apply(t, strategy.AddTransform{Input: "s1", SearchName: "GenesByWeightFilter"})
	_, err := f.svc.Apply(ctx, f.owner, f.strategy, strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union})
	se, ok := errors.AsType[*strategy.StepError](err)
	if !ok || !errors.Is(err, strategy.ErrStepConsumed) || se.Step != "s1" || se.ConsumedBy != "s2" {
		t.Fatalf("combining a consumed step: %v", err)
	}
	snap, err := f.svc.Get(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version != 2 || len(f.rec.snaps) != 3 {
		t.Errorf("a refused mutation made version %d and %d reports", snap.Version, len(f.rec.snaps))
	}
	vs, _ := f.svc.Versions(ctx, f.owner, f.strategy)
	if len(vs) != 3 {
		t.Errorf("a refused mutation recorded a version: %d versions", len(vs))
	}
}

func TestServiceUndo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	var history []strategy.Snapshot // history[v] is version v
	history = append(history, f.rec.last())
	for _, m := range []strategy.Mutation{translation, trna, strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Colocate, Colocation: &strategy.Colocation{Upstream: 100}}, strategy.Rename{Name: "Near tRNA"}} {
		history = append(history, f.apply(t, m).Snapshot)
	}
	// Each undo steps one version further back, exactly.
	for i, restored := range []int{3, 2, 1, 0} {
		res, err := f.svc.Undo(ctx, f.owner, f.strategy)
		if err != nil {
			t.Fatalf("undo %d: %v", i+1, err)
		}
		want := history[restored]
		want.Version = 5 + i
		if diff := cmp.Diff(want, res.Snapshot); diff != "" {
			t.Errorf("undo %d: snapshot differs from version %d (-want +got):\n%s", i+1, restored, diff)
		}
		wantChange := strategy.Change{Op: strategy.OpUndo, UndoneVersion: restored + 1, RestoredVersion: &restored, Undone: 1,
			Summary: fmt.Sprintf("undid version %d: the strategy is as it was at version %d", restored+1, restored)}
		if diff := cmp.Diff(wantChange, res.Change); diff != "" {
			t.Errorf("undo %d: change (-want +got):\n%s", i+1, diff)
		}
		if diff := cmp.Diff(res.Snapshot, f.rec.last()); diff != "" {
			t.Errorf("undo %d was not reported (-result +reported):\n%s", i+1, diff)
		}
	}
	if _, err := f.svc.Undo(ctx, f.owner, f.strategy); !errors.Is(err, strategy.ErrNothingToUndo) || strategy.Code(err) != "NOTHING_TO_UNDO" {
		t.Errorf("undo past creation: %v, want ErrNothingToUndo", err)
	}
	// A step made after undo gets a fresh id; undoing it returns to the
	// empty strategy again.
	if res := f.apply(t, trna); res.Change.Step != "s4" {
		t.Errorf("new step after undo has id %s, want s4 (ids are never reused)", res.Change.Step)
	}
	res, err := f.svc.Undo(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Snapshot.Steps) != 0 || res.Snapshot.Name != "Translation genes" || *res.Change.RestoredVersion != 8 {
		t.Errorf("undo after a new step = %+v, change %+v", res.Snapshot, res.Change)
	}
	if diff := cmp.Diff([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, f.rec.versions()); diff != "" {
		t.Errorf("reported versions (-want +got):\n%s", diff)
	}
}

// TestServiceConcurrentApply has 8 sub-agents build on one strategy at
// once, each a search, a transform of it and a combine with its own second
// search, through Scoped: nothing is lost, versions are contiguous, the
// hook sees them in order, and no agent touches another's steps.
func TestServiceConcurrentApply(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	const agents = 8
	roots := make([]strategy.StepID, agents)
	var wg sync.WaitGroup
	for a := range agents {
		wg.Go(func() {
			scope := strategy.NewScope()
			do := func(m strategy.Mutation) strategy.StepID {
				res, err := f.svc.Apply(ctx, f.owner, f.strategy, strategy.Scoped(scope, m))
				if err != nil {
					t.Errorf("agent %d: %v", a, err)
					return ""
				}
				scope = scope.With(res.Change.Step)
				return res.Change.Step
			}
			first := do(strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006412"]`}, Weight: a})
			filtered := do(strategy.AddTransform{Input: first, SearchName: "GenesByWeightFilter"})
			second := do(trna)
			roots[a] = do(strategy.Combine{Left: filtered, Right: second, Operator: strategy.Union, DisplayName: fmt.Sprintf("agent %d", a)})
		})
	}
	wg.Wait()
	snap, err := f.svc.Get(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version != 4*agents || len(snap.Steps) != 4*agents {
		t.Fatalf("after %d agents: version %d with %d steps, want %d", agents, snap.Version, len(snap.Steps), 4*agents)
	}
	gotRoots := slices.Clone(snap.Roots)
	slices.Sort(gotRoots)
	slices.Sort(roots)
	if diff := cmp.Diff(roots, gotRoots); diff != "" {
		t.Errorf("roots are not the agents' combines (-want +got):\n%s", diff)
	}
	if ps := graphOf(snap).Validate(); len(ps) != 1 || ps[0].Code != strategy.ProblemMultipleRoots {
		t.Errorf("Validate() = %v, want only MULTIPLE_ROOTS", ps)
	}
	for _, s := range snap.Steps {
		if s.Kind == strategy.KindCombine {
			a, b := s.Inputs[0], s.Inputs[1]
			as, _ := graphOf(snap).Step(a)
			if as.Kind != strategy.KindTransform || b == "" {
				t.Errorf("combine %s joins %v: not one agent's own steps", s.ID, s.Inputs)
			}
		}
	}
	want := make([]int, 4*agents+1)
	for i := range want {
		want[i] = i
	}
	if diff := cmp.Diff(want, f.rec.versions()); diff != "" {
		t.Errorf("reported versions are not 0..%d in order (-want +got):\n%s", 4*agents, diff)
	}
	vs, err := f.svc.Versions(ctx, f.owner, f.strategy)
	if err != nil || len(vs) != 4*agents+1 {
		t.Fatalf("Versions = %d, %v", len(vs), err)
	}
}

// staleStore serves an old read of the strategy, as a concurrent writer
// would leave it, to drive Apply down its prepare-again path.
type staleStore struct {
	Store
	stale store.Strategy
}

func (s staleStore) Strategy(context.Context, string, string) (store.Strategy, error) {
	return s.stale, nil
}

func TestServiceReprepareUnderLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	f.apply(t, strategy.AddSearch{SearchName: "GenesByGoTerm", Parameters: map[string]string{"go_typeahead": `["GO:0006412"]`}})
	stale, err := f.db.Strategy(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	// Another writer changes s1's terms and weight after our read.
	f.apply(t, strategy.UpdateStep{Step: "s1", Parameters: map[string]string{"go_typeahead": `["GO:0006260"]`}, Weight: ptr(7)})

	svc, err := NewService(Config{Store: staleStore{Store: f.db, stale: stale}, Catalog: f.cat})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Apply(ctx, f.owner, f.strategy, strategy.UpdateStep{Step: "s1", Parameters: map[string]string{"organism": pf3d7JSON}, DisplayName: ptr("Replication")})
	if err != nil {
		t.Fatal(err)
	}
	s1 := res.Snapshot.Steps[0]
	if s1.Parameters["go_typeahead"] != `["GO:0006260"]` || s1.Weight != 7 || s1.DisplayName != "Replication" {
		t.Errorf("an update prepared on a stale read lost the concurrent change: %+v", s1)
	}
	if s1.CountStatus != strategy.CountOK || *s1.Count != 30 {
		t.Errorf("s1 count after the update: %s %v, want ok 30", s1.CountStatus, s1.Count)
	}
}

func TestServiceOtherUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	f.apply(t, translation)
	calls := []struct {
		name string
		call func() error
	}{
		{"Get", func() error { _, err := f.svc.Get(ctx, f.other, f.strategy); return err }},
		{"Apply", func() error { _, err := f.svc.Apply(ctx, f.other, f.strategy, trna); return err }},
		{"Undo", func() error { _, err := f.svc.Undo(ctx, f.other, f.strategy); return err }},
		{"Rename", func() error { _, err := f.svc.Rename(ctx, f.other, f.strategy, "mine"); return err }},
		{"Versions", func() error { _, err := f.svc.Versions(ctx, f.other, f.strategy); return err }},
		{"WDK", func() error { _, err := f.svc.WDK(ctx, f.other, f.strategy); return err }},
		{"StepResults", func() error {
			_, err := f.svc.StepResults(ctx, f.other, f.strategy, "s1", catalog.Page{Limit: 5})
			return err
		}},
		{"StepCount", func() error { _, err := f.svc.StepCount(ctx, f.other, f.strategy, "s1"); return err }},
		{"Conversation", func() error { _, err := f.svc.Conversation(ctx, f.other, f.conversation); return err }},
		{"ForConversation", func() error { _, err := f.svc.ForConversation(ctx, f.other, f.conversation, testRT, ""); return err }},
	}
	for _, c := range calls {
		if err := c.call(); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s as another user: %v, want store.ErrNotFound", c.name, err)
		}
	}
	if snap, _ := f.svc.Get(ctx, f.owner, f.strategy); snap.Version != 1 || len(f.rec.snaps) != 2 {
		t.Errorf("another user's calls changed the strategy: version %d, %d reports", snap.Version, len(f.rec.snaps))
	}
}

func TestServiceResultsAndExport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	f.apply(t, translation)
	f.apply(t, strategy.AddSearch{SearchName: "GenesByMolecularWeight"})

	ans, err := f.svc.StepResults(ctx, f.owner, f.strategy, "s1", catalog.Page{Offset: 38, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Count != 40 || len(ans.Records) != 2 || ans.Records[0].GeneID != "g039" || ans.Provenance.Source != testProvSrc {
		t.Errorf("StepResults page = %+v", ans)
	}
	if ans, err := f.svc.StepResults(ctx, f.owner, f.strategy, "s1", catalog.Page{}); err != nil || len(ans.Records) != 40 {
		t.Errorf("default page: %d records, %v", len(ans.Records), err)
	}
	if _, err := f.svc.StepResults(ctx, f.owner, f.strategy, "s2", catalog.Page{Limit: 5}); !errors.Is(err, strategy.ErrNotEvaluable) {
		t.Errorf("results of a not-evaluable step: %v, want ErrNotEvaluable", err)
	} else if _, ok := errors.AsType[*catalog.NotEvaluableError](err); !ok {
		t.Errorf("error %v does not carry the *catalog.NotEvaluableError", err)
	}
	for _, p := range []catalog.Page{{Limit: -1}, {Offset: -1, Limit: 1}, {Limit: MaxPageSize + 1}} {
		if _, err := f.svc.StepResults(ctx, f.owner, f.strategy, "s1", p); !errors.Is(err, strategy.ErrInvalidPage) {
			t.Errorf("page %+v: %v, want ErrInvalidPage", p, err)
		}
	}
	if _, err := f.svc.StepResults(ctx, f.owner, f.strategy, "s9", catalog.Page{Limit: 1}); !errors.Is(err, strategy.ErrStepNotFound) {
		t.Errorf("results of a missing step: %v, want ErrStepNotFound", err)
	}
	if c, err := f.svc.StepCount(ctx, f.owner, f.strategy, "s1"); err != nil || c.Status != strategy.CountOK || c.Count != 40 {
		t.Errorf("StepCount(s1) = %+v, %v", c, err)
	}
	if c, err := f.svc.StepCount(ctx, f.owner, f.strategy, "s2"); err != nil || c.Status != strategy.CountNotEvaluable {
		t.Errorf("StepCount(s2) = %+v, %v", c, err)
	}

	// Two roots: not exportable, and Validate says why.
	if _, err := f.svc.WDK(ctx, f.owner, f.strategy); !errors.Is(err, strategy.ErrInvalidGraph) {
		t.Errorf("export with two roots: %v, want ErrInvalidGraph", err)
	}
	ps, snap, err := f.svc.Validate(ctx, f.owner, f.strategy)
	if err != nil || len(ps) != 1 || ps[0].Code != strategy.ProblemMultipleRoots || snap.Version != 2 {
		t.Errorf("Validate = %v, version %d, %v", ps, snap.Version, err)
	}
	f.apply(t, strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Minus})
	w, err := f.svc.WDK(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	if w.StepTree.StepID != "s3" || w.StepTree.PrimaryInput.StepID != "s1" || w.StepTree.SecondaryInput.StepID != "s2" || len(w.Steps) != 3 {
		t.Errorf("export = %+v", w)
	}
}

// stuckCatalog never answers before its context ends.
type stuckCatalog struct{ *fakeCatalog }

func (stuckCatalog) Answer(ctx context.Context, _ string, _ *catalog.Query, _ catalog.Page) (*catalog.Answer, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestServiceSlowCountStillCommits: a count that outlives CountTimeout is
// recorded as failed, and the change commits anyway.
func TestServiceSlowCountStillCommits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	svc, err := NewService(Config{Store: f.db, Catalog: stuckCatalog{f.cat}, CountTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Apply(ctx, f.owner, f.strategy, trna)
	if err != nil {
		t.Fatal(err)
	}
	s1 := res.Snapshot.Steps[0]
	if res.Snapshot.Version != 1 || s1.CountStatus != strategy.CountError || s1.Count != nil || !strings.Contains(s1.CountMessage, "deadline") {
		t.Errorf("version %d, s1 count %s %v %q; want version 1 with a failed count", res.Snapshot.Version, s1.CountStatus, s1.Count, s1.CountMessage)
	}
	// The next change on a working catalog fills the count in.
	res = f.apply(t, translation)
	if s1 := res.Snapshot.Steps[0]; s1.CountStatus != strategy.CountOK || *s1.Count != 10 {
		t.Errorf("after recovery s1 count = %s %v", s1.CountStatus, s1.Count)
	}
}

// lockProbe is a catalog whose RecordTypes checks that no transaction
// holds the conversation's row: a live site's catalog reads the
// researcher's key from the database, which must not wait behind the
// transaction creating the strategy.
type lockProbe struct {
	*fakeCatalog
	db          *store.DB
	owner, conv string
	blocked     error
}

func (p *lockProbe) RecordTypes(ctx context.Context, site string) ([]catalog.RecordType, error) {
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	probe := errors.New("probe")
	_, _, _, err := p.db.CreateConversationStrategy(cctx, p.owner, p.conv, testRT, func(string) ([]byte, []byte, error) {
		return nil, nil, probe
	}, nil)
	if !errors.Is(err, probe) {
		p.blocked = err
	}
	return p.fakeCatalog.RecordTypes(ctx, site)
}

func TestForConversationAsksTheCatalogOutsideItsTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := store.New(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	owner, err := db.CreateUser(ctx, "owner@example.org", "$argon2id$test")
	if err != nil {
		t.Fatal(err)
	}
	conv, err := db.CreateConversation(ctx, owner.ID, testSite, "Translation", "offline")
	if err != nil {
		t.Fatal(err)
	}
	probe := &lockProbe{fakeCatalog: newFakeCatalog(), db: db, owner: owner.ID, conv: conv.ID}
	svc, err := NewService(Config{Store: db, Catalog: probe, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := svc.ForConversation(ctx, owner.ID, conv.ID, testRT, "Translation genes")
	if err != nil {
		t.Fatal(err)
	}
	if probe.blocked != nil {
		t.Errorf("the record types were read while the conversation's row was locked: %v", probe.blocked)
	}
	if snap.StrategyID == "" || snap.SiteID != testSite {
		t.Errorf("ForConversation() = %+v", snap)
	}
}

// Redo takes undos back one version at a time, up to the change they
// started from; undo after a redo steps back from the redone version; a
// new change ends what can be redone.
func TestServiceRedo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	if _, err := f.svc.Redo(ctx, f.owner, f.strategy); !errors.Is(err, strategy.ErrNothingToRedo) || strategy.Code(err) != "NOTHING_TO_REDO" {
		t.Errorf("redo without an undo: %v, want ErrNothingToRedo", err)
	}
	history := []strategy.Snapshot{f.rec.last()}
	for _, m := range []strategy.Mutation{translation, trna, strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union}} {
		history = append(history, f.apply(t, m).Snapshot)
	}
	if _, err := f.svc.Redo(ctx, f.owner, f.strategy); !errors.Is(err, strategy.ErrNothingToRedo) {
		t.Errorf("redo after a change: %v, want ErrNothingToRedo", err)
	}
	undo := func() Result {
		t.Helper()
		res, err := f.svc.Undo(ctx, f.owner, f.strategy)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	redo := func(wantVersion int) {
		t.Helper()
		res, err := f.svc.Redo(ctx, f.owner, f.strategy)
		if err != nil {
			t.Fatal(err)
		}
		want := history[wantVersion]
		want.Version = res.Snapshot.Version
		if diff := cmp.Diff(want, res.Snapshot); diff != "" {
			t.Errorf("redo: snapshot differs from version %d (-want +got):\n%s", wantVersion, diff)
		}
		if res.Change.Op != strategy.OpRedo || res.Change.RestoredVersion == nil || *res.Change.RestoredVersion != wantVersion {
			t.Errorf("redo change = %+v, want a redo restoring version %d", res.Change, wantVersion)
		}
		if diff := cmp.Diff(res.Snapshot, f.rec.last()); diff != "" {
			t.Errorf("redo was not reported (-result +reported):\n%s", diff)
		}
	}
	undo() // to version 2
	undo() // to version 1
	redo(2)
	redo(3)
	if _, err := f.svc.Redo(ctx, f.owner, f.strategy); !errors.Is(err, strategy.ErrNothingToRedo) {
		t.Errorf("redo past the last change: %v, want ErrNothingToRedo", err)
	}
	// Undo after redo steps back from the redone version.
	if res := undo(); res.Change.RestoredVersion == nil || *res.Change.RestoredVersion != 2 {
		t.Errorf("undo after redo: %+v, want version 2 restored", res.Change)
	}
	redo(3)
	undo()
	// A new change ends the redo.
	f.apply(t, strategy.Rename{Name: "Other"})
	if _, err := f.svc.Redo(ctx, f.owner, f.strategy); !errors.Is(err, strategy.ErrNothingToRedo) {
		t.Errorf("redo after a new change: %v, want ErrNothingToRedo", err)
	}
}

// TestServiceUndoByTurn: the changes one turn made are one unit of Undo
// and Redo, so no undo leaves a half-built strategy; a researcher's own edit
// (no turn) is a unit of its own; Restore goes back to any version at once.
func TestServiceUndoByTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newServiceFixture(t)
	turn := func(id string) context.Context { return event.WithTurn(ctx, id) }
	applyIn := func(c context.Context, m strategy.Mutation) strategy.Snapshot {
		t.Helper()
		res, err := f.svc.Apply(c, f.owner, f.strategy, m)
		if err != nil {
			t.Fatalf("Apply(%T): %v", m, err)
		}
		return res.Snapshot
	}
	// Turn A builds a tree in three changes (versions 1-3), the researcher
	// renames the strategy by hand (4), turn B adds a step and combines (5-6).
	applyIn(turn("A"), translation)
	applyIn(turn("A"), trna)
	afterA := applyIn(turn("A"), strategy.Combine{Left: "s1", Right: "s2", Operator: strategy.Union})
	byHand := applyIn(ctx, strategy.Rename{Name: "Mine"})
	applyIn(turn("B"), replication)
	afterB := applyIn(turn("B"), strategy.Combine{Left: "s3", Right: "s4", Operator: strategy.Minus})

	steps := func(s strategy.Snapshot) int { return len(s.Steps) }
	undo := func(wantVersion int, want strategy.Snapshot) {
		t.Helper()
		res, err := f.svc.Undo(ctx, f.owner, f.strategy)
		if err != nil {
			t.Fatal(err)
		}
		if *res.Change.RestoredVersion != wantVersion || steps(res.Snapshot) != steps(want) || res.Snapshot.Name != want.Name {
			t.Errorf("undo restored version %d (%d steps, %q), want version %d (%d steps, %q)",
				*res.Change.RestoredVersion, steps(res.Snapshot), res.Snapshot.Name, wantVersion, steps(want), want.Name)
		}
	}
	undo(4, byHand) // turn B's two changes at once
	undo(3, afterA) // the hand edit alone
	empty, err := f.svc.Undo(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	if *empty.Change.RestoredVersion != 0 || steps(empty.Snapshot) != 0 || empty.Change.Undone != 3 {
		t.Errorf("undoing turn A restored version %d with %d steps (%d changes), want the empty version 0 (3 changes)",
			*empty.Change.RestoredVersion, steps(empty.Snapshot), empty.Change.Undone)
	}
	// Redo brings back a whole turn too.
	res, err := f.svc.Redo(ctx, f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	if *res.Change.RestoredVersion != 3 || steps(res.Snapshot) != steps(afterA) {
		t.Errorf("redo restored version %d, want 3 (turn A whole)", *res.Change.RestoredVersion)
	}
	// Restore jumps to any earlier version; Undo then goes on from there.
	res, err = f.svc.Restore(ctx, f.owner, f.strategy, 6)
	if err != nil {
		t.Fatal(err)
	}
	if steps(res.Snapshot) != steps(afterB) || res.Change.Op != strategy.OpRestore {
		t.Errorf("restore to 6 = %d steps, change %+v", steps(res.Snapshot), res.Change)
	}
	undo(4, byHand)
	if _, err := f.svc.Restore(ctx, f.owner, f.strategy, 99); !errors.Is(err, strategy.ErrVersionNotFound) || strategy.Code(err) != "VERSION_NOT_FOUND" {
		t.Errorf("restore to a version that does not exist: %v", err)
	}

	// A turn undoing among its own changes (an agent's undo_last_change)
	// takes back one change, not its whole turn so far.
	applyIn(turn("C"), translation)
	two := applyIn(turn("C"), trna)
	res, err = f.svc.Undo(turn("C"), f.owner, f.strategy)
	if err != nil {
		t.Fatal(err)
	}
	if *res.Change.RestoredVersion != two.Version-1 {
		t.Errorf("turn C's own undo restored version %d, want %d (one change)", *res.Change.RestoredVersion, two.Version-1)
	}
}
