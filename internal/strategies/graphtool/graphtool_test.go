package graphtool_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/catalog"
	"strategist/internal/store"
	"strategist/internal/strategies"
	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
)

func TestToolsets(t *testing.T) {
	tests := []struct {
		name  string
		build func(graphtool.Binding) ([]string, error)
		want  []string
	}{
		{"executor", func(b graphtool.Binding) ([]string, error) { return names(graphtool.ExecutorTools(b)) },
			[]string{"create_step", "transform_step", "combine_steps", "update_step", "delete_step", "list_steps",
				"validate_strategy", "get_result_count", "enrich_step", "undo_last_change", "rename_strategy"}},
		{"sub-agent", func(b graphtool.Binding) ([]string, error) {
			return names(graphtool.SubagentTools(b, graphtool.NewScope()))
		}, []string{"create_step", "transform_step", "combine_steps", "get_result_count"}},
	}
	full := graphtool.Binding{Service: &strategies.Service{}, UserID: "u", ConversationID: "c", Site: "plasmodb", RecordType: "transcript"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.build(full)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			for _, b := range []graphtool.Binding{{}, {Service: full.Service, UserID: "u", ConversationID: "c", Site: "plasmodb"}} {
				if _, err := tt.build(b); err == nil {
					t.Errorf("binding %+v accepted", b)
				}
			}
		})
	}
	if _, err := graphtool.SubagentTools(full, nil); err == nil {
		t.Error("SubagentTools accepted a nil scope")
	}
}

func names[T interface{ Name() string }](tools []T, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name()
	}
	return out, nil
}

func rootIDs(roots []graphtool.Root) []strategy.StepID {
	ids := []strategy.StepID{}
	for _, r := range roots {
		ids = append(ids, r.StepID)
	}
	return ids
}

