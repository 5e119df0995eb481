package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"strategist/internal/llm"
	"strategist/internal/llm/scripted"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reply is everything one call streamed.
type reply struct {
	Text   string
	Deltas int
	Calls  []llm.ToolCall
	Usage  llm.Usage
	Finish llm.FinishReason
	Raw    string
	Err    string
	Kind   llm.ErrorKind
}

func call(ctx context.Context, e llm.Engine, agent, task string) reply {
	var r reply
	req := llm.Request{Agent: agent, System: "You are a test.", Messages: []llm.Message{{Role: llm.RoleUser, Text: task}}}
	for c, err := range e.Stream(ctx, req) {
		if err != nil {
			r.Err = err.Error()
			if le, ok := errors.AsType[*llm.Error](err); ok {
				r.Kind = le.Kind
			}
			break
		}
		switch c.Kind {
		case llm.ChunkText:
			r.Text += c.Text
			r.Deltas++
		case llm.ChunkToolCall:
			r.Calls = append(r.Calls, *c.ToolCall)
		case llm.ChunkUsage:
			r.Usage = *c.Usage
		case llm.ChunkFinish:
			r.Finish = c.Finish
			if c.Raw != nil {
				r.Raw = string(c.Raw.Data)
			}
		}
	}
	return r
}

func mustEngine(t *testing.T, script string) *scripted.Engine {
	t.Helper()
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	e, err := scripted.New(s)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

func TestStream(t *testing.T) {
	e := mustEngine(t, `{"roles":{
		"planner":[
			{"text":"Kinases are enzymes that add phosphate groups to proteins.","usage":{"promptTokens":10,"completionTokens":5}},
			{"toolCalls":[{"name":"search_for_searches","args":{"query":"kinase"}},{"id":"mine","name":"list_sites"}]},
			{"text":"Half an answer ","error":"connection reset","errorKind":"retryable"}
		],
		"executor":[{"error":"blocked","errorKind":"blocked"}]
	}}`)
	ctx := t.Context()
	tests := []struct {
		name  string
		agent string
		want  reply
	}{
		{name: "text streams as deltas", agent: "planner", want: reply{
			Text: "Kinases are enzymes that add phosphate groups to proteins.", Deltas: 4,
			Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}, Finish: llm.FinishStop,
			Raw: `{"role":"planner","response":0}`,
		}},
		{name: "tool calls with default and explicit ids", agent: "planner", want: reply{
			Calls: []llm.ToolCall{
				{ID: "planner-1-0", Name: "search_for_searches", Args: json.RawMessage(`{"query":"kinase"}`)},
				{ID: "mine", Name: "list_sites", Args: json.RawMessage(`{}`)},
			},
			// (15 system + 4 task)/4+1 = 5; (19+18+10)/4+1 = 12
			Usage:  llm.Usage{PromptTokens: 5, CompletionTokens: 12, TotalTokens: 17},
			Finish: llm.FinishToolCalls, Raw: `{"role":"planner","response":1}`,
		}},
		{name: "text then a retryable error", agent: "planner", want: reply{
			Text: "Half an answer ", Deltas: 1, Err: "scripted: connection reset", Kind: llm.ErrorRetryable,
		}},
		{name: "out of script", agent: "planner", want: reply{
			Err: `scripted: script: out of script: no unused planner response matches task "task"`, Kind: llm.ErrorScript,
		}},
		{name: "error entry", agent: "executor", want: reply{Err: "scripted: blocked", Kind: llm.ErrorBlocked}},
		{name: "unknown role", agent: "subagent", want: reply{
			Err: `scripted: script has no responses for role "subagent"`, Kind: llm.ErrorScript,
		}},
	}
	for _, tt := range tests { // in order: the script is consumed
		got := call(ctx, e, tt.agent, "task")
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: reply mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

const parallelScript = `{"roles":{"subagent":[
	{"match":"kinase","text":"kinase 1"},
	{"matchRegexp":"(?i)chromosome \\d","text":"chromosome 1"},
	{"match":"kinase","text":"kinase 2"},
	{"matchRegexp":"(?i)chromosome \\d","text":"chromosome 2"},
	{"text":"anyone"}
]}}`

func TestMatchIsIndependentOfOrder(t *testing.T) {
	orders := [][]string{
		{"kinase", "kinase", "chromosome", "chromosome", "other"},
		{"chromosome", "kinase", "chromosome", "kinase", "other"},
		{"chromosome", "chromosome", "kinase", "kinase", "other"},
	}
	tasks := map[string]string{"kinase": "find protein kinase genes", "chromosome": "genes on Chromosome 5", "other": "GO term"}
	for _, order := range orders {
		e := mustEngine(t, parallelScript)
		got := map[string][]string{}
		for _, k := range order {
			r := call(t.Context(), e, "subagent", tasks[k])
			got[k] = append(got[k], r.Text)
		}
		want := map[string][]string{
			"kinase":     {"kinase 1", "kinase 2"},
			"chromosome": {"chromosome 1", "chromosome 2"},
			"other":      {"anyone"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("order %v: replies mismatch (-want +got):\n%s", order, diff)
		}
		if u := e.Unused(); len(u) != 0 {
			t.Errorf("order %v: Unused() = %v, want none", order, u)
		}
	}
}

func TestConcurrentSubagents(t *testing.T) {
	e := mustEngine(t, parallelScript)
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string][]string{}
	for _, task := range []string{"protein kinase", "chromosome 5", "protein kinase", "chromosome 7"} {
		wg.Go(func() {
			r := call(t.Context(), e, "subagent", task)
			mu.Lock()
			defer mu.Unlock()
			got[strings.Fields(r.Text)[0]] = append(got[strings.Fields(r.Text)[0]], task)
		})
	}
	wg.Wait()
	if len(got["kinase"]) != 2 || len(got["chromosome"]) != 2 {
		t.Errorf("replies by task = %v, want two kinase and two chromosome replies", got)
	}
	if len(e.Requests()) != 4 {
		t.Errorf("Requests() has %d entries, want 4", len(e.Requests()))
	}
}

func TestLatencyHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := mustEngine(t, `{"latencyMs":250,"roles":{"subagent":[
			{"match":"chr","latencyMs":600000,"text":"too late"},
			{"match":"chr","text":"on time"}
		]}}`)
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		r := call(ctx, e, "subagent", "chr 5")
		cancel()
		if r.Err != context.DeadlineExceeded.Error() || r.Text != "" {
			t.Errorf("first call = %+v, want a deadline error and no text", r)
		}
		if got := time.Since(start); got != 2*time.Minute {
			t.Errorf("first call took %v, want the 2m timeout", got)
		}
		start = time.Now()
		r = call(t.Context(), e, "subagent", "chr 5")
		if r.Err != "" || r.Text != "on time" {
			t.Errorf("retry = %+v, want the second response", r)
		}
		if got := time.Since(start); got != 250*time.Millisecond {
			t.Errorf("retry took %v, want the script's default 250ms", got)
		}
	})
}

