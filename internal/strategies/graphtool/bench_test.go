package graphtool_test

import (
	"context"
	"encoding/json"
	"testing"

	"strategist/internal/strategies/graphtool"
	"strategist/internal/tool"
)

// BenchmarkCreateStep measures one create_step through Tool.Call: schema
// check, encoding, catalog validation, the versioned write on Postgres and
// the count (cached after the first run: every iteration adds the same
// search).
func BenchmarkCreateStep(b *testing.B) {
	f := newFixture(b)
	tools, err := graphtool.ExecutorTools(f.binding())
	if err != nil {
		b.Fatal(err)
	}
	ts, err := tool.NewToolset(tools...)
	if err != nil {
		b.Fatal(err)
	}
	create, _ := ts.Lookup("create_step")
	ctx := context.Background()
	n := 0
	for b.Loop() {
		if n == benchSteps { // stay below the strategy's step limit
			b.StopTimer()
			f = newFixture(b)
			tools, _ = graphtool.ExecutorTools(f.binding())
			create = tools[0]
			n = 0
			b.StartTimer()
		}
		if _, err := create.Call(ctx, json.RawMessage(replication)); err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// BenchmarkGetResultCount measures get_result_count of a recorded count.
func BenchmarkGetResultCount(b *testing.B) {
	f := newFixture(b)
	tools, err := graphtool.ExecutorTools(f.binding())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := tools[0].Call(ctx, json.RawMessage(replication)); err != nil {
		b.Fatal(err)
	}
	count := tools[7]
	for b.Loop() {
		if _, err := count.Call(ctx, json.RawMessage(`{"step_id":"s1"}`)); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSteps is how many steps BenchmarkCreateStep adds to one strategy
// before starting a new one: a realistic strategy has a handful.
const benchSteps = 10
