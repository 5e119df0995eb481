package plan_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/plan"
	"strategist/internal/strategy"
)

// FuzzParsePlan: Parse never panics; every problem's path is a valid JSON
// pointer whose parent exists in the document; an accepted plan is a tree
// in post-order within the bounds, and its canonical form parses back to
// the same plan.
func FuzzParsePlan(f *testing.F) {
	for _, seed := range []string{
		fourTasks,
		chain(3),
		balanced(5),
		`{"type":"task","task":"x","context":{"a":[1,{"b":null}]}}`,
		`{"type":"combine","operator":"COLOCATE","colocation":{"upstream":0,"downstream":10,"strand":"same"},"left":{"type":"task","task":"a"},"right":{"type":"task","task":"b"}}`,
		`{"type":"combine","operator":"XOR","left":{"type":"task"},"right":[],"a~/b":1}`,
		`{"type":"task","task":"<b>&</b>","hint":"\u2028"}`,
		`{"type":"task","task":"a","input":{"type":"task","task":"b","input":null}}`,
		`{"type":"combine","operator":"MINUS","left":{"type":"step","stepId":"s3"},"right":{"type":"task","task":"b","input":{"type":"step","stepId":"s12"}}}`,
		`{"type":"combine","operator":"OR","left":{"type":"step","stepId":"s3"},"right":{"type":"step","stepId":" s3"}}`,
		`[]`, `"task"`, `null`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := plan.Parse(data)
		if err != nil {
			perr, ok := errors.AsType[*plan.PlanError](err)
			if !ok {
				t.Fatalf("error %T is not a *PlanError: %v", err, err)
			}
			if len(perr.Problems) == 0 {
				t.Fatalf("a PlanError without problems")
			}
			var doc any
			valid := json.Unmarshal(data, &doc) == nil
			for _, pr := range perr.Problems {
				segs, ok := splitPointer(pr.Path)
				if !ok {
					t.Fatalf("problem path %q is not a JSON pointer", pr.Path)
				}
				if len(segs) == 0 || !valid {
					continue
				}
				if parent, ok := resolve(doc, segs[:len(segs)-1]); !ok {
					t.Fatalf("problem path %q: its parent does not exist in %s", pr.Path, data)
				} else if _, isObj := parent.(map[string]any); !isObj {
					t.Fatalf("problem path %q: its parent is not an object", pr.Path)
				}
			}
			return
		}
		checkTree(t, p)
		tree, err := p.Tree()
		if err != nil {
			t.Fatalf("Tree: %v", err)
		}
		again, err := plan.Parse(tree)
		if err != nil {
			t.Fatalf("Parse(Tree()) = %v for %s", err, tree)
		}
		if diff := cmp.Diff(p, again); diff != "" {
			t.Fatalf("Parse(Tree()) mismatch (-want +got):\n%s", diff)
		}
		tree2, err := again.Tree()
		if err != nil || string(tree2) != string(tree) {
			t.Fatalf("Tree() is not stable: %s vs %s (%v)", tree, tree2, err)
		}
	})
}

// checkTree checks the shape of an accepted plan: ids n1.. in order,
// inputs before their node, every node but the root consumed exactly once
// (a tree, never a DAG), the root last, and the bounds.
func checkTree(t *testing.T, p *plan.Plan) {
	t.Helper()
	pos := map[string]int{}
	consumed := map[string]int{}
	steps := map[strategy.StepID]bool{}
	for i, n := range p.Nodes {
		if want := "n" + itoa(i+1); n.ID != want {
			t.Fatalf("node %d has id %s, want %s", i, n.ID, want)
		}
		for _, d := range n.DependsOn {
			if _, ok := pos[d]; !ok {
				t.Fatalf("%s depends on %s, which does not come before it", n.ID, d)
			}
			consumed[d]++
		}
		switch n.Kind {
		case plan.KindTask:
			if n.Task == "" || len(n.DependsOn) > 1 {
				t.Fatalf("bad task node %+v", n)
			}
		case plan.KindCombine:
			if !n.Operator.Valid() || len(n.DependsOn) != 2 || (n.Colocation != nil) != (n.Operator == "COLOCATE") {
				t.Fatalf("bad combine node %+v", n)
			}
		case plan.KindStep:
			if n.StepID == "" || len(n.DependsOn) != 0 || steps[n.StepID] {
				t.Fatalf("bad step node %+v", n)
			}
			steps[n.StepID] = true
		default:
			t.Fatalf("node %s has no kind", n.ID)
		}
		pos[n.ID] = i
	}
	if len(p.Nodes) == 0 || p.Root != p.Nodes[len(p.Nodes)-1].ID {
		t.Fatalf("root %s is not the last node", p.Root)
	}
	for _, n := range p.Nodes {
		want := 1
		if n.ID == p.Root {
			want = 0
		}
		if consumed[n.ID] != want {
			t.Fatalf("%s is consumed %d times, want %d", n.ID, consumed[n.ID], want)
		}
		if depth := strings.Count(n.Path, "/") + 1; depth > plan.MaxDepth {
			t.Fatalf("%s at depth %d", n.ID, depth)
		}
	}
	if p.Tasks() > plan.MaxTasks {
		t.Fatalf("%d tasks", p.Tasks())
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// splitPointer splits an RFC 6901 pointer into unescaped segments.
func splitPointer(p string) ([]string, bool) {
	if p == "" {
		return nil, true
	}
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	var segs []string
	for _, s := range strings.Split(p[1:], "/") {
		for i := 0; i < len(s); i++ {
			if s[i] == '~' && (i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
				return nil, false
			}
		}
		segs = append(segs, strings.NewReplacer("~1", "/", "~0", "~").Replace(s))
	}
	return segs, true
}

// resolve walks object keys (plans have no array indexes in their paths).
func resolve(doc any, segs []string) (any, bool) {
	cur := doc
	for _, s := range segs {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[s]; !ok {
			return nil, false
		}
	}
	return cur, true
}
