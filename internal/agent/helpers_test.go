package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"strategist/internal/llm"
	"strategist/internal/llm/scripted"
	"strategist/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newScript(t testing.TB, script string) *scripted.Engine {
	t.Helper()
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatalf("scripted.Parse: %v", err)
	}
	e, err := scripted.New(s)
	if err != nil {
		t.Fatalf("scripted.New: %v", err)
	}
	return e
}

// seqIDs makes message ids m1, m2, ... (called only by the run's goroutine).
func seqIDs() func() string {
	n := 0
	return func() string {
		n++
		return "m" + strconv.Itoa(n)
	}
}

func newAgent(t testing.TB, cfg Config) *Agent {
	t.Helper()
	if cfg.Agent == "" {
		cfg.Agent = "planner"
	}
	if cfg.NewID == nil {
		cfg.NewID = seqIDs()
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a
}

func newToolset(t testing.TB, tools ...tool.Tool) *tool.Toolset {
	t.Helper()
	s, err := tool.NewToolset(tools...)
	if err != nil {
		t.Fatalf("NewToolset: %v", err)
	}
	return s
}

// trace renders events as short lines, compared as a transcript. Text
// deltas of one message are joined into one line.
func trace(events []Event) []string {
	var out []string
	for _, ev := range events {
		switch e := ev.(type) {
		case TextDelta:
			line := "delta " + e.MessageID + ": "
			if n := len(out); n > 0 && strings.HasPrefix(out[n-1], line) {
				out[n-1] += e.Delta
				continue
			}
			out = append(out, line+e.Delta)
		case AssistantMessage:
			line := "assistant " + e.MessageID + ": " + e.Message.Text
			for _, c := range e.Message.ToolCalls {
				line += fmt.Sprintf(" [%s %s %s]", c.ID, c.Name, c.Args)
			}
			if e.Incomplete {
				line += " (incomplete)"
			}
			out = append(out, line)
		case ToolCallStart:
			out = append(out, fmt.Sprintf("start %s %s %s", e.CallID, e.Name, e.Args))
		case ToolCallEnd:
			out = append(out, fmt.Sprintf("end %s %s ok=%v %s", e.CallID, e.Name, e.OK, e.Result))
		case CallUsage:
			out = append(out, fmt.Sprintf("usage %s: %d", e.MessageID, e.Usage.TotalTokens))
		case RunEnd:
			line := "run end: " + e.Reason.String()
			if e.Err != nil {
				line += ": " + e.Err.Error()
			}
			out = append(out, line)
		}
	}
	return out
}

// collect ranges over a run and returns its events and its RunEnd.
func collect(seq iter.Seq[Event]) ([]Event, RunEnd) {
	var events []Event
	var end RunEnd
	for ev := range seq {
		events = append(events, ev)
		if e, ok := ev.(RunEnd); ok {
			end = e
		}
	}
	return events, end
}

// Tools used across the loop tests.

type searchArgs struct {
	Query string `json:"query" jsonschema:"words to look for"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many hits to return"`
}

type searchResult struct {
	Hits []string `json:"hits"`
}

func searchTool() tool.Tool {
	return tool.NewTool("search", "Search the catalog.", func(_ context.Context, a searchArgs) (searchResult, error) {
		return searchResult{Hits: []string{a.Query + "-1"}}, nil
	})
}

type noArgs struct{}

// blockTool waits for its context to end, then reports why.
func blockTool(started chan<- string) tool.Tool {
	return tool.NewTool("block", "Wait until cancelled.", func(ctx context.Context, _ noArgs) (struct{}, error) {
		if started != nil {
			c, _ := tool.CallFrom(ctx)
			started <- c.ID
		}
		<-ctx.Done()
		return struct{}{}, ctx.Err()
	})
}

func failingTool() tool.Tool {
	return tool.NewTool("fail", "Fail in the ways handlers fail.", func(_ context.Context, a struct {
		Mode string `json:"mode"`
	}) (any, error) {
		switch a.Mode {
		case "typed":
			return nil, &tool.ToolError{Code: "STEP_NOT_FOUND", Message: "no step s9", Details: map[string]any{"stepId": "s9"}}
		case "plain":
			return nil, errors.New("catalog unavailable")
		case "panic":
			panic("boom")
		case "reserved":
			return map[string]any{"ok": false}, nil
		case "list":
			return []int{1, 2}, nil
		case "nil":
			return nil, nil
		}
		return json.RawMessage(`{"mode":"unknown"}`), nil
	})
}

func lastToolResults(t *testing.T, req llm.Request) []llm.ToolResult {
	t.Helper()
	m := req.Messages[len(req.Messages)-1]
	if m.Role != llm.RoleTool {
		t.Fatalf("last message role = %s, want tool", m.Role)
	}
	return m.ToolResults
}
