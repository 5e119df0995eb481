package agent

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"strategist/internal/llm"
	"strategist/internal/tool"
)

func TestRunDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eng := newScript(t, `{"roles":{"planner":[{"latencyMs":60000,"text":"slow"}]}}`)
		a := newAgent(t, Config{Engine: eng})
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		_, end := collect(a.Run(ctx, Input{User: "hurry"}))
		if end.Reason != StopDeadline || !errors.Is(end.Err, context.DeadlineExceeded) {
			t.Errorf("RunEnd = %v, %v; want deadline", end.Reason, end.Err)
		}
	})
}

func TestRunCancelMidStream(t *testing.T) {
	defer goleak.VerifyNone(t)
	eng := newScript(t, `{"roles":{"planner":[
		{"text":"one two three four five six seven eight nine ten eleven twelve"},
		{"text":"never"}]}}`)
	a := newAgent(t, Config{Engine: eng})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var events []Event
	var end RunEnd
	for ev := range a.Run(ctx, Input{User: "count"}) {
		events = append(events, ev)
		if _, ok := ev.(TextDelta); ok {
			cancel()
		}
		if e, ok := ev.(RunEnd); ok {
			end = e
		}
	}
	want := []string{"delta m1: one two three ", "assistant m1: one two three  (incomplete)", "run end: cancelled: context canceled"}
	if diff := cmp.Diff(want, trace(events)); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]llm.Message{{Role: llm.RoleAssistant, Text: "one two three "}}, end.Messages); diff != "" {
		t.Errorf("the partial answer is not kept (-want +got):\n%s", diff)
	}
	if n := len(eng.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}

func TestRunCancelMidTool(t *testing.T) {
	defer goleak.VerifyNone(t)
	eng := newScript(t, `{"roles":{"planner":[
		{"toolCalls":[{"id":"c1","name":"block"},{"id":"c2","name":"block"},{"id":"c3","name":"search","args":{"query":"x"}}]},
		{"text":"never"}]}}`)
	started := make(chan string, 2)
	a := newAgent(t, Config{Engine: eng, Tools: newToolset(t, blockTool(started), searchTool()), MaxParallelTools: 2})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		<-started
		<-started
		cancel() // both blocking calls are running; the third waits for a slot
	}()
	events, end := collect(a.Run(ctx, Input{User: "block"}))
	if end.Reason != StopCancelled || !errors.Is(end.Err, context.Canceled) {
		t.Fatalf("RunEnd = %v, %v; want cancelled", end.Reason, end.Err)
	}
	codes := map[string]string{}
	for _, ev := range events {
		if e, ok := ev.(ToolCallEnd); ok && e.Error != nil {
			codes[e.CallID] = e.Error.Code
		}
	}
	if diff := cmp.Diff(map[string]string{"c1": tool.CodeCancelled, "c2": tool.CodeCancelled, "c3": tool.CodeCancelled}, codes); diff != "" {
		t.Errorf("call outcomes mismatch (-want +got):\n%s", diff)
	}
	if n := len(eng.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1: no call may start after cancellation", n)
	}
	last := end.Messages[len(end.Messages)-1]
	if last.Role != llm.RoleTool || len(last.ToolResults) != 3 {
		t.Errorf("last persisted message = %+v, want the three (cancelled) results", last)
	}
}

func TestRunConsumerStopsEarly(t *testing.T) {
	defer goleak.VerifyNone(t)
	eng := newScript(t, `{"roles":{"planner":[{"toolCalls":[{"id":"c1","name":"block"},{"id":"c2","name":"block"}]}]}}`)
	a := newAgent(t, Config{Engine: eng, Tools: newToolset(t, blockTool(nil))})
	n := 0
	for ev := range a.Run(t.Context(), Input{User: "block"}) {
		if _, ok := ev.(ToolCallStart); ok {
			n++
			if n == 2 {
				break // both calls run; Run must cancel and wait for them
			}
		}
	}
	if n != 2 {
		t.Errorf("saw %d starts, want 2", n)
	}
}

func TestRunNoModelCallAfterCancel(t *testing.T) {
	eng := newScript(t, `{"roles":{"planner":[{"text":"hi"}]}}`)
	a := newAgent(t, Config{Engine: eng})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, end := collect(a.Run(ctx, Input{User: "hi"}))
	if end.Reason != StopCancelled || end.Rounds != 0 {
		t.Errorf("RunEnd = %+v, want cancelled before any round", end)
	}
	if n := len(eng.Requests()); n != 0 {
		t.Errorf("%d model calls, want none", n)
	}
}
