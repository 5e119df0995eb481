package wdk

import (
	"testing"
	"testing/synctest"

	"strategist/internal/catalog"
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
		c.fake.mu.Lock()
		c.fake.maxInfl = 0
		c.fake.gate = make(chan struct{})
		c.fake.arrived = make(chan struct{}, 100)
		c.fake.mu.Unlock()

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
			case c.fake.gate <- struct{}{}:
			}
		}
		if got.err != nil {
			t.Fatalf("BuildStrategy() error = %v", got.err)
		}
		if c.fake.maxInfl != 2 {
			t.Errorf("at most %d requests were in flight, want the bound 2", c.fake.maxInfl)
		}
		c.fake.mu.Lock()
		defer c.fake.mu.Unlock()
		step := func(tr *StepTree) *fakeStep {
			if tr == nil {
				t.Fatalf("tree %+v lacks an input", got.tree)
			}
			return c.fake.steps[tr.StepID]
		}
		top, minus := step(&got.tree), step(got.tree.PrimaryInput)
		if top.params["bq_operator"] != "UNION" || minus.params["bq_operator"] != "MINUS" ||
			step(got.tree.SecondaryInput).params["go_typeahead"] != `["GO:0006281"]` ||
			step(got.tree.PrimaryInput.PrimaryInput).params["go_typeahead"] != `["GO:0006412"]` ||
			step(got.tree.PrimaryInput.SecondaryInput).params["go_typeahead"] != `["GO:0006260"]` {
			t.Errorf("the strategy's tree %+v does not wire the plan in order", got.tree)
		}
		if len(c.fake.steps) != 5 || c.fake.strategies[got.id] == nil {
			t.Errorf("the account holds %d steps and strategy %d: %v", len(c.fake.steps), got.id, c.fake.strategies[got.id])
		}
	})
}