// count answers q directly through the catalog, to check a tool's count
// against an independent evaluation.
func (f fixture) count(t *testing.T, q *catalog.Query) int {
	t.Helper()
	ans, err := f.cat.Answer(context.Background(), "plasmodb", q, catalog.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return ans.Count
}

func TestBuildGOUnionMinusChromosome(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)

	// The strategy is created by the first write, not before.
	if _, err := f.svc.Conversation(context.Background(), f.user, f.conversation); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("strategy before the first write: %v", err)
	}
	s1 := must[*graphtool.StepResult](ex, "create_step", replication)
	want := graphtool.StepView{
		StepID: "s1", Kind: strategy.KindSearch, SearchName: "GenesByGoTerm", DisplayName: "DNA replication",
		// Filled as stored: the array was encoded, defaults filled in.
		Parameters: map[string]string{
			"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["GO:0006260"]`,
			"go_term_evidence": `["Curated","Computed"]`, "go_term_slim": "No", "go_term": "N/A",
		},
		Count: graphtool.Count{Status: strategy.CountOK, Value: ptr(f.count(t, &catalog.Query{Search: "GenesByGoTerm",
			Params: map[string]string{"organism": `["Plasmodium falciparum 3D7"]`, "go_typeahead": `["GO:0006260"]`}})),
			Provenance: "PlasmoDB export (offline snapshot), 2017"},
	}
	if diff := cmp.Diff(want, s1.Step); diff != "" {
		t.Errorf("create_step replication (-want +got):\n%s", diff)
	}
	if s1.Version != 1 || s1.Scope != nil || !strings.Contains(s1.Change, "s1") {
		t.Errorf("version %d, scope %v, change %q", s1.Version, s1.Scope, s1.Change)
	}
	if diff := cmp.Diff([]graphtool.Root{{StepID: "s1", DisplayName: "DNA replication"}}, s1.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}

	s2 := must[*graphtool.StepResult](ex, "create_step", repair)
	union := must[*graphtool.StepResult](ex, "combine_steps", `{"left_step_id":"s1","right_step_id":"s2","operator":"or","display_name":"Replication or repair"}`)
	if union.Step.Operator != strategy.Union || union.Step.Count.Value == nil || *union.Step.Count.Value != 108 ||
		!slices.Equal(union.Step.Inputs, []strategy.StepID{"s1", "s2"}) || union.Step.Parameters != nil {
		t.Errorf("UNION of GO:0006260 and GO:0006281 = %+v, want 108 genes", union.Step)
	}
	if got := rootIDs(union.Roots); !slices.Equal(got, []strategy.StepID{"s3"}) {
		t.Errorf("roots after the union = %v", got)
	}
	if *s2.Step.Count.Value >= 108 || *s1.Step.Count.Value >= 108 {
		t.Errorf("single GO sets %d and %d are not smaller than their union", *s1.Step.Count.Value, *s2.Step.Count.Value)
	}

	must[*graphtool.StepResult](ex, "create_step", chromosome)
	minus := must[*graphtool.StepResult](ex, "combine_steps", `{"left_step_id":"s3","right_step_id":"s4","operator":"NOT"}`)
	if minus.Step.Operator != strategy.Minus || minus.Step.Count.Value == nil || *minus.Step.Count.Value != 89 {
		t.Errorf("union MINUS chromosome 14 = %+v, want 89 genes", minus.Step)
	}
	if minus.Version != 5 || !slices.Equal(rootIDs(minus.Roots), []strategy.StepID{"s5"}) {
		t.Errorf("version %d roots %v", minus.Version, rootIDs(minus.Roots))
	}

	count := must[*graphtool.CountResult](ex, "get_result_count", `{"step_id":"s5"}`)
	if count.Count.Value == nil || *count.Count.Value != 89 || count.Count.Status != strategy.CountOK {
		t.Errorf("get_result_count s5 = %+v", count)
	}
	list := must[*graphtool.StrategyView](ex, "list_steps", `{}`)
	if len(list.Steps) != 5 || list.RootStepID != "s5" || list.Version != 5 || list.Name != "Replication and repair genes" {
		t.Errorf("list_steps = %d steps, root %s, version %d, name %q", len(list.Steps), list.RootStepID, list.Version, list.Name)
	}
	valid := must[*graphtool.ValidateResult](ex, "validate_strategy", `{}`)
	if !valid.Valid || valid.RootStepID != "s5" || len(valid.Problems) != 0 || valid.Steps != 5 {
		t.Errorf("validate_strategy = %+v", valid)
	}

	// Every change was reported once through the service's hook (creation
	// as version 0), in order: the tools emit no graph events of their own.
	if diff := cmp.Diff([]int{0, 1, 2, 3, 4, 5}, f.hook.versions()); diff != "" {
		t.Errorf("snapshots reported (-want +got):\n%s", diff)
	}
}

func TestValidationErrorsByKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)
	te := ex.refused("create_step",
		`{"search_name":"GenesByGoTerm","parameters":{"go_typeahead":"[\"DNA repair\"]","colour":"blue"}}`, "VALIDATION_ERROR")
	byKey, ok := te.Details["byKey"].(map[string][]string)
	if !ok {
		t.Fatalf("details = %#v, want byKey", te.Details)
	}
	if diff := cmp.Diff([]string{"Cannot be empty."}, byKey["organism"]); diff != "" {
		t.Errorf("organism problems (-want +got):\n%s", diff)
	}
	if len(byKey["go_typeahead"]) != 1 || !strings.Contains(byKey["go_typeahead"][0], "Invalid value 'DNA repair'") {
		t.Errorf("go_typeahead problems = %v", byKey["go_typeahead"])
	}
	if len(byKey["colour"]) != 1 {
		t.Errorf("unknown parameter problems = %v", byKey["colour"])
	}
	if roots, ok := te.Details["roots"].([]strategy.StepID); !ok || len(roots) != 0 {
		t.Errorf("roots = %#v", te.Details["roots"])
	}

	// A value that cannot be encoded is refused before the catalog sees it.
	te = ex.refused("create_step", `{"search_name":"GenesByGoTerm","parameters":{"go_typeahead":[["GO:0006260"]]}}`, "VALIDATION_ERROR")
	if byKey := te.Details["byKey"].(map[string][]string); len(byKey["go_typeahead"]) != 1 {
		t.Errorf("encoding problems = %v", byKey)
	}

	// Arguments that do not fit the schema never reach the service.
	ex.refuses("create_step", `{"search_name":"GenesByGoTerm"}`, "VALIDATION_ERROR")
	ex.refuses("create_step", `{"search_name":"GenesByGoTerm","parameters":{"organism":null}}`, "VALIDATION_ERROR")

	te = ex.refused("create_step", `{"search_name":"GenesByGOTerm","parameters":{}}`, "SEARCH_NOT_FOUND")
	if !strings.Contains(te.Message, "GenesByGOTerm") {
		t.Errorf("message %q does not name the search", te.Message)
	}
	ex.refuses("create_step", `{"search_name":"GenesByWeightFilter","parameters":{}}`, "WRONG_SEARCH_KIND")
	if got := f.hook.versions(); !slices.Equal(got, []int{0}) {
		t.Errorf("refusals changed the strategy: versions %v", got)
	}
}

