package plan_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// fourTasks is a diamond-free tree of four tasks and three combines, one
// task transforming another, with aliases and COLOCATE.
const fourTasks = `{
  "type": "combine", "operator": "minus_left", "displayName": "Kinases near ribosomal genes, not on chr 14",
  "left": {
    "type": "combine", "operator": "COLOCATE",
    "colocation": {"upstream": 1000, "downstream": 500},
    "left":  {"type": "task", "task": "  Find protein kinases\nby product text ", "hint": "GenesByText"},
    "right": {"type": "task", "task": "Find ribosomal protein genes", "context": {"term": "ribosom*",  "fields": ["product"]}}
  },
  "right": {
    "type": "combine", "operator": "AND",
    "left":  {"type": "task", "task": "Orthologs of the chromosome 14 genes",
              "input": {"type": "task", "task": "Find genes on chromosome 14", "hint": null}},
    "right": {"type": "task", "task": "Find protein coding genes"}
  }
}`

func TestParseNormalises(t *testing.T) {
	p, err := plan.Parse(json.RawMessage(fourTasks))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := &plan.Plan{Root: "n8", Nodes: []plan.Node{
		{ID: "n1", Kind: plan.KindTask, Label: "Find protein kinases", DependsOn: []string{}, Path: "/left/left",
			Task: "Find protein kinases\nby product text", Hint: "GenesByText"},
		{ID: "n2", Kind: plan.KindTask, Label: "Find ribosomal protein genes", DependsOn: []string{}, Path: "/left/right",
			Task: "Find ribosomal protein genes", Context: json.RawMessage(`{"term":"ribosom*","fields":["product"]}`)},
		{ID: "n3", Kind: plan.KindCombine, Label: "n1 COLOCATE n2", DependsOn: []string{"n1", "n2"}, Path: "/left",
			Operator: strategy.Colocate, Left: "n1", Right: "n2",
			Colocation: &strategy.Colocation{Upstream: 1000, Downstream: 500, Strand: strategy.StrandBoth}},
		{ID: "n4", Kind: plan.KindTask, Label: "Find genes on chromosome 14", DependsOn: []string{}, Path: "/right/left/input",
			Task: "Find genes on chromosome 14"},
		{ID: "n5", Kind: plan.KindTask, Label: "Orthologs of the chromosome 14 genes", DependsOn: []string{"n4"}, Path: "/right/left",
			Task: "Orthologs of the chromosome 14 genes", Input: "n4"},
		{ID: "n6", Kind: plan.KindTask, Label: "Find protein coding genes", DependsOn: []string{}, Path: "/right/right",
			Task: "Find protein coding genes"},
		{ID: "n7", Kind: plan.KindCombine, Label: "n5 INTERSECT n6", DependsOn: []string{"n5", "n6"}, Path: "/right",
			Operator: strategy.Intersect, Left: "n5", Right: "n6"},
		{ID: "n8", Kind: plan.KindCombine, Label: "Kinases near ribosomal genes, not on chr 14", DependsOn: []string{"n3", "n7"}, Path: "",
			Operator: strategy.Minus, Left: "n3", Right: "n7", DisplayName: "Kinases near ribosomal genes, not on chr 14"},
	}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
	}
	if got := p.Tasks(); got != 5 {
		t.Errorf("Tasks() = %d, want 5", got)
	}

	tree, err := p.Tree()
	if err != nil {
		t.Fatalf("Tree: %v", err)
	}
	const wantTree = `{"type":"combine","operator":"MINUS",` +
		`"left":{"type":"combine","operator":"COLOCATE",` +
		`"left":{"type":"task","task":"Find protein kinases\nby product text","hint":"GenesByText"},` +
		`"right":{"type":"task","task":"Find ribosomal protein genes","context":{"term":"ribosom*","fields":["product"]}},` +
		`"colocation":{"upstream":1000,"downstream":500,"strand":"both"}},` +
		`"right":{"type":"combine","operator":"INTERSECT",` +
		`"left":{"type":"task","task":"Orthologs of the chromosome 14 genes","input":{"type":"task","task":"Find genes on chromosome 14"}},` +
		`"right":{"type":"task","task":"Find protein coding genes"}},` +
		`"displayName":"Kinases near ribosomal genes, not on chr 14"}`
	if diff := cmp.Diff(wantTree, string(tree)); diff != "" {
		t.Errorf("Tree() mismatch (-want +got):\n%s", diff)
	}
	again, err := plan.Parse(tree)
	if err != nil {
		t.Fatalf("Parse(Tree()): %v", err)
	}
	if diff := cmp.Diff(p, again); diff != "" {
		t.Errorf("Parse(Tree()) mismatch (-want +got):\n%s", diff)
	}
	if _, err := p.JSON(); err != nil {
		t.Errorf("JSON: %v", err)
	}
}

