package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/llm"
)

// notifyingBuffer is watch's stdout: it says when the output contains a
// marker.
type notifyingBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	seen   chan struct{}
}

func (b *notifyingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.seen != nil && strings.Contains(b.buf.String(), b.marker) {
		close(b.seen)
		b.seen = nil
	}
	return n, err
}

func (b *notifyingBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

const (
	watchConv  = "c0000000-0000-4000-8000-000000000001"
	watchTurn  = "7b000000-0000-4000-8000-00000000000b"
	watchDeleg = "d0000000-0000-4000-8000-00000000000d"
)

func watchTranscript(t *testing.T) []event.Record {
	t.Helper()
	b := event.Base{TurnID: watchTurn}
	events := []event.Event{
		&event.TurnStart{Base: b, Mode: "execute", Model: "offline", UserMessageID: "u1"},
		&event.AssistantDelta{Base: b, MessageID: "m1", Delta: "Building "},
		&event.AssistantDelta{Base: b, MessageID: "m1", Delta: "the strategy."},
		&event.ToolCallStart{Base: b, CallID: "c1", Name: "delegate_strategy_subtasks", Args: json.RawMessage(`{"goal": "kinases on chromosome 5"}`)},
		&event.SubagentPlan{Base: b, DelegationID: watchDeleg, Goal: "kinases on chromosome 5", Nodes: []event.PlanNode{
			{ID: "n1", Kind: "task", Label: "kinases"},
			{ID: "n2", Kind: "task", Label: "chromosome 5"},
			{ID: "n3", Kind: "combine", Label: "both", DependsOn: []string{"n1", "n2"}, Operator: "INTERSECT"},
		}},
		&event.SubagentTaskStart{Base: b, DelegationID: watchDeleg, NodeID: "n1", Attempt: 1},
		&event.SubagentTaskStart{Base: b, DelegationID: watchDeleg, NodeID: "n2", Attempt: 1},
		&event.SubagentToolCallStart{Base: b, DelegationID: watchDeleg, NodeID: "n1", CallID: "s1", Name: "create_step", Args: json.RawMessage(`{"search_name":"GenesByText"}`)},
		&event.SubagentToolCallEnd{Base: b, DelegationID: watchDeleg, NodeID: "n1", CallID: "s1", Name: "create_step", OK: true, DurationMs: 4},
		&event.SubagentTaskEnd{Base: b, DelegationID: watchDeleg, NodeID: "n1", Status: event.NodeDone, Attempt: 1, RootStepID: "s1", DurationMs: 1500},
		&event.SubagentTaskEnd{Base: b, DelegationID: watchDeleg, NodeID: "n2", Status: event.NodeFailed, Attempt: 1, Error: "no such chromosome", DurationMs: 20},
		&event.SubagentTaskEnd{Base: b, DelegationID: watchDeleg, NodeID: "n3", Status: event.NodeSkipped},
		&event.ToolCallEnd{Base: b, CallID: "c1", Name: "delegate_strategy_subtasks", OK: false, Error: &event.ToolError{Code: "PARTIAL", Message: "1 of 3 nodes done"}, DurationMs: 1600},
		&event.AssistantMessage{Base: b, MessageID: "m1", Content: "Building the strategy."},
		&event.AssistantMessage{Base: b, MessageID: "m2", Content: "One task failed."},
		&event.TurnEnd{Base: b, Status: event.TurnCompleted, DurationMs: 2100, Usage: llm.Usage{TotalTokens: 321}},
	}
	var recs []event.Record
	for i, e := range events {
		name, payload, err := event.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, event.Record{ConversationID: watchConv, Seq: int64(i + 1), TurnID: watchTurn, Type: name, Payload: payload})
	}
	eventtest.Check(t, recs)
	return recs
}