func TestNotEvaluableCountIsUnavailable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)
	res := must[*graphtool.StepResult](ex, "create_step",
		`{"search_name":"GenesByMolecularWeight","parameters":{`+org+`,"min_molecular_weight":20000,"max_molecular_weight":"30000"}}`)
	c := res.Step.Count
	if c.Status != strategy.CountNotEvaluable || c.Value != nil || !strings.HasPrefix(c.Message, "count unavailable offline: ") {
		t.Errorf("count = %+v, want unavailable with no number", c)
	}
	if got := res.Step.Parameters["min_molecular_weight"]; got != "20000" {
		t.Errorf("number encoded as %q", got)
	}
	got := must[*graphtool.CountResult](ex, "get_result_count", `{"step_id":"s1"}`)
	if got.Count.Status != strategy.CountNotEvaluable || got.Count.Value != nil || !strings.HasPrefix(got.Count.Message, "count unavailable offline") {
		t.Errorf("get_result_count = %+v", got)
	}
}

func TestApproximateCountSaysSo(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)
	res := must[*graphtool.StepResult](ex, "create_step",
		`{"search_name":"GenesByText","parameters":{"text_search_organism":["Plasmodium falciparum 3D7"],"text_expression":"kinase"}}`)
	c := res.Step.Count
	if c.Status != strategy.CountOK || c.Value == nil || *c.Value == 0 || !c.Approximate || !strings.Contains(c.Message, "approximate") {
		t.Errorf("text search count = %+v, want a number marked approximate", c)
	}
}

