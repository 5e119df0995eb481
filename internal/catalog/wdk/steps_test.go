package wdk

import (
	"testing"
	"testing/synctest"

	"strategist/internal/catalog"
	"strategist/internal/catalog/wdk/wdkfake"
)

// TestBuildStrategyConcurrently: the steps of a plan are created at once,
// never more than the site's concurrency bound, and the strategy wires
// them in input order.
func TestBuildStrategyConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newBubbleClient(t, func(cfg *Config) { cfg.Concurrency = 2 })
		q := &catalog.Query{Search: boolSearch, Params: map[string]string{"bq_operator": "UNION"}, Inputs: []*catalog.Query{
			{Search: boolSearch, Params: map[string]string{"bq_operator": "MINUS"}, Inputs: []*catalog.Query{goTerm("GO:0006412", 1), goTerm("GO:0006260", 1)}},
			goTerm("GO:0006281", 1),
		}}
		root, err := c.prepare(bg, "plasmodb", q, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.userScope(bg, "plasmodb"); err != nil {
			t.Fatal(err)
		}
		gate := make(chan struct{})
		c.fake.Gate(gate, make(chan struct{}, 100))

		type built struct {
			id   int64
			tree StepTree
			err  error
		}
		done := make(chan built, 1)
		go func() {
			id, tree, err := c.BuildStrategy(bg, "plasmodb", NewStrategy{Name: "three GO terms"}, root.plan())
			done <- built{id, tree, err}
		}()
		var got built
	release:
		for {
			synctest.Wait()
			select {
			case got = <-done:
				break release
			case gate <- struct{}{}:
			}
		}
		if got.err != nil {
			t.Fatalf("BuildStrategy() error = %v", got.err)
		}
		if _, most := c.fake.InFlight(); most != 2 {
			t.Errorf("at most %d requests were in flight, want the bound 2", most)
		}
		step := func(tr *StepTree) wdkfake.StepState {
			if tr == nil {
				t.Fatalf("tree %+v lacks an input", got.tree)
			}
			st, _ := c.fake.Step(tr.StepID)
			return st
		}
		top, minus := step(&got.tree), step(got.tree.PrimaryInput)
		if top.Params["bq_operator"] != "UNION" || minus.Params["bq_operator"] != "MINUS" ||
			step(got.tree.SecondaryInput).Params["go_typeahead"] != `["GO:0006281"]` ||
			step(got.tree.PrimaryInput.PrimaryInput).Params["go_typeahead"] != `["GO:0006412"]` ||
			step(got.tree.PrimaryInput.SecondaryInput).Params["go_typeahead"] != `["GO:0006260"]` {
			t.Errorf("the strategy's tree %+v does not wire the plan in order", got.tree)
		}
		if _, ok := c.fake.Strategy(got.id); c.fake.StepCount() != 5 || !ok {
			t.Errorf("the account holds %d steps and strategy %d: %v", c.fake.StepCount(), got.id, ok)
		}
	})
}