// TestWatchResumes follows a stream that is closed after 4 events, then
// cut in the middle of the 8th, then served again from 3 events too early:
// every event is shown once, in order, and each reconnect asks for the
// events after the last complete one.
func TestWatchResumes(t *testing.T) {
	s := &eventtest.SSEServer{
		Records: watchTranscript(t),
		Token:   "tok-1",
		Connections: []eventtest.Connection{
			{Frames: 4},
			{Frames: 3, Cut: true},
			{Rewind: 3, KeepAlive: true},
		},
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	out := &notifyingBuffer{marker: "■ turn", seen: make(chan struct{})}
	seen := out.seen
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := map[string]string{"STRATEGIST_URL": srv.URL + "/", "STRATEGIST_TOKEN": "tok-1"}
	done := make(chan error, 1)
	go func() { done <- watchCmd(ctx, []string{watchConv}, out, func(k string) string { return env[k] }) }()
	select {
	case <-seen:
	case err := <-done:
		t.Fatalf("watch ended early: %v\n%s", err, out)
	case <-time.After(30 * time.Second):
		t.Fatalf("watch did not show the turn's end:\n%s", out)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch() = %v after Ctrl-C, want nil", err)
	}
	want := `watching conversation ` + watchConv + ` at ` + srv.URL + `/ (Ctrl-C to stop)
▶ turn 7b000000 · execute · offline
  assistant: Building the strategy.
  → delegate_strategy_subtasks {"goal":"kinases on chromosome 5"}
… connection closed by the server; resuming after event 4
  delegation d0000000: kinases on chromosome 5 (3 nodes)
    n1 task "kinases"
    n2 task "chromosome 5"
    n3 combine INTERSECT "both" after n1, n2
    n1 ▸ running (attempt 1) "kinases"  [1 running · 2 queued]
    n2 ▸ running (attempt 1) "chromosome 5"  [2 running · 1 queued]
… connection lost: sseclient: incomplete frame after seq 7; resuming after event 7
    n1 → create_step {"search_name":"GenesByText"}
    n1 ← create_step ok 4ms
    n1 ✓ done (root s1 1.5s) "kinases"  [1 done · 1 running · 1 queued]
    n2 ✗ failed (no such chromosome 20ms) "chromosome 5"  [1 done · 1 queued · 1 failed]
    n3 – skipped (0s) "both"  [1 done · 1 failed · 1 skipped]
  ← delegate_strategy_subtasks error PARTIAL: 1 of 3 nodes done 1.6s
  assistant: One task failed.
■ turn 7b000000 completed in 2.1s · 321 tokens
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("watch output mismatch (-want +got):\n%s", diff)
	}
	wantRequests := []eventtest.Request{
		{Authorization: "Bearer tok-1"},
		{LastEventID: "4", After: "4", Authorization: "Bearer tok-1"},
		{LastEventID: "7", After: "7", Authorization: "Bearer tok-1"},
	}
	if diff := cmp.Diff(wantRequests, s.Requests()); diff != "" {
		t.Errorf("stream requests mismatch (-want +got):\n%s", diff)
	}
}

func TestWatchRefused(t *testing.T) {
	s := &eventtest.SSEServer{Token: "right"}
	srv := httptest.NewServer(s)
	defer srv.Close()
	var out bytes.Buffer
	err := watchCmd(context.Background(), []string{"--token", "wrong", "--url", srv.URL, watchConv}, &out, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "STRATEGIST_TOKEN") {
		t.Errorf("watch with a bad token = %v, want advice on the token", err)
	}
}

func TestWatchUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--after"},
		{"--after", "x", watchConv},
		{watchConv, "extra"},
		{"--bogus", watchConv},
		{"--url", "ftp://example.org", watchConv},
		{"--after", "-1", watchConv},
	} {
		err := watchCmd(context.Background(), args, &bytes.Buffer{}, func(string) string { return "" })
		if !errors.Is(err, errUsage) {
			t.Errorf("watch %q = %v, want a usage error", args, err)
		}
	}
}

// TestWatchFlagsAfterID: flags may follow the conversation id.
func TestWatchFlagsAfterID(t *testing.T) {
	s := &eventtest.SSEServer{Records: watchTranscript(t), Connections: []eventtest.Connection{{Status: 404}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	err := watchCmd(context.Background(), []string{watchConv, "--after", "12", "--url", srv.URL, "--token", "t"}, &bytes.Buffer{}, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "no such conversation") {
		t.Errorf("watch of a missing conversation = %v", err)
	}
	if diff := cmp.Diff([]eventtest.Request{{LastEventID: "12", After: "12", Authorization: "Bearer t"}}, s.Requests()); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

// TestWatchShowsTheTurnsTrace: a traced turn's first line names its whole
// trace id, to paste into a trace viewer; an untraced one names none.
func TestWatchShowsTheTurnsTrace(t *testing.T) {
	for _, tc := range []struct{ traceID, want string }{
		{"4bf92f3577b34da6a3ce929d0e0e4736", " · trace 4bf92f3577b34da6a3ce929d0e0e4736"},
		{"", ""},
	} {
		var out bytes.Buffer
		p := newWatchPrinter(&out, "c1")
		typ, payload, err := event.Encode(&event.TurnStart{Base: event.Base{TurnID: "t1"}, Mode: event.Mode("plan"), Model: "offline", TraceID: tc.traceID})
		if err != nil {
			t.Fatal(err)
		}
		p.print(event.Record{ConversationID: "c1", Seq: 1, TurnID: "t1", Type: typ, Payload: payload})
		p.endLine()
		line := strings.TrimSpace(out.String())
		if !strings.HasSuffix(line, "offline"+tc.want) {
			t.Errorf("turn_start line = %q, want it to end %q", line, "offline"+tc.want)
		}
	}
}
