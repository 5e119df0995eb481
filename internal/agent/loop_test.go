package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/llm"
	"strategist/internal/tool"
)

func TestRunTranscripts(t *testing.T) {
	tests := []struct {
		name   string
		script string
		cfg    Config
		want   []string
	}{
		{
			name:   "text only",
			script: `{"roles":{"planner":[{"text":"Kinases phosphorylate proteins.","usage":{"promptTokens":40,"completionTokens":6}}]}}`,
			want: []string{
				"delta m1: Kinases phosphorylate proteins.",
				"assistant m1: Kinases phosphorylate proteins.",
				"usage m1: 46",
				"run end: completed",
			},
		},
		{
			name: "one tool call, then the answer",
			script: `{"roles":{"planner":[
				{"toolCalls":[{"id":"c1","name":"search","args":{"query":"kinase"}}],"usage":{"totalTokens":10}},
				{"text":"Found kinase-1.","usage":{"totalTokens":12}}]}}`,
			want: []string{
				`assistant m1:  [c1 search {"query":"kinase"}]`,
				"usage m1: 10",
				`start c1 search {"query":"kinase"}`,
				`end c1 search ok=true {"ok":true,"hits":["kinase-1"]}`,
				"delta m2: Found kinase-1.",
				"assistant m2: Found kinase-1.",
				"usage m2: 12",
				"run end: completed",
			},
		},
		{
			name: "bad arguments are fed back, then corrected",
			script: `{"roles":{"planner":[
				{"toolCalls":[{"id":"c1","name":"search","args":{"query":5,"limt":3}}],"usage":{"totalTokens":1}},
				{"toolCalls":[{"id":"c2","name":"search","args":{"query":"kinase","limit":3}}],"usage":{"totalTokens":1}},
				{"text":"Done.","usage":{"totalTokens":1}}]}}`,
			want: []string{
				`assistant m1:  [c1 search {"query":5,"limt":3}]`,
				"usage m1: 1",
				`start c1 search {"query":5,"limt":3}`,
				`end c1 search ok=false {"ok":false,"code":"VALIDATION_ERROR","message":"invalid arguments: /limt: unknown field (and 1 more problems)",` +
					`"details":{"field":"/limt","problems":[{"field":"/limt","problem":"unknown field","allowed":["query","limit"]},` +
					`{"field":"/query","problem":"want string, got number"}]}}`,
				`assistant m2:  [c2 search {"query":"kinase","limit":3}]`,
				"usage m2: 1",
				`start c2 search {"query":"kinase","limit":3}`,
				`end c2 search ok=true {"ok":true,"hits":["kinase-1"]}`,
				"delta m3: Done.",
				"assistant m3: Done.",
				"usage m3: 1",
				"run end: completed",
			},
		},
		{
			name: "unknown tool is fed back",
			script: `{"roles":{"planner":[
				{"toolCalls":[{"id":"c1","name":"delete_everything"}],"usage":{"totalTokens":1}},
				{"text":"Sorry.","usage":{"totalTokens":1}}]}}`,
			want: []string{
				`assistant m1:  [c1 delete_everything {}]`,
				"usage m1: 1",
				`start c1 delete_everything {}`,
				`end c1 delete_everything ok=false {"ok":false,"code":"UNKNOWN_TOOL","message":"there is no tool named \"delete_everything\"","details":{"available":["search","fail"]}}`,
				"delta m2: Sorry.",
				"assistant m2: Sorry.",
				"usage m2: 1",
				"run end: completed",
			},
		},
		{
			name: "handler failures",
			script: `{"roles":{"planner":[
				{"toolCalls":[
					{"id":"c1","name":"fail","args":{"mode":"typed"}},
					{"id":"c2","name":"fail","args":{"mode":"plain"}},
					{"id":"c3","name":"fail","args":{"mode":"panic"}},
					{"id":"c4","name":"fail","args":{"mode":"reserved"}},
					{"id":"c5","name":"fail","args":{"mode":"list"}},
					{"id":"c6","name":"fail","args":{"mode":"nil"}}],"usage":{"totalTokens":1}},
				{"text":"ok","usage":{"totalTokens":1}}]}}`,
			cfg: Config{MaxParallelTools: 1},
			want: []string{
				`assistant m1:  [c1 fail {"mode":"typed"}] [c2 fail {"mode":"plain"}] [c3 fail {"mode":"panic"}] [c4 fail {"mode":"reserved"}] [c5 fail {"mode":"list"}] [c6 fail {"mode":"nil"}]`,
				"usage m1: 1",
				`start c1 fail {"mode":"typed"}`,
				`end c1 fail ok=false {"ok":false,"code":"STEP_NOT_FOUND","message":"no step s9","details":{"stepId":"s9"}}`,
				`start c2 fail {"mode":"plain"}`,
				`end c2 fail ok=false {"ok":false,"code":"TOOL_ERROR","message":"catalog unavailable"}`,
				`start c3 fail {"mode":"panic"}`,
				`end c3 fail ok=false {"ok":false,"code":"TOOL_ERROR","message":"the tool failed unexpectedly"}`,
				`start c4 fail {"mode":"reserved"}`,
				`end c4 fail ok=false {"ok":false,"code":"TOOL_ERROR","message":"the tool's result uses the reserved key \"ok\""}`,
				`start c5 fail {"mode":"list"}`,
				`end c5 fail ok=true {"ok":true,"result":[1,2]}`,
				`start c6 fail {"mode":"nil"}`,
				`end c6 fail ok=true {"ok":true}`,
				"delta m2: ok",
				"assistant m2: ok",
				"usage m2: 1",
				"run end: completed",
			},
		},
		{
			name: "rounds exhausted",
			script: `{"roles":{"planner":[
				{"toolCalls":[{"id":"c1","name":"search","args":{"query":"a"}}],"usage":{"totalTokens":1}},
				{"toolCalls":[{"id":"c2","name":"search","args":{"query":"b"}}],"usage":{"totalTokens":1}},
				{"text":"never sent"}]}}`,
			cfg: Config{MaxRounds: 2},
			want: []string{
				`assistant m1:  [c1 search {"query":"a"}]`,
				"usage m1: 1",
				`start c1 search {"query":"a"}`,
				`end c1 search ok=true {"ok":true,"hits":["a-1"]}`,
				`assistant m2:  [c2 search {"query":"b"}]`,
				"usage m2: 1",
				"run end: max_rounds: agent: round limit reached (2 rounds)",
			},
		},
		{
			name: "budget spent",
			script: `{"roles":{"planner":[
				{"toolCalls":[{"id":"c1","name":"search","args":{"query":"a"}}],"usage":{"promptTokens":500,"completionTokens":100}},
				{"toolCalls":[{"id":"c2","name":"search","args":{"query":"b"}}],"usage":{"promptTokens":700,"completionTokens":100}},
				{"text":"never sent"}]}}`,
			cfg: Config{TokenBudget: 1000},
			want: []string{
				`assistant m1:  [c1 search {"query":"a"}]`,
				"usage m1: 600",
				`start c1 search {"query":"a"}`,
				`end c1 search ok=true {"ok":true,"hits":["a-1"]}`,
				`assistant m2:  [c2 search {"query":"b"}]`,
				"usage m2: 800",
				"run end: budget: agent: token budget spent",
			},
		},
		{
			name: "engine error after some text",
			script: `{"roles":{"planner":[
				{"text":"Let me think ","error":"quota exceeded","errorKind":"retryable"}]}}`,
			want: []string{
				"delta m1: Let me think ",
				"assistant m1: Let me think  (incomplete)",
				"run end: engine_error: agent: planner model call 1: scripted: quota exceeded",
			},
		},
		{
			name:   "out of script",
			script: `{"roles":{"planner":[]}}`,
			want: []string{
				`run end: engine_error: agent: planner model call 1: scripted: script: out of script: no unused planner response matches task "Find kinases"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Engine = newScript(t, tt.script)
			cfg.Tools = newToolset(t, searchTool(), failingTool())
			a := newAgent(t, cfg)
			events, _ := collect(a.Run(t.Context(), Input{User: "Find kinases"}))
			if diff := cmp.Diff(tt.want, trace(events)); diff != "" {
				t.Errorf("events mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunPersistsWellFormedHistory(t *testing.T) {
	eng := newScript(t, `{"roles":{"planner":[
		{"text":"Searching.","toolCalls":[{"id":"c1","name":"search","args":{"query":"kinase"}},{"id":"c2","name":"nope"}]},
		{"text":"Found kinase-1."}]}}`)
	a := newAgent(t, Config{Engine: eng, Tools: newToolset(t, searchTool()), System: "Be brief."})
	history := []llm.Message{{Role: llm.RoleUser, Text: "hello"}, {Role: llm.RoleAssistant, Text: "hi"}}
	_, end := collect(a.Run(t.Context(), Input{History: history, User: "Find kinases"}))
	if end.Reason != StopCompleted || end.Err != nil || end.Text != "Found kinase-1." || end.Rounds != 2 {
		t.Fatalf("RunEnd = %+v, want completed after 2 rounds with the final text", end)
	}
	raw0 := `{"role":"planner","response":0}`
	want := []llm.Message{
		{Role: llm.RoleAssistant, Text: "Searching.", ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "search", Args: []byte(`{"query":"kinase"}`)}, {ID: "c2", Name: "nope", Args: []byte(`{}`)}},
			Raw: &llm.Raw{Engine: "scripted", Data: []byte(raw0)}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{
			{CallID: "c1", Name: "search", Content: []byte(`{"ok":true,"hits":["kinase-1"]}`)},
			{CallID: "c2", Name: "nope", IsError: true, Content: []byte(`{"ok":false,"code":"UNKNOWN_TOOL","message":"there is no tool named \"nope\"","details":{"available":["search"]}}`)}}},
		{Role: llm.RoleAssistant, Text: "Found kinase-1.", Raw: &llm.Raw{Engine: "scripted", Data: []byte(`{"role":"planner","response":1}`)}},
	}
	if diff := cmp.Diff(want, end.Messages); diff != "" {
		t.Errorf("RunEnd.Messages mismatch (-want +got):\n%s", diff)
	}
	reqs := eng.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	// The second call sees: history, the user message once, the assistant
	// message and the results, with the tools declared and the prompt.
	second := reqs[1]
	if second.System != "Be brief." || len(second.Tools) != 1 || second.Tools[0].Name != "search" || second.Agent != "planner" {
		t.Errorf("second request = %+v, want the role's system prompt, tools and agent", second)
	}
	roles := make([]string, len(second.Messages))
	for i, m := range second.Messages {
		roles[i] = string(m.Role)
	}
	if diff := cmp.Diff([]string{"user", "assistant", "user", "assistant", "tool"}, roles); diff != "" {
		t.Errorf("second request roles mismatch (-want +got):\n%s", diff)
	}
	if got := countUserText(second.Messages, "Find kinases"); got != 1 {
		t.Errorf("the user message appears %d times, want once", got)
	}
}

func countUserText(msgs []llm.Message, text string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleUser && m.Text == text {
			n++
		}
	}
	return n
}

// sleepTool sleeps for its argument (fake time under synctest) and records
// how many calls run at once.
type sleepTool struct {
	mu       sync.Mutex
	inFlight int
	maxSeen  int
}

func (s *sleepTool) tool() tool.Tool {
	return tool.NewTool("sleep", "Sleep.", func(ctx context.Context, a struct {
		Seconds int `json:"seconds"`
	}) (map[string]int, error) {
		s.mu.Lock()
		s.inFlight++
		s.maxSeen = max(s.maxSeen, s.inFlight)
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		}()
		select {
		case <-time.After(time.Duration(a.Seconds) * time.Second):
			return map[string]int{"slept": a.Seconds}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}

func TestRunParallelCalls(t *testing.T) {
	for _, limit := range []int{1, 2, 4} {
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				eng := newScript(t, `{"roles":{"planner":[
					{"toolCalls":[
						{"id":"c1","name":"sleep","args":{"seconds":3}},
						{"id":"c2","name":"sleep","args":{"seconds":1}},
						{"id":"c3","name":"sleep","args":{"seconds":2}},
						{"id":"c4","name":"sleep","args":{"seconds":4}}]},
					{"text":"rested"}]}}`)
				st := &sleepTool{}
				a := newAgent(t, Config{Engine: eng, Tools: newToolset(t, st.tool()), MaxParallelTools: limit})
				start := time.Now()
				events, end := collect(a.Run(t.Context(), Input{User: "sleep"}))
				if end.Reason != StopCompleted {
					t.Fatalf("run ended %v: %v", end.Reason, end.Err)
				}
				if st.maxSeen != limit {
					t.Errorf("at most %d calls ran at once, want %d", st.maxSeen, limit)
				}
				// Makespans of 3,1,2,4 s under each limit.
				want := map[int]time.Duration{1: 10 * time.Second, 2: 7 * time.Second, 4: 4 * time.Second}[limit]
				if got := time.Since(start); got != want {
					t.Errorf("tools took %v, want %v", got, want)
				}
				var results []string
				for _, r := range lastToolResults(t, eng.Requests()[1]) {
					results = append(results, r.CallID+" "+string(r.Content))
				}
				wantResults := []string{`c1 {"ok":true,"slept":3}`, `c2 {"ok":true,"slept":1}`, `c3 {"ok":true,"slept":2}`, `c4 {"ok":true,"slept":4}`}
				if diff := cmp.Diff(wantResults, results); diff != "" {
					t.Errorf("results are not in call order (-want +got):\n%s", diff)
				}
				var ends []string
				for _, ev := range events {
					if e, ok := ev.(ToolCallEnd); ok {
						ends = append(ends, e.CallID)
					}
				}
				if limit == 4 && strings.Join(ends, ",") != "c2,c3,c1,c4" {
					t.Errorf("end events in order %v, want completion order c2,c3,c1,c4", ends)
				}
			})
		})
	}
}

func TestRunToolTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := newScript(t, `{"roles":{"planner":[
			{"toolCalls":[{"id":"c1","name":"block"}]},
			{"text":"The tool timed out."}]}}`)
		a := newAgent(t, Config{Engine: eng, Tools: newToolset(t, blockTool(nil)), ToolTimeout: 5 * time.Second})
		events, end := collect(a.Run(t.Context(), Input{User: "wait"}))
		if end.Reason != StopCompleted {
			t.Fatalf("run ended %v: %v", end.Reason, end.Err)
		}
		var got ToolCallEnd
		for _, ev := range events {
			if e, ok := ev.(ToolCallEnd); ok {
				got = e
			}
		}
		want := ToolCallEnd{CallID: "c1", Name: "block", Round: 1, Duration: 5 * time.Second,
			Result: []byte(`{"ok":false,"code":"TIMEOUT","message":"the tool did not finish within 5s"}`),
			Error:  &ToolFailure{Code: tool.CodeTimeout, Message: "the tool did not finish within 5s"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ToolCallEnd mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestToolOwnTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := newScript(t, `{"roles":{"executor":[{"toolCalls":[{"id":"c1","name":"delegate"}]},{"text":"ok"}]}}`)
		long := tool.NewTool("delegate", "Run sub-agents.", func(ctx context.Context, _ noArgs) (map[string]int, error) {
			select {
			case <-time.After(10 * time.Minute):
				return map[string]int{"tasks": 2}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}, tool.WithTimeout(15*time.Minute))
		a := newAgent(t, Config{Engine: eng, Agent: "executor", Tools: newToolset(t, long), ToolTimeout: time.Minute})
		events, _ := collect(a.Run(t.Context(), Input{User: "build"}))
		for _, ev := range events {
			if e, ok := ev.(ToolCallEnd); ok && (!e.OK || e.Duration != 10*time.Minute) {
				t.Errorf("ToolCallEnd = %+v, want success after 10m despite the role's 1m timeout", e)
			}
		}
	})
}

func TestRunCallFromContext(t *testing.T) {
	eng := newScript(t, `{"roles":{"executor":[{"toolCalls":[{"id":"call-7","name":"whoami"}]},{"text":"ok"}]}}`)
	var got tool.Call
	who := tool.NewTool("whoami", "Report the call.", func(ctx context.Context, _ noArgs) (struct{}, error) {
		got, _ = tool.CallFrom(ctx)
		return struct{}{}, nil
	})
	a := newAgent(t, Config{Engine: eng, Agent: "executor", Tools: newToolset(t, who)})
	collect(a.Run(t.Context(), Input{User: "who"}))
	if diff := cmp.Diff(tool.Call{ID: "call-7", Name: "whoami", Round: 1}, got); diff != "" {
		t.Errorf("CallFrom mismatch (-want +got):\n%s", diff)
	}
	if _, ok := tool.CallFrom(t.Context()); ok {
		t.Error("CallFrom outside a call reported a call")
	}
}

func TestRunResultLimits(t *testing.T) {
	eng := newScript(t, `{"roles":{"planner":[{"toolCalls":[{"id":"c1","name":"many"}]},{"text":"ok"}]}}`)
	many := tool.NewTool("many", "Many ids.", func(context.Context, noArgs) (map[string][]int, error) {
		ids := make([]int, 500)
		for i := range ids {
			ids[i] = 100000 + i
		}
		return map[string][]int{"ids": ids}, nil
	})
	a := newAgent(t, Config{Engine: eng, Tools: newToolset(t, many),
		ResultLimits:  DigestLimits{MaxBytes: 1000, MaxItems: 50, MaxString: 100},
		HistoryLimits: DigestLimits{MaxBytes: 200, MaxItems: 10, MaxString: 100}})
	events, end := collect(a.Run(t.Context(), Input{User: "ids"}))
	for _, ev := range events {
		if e, ok := ev.(ToolCallEnd); ok && (len(e.Result) > 1000 || !strings.Contains(string(e.Result), "more items")) {
			t.Errorf("ToolCallEnd.Result has %d bytes, want a digest within 1000", len(e.Result))
		}
	}
	seen := lastToolResults(t, eng.Requests()[1])[0].Content
	kept := end.Messages[1].ToolResults[0].Content
	if len(seen) > 1000 || len(kept) > 200 || len(kept) >= len(seen) {
		t.Errorf("model saw %d bytes, history keeps %d; want ≤1000 and ≤200", len(seen), len(kept))
	}
}

func TestRunEmptyInput(t *testing.T) {
	a := newAgent(t, Config{Engine: newScript(t, `{"roles":{}}`)})
	_, end := collect(a.Run(t.Context(), Input{User: "  "}))
	if !errors.Is(end.Err, ErrNoInput) {
		t.Errorf("RunEnd.Err = %v, want ErrNoInput", end.Err)
	}
}

func TestRunCalibratesEstimator(t *testing.T) {
	eng := newScript(t, `{"roles":{"planner":[{"text":"ok","usage":{"promptTokens":1000,"completionTokens":1}}]}}`)
	est := NewEstimator(0)
	a := newAgent(t, Config{Engine: eng, Model: "m", Estimator: est, System: "You are a planner."})
	collect(a.Run(t.Context(), Input{User: "hello there"}))
	if r := est.Ratio("m"); r != 4 { // far more tokens than estimated: clamped
		t.Errorf("Ratio = %v, want the clamp 4", r)
	}
}

func TestNewConfigErrors(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New without an engine succeeded")
	}
	if _, err := New(Config{Engine: newScript(t, `{"roles":{}}`), MaxRounds: -1}); err == nil {
		t.Error("New with a negative bound succeeded")
	}
}

// TestRoundEndAndContinue: a round that ran tools reports its messages to
// persist (RoundEnd) before the next model call, the final answer does not;
// a run given Continue sends those messages after the user message and
// keeps them out of RunEnd.Messages.
func TestRoundEndAndContinue(t *testing.T) {
	e := newScript(t, `{"roles":{"planner":[
		{"toolCalls":[{"id":"c2","name":"search","args":{"query":"kinase"}}]},
		{"text":"Found kinase-1."}]}}`)
	a := newAgent(t, Config{Engine: e, Tools: newToolset(t, searchTool())})
	earlier := []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "search", Args: []byte(`{"query":"ATPase"}`)}}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "c1", Name: "search", Content: []byte(`{"ok":true}`)}}},
	}
	events, end := collect(a.Run(context.Background(), Input{User: "find kinases", Continue: earlier}))
	var rounds []RoundEnd
	for _, ev := range events {
		if r, ok := ev.(RoundEnd); ok {
			rounds = append(rounds, r)
		}
	}
	if len(rounds) != 1 || rounds[0].Round != 1 || len(rounds[0].Messages) != 2 ||
		rounds[0].Messages[0].ToolCalls[0].ID != "c2" || rounds[0].Messages[1].ToolResults[0].CallID != "c2" {
		t.Fatalf("round ends = %+v, want round 1 with c2's call and result", rounds)
	}
	if end.Reason != StopCompleted || len(end.Messages) != 3 || end.Messages[0].ToolCalls[0].ID != "c2" {
		t.Errorf("run end = %v with %d messages, want completed with c2's round and the answer", end.Reason, len(end.Messages))
	}
	first := e.Requests()[0].Messages
	if len(first) != 3 || first[0].Text != "find kinases" || first[1].ToolCalls[0].ID != "c1" {
		t.Errorf("the first model call saw %+v, want the user message then the earlier round", first)
	}
}
