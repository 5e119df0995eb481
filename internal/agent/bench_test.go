package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"strategist/internal/llm"
	"strategist/internal/llm/scripted"
)

// loopScript is a run of rounds model calls: rounds-1 responses that each
// call the search tool calls times, then a text answer.
func loopScript(b *testing.B, rounds, calls int) *scripted.Script {
	b.Helper()
	var sb strings.Builder
	sb.WriteString(`{"roles":{"planner":[`)
	for r := range rounds - 1 {
		sb.WriteString(`{"toolCalls":[`)
		for c := range calls {
			if c > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `{"name":"search","args":{"query":"kinase %d"}}`, r)
		}
		sb.WriteString(`],"usage":{"promptTokens":100,"completionTokens":10}},`)
	}
	sb.WriteString(`{"text":"GenesByText finds the kinases; intersect with chromosome 5.","usage":{"promptTokens":100,"completionTokens":10}}]}}`)
	s, err := scripted.Parse([]byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkLoop measures the loop's own cost per round (model call +
// tool calls + feeding results back) with a zero-latency scripted engine.
// ns/round and allocs/round include the scripted engine's work (choosing
// the response, estimating usage, splitting text) and the tool's.
func BenchmarkLoop(b *testing.B) {
	for _, bc := range []struct{ rounds, calls int }{{1, 0}, {10, 1}, {10, 4}} {
		b.Run(fmt.Sprintf("rounds=%d/calls=%d", bc.rounds, bc.calls), func(b *testing.B) {
			script := loopScript(b, bc.rounds, bc.calls)
			tools := newToolset(b, searchTool())
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			cpu0 := cpuTime()
			b.ReportAllocs()
			for b.Loop() {
				eng, err := scripted.New(script)
				if err != nil {
					b.Fatal(err)
				}
				a, err := New(Config{Engine: eng, Agent: "planner", Tools: tools, MaxRounds: bc.rounds,
					NewID: seqIDs(), System: "You plan VEuPathDB search strategies."})
				if err != nil {
					b.Fatal(err)
				}
				_, end := collect(a.Run(b.Context(), Input{User: "Find protein kinases on chromosome 5"}))
				if end.Reason != StopCompleted {
					b.Fatalf("run ended %v: %v", end.Reason, end.Err)
				}
			}
			cpu := cpuTime() - cpu0
			runtime.ReadMemStats(&ms1)
			rounds := float64(b.N * bc.rounds)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rounds, "ns/round")
			b.ReportMetric(float64(cpu.Nanoseconds())/rounds, "cpu-ns/round")
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/rounds, "allocs/round")
		})
	}
}

// BenchmarkLoopTraced is BenchmarkLoop's ten rounds of four calls run
// inside a recording span, as a traced turn is: every model and tool call
// makes a span, batched and handed to an exporter that drops it. Beside
// BenchmarkLoop it is the agent loop's cost of tracing.
func BenchmarkLoopTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	script := loopScript(b, 10, 4)
	tools := newToolset(b, searchTool())
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	b.ReportAllocs()
	for b.Loop() {
		eng, err := scripted.New(script)
		if err != nil {
			b.Fatal(err)
		}
		a, err := New(Config{Engine: eng, Agent: "planner", Tools: tools, MaxRounds: 10,
			NewID: seqIDs(), System: "You plan VEuPathDB search strategies."})
		if err != nil {
			b.Fatal(err)
		}
		ctx, span := tp.Tracer("bench").Start(b.Context(), "turn")
		_, end := collect(a.Run(ctx, Input{User: "Find protein kinases on chromosome 5"}))
		span.End()
		if end.Reason != StopCompleted {
			b.Fatalf("run ended %v: %v", end.Reason, end.Err)
		}
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&ms1)
	rounds := float64(b.N * 10)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rounds, "ns/round")
	b.ReportMetric(float64(cpu.Nanoseconds())/rounds, "cpu-ns/round")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/rounds, "allocs/round")
}

// estimationHistory is a 40-message planning history of about 40 KB.
func estimationHistory() *llm.Request {
	req := &llm.Request{System: strings.Repeat("You plan VEuPathDB search strategies. ", 50)}
	para := strings.Repeat("Protein kinases of Plasmodium falciparum 3D7 (PF3D7_0100100) on chromosome 5; ", 10)
	for i := range 20 {
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleUser, Text: fmt.Sprintf("Question %d: %s", i, para)},
			llm.Message{Role: llm.RoleAssistant, Text: para, ToolCalls: []llm.ToolCall{
				{ID: "c", Name: "search_for_searches", Args: json.RawMessage(`{"query":"protein kinase","record_type":"transcript"}`)}}},
		)
	}
	return req
}

func requestBytes(req *llm.Request) int64 {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Text)
		for _, c := range m.ToolCalls {
			n += len(c.Args)
		}
	}
	return int64(n)
}

// BenchmarkEstimate measures prompt estimation of a 40-message history:
// cold (a fresh cache, every message scanned) and cached (a warm cache, as
// on every round after the first and every later turn).
func BenchmarkEstimate(b *testing.B) {
	req := estimationHistory()
	b.Run("cold", func(b *testing.B) {
		b.SetBytes(requestBytes(req))
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			NewEstimator(0).Estimate("m", req)
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
	b.Run("cached", func(b *testing.B) {
		e := NewEstimator(0)
		e.Estimate("m", req)
		b.SetBytes(requestBytes(req))
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			e.Estimate("m", req)
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkDigest measures digesting a 500-id result to history limits,
// checking its validity (Digest) or trusting it (the loop's own results).
func BenchmarkDigest(b *testing.B) {
	ids := make([]string, 500)
	for i := range ids {
		ids[i] = fmt.Sprintf("PF3D7_%07d", i)
	}
	raw, _ := json.Marshal(map[string]any{"ok": true, "count": 500, "ids": ids})
	for _, bc := range []struct {
		name   string
		digest func(json.RawMessage, DigestLimits) json.RawMessage
	}{{"checked", Digest}, {"trusted", digestValid}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				bc.digest(raw, DefaultHistoryLimits())
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
