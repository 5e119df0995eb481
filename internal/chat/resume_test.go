package chat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"strategist/internal/agent"
	"strategist/internal/event"
	"strategist/internal/tool"
)

// TestResumeSeesFullResults: a turn resumed after its process stopped goes
// on from its earlier rounds with their tool results as the first run saw
// them (within the run's limits), not the digests later turns read (2 KiB): the
// resumed model call is given the same result the cut-short call was, all
// sixty parameters of it, so it answers as an uninterrupted run would.
func TestResumeSeesFullResults(t *testing.T) {
	t.Parallel()
	e := engine(t, `{"roles":{"planner":[{"toolCalls":[{"name":"params","args":{}}]},{"toolCalls":[{"name":"wait","args":{}}]},{"text":"Finished here."}]}}`)
	type none struct{}
	type param struct {
		Name  string   `json:"name"`
		Vocab []string `json:"vocabulary"`
	}
	planner := role{name: "planner", tools: func(agent.Env) []tool.Tool {
		return []tool.Tool{
			tool.NewTool("params", "List parameters.", func(context.Context, none) ([]param, error) {
				var ps []param
				for i := range 60 {
					ps = append(ps, param{Name: fmt.Sprintf("param_%02d", i+1), Vocab: []string{"a", "b", "c"}})
				}
				return ps, nil
			}),
			tool.NewTool("wait", "Wait until stopped.", func(ctx context.Context, _ none) (*none, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}),
		}
	}}
	w := newWorld(t)
	first := w.start(options{engine: e, planner: planner})
	id := w.mustStart(first, w.convID, "a long question")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		starts := 0
		for _, r := range w.events(w.convID) {
			if r.Type == "tool_call_start" {
				starts++
			}
		}
		if starts == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second round never called its tool")
		}
	}
	w.start(options{engine: e, planner: planner})
	first.stop()
	if tr := w.waitEnd(w.convID, id); tr.Status != event.TurnCompleted {
		t.Fatalf("turn ended %s (%s)", tr.Status, tr.Error)
	}
	reqs := e.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	// The stored JSON comes back spaced as PostgreSQL writes it.
	var uninterrupted, resumed bytes.Buffer
	if err := errors.Join(json.Compact(&uninterrupted, reqs[1].Messages[2].ToolResults[0].Content),
		json.Compact(&resumed, reqs[2].Messages[2].ToolResults[0].Content)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resumed.String(), "param_60") || resumed.String() != uninterrupted.String() {
		t.Errorf("the resumed call saw the params result as\n%s\nwant it as the first run saw it:\n%s", resumed.String(), uninterrupted.String())
	}
	w.checkLog(w.convID)
}
