package graphtool_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"strategist/internal/strategies/graphtool"
	"strategist/internal/strategy"
	"strategist/internal/tool"
)

// TestRetryReusesSteps: a task's attempt is cut short after making a step
// and transforming it; the next attempt of the same task (fresh tools and
// scope, the same origin) making the same calls gets those steps back, in
// its scope, with no new version; a call it did not make before adds a
// step; another task's tools never see the first task's steps as theirs.
func TestRetryReusesSteps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ex := f.executor(t)
	must[*graphtool.StepResult](ex, "create_step", chromosome) // s1: a dependency's root
	b := f.binding()
	b.Origin = "turn-1/plan/n2"
	subagent := func(scope *graphtool.Scope) toolbox {
		tools, err := graphtool.SubagentTools(b, scope)
		if err != nil {
			t.Fatal(err)
		}
		return toolbox{t: t, ts: mustToolset(t, tools)}
	}
	const transform = `{"input_step_id":"s2","search_name":"GenesByWeightFilter","parameters":{"min_weight":"0"}}`
	first := subagent(graphtool.NewScope("s1"))
	s2 := must[*graphtool.StepResult](first, "create_step", repair)
	s3 := must[*graphtool.StepResult](first, "transform_step", transform)
	if s2.Reused || s3.Reused || s3.Step.StepID != "s3" {
		t.Fatalf("the first attempt made %s (reused %v), %s (reused %v)", s2.Step.StepID, s2.Reused, s3.Step.StepID, s3.Reused)
	}
	before, err := f.svc.Conversation(context.Background(), f.user, f.conversation)
	if err != nil {
		t.Fatal(err)
	}

	scope := graphtool.NewScope("s1")
	retry := subagent(scope)
	again := must[*graphtool.StepResult](retry, "create_step", repair)
	if !again.Reused || again.Step.StepID != "s2" {
		t.Errorf("the retry's create_step = %s (reused %v), want s2 reused", again.Step.StepID, again.Reused)
	}
	renamed := strings.Replace(transform, `"input_step_id"`, `"display_name":"another name","input_step_id"`, 1)
	if got := must[*graphtool.StepResult](retry, "transform_step", renamed); !got.Reused || got.Step.StepID != "s3" {
		t.Errorf("the retry's transform_step = %s (reused %v), want s3 reused", got.Step.StepID, got.Reused)
	}
	after, err := f.svc.Conversation(context.Background(), f.user, f.conversation)
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != before.Version || len(after.Steps) != 3 {
		t.Errorf("reusing changed the strategy: version %d -> %d, %d steps", before.Version, after.Version, len(after.Steps))
	}
	if !slices.Equal(scope.IDs(), []strategy.StepID{"s1", "s2", "s3"}) {
		t.Errorf("retry's scope = %v", scope.IDs())
	}
	union := must[*graphtool.StepResult](retry, "combine_steps", `{"left_step_id":"s3","right_step_id":"s1","operator":"UNION"}`)
	if union.Reused || union.Step.StepID != "s4" {
		t.Errorf("a new call = %s (reused %v), want a new step s4", union.Step.StepID, union.Reused)
	}

	// A third attempt takes another path: the earlier attempts' transform
	// and union stand on s2 and s1; it wants s2 transformed otherwise, so
	// they go first.
	third := subagent(graphtool.NewScope("s1"))
	must[*graphtool.StepResult](third, "create_step", repair) // s2 again
	other := must[*graphtool.StepResult](third, "transform_step", `{"input_step_id":"s2","search_name":"GenesByWeightFilter","parameters":{"min_weight":"5"}}`)
	if other.Reused {
		t.Errorf("a different transform was reused: %+v", other)
	}
	snap, err := f.svc.Conversation(context.Background(), f.user, f.conversation)
	if err != nil {
		t.Fatal(err)
	}
	var ids []strategy.StepID
	for _, s := range snap.Steps {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, []strategy.StepID{"s1", "s2", other.Step.StepID}) {
		t.Errorf("steps after the third attempt = %v, want s1, s2 and the new transform", ids)
	}

	// Another task with the same call makes its own step.
	b.Origin = "turn-1/plan/n3"
	if got := must[*graphtool.StepResult](subagent(graphtool.NewScope()), "create_step", repair); got.Reused {
		t.Errorf("another task reused %s", got.Step.StepID)
	}
}

func mustToolset(t *testing.T, tools []tool.Tool) *tool.Toolset {
	t.Helper()
	ts, err := tool.NewToolset(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestResumedExecutorReusesSteps: the executor's tools of a keyed turn
// (Origin) make a step and a combine; a resumed run of the same turn
// (fresh tools, the same origin), asked the cut-short round again, gets
// both back with no new version, while the same call made twice in one run
// adds a second step, and another turn's executor never takes them.
func TestResumedExecutorReusesSteps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	run := func(origin string) toolbox {
		b := f.binding()
		b.Origin = origin
		tools, err := graphtool.ExecutorTools(b)
		if err != nil {
			t.Fatal(err)
		}
		return toolbox{t: t, ts: mustToolset(t, tools)}
	}
	const union = `{"left_step_id":"s1","right_step_id":"s2","operator":"UNION"}`
	first := run("executor:turn-1")
	must[*graphtool.StepResult](first, "create_step", repair)     // s1
	must[*graphtool.StepResult](first, "create_step", chromosome) // s2
	must[*graphtool.StepResult](first, "combine_steps", union)    // s3
	before, err := f.svc.Conversation(context.Background(), f.user, f.conversation)
	if err != nil {
		t.Fatal(err)
	}

	resumed := run("executor:turn-1")
	for _, c := range []struct{ tool, args, want string }{
		{"create_step", repair, "s1"}, {"create_step", chromosome, "s2"}, {"combine_steps", union, "s3"},
	} {
		if got := must[*graphtool.StepResult](resumed, c.tool, c.args); !got.Reused || string(got.Step.StepID) != c.want {
			t.Errorf("resumed %s = %s (reused %v), want %s reused", c.tool, got.Step.StepID, got.Reused, c.want)
		}
	}
	after, err := f.svc.Conversation(context.Background(), f.user, f.conversation)
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != before.Version || len(after.Steps) != 3 {
		t.Errorf("reusing changed the strategy: version %d -> %d, %d steps", before.Version, after.Version, len(after.Steps))
	}
	if again := must[*graphtool.StepResult](resumed, "create_step", repair); again.Reused || again.Step.StepID != "s4" {
		t.Errorf("the same call twice in one run = %s (reused %v), want a new step s4", again.Step.StepID, again.Reused)
	}
	if other := must[*graphtool.StepResult](run("executor:turn-2"), "create_step", chromosome); other.Reused {
		t.Errorf("another turn's executor took back %s", other.Step.StepID)
	}
}