// TestDeltaInterval: deltas are due an interval apart on the model's own
// clock, whatever the consumer spends on each.
func TestDeltaInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := mustEngine(t, `{"deltaIntervalMs":30,"roles":{"planner":[{"text":"kinase genes kinase genes kinase genes "}]}}`)
		start := time.Now()
		var at []time.Duration
		for c, err := range e.Stream(t.Context(), llm.Request{Agent: "planner", Messages: []llm.Message{{Role: llm.RoleUser, Text: "x"}}}) {
			if err != nil {
				t.Fatal(err)
			}
			if c.Kind == llm.ChunkText {
				at = append(at, time.Since(start))
				time.Sleep(10 * time.Millisecond) // the consumer's own work
			}
		}
		want := []time.Duration{0, 30 * time.Millisecond, 60 * time.Millisecond}
		if diff := cmp.Diff(want, at); diff != "" {
			t.Errorf("delta times mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestCancelledCallConsumesNothing(t *testing.T) {
	e := mustEngine(t, `{"roles":{"planner":[{"text":"hi"}]}}`)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if r := call(ctx, e, "planner", "x"); r.Err != context.Canceled.Error() {
		t.Errorf("call with a cancelled context = %+v, want context.Canceled", r)
	}
	if n := len(e.Requests()); n != 0 {
		t.Errorf("Requests() = %d, want none", n)
	}
	if diff := cmp.Diff([]string{"planner[0]"}, e.Unused()); diff != "" {
		t.Errorf("Unused() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, script, want string }{
		{"unknown field", `{"roles":{"planner":[{"txt":"hi"}]}}`, `unknown field "txt"`},
		{"empty response", `{"roles":{"planner":[{}]}}`, "roles.planner[0]: a response needs text, toolCalls or error"},
		{"error with calls", `{"roles":{"planner":[{"error":"x","toolCalls":[{"name":"a"}]}]}}`, "cannot carry tool calls"},
		{"bad kind", `{"roles":{"planner":[{"error":"x","errorKind":"fatal"}]}}`, `unknown errorKind "fatal"`},
		{"kind without error", `{"roles":{"planner":[{"text":"x","errorKind":"auth"}]}}`, "errorKind without error"},
		{"bad regexp", `{"roles":{"planner":[{"text":"x","matchRegexp":"("}]}}`, "matchRegexp"},
		{"nameless call", `{"roles":{"planner":[{"toolCalls":[{"args":{}}]}]}}`, "toolCalls[0]: name is required"},
		{"negative latency", `{"roles":{"planner":[{"text":"x","latencyMs":-1}]}}`, "latencyMs is negative"},
		{"negative delta interval", `{"deltaIntervalMs":-1,"roles":{}}`, "deltaIntervalMs is negative"},
		{"trailing data", `{"roles":{}} {}`, "trailing data"},
		{"not an object", `[]`, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scripted.Parse([]byte(tt.script))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse() error = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestExampleScript(t *testing.T) {
	e, err := scripted.Load(os.DirFS("testdata"), "example.json")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	ctx := t.Context()
	if r := call(ctx, e, "planner", "kinases?"); len(r.Calls) != 2 || r.Text == "" {
		t.Errorf("planner first reply = %+v, want text and two tool calls", r)
	}
	if r := call(ctx, e, "executor", "build it"); len(r.Calls) != 1 || r.Calls[0].Name != "delegate_strategy_subtasks" {
		t.Errorf("executor first reply = %+v, want delegate_strategy_subtasks", r)
	}
	if r := call(ctx, e, "subagent", "Find genes on chromosome 5"); r.Kind != llm.ErrorRetryable {
		t.Errorf("chromosome sub-agent first reply = %+v, want a retryable error", r)
	}
	if r := call(ctx, e, "subagent", "Find genes whose product mentions protein kinase"); len(r.Calls) != 1 || r.Calls[0].Name != "create_step" {
		t.Errorf("kinase sub-agent first reply = %+v, want create_step", r)
	}
	if _, err := scripted.Load(os.DirFS("testdata"), "missing.json"); err == nil {
		t.Error("Load(missing.json) succeeded")
	}
}