func TestCombineOperators(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)

	// A bad operator is refused before a strategy is even created.
	te := ex.refused("combine_steps", `{"left_step_id":"s1","right_step_id":"s2","operator":"XOR"}`, "INVALID_OPERATOR")
	if te.Details["operator"] != "XOR" || !slices.Contains(te.Details["allowed"].([]strategy.Operator), strategy.Intersect) {
		t.Errorf("details = %v", te.Details)
	}
	if _, err := f.svc.Conversation(context.Background(), f.user, f.conversation); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused combine created a strategy: %v", err)
	}
	// Naming steps before any exist does not create one either.
	ex.refuses("combine_steps", `{"left_step_id":"s1","right_step_id":"s2","operator":"AND"}`, "STEP_NOT_FOUND")
	ex.refuses("transform_step", `{"input_step_id":"s1","search_name":"GenesByWeightFilter","parameters":{}}`, "STEP_NOT_FOUND")
	if _, err := f.svc.Conversation(context.Background(), f.user, f.conversation); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused combine created a strategy: %v", err)
	}

	must[*graphtool.StepResult](ex, "create_step", replication)
	must[*graphtool.StepResult](ex, "create_step", repair)
	both := must[*graphtool.StepResult](ex, "combine_steps", `{"left_step_id":"s1","right_step_id":"s2","operator":"and"}`)
	if both.Step.Operator != strategy.Intersect || both.Step.DisplayName != "DNA replication and DNA repair" {
		t.Errorf("AND combined as %s %q", both.Step.Operator, both.Step.DisplayName)
	}

	// A consumed step names its consumer and the roots to use instead.
	must[*graphtool.StepResult](ex, "create_step", chromosome)
	te = ex.refused("combine_steps", `{"left_step_id":"s1","right_step_id":"s4","operator":"UNION"}`, "STEP_CONSUMED")
	if te.Details["stepId"] != strategy.StepID("s1") || te.Details["consumedBy"] != strategy.StepID("s3") ||
		!slices.Equal(te.Details["roots"].([]strategy.StepID), []strategy.StepID{"s3", "s4"}) {
		t.Errorf("details = %v", te.Details)
	}
	if !strings.Contains(te.Message, "current roots: s3, s4") {
		t.Errorf("message %q", te.Message)
	}
	ex.refuses("combine_steps", `{"left_step_id":"s3","right_step_id":"s4","operator":"UNION","colocation":{"upstream":100,"downstream":0}}`, "INVALID_COLOCATION")
	ex.refuses("combine_steps", `{"left_step_id":"s3","right_step_id":"s4","operator":"COLOCATE","colocation":{"upstream":100,"downstream":0,"strand":"sideways"}}`, "INVALID_COLOCATION")
	col := must[*graphtool.StepResult](ex, "combine_steps",
		`{"left_step_id":"s3","right_step_id":"s4","operator":"COLOCATE","colocation":{"upstream":1000,"downstream":500,"strand":"same"}}`)
	if diff := cmp.Diff(&strategy.Colocation{Upstream: 1000, Downstream: 500, Strand: strategy.StrandSame}, col.Step.Colocation); diff != "" {
		t.Errorf("colocation (-want +got):\n%s", diff)
	}
	if col.Step.Count.Status != strategy.CountNotEvaluable {
		t.Errorf("COLOCATE count = %+v, want unavailable offline", col.Step.Count)
	}
}