// TestParseKeepsIdenticalSubtrees: two identical tasks are two nodes, each
// with its own steps (a step is consumed at most once).
func TestParseKeepsIdenticalSubtrees(t *testing.T) {
	p, err := plan.Parse(json.RawMessage(`{"type":"combine","operator":"UNION",
		"left":{"type":"task","task":"Find kinases"},"right":{"type":"task","task":"Find kinases"}}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var ids []string
	for _, n := range p.Nodes {
		ids = append(ids, n.ID+":"+n.Kind.String())
	}
	if diff := cmp.Diff([]string{"n1:task", "n2:task", "n3:combine"}, ids); diff != "" {
		t.Errorf("nodes mismatch (-want +got):\n%s", diff)
	}
}

func TestParseOperatorAliases(t *testing.T) {
	for alias, want := range map[string]strategy.Operator{
		"AND": strategy.Intersect, "OR": strategy.Union, "NOT": strategy.Minus, "MINUS_LEFT": strategy.Minus,
		"LMINUS": strategy.Minus, "MINUS_RIGHT": strategy.RMinus, "rminus": strategy.RMinus, "LONLY": strategy.LOnly,
	} {
		p, err := plan.Parse(json.RawMessage(fmt.Sprintf(`{"type":"combine","operator":%q,
			"left":{"type":"task","task":"a"},"right":{"type":"task","task":"b"}}`, alias)))
		if err != nil {
			t.Errorf("Parse(%s): %v", alias, err)
			continue
		}
		if got := p.Nodes[2].Operator; got != want {
			t.Errorf("Parse(%s) operator = %s, want %s", alias, got, want)
		}
	}
}

// chain nests n tasks through "input".
func chain(n int) string {
	s := `{"type":"task","task":"t1"}`
	for i := 2; i <= n; i++ {
		s = fmt.Sprintf(`{"type":"task","task":"t%d","input":%s}`, i, s)
	}
	return s
}

// balanced is a combine tree over n tasks.
func balanced(n int) string {
	if n == 1 {
		return `{"type":"task","task":"leaf"}`
	}
	return fmt.Sprintf(`{"type":"combine","operator":"UNION","left":%s,"right":%s}`, balanced(n/2), balanced(n-n/2))
}

func TestParseRejects(t *testing.T) {
	task := `{"type":"task","task":"Find kinases"}`
	colocate := func(col string) string {
		return `{"type":"combine","operator":"COLOCATE","left":` + task + `,"right":` + task + `,"colocation":` + col + `}`
	}
	tests := []struct {
		name string
		plan string
		want []string // "path: message prefix"
	}{
		{"empty", ``, []string{"(plan): a plan is required"}},
		{"null", `null`, []string{"(plan): a plan is required"}},
		{"not json", `{"type":`, []string{"(plan): the plan is not valid JSON"}},
		{"invalid utf-8", "{\"type\":\"task\",\"task\":\"\xff\"}", []string{"(plan): the plan is not valid UTF-8"}},
		{"too large", `{"type":"task","task":"` + strings.Repeat("x", plan.MaxPlanBytes) + `"}`, []string{"(plan): the plan is"}},
		{"array", `[` + task + `]`, []string{"(plan): a plan node must be an object, not an array"}},
		{"string child", `{"type":"combine","operator":"AND","left":"n1","right":` + task + `}`,
			[]string{"/left: a plan node must be an object, not a string"}},
		{"missing type", `{"task":"Find kinases"}`, []string{`/type: missing: every node needs "type"`}},
		{"type not a string", `{"type":1,"task":"x"}`, []string{"/type: must be a string, not a number"}},
		{"unknown type", `{"type":"subtask","task":"x"}`, []string{`/type: unknown node type "subtask"`}},
		{"unknown type still checks children", `{"type":"op","left":{"type":"task","task":""}}`,
			[]string{`/type: unknown node type "op"`, "/left/task: the task text is empty"}},
		{"empty task", `{"type":"task","task":"   "}`, []string{"/task: the task text is empty"}},
		{"missing task", `{"type":"task"}`, []string{"/task: missing: a task node needs the text"}},
		{"task not a string", `{"type":"task","task":["a"]}`, []string{"/task: must be a string, not an array"}},
		{"task too long", `{"type":"task","task":"` + strings.Repeat("é", plan.MaxTaskLength+1) + `"}`,
			[]string{"/task: 4001 characters; at most 4000"}},
		{"task with NUL", `{"type":"task","task":"a\u0000b"}`, []string{"/task: must not contain NUL"}},
		{"hint not a string", `{"type":"task","task":"x","hint":3}`, []string{"/hint: must be a string, not a number"}},
		{"context not an object", `{"type":"task","task":"x","context":"chr 5"}`, []string{"/context: context must be an object, not a string"}},
		{"context with NUL", `{"type":"task","task":"x","context":{"a":"\u0000"}}`, []string{"/context: must not contain NUL"}},
		{"unknown key", `{"type":"task","task":"x","id":"t1"}`, []string{`/id: unknown key "id": a task node has only type, task, hint, context, input`}},
		{"display name on task", `{"type":"task","task":"x","displayName":"X"}`, []string{`/displayName: unknown key "displayName"`}},
		{"hint on combine", `{"type":"combine","operator":"OR","hint":"h","left":` + task + `,"right":` + task + `}`,
			[]string{`/hint: unknown key "hint": a combine node has only`}},
		{"escaped key", `{"type":"task","task":"x","a/b~c":1}`, []string{`/a~1b~0c: unknown key "a/b~c"`}},
		{"unknown operator", `{"type":"combine","operator":"AND","left":` + task + `,"right":{"type":"combine","operator":"AND","left":` + task +
			`,"right":{"type":"combine","operator":"XOR","left":` + task + `,"right":` + task + `}}}`,
			[]string{`/right/right/operator: unknown operator "XOR"`}},
		{"missing operator", `{"type":"combine","left":` + task + `,"right":` + task + `}`, []string{"/operator: missing"}},
		{"operator not a string", `{"type":"combine","operator":true,"left":` + task + `,"right":` + task + `}`,
			[]string{"/operator: must be a string, not a boolean"}},
		{"missing left", `{"type":"combine","operator":"OR","right":` + task + `}`, []string{"/left: missing: a combine node needs both"}},
		{"null right", `{"type":"combine","operator":"OR","left":` + task + `,"right":null}`, []string{"/right: missing: a combine node needs both"}},
		{"bad display name", `{"type":"combine","operator":"OR","displayName":"a\tb","left":` + task + `,"right":` + task + `}`,
			[]string{"/displayName: a display name cannot contain control characters"}},
		{"colocate without colocation", `{"type":"combine","operator":"COLOCATE","left":` + task + `,"right":` + task + `}`,
			[]string{"/colocation: missing: COLOCATE needs"}},
		{"colocation on intersect", `{"type":"combine","operator":"INTERSECT","colocation":{"upstream":0,"downstream":0},"left":` + task + `,"right":` + task + `}`,
			[]string{"/colocation: colocation belongs to COLOCATE, not INTERSECT"}},
		{"colocation not an object", colocate(`[1000, 500]`), []string{"/colocation: colocation must be an object, not an array"}},
		{"bad strand", colocate(`{"upstream":0,"downstream":0,"strand":"left"}`), []string{`/colocation/strand: unknown strand "left"`}},
		{"negative upstream", colocate(`{"upstream":-5,"downstream":0}`), []string{"/colocation/upstream: must be 0 or more"}},
		{"fractional downstream", colocate(`{"upstream":5,"downstream":2.5}`), []string{"/colocation/downstream: must be a whole number"}},
		{"huge distance", colocate(`{"upstream":1e12,"downstream":0}`), []string{"/colocation/upstream: must be at most 10000000"}},
		{"distance not a number", colocate(`{"upstream":"1kb","downstream":0}`), []string{"/colocation/upstream: must be a number of bases, not a string"}},
		{"missing downstream", colocate(`{"upstream":5}`), []string{"/colocation/downstream: missing"}},
		{"colocation unknown key", colocate(`{"upstream":5,"downstream":5,"window":10}`), []string{`/colocation/window: unknown key "window"`}},
		{"too many tasks", balanced(plan.MaxTasks + 1), []string{"(plan): the plan has 33 tasks; at most 32"}},
		{"too deep", chain(plan.MaxDepth + 1), []string{strings.Repeat("/input", plan.MaxDepth) + ": the plan nests deeper than 8 levels"}},
		{"every problem listed", `{"type":"combine","operator":"XOR","left":{"type":"task","task":""},"right":{"type":"tsk"},"extra":1}`,
			[]string{
				`/extra: unknown key "extra"`,
				`/operator: unknown operator "XOR"`,
				"/left/task: the task text is empty",
				`/right/type: unknown node type "tsk"`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plan.Parse(json.RawMessage(tt.plan))
			if err == nil {
				t.Fatalf("Parse() = %+v, want an error", p)
			}
			if !errors.Is(err, plan.ErrInvalidPlan) {
				t.Errorf("errors.Is(%v, ErrInvalidPlan) = false", err)
			}
			perr, ok := errors.AsType[*plan.PlanError](err)
			if !ok {
				t.Fatalf("error %T is not a *PlanError", err)
			}
			var got []string
			for i, p := range perr.Problems {
				s := p.String()
				if i < len(tt.want) && strings.HasPrefix(s, tt.want[i]) {
					s = tt.want[i]
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseLimitsAccepted(t *testing.T) {
	for name, raw := range map[string]string{
		"32 tasks": balanced(plan.MaxTasks),
		"depth 8":  chain(plan.MaxDepth),
	} {
		if _, err := plan.Parse(json.RawMessage(raw)); err != nil {
			t.Errorf("Parse(%s): %v", name, err)
		}
	}
}

// TestParseStepNode: a step node reuses an existing step wherever a task
// could stand, as a combine's side or a task's input, and survives the
// round trip through the written form.
func TestParseStepNode(t *testing.T) {
	p, err := plan.Parse(json.RawMessage(`{"type":"combine","operator":"NOT","displayName":"Repair genes, not on chr 5",
		"left":{"type":"step","stepId":" s3 "},
		"right":{"type":"task","task":"Orthologs of them","input":{"type":"step","stepId":"s12"}}}`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := &plan.Plan{Root: "n4", Nodes: []plan.Node{
		{ID: "n1", Kind: plan.KindStep, Label: "step s3", DependsOn: []string{}, Path: "/left", StepID: "s3"},
		{ID: "n2", Kind: plan.KindStep, Label: "step s12", DependsOn: []string{}, Path: "/right/input", StepID: "s12"},
		{ID: "n3", Kind: plan.KindTask, Label: "Orthologs of them", DependsOn: []string{"n2"}, Path: "/right",
			Task: "Orthologs of them", Input: "n2"},
		{ID: "n4", Kind: plan.KindCombine, Label: "Repair genes, not on chr 5", DependsOn: []string{"n1", "n3"}, Path: "",
			Operator: strategy.Minus, Left: "n1", Right: "n3", DisplayName: "Repair genes, not on chr 5"},
	}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]strategy.StepID{"s3", "s12"}, p.Steps()); diff != "" || p.Tasks() != 1 || p.Combines() != 1 {
		t.Errorf("Steps() = %v, Tasks() = %d, Combines() = %d", p.Steps(), p.Tasks(), p.Combines())
	}
	tree, err := p.Tree()
	if err != nil {
		t.Fatal(err)
	}
	const wantTree = `{"type":"combine","operator":"MINUS","left":{"type":"step","stepId":"s3"},` +
		`"right":{"type":"task","task":"Orthologs of them","input":{"type":"step","stepId":"s12"}},"displayName":"Repair genes, not on chr 5"}`
	if string(tree) != wantTree {
		t.Errorf("Tree() = %s\nwant     %s", tree, wantTree)
	}
	again, err := plan.Parse(tree)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, again); diff != "" {
		t.Errorf("Parse(Tree()) mismatch (-want +got):\n%s", diff)
	}
	written, err := plan.DecodeTree(tree)
	if err != nil || written.Left.Type != plan.KindStep || written.Left.StepID != "s3" {
		t.Fatalf("DecodeTree = %+v, %v", written, err)
	}
	if diff := cmp.Diff([]strategy.StepID{"s3", "s12"}, written.Steps()); diff != "" || written.Tasks() != 1 {
		t.Errorf("TreeNode.Steps() = %v, Tasks() = %d", written.Steps(), written.Tasks())
	}
	only, err := plan.Parse(json.RawMessage(`{"type":"Step","stepId":"s1"}`))
	if err != nil || only.Root != "n1" || only.Tasks() != 0 {
		t.Errorf("a plan of one step = %+v, %v", only, err)
	}
}

func TestParseRejectsStepNodes(t *testing.T) {
	task := `{"type":"task","task":"Find kinases"}`
	tests := []struct {
		name string
		plan string
		want []string
	}{
		{"missing stepId", `{"type":"step"}`, []string{"/stepId: missing: a step node names the existing step"}},
		{"stepId not a string", `{"type":"step","stepId":3}`, []string{"/stepId: must be a string, not a number"}},
		{"not a step id", `{"type":"step","stepId":"step 3"}`, []string{`/stepId: "step 3" is not a step id`}},
		{"unknown key", `{"type":"step","stepId":"s3","task":"x"}`, []string{`/task: unknown key "task": a step node has only type, stepId`}},
		{"reused twice", `{"type":"combine","operator":"OR","left":{"type":"step","stepId":"s3"},"right":{"type":"task","task":"x","input":{"type":"step","stepId":"s3"}}}`,
			[]string{"/right/input/stepId: step s3 is already reused by this plan"}},
		{"unknown type names step", `{"type":"steps"}`, []string{`/type: unknown node type "steps" (use "task", "combine" or "step")`}},
		{"step as combine side with task keys", `{"type":"combine","operator":"AND","left":{"type":"step","stepId":"s1","input":` + task + `},"right":` + task + `}`,
			[]string{`/left/input: unknown key "input"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := plan.Parse(json.RawMessage(tt.plan))
			perr, ok := errors.AsType[*plan.PlanError](err)
			if !ok {
				t.Fatalf("Parse error = %v, want a *PlanError", err)
			}
			var got []string
			for i, p := range perr.Problems {
				s := p.String()
				if i < len(tt.want) && strings.HasPrefix(s, tt.want[i]) {
					s = tt.want[i]
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckSteps: a step node must name a step of the strategy as it stands,
// and the error lists the valid ids; a step below another reused step is
// refused.
func TestCheckSteps(t *testing.T) {
	count := 12
	snap := strategy.Snapshot{StrategyID: "st", RootStepID: "s3", Roots: []strategy.StepID{"s3"}, Steps: []strategy.Step{
		{ID: "s1", Kind: strategy.KindSearch, Inputs: []strategy.StepID{}},
		{ID: "s2", Kind: strategy.KindSearch, Inputs: []strategy.StepID{}},
		{ID: "s3", Kind: strategy.KindCombine, Operator: strategy.Union, Inputs: []strategy.StepID{"s1", "s2"}, Count: &count, CountStatus: strategy.CountOK},
	}}
	parse := func(raw string) *plan.Plan {
		t.Helper()
		p, err := plan.Parse(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := parse(`{"type":"combine","operator":"MINUS","left":{"type":"step","stepId":"s1"},"right":{"type":"task","task":"x"}}`).CheckSteps(snap); err != nil {
		t.Errorf("reusing s1: %v", err)
	}
	if err := parse(`{"type":"task","task":"x"}`).CheckSteps(strategy.Snapshot{}); err != nil {
		t.Errorf("a plan without step nodes on no strategy: %v", err)
	}
	err := parse(`{"type":"combine","operator":"MINUS","left":{"type":"step","stepId":"s9"},"right":{"type":"task","task":"x"}}`).CheckSteps(snap)
	perr, ok := errors.AsType[*plan.PlanError](err)
	if !ok || len(perr.Problems) != 1 {
		t.Fatalf("unknown step: %v", err)
	}
	if pr := perr.Problems[0]; pr.Path != "/left/stepId" || !strings.Contains(pr.Message, "there is no step s9") ||
		!strings.Contains(pr.Message, "s1, s2, s3") || !cmp.Equal(pr.Allowed, []string{"s1", "s2", "s3"}) {
		t.Errorf("problem = %+v", pr)
	}
	err = parse(`{"type":"combine","operator":"UNION","left":{"type":"step","stepId":"s3"},"right":{"type":"step","stepId":"s2"}}`).CheckSteps(snap)
	if perr, ok := errors.AsType[*plan.PlanError](err); !ok || len(perr.Problems) != 1 || perr.Problems[0].Path != "/right/stepId" ||
		!strings.Contains(perr.Problems[0].Message, "part of step s3") {
		t.Errorf("nested reuse: %v", err)
	}
	err = parse(`{"type":"step","stepId":"s1"}`).CheckSteps(strategy.Snapshot{})
	if err == nil || !strings.Contains(err.Error(), "has no steps yet") {
		t.Errorf("reuse on an empty strategy: %v", err)
	}
}
