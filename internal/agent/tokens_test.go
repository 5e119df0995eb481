package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"testing"

	"strategist/internal/llm"
)

func TestCountTokens(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"   \n\t", 0},
		{"hello world", 2},
		{"phosphorylation", 3},
		{`{"ok":true}`, 5},             // {" ok ": true }
		{"PF3D7_0100100", 4},           // PF3D7 _ 0100100
		{"日本語", 3},                     // one per non-ASCII character
		{"kinase, 5'-nucleotidase", 8}, // kinas·e , 5 '- nucle·otida·se
	}
	for _, tt := range tests {
		if got := CountTokens(tt.s); got != tt.want {
			t.Errorf("CountTokens(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func TestEstimatorCachesAndCalibrates(t *testing.T) {
	e := NewEstimator(2)
	msgs := []llm.Message{
		{Role: llm.RoleUser, Text: "Find protein kinases on chromosome 5"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "search", Args: json.RawMessage(`{"query":"kinase"}`)}}},
		{Role: llm.RoleTool, ToolResults: []llm.ToolResult{{CallID: "c1", Name: "search", Content: json.RawMessage(`{"ok":true}`)}}},
	}
	want := []int{
		messageOverhead + CountTokens("user") + CountTokens(msgs[0].Text),
		messageOverhead + toolOverhead + CountTokens("search") + CountTokens(`{"query":"kinase"}`),
		messageOverhead + toolOverhead + CountTokens("search") + CountTokens(`{"ok":true}`),
	}
	for round := range 2 { // the second round is served from the cache
		for i := range msgs {
			if got := e.Message(&msgs[i]); got != want[i] {
				t.Errorf("round %d: Message(%d) = %d, want %d", round, i, got, want[i])
			}
		}
	}
	if n := len(e.cur) + len(e.old); n > 4 {
		t.Errorf("cache holds %d entries, want at most 2 generations of 2", n)
	}

	req := llm.Request{System: "You plan.", Messages: msgs, Tools: []llm.ToolDecl{{Name: "search", Description: "Search.", Schema: json.RawMessage(`{"type":"object"}`)}}}
	est := e.Estimate("m", &req)
	if est.Raw != est.Tokens {
		t.Errorf("uncalibrated estimate = %+v, want Tokens == Raw", est)
	}
	steps := []struct {
		actual    int
		wantRatio float64
	}{
		{actual: est.Raw * 3 / 2, wantRatio: 1.5},
		{actual: est.Raw / 2, wantRatio: 0.7*1.5 + 0.3*0.5},
		{actual: est.Raw * 100, wantRatio: 4},
		{actual: 0, wantRatio: 4}, // no usage reported: ignored
	}
	for _, s := range steps {
		e.Observe("m", est, s.actual)
		if got := e.Ratio("m"); math.Abs(got-s.wantRatio) > 0.02 {
			t.Errorf("after Observe(actual %d) Ratio = %v, want %v", s.actual, got, s.wantRatio)
		}
	}
	if got := e.Estimate("m", &req).Tokens; got != est.Raw*4 {
		t.Errorf("calibrated estimate = %d, want 4×%d", got, est.Raw)
	}
	if got := e.Ratio("other"); got != 1 {
		t.Errorf("Ratio(other) = %v, want 1: calibration is per model", got)
	}
}

func TestEstimatorDistinguishesFields(t *testing.T) {
	e := NewEstimator(0)
	// Same bytes, cut differently between name and arguments.
	a := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "ab", Args: json.RawMessage(`{}`)}}}
	b := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "a", Args: json.RawMessage(`b{}`)}}}
	e.Message(&a)
	e.Message(&b)
	if n := len(e.cur); n != 2 {
		t.Errorf("cache has %d entries for two different messages, want 2", n)
	}
}

func TestEstimatorConcurrent(t *testing.T) {
	e := NewEstimator(16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				m := llm.Message{Role: llm.RoleUser, Text: fmt.Sprintf("message %d", i%40)}
				e.Message(&m)
				e.Observe(fmt.Sprint("model", g%2), Estimate{Raw: 10}, 12)
			}
		})
	}
	wg.Wait()
}