func TestEditUndoAndRename(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)
	ex.refuses("undo_last_change", `{}`, "NOTHING_TO_UNDO")
	empty := must[*graphtool.StrategyView](ex, "list_steps", `{}`)
	if empty.StrategyID != "" || len(empty.Steps) != 0 || len(empty.Roots) != 0 {
		t.Errorf("list_steps without a strategy = %+v", empty)
	}
	v := must[*graphtool.ValidateResult](ex, "validate_strategy", `{}`)
	if v.Valid || len(v.Problems) != 1 || v.Problems[0].Code != strategy.ProblemEmpty {
		t.Errorf("validate_strategy without a strategy = %+v", v)
	}

	must[*graphtool.StepResult](ex, "create_step", replication)
	must[*graphtool.StepResult](ex, "create_step", repair)
	v = must[*graphtool.ValidateResult](ex, "validate_strategy", `{}`)
	if v.Valid || v.Hint == "" || !slices.Equal(rootIDs(v.Roots), []strategy.StepID{"s1", "s2"}) {
		t.Errorf("validate_strategy with two roots = %+v", v)
	}
	before := must[*graphtool.StrategyView](ex, "list_steps", `{}`)

	must[*graphtool.StepResult](ex, "combine_steps", `{"left_step_id":"s1","right_step_id":"s2","operator":"UNION"}`)
	te := ex.refused("delete_step", `{"step_id":"s1"}`, "STEP_IN_USE")
	if te.Details["consumedBy"] != strategy.StepID("s3") {
		t.Errorf("details = %v", te.Details)
	}
	upd := must[*graphtool.StepResult](ex, "update_step", `{"step_id":"s3","operator":"INTERSECT","display_name":"In both"}`)
	if upd.Step.Operator != strategy.Intersect || upd.Step.DisplayName != "In both" || *upd.Step.Count.Value >= 108 {
		t.Errorf("update_step = %+v", upd.Step)
	}
	ex.refuses("update_step", `{"step_id":"s3","parameters":{"bq_operator":"UNION"}}`, "INVALID_UPDATE")
	ex.refuses("update_step", `{"step_id":"s3","operator":"XOR"}`, "INVALID_OPERATOR")

	undo := must[*graphtool.UndoResult](ex, "undo_last_change", `{}`)
	if undo.RestoredVersion != 3 || undo.Strategy.Steps[2].Operator != strategy.Union {
		t.Errorf("undo = restored %d, s3 %s", undo.RestoredVersion, undo.Strategy.Steps[2].Operator)
	}
	undo = must[*graphtool.UndoResult](ex, "undo_last_change", `{}`)
	after := must[*graphtool.StrategyView](ex, "list_steps", `{}`)
	before.Version = after.Version
	if diff := cmp.Diff(*before, *after); diff != "" {
		t.Errorf("two undos did not restore the two searches exactly (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(*after, undo.Strategy); diff != "" {
		t.Errorf("undo result differs from list_steps (-list +undo):\n%s", diff)
	}

	// A new step after undo never reuses the reverted id.
	s := must[*graphtool.StepResult](ex, "create_step", chromosome)
	if s.Step.StepID != "s4" {
		t.Errorf("step after undo = %s, want s4", s.Step.StepID)
	}
	upd = must[*graphtool.StepResult](ex, "update_step", `{"step_id":"s4","parameters":{"chromosomeOptional":"Pf3D7_13_v3"},"weight":5}`)
	if upd.Step.Parameters["chromosomeOptional"] != "Pf3D7_13_v3" || upd.Step.Weight != 5 || upd.Step.Parameters["start_point"] != "1" {
		t.Errorf("update_step merged parameters = %v, weight %d", upd.Step.Parameters, upd.Step.Weight)
	}
	del := must[*graphtool.DeleteResult](ex, "delete_step", `{"step_id":"s4"}`)
	if del.Deleted != "s4" || !slices.Equal(rootIDs(del.Roots), []strategy.StepID{"s1", "s2"}) {
		t.Errorf("delete_step = %+v", del)
	}
	ren := must[*graphtool.RenameResult](ex, "rename_strategy", `{"name":"  Replication genes "}`)
	if ren.Name != "Replication genes" {
		t.Errorf("rename_strategy = %+v", ren)
	}
	ex.refuses("rename_strategy", `{"name":""}`, "VALIDATION_ERROR")
	ex.refuses("get_result_count", `{"step_id":"s9"}`, "STEP_NOT_FOUND")
}

func TestRenameCreatesTheStrategy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)
	ren := must[*graphtool.RenameResult](ex, "rename_strategy", `{"name":"Kinases"}`)
	if ren.Name != "Kinases" || ren.Version != 1 {
		t.Errorf("rename_strategy = %+v", ren)
	}
	snap, err := f.svc.Conversation(context.Background(), f.user, f.conversation)
	if err != nil || snap.Name != "Kinases" {
		t.Errorf("conversation strategy = %q, %v", snap.Name, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestBindingEnsure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := f.binding()
	var calls int
	var mu sync.Mutex
	b.Ensure = func(ctx context.Context) (strategy.Snapshot, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return f.svc.ForConversation(ctx, f.user, f.conversation, "transcript", "Linked by the orchestrator")
	}
	tools, err := graphtool.ExecutorTools(b)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := tools[0].Call(context.Background(), json.RawMessage(chromosome)); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Errorf("Ensure called %d times for three writes, want once", calls)
	}
	snap, err := f.svc.Conversation(context.Background(), f.user, f.conversation)
	if err != nil || snap.Name != "Linked by the orchestrator" || len(snap.Steps) != 3 {
		t.Errorf("strategy %q with %d steps, %v", snap.Name, len(snap.Steps), err)
	}

	// A strategy on another site than the binding's is not edited.
	b = f.binding()
	b.Site = "toxodb"
	tools, err = graphtool.ExecutorTools(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tools[0].Call(context.Background(), json.RawMessage(chromosome)); err == nil || !strings.Contains(err.Error(), "site plasmodb, not toxodb") {
		t.Errorf("write through a binding of another site: %v", err)
	}
}
