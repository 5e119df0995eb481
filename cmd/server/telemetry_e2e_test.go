package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	colltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"strategist/internal/event"
	"strategist/internal/event/eventtest"
	"strategist/internal/pgtest"
)

// spanTree indexes exported spans by id and parent.
type spanTree struct {
	spans    tracetest.SpanStubs
	byID     map[trace.SpanID]tracetest.SpanStub
	children map[trace.SpanID][]tracetest.SpanStub
}

func newSpanTree(spans tracetest.SpanStubs) *spanTree {
	t := &spanTree{spans: spans, byID: map[trace.SpanID]tracetest.SpanStub{}, children: map[trace.SpanID][]tracetest.SpanStub{}}
	for _, s := range spans {
		t.byID[s.SpanContext.SpanID()] = s
		t.children[s.Parent.SpanID()] = append(t.children[s.Parent.SpanID()], s)
	}
	return t
}

// under returns the spans below s (at any depth) whose name starts with
// prefix.
func (t *spanTree) under(s tracetest.SpanStub, prefix string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	var walk func(id trace.SpanID)
	walk = func(id trace.SpanID) {
		for _, c := range t.children[id] {
			if strings.HasPrefix(c.Name, prefix) {
				out = append(out, c)
			}
			walk(c.SpanContext.SpanID())
		}
	}
	walk(s.SpanContext.SpanID())
	return out
}

// childrenNamed returns s's direct children whose name starts with prefix.
func (t *spanTree) childrenNamed(s tracetest.SpanStub, prefix string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, c := range t.children[s.SpanContext.SpanID()] {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func attr(s tracetest.SpanStub, key string) attribute.Value {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// TestTraceOfADelegation runs a delegation of four sub-agents and three
// combines with tracing on and checks the trace it leaves: one trace for
// the turn, linked to (not under) the request that started it, which
// continues the caller's trace; under the turn its model calls and the
// delegate tool call; under that the delegation; under it one span per
// node, each attempt with its node id, kind, attempt and status; under a
// task the sub-agent's tool calls, and under those the catalog requests
// and strategy changes they made; database queries inside. The turn's
// trace id is in its turn_start event and on its log lines; prompts are
// not recorded without STRATEGIST_TRACE_CONTENT.
func TestTraceOfADelegation(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	a := startApp(t, appOptions{Script: "delegation4.json", Spans: spans})
	conv := a.newConversation()

	// The caller sends its own trace context: the request's span joins it.
	callerTrace := "4bf92f3577b34da6a3ce929d0e0e4736"
	body, _ := json.Marshal(map[string]string{"mode": "execute", "message": "Build it"})
	req, _ := http.NewRequest("POST", a.URL+"/api/v1/conversations/"+conv+"/turns", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+a.Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", "00-"+callerTrace+"-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("start turn = %d", resp.StatusCode)
	}
	recs := a.collect(conv, 0, 120*time.Second, untilTurnEnds(1))
	eventtest.Check(t, recs)
	start := payload(t, find(recs, "turn_start")[0])
	traceID, _ := start["traceId"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(traceID) || traceID == callerTrace {
		t.Fatalf("turn_start traceId = %q", traceID)
	}

	// The turn's span ends just after turn_end is published.
	var tree *spanTree
	var root tracetest.SpanStub
	deadline := time.Now().Add(20 * time.Second)
	for found := false; !found; {
		if time.Now().After(deadline) {
			t.Fatalf("no turn span was exported; spans: %v", names(spans.GetSpans()))
		}
		if err := a.obs.tracer.ForceFlush(context.Background()); err != nil {
			t.Fatal(err)
		}
		tree = newSpanTree(spans.GetSpans())
		for _, s := range tree.spans {
			if s.Name == "turn execute" {
				root, found = s, true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}

	if root.SpanContext.TraceID().String() != traceID || root.Parent.IsValid() {
		t.Errorf("turn span: trace %s, parent %v; want a root of trace %s", root.SpanContext.TraceID(), root.Parent, traceID)
	}
	if root.SpanContext.SpanID().String() != start["spanId"] {
		t.Errorf("turn_start spanId = %v, turn span %s", start["spanId"], root.SpanContext.SpanID())
	}
	if attr(root, "strategist.turn.status").AsString() != "completed" || attr(root, "strategist.conversation.id").AsString() != conv ||
		attr(root, "strategist.turn.mode").AsString() != "execute" {
		t.Errorf("turn span attributes = %v", root.Attributes)
	}
	if v := attr(root, "strategist.turn.message"); v.Type() != attribute.EMPTY {
		t.Errorf("the message was recorded without STRATEGIST_TRACE_CONTENT: %v", v)
	}
	// The request's span continues the caller's trace and is the turn's link.
	var request tracetest.SpanStub
	for _, s := range tree.spans {
		if s.Name == "POST /api/v1/conversations/:id/turns" {
			request = s
		}
	}
	if request.SpanContext.TraceID().String() != callerTrace {
		t.Fatalf("request span %q in trace %s, want the caller's %s; spans: %v", request.Name, request.SpanContext.TraceID(), callerTrace, names(tree.spans))
	}
	if len(root.Links) != 1 || root.Links[0].SpanContext.SpanID() != request.SpanContext.SpanID() {
		t.Errorf("turn links = %+v, want the request span %s", root.Links, request.SpanContext.SpanID())
	}

	// Everything else of the turn is in its trace, under its root.
	for _, s := range tree.spans {
		if s.SpanContext.TraceID().String() != traceID {
			continue
		}
		for p := s; p.Parent.IsValid(); {
			parent, ok := tree.byID[p.Parent.SpanID()]
			if !ok {
				t.Errorf("span %q has a parent that was not exported", s.Name)
				break
			}
			p = parent
		}
	}
	models := tree.childrenNamed(root, "chat ")
	if len(models) != 2 {
		t.Errorf("executor model calls = %d, want 2", len(models))
	}
	for _, m := range models {
		if attr(m, "gen_ai.agent.name").AsString() != "executor" || attr(m, "gen_ai.prompt").Type() != attribute.EMPTY {
			t.Errorf("model span %q attributes = %v", m.Name, m.Attributes)
		}
	}
	if fr := attr(models[0], "gen_ai.response.finish_reasons").AsStringSlice(); len(fr) != 1 {
		t.Errorf("first model call finish reasons = %v", fr)
	}
	delegate := tree.childrenNamed(root, "execute_tool delegate_strategy_subtasks")
	if len(delegate) != 1 || attr(delegate[0], "strategist.tool.outcome").AsString() != "ok" {
		t.Fatalf("delegate tool spans = %v", names(delegate))
	}
	delegations := tree.childrenNamed(delegate[0], "delegation")
	if len(delegations) != 1 || attr(delegations[0], "strategist.delegation.status").AsString() != "completed" {
		t.Fatalf("delegation spans = %v", names(delegations))
	}
	// (The delegation's own rows and events are written under it too.)
	nodes := append(tree.childrenNamed(delegations[0], "task "), tree.childrenNamed(delegations[0], "combine ")...)
	var nodeNames []string
	for _, n := range nodes {
		nodeNames = append(nodeNames, n.Name)
		if attr(n, "strategist.node.status").AsString() != "done" || attr(n, "strategist.node.attempt").AsInt64() != 1 ||
			attr(n, "strategist.node.id").AsString() == "" {
			t.Errorf("node span %q attributes = %v", n.Name, n.Attributes)
		}
	}
	slices.Sort(nodeNames)
	want := []string{"combine n3", "combine n5", "combine n7", "task n1", "task n2", "task n4", "task n6"}
	if !slices.Equal(nodeNames, want) {
		t.Fatalf("node spans = %v, want %v", nodeNames, want)
	}
	// The leaves ran concurrently, yet each sub-agent's work is under its
	// own node: a task's model calls and create_step, whose catalog
	// validation and strategy change are under the tool call.
	for _, n := range nodes {
		if !strings.HasPrefix(n.Name, "task ") {
			if len(tree.childrenNamed(n, "strategy combine")) != 1 {
				t.Errorf("%s: no strategy change under it: %v", n.Name, names(tree.under(n, "")))
			}
			continue
		}
		if len(tree.childrenNamed(n, "chat ")) == 0 {
			t.Errorf("%s: no model call under it", n.Name)
		}
		create := tree.childrenNamed(n, "execute_tool create_step")
		if len(create) != 1 {
			t.Errorf("%s: create_step spans = %d", n.Name, len(create))
			continue
		}
		catalog := tree.under(create[0], "catalog ")
		if len(catalog) == 0 {
			t.Errorf("%s: no catalog request under create_step: %v", n.Name, names(tree.under(create[0], "")))
		}
		for _, c := range catalog {
			if attr(c, "strategist.site").AsString() != "plasmodb" || attr(c, "strategist.catalog.live").AsBool() {
				t.Errorf("%s: catalog span %q attributes = %v", n.Name, c.Name, c.Attributes)
			}
		}
		if len(tree.under(create[0], "strategy add_search")) != 1 {
			t.Errorf("%s: no strategy change under create_step: %v", n.Name, names(tree.under(create[0], "")))
		}
		if len(tree.childrenNamed(n, "execute_tool finish_subtask")) != 1 {
			t.Errorf("%s: no finish_subtask span", n.Name)
		}
	}
	// The database is traced inside the turn.
	var queries int
	for _, s := range tree.under(root, "") {
		if attr(s, "db.system.name").AsString() == "postgresql" {
			queries++
		}
	}
	if queries == 0 {
		t.Error("no database span in the turn's trace")
	}
}

// TestCancelledTurnTraceSaysSo cancels a delegation mid-way: the turn's
// span says it was cancelled and why, and the delegation's says so too.
func TestCancelledTurnTraceSaysSo(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	a := startApp(t, appOptions{Script: "cancel_delegation.json", Spans: spans})
	conv := a.newConversation()
	turn := a.startTurn(conv, "execute", "Build it")
	a.collect(conv, 0, 30*time.Second, func(recs []event.Record) bool { return len(find(recs, "subagent_task_start")) >= 1 })
	if st := a.call("POST", "/api/v1/conversations/"+conv+"/turns/"+turn+"/cancel", nil, nil); st/100 != 2 {
		t.Fatalf("cancel = %d", st)
	}
	a.collect(conv, 0, 30*time.Second, untilTurnEnds(1))
	var root tracetest.SpanStub
	for deadline := time.Now().Add(20 * time.Second); root.Name == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no turn span was exported")
		}
		_ = a.obs.tracer.ForceFlush(context.Background())
		for _, s := range spans.GetSpans() {
			if s.Name == "turn execute" {
				root = s
			}
		}
	}
	if attr(root, "strategist.turn.status").AsString() != "cancelled" || root.Status.Code == codes.Error {
		t.Errorf("cancelled turn span: status %v, attributes %v", root.Status, root.Attributes)
	}
	if len(root.Events) != 1 || root.Events[0].Name != "turn cancelled" || !strings.Contains(root.Events[0].Attributes[0].Value.AsString(), "cancelled by the researcher") {
		t.Errorf("cancelled turn span events = %+v", root.Events)
	}
	tree := newSpanTree(spans.GetSpans())
	dels := tree.under(root, "delegation")
	if len(dels) != 1 || attr(dels[0], "strategist.delegation.status").AsString() != "cancelled" {
		t.Errorf("delegation spans = %v", names(dels))
	}
}

func names(spans tracetest.SpanStubs) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}

// otlpReceiver is an OTLP/HTTP collector for tests: it decodes the
// protobuf export requests a server sends to /v1/traces and /v1/metrics.
type otlpReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	service []string
	metrics []string
	at      map[string]time.Time // first arrival of each span name
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{at: map[string]time.Time{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var out proto.Message
		switch req.URL.Path {
		case "/v1/traces":
			var m colltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(body, &m); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.mu.Lock()
			for _, rs := range m.ResourceSpans {
				for _, a := range rs.GetResource().GetAttributes() {
					if a.Key == "service.name" {
						r.service = append(r.service, a.GetValue().GetStringValue())
					}
				}
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						r.spans = append(r.spans, s)
						if _, ok := r.at[s.Name]; !ok {
							r.at[s.Name] = time.Now()
						}
					}
				}
			}
			r.mu.Unlock()
			out = &colltracepb.ExportTraceServiceResponse{}
		case "/v1/metrics":
			var m collmetricpb.ExportMetricsServiceRequest
			if err := proto.Unmarshal(body, &m); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.mu.Lock()
			for _, rm := range m.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, mt := range sm.Metrics {
						r.metrics = append(r.metrics, mt.Name)
					}
				}
			}
			r.mu.Unlock()
			out = &collmetricpb.ExportMetricsServiceResponse{}
		default:
			http.NotFound(w, req)
			return
		}
		b, _ := proto.Marshal(out)
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(b)
	}))
	t.Cleanup(r.Close)
	return r
}

// spansOf returns the received spans of a trace (hex id).
func (r *otlpReceiver) spansOf(traceID string) []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range r.spans {
		if traceIDHex(s.TraceId) == traceID {
			out = append(out, s)
		}
	}
	return out
}

func traceIDHex(b []byte) string {
	var id trace.TraceID
	copy(id[:], b)
	return id.String()
}

// TestPlanningTurnReachesAnOTLPCollector runs the real server process with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP receiver and
// no other OpenTelemetry setting: a planning turn of the offline planner
// arrives at /v1/traces within a few seconds of its turn_end (the batch
// processor's default delay is 5 s), as one trace with the turn's id,
// its model and tool calls, catalog requests and queries; the metrics
// arrive at /v1/metrics; the turn's log lines carry its trace id.
func TestPlanningTurnReachesAnOTLPCollector(t *testing.T) {
	// Not parallel: it waits on a real process with deadlines.
	recv := newOTLPReceiver(t)
	dbURL := pgtest.NewURL(t)
	token := newToken(t, dbURL)
	p := startProc(t, dbURL, map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL,
		"OTEL_METRIC_EXPORT_INTERVAL": "1000",
		"STRATEGIST_LOG_LEVEL":        "info",
	})
	a := p.as(token)
	conv := a.newConversation()
	a.startTurn(conv, "plan", "genes on chromosome 14 with a signal peptide")
	recs := a.collect(conv, 0, 60*time.Second, untilTurnEnds(1))
	ended := time.Now()
	eventtest.Check(t, recs)
	traceID, _ := payload(t, find(recs, "turn_start")[0])["traceId"].(string)
	if traceID == "" {
		t.Fatal("turn_start has no traceId with tracing on")
	}

	var got []*tracepb.Span
	for {
		got = recv.spansOf(traceID)
		if slices.ContainsFunc(got, func(s *tracepb.Span) bool { return s.Name == "turn plan" }) {
			break
		}
		if time.Since(ended) > 15*time.Second {
			t.Fatalf("the turn's trace did not reach the collector within 15 s of turn_end; got %d spans of it", len(got))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if took := time.Since(ended); took > 8*time.Second {
		t.Errorf("the turn's span arrived %v after turn_end", took)
	} else {
		t.Logf("the turn's span arrived %v after turn_end", took.Round(time.Millisecond))
	}
	kinds := map[string]int{}
	for _, s := range got {
		name := s.Name
		if i := strings.IndexByte(name, ' '); i > 0 {
			name = name[:i]
		}
		kinds[name]++
	}
	for _, k := range []string{"turn", "chat", "execute_tool", "catalog"} {
		if kinds[k] == 0 {
			t.Errorf("no %q span in the exported trace: %v", k, kinds)
		}
	}
	if kinds["SELECT"]+kinds["INSERT"]+kinds["UPDATE"]+kinds["WITH"] == 0 {
		t.Errorf("no database span in the exported trace: %v", kinds)
	}
	recv.mu.Lock()
	service := slices.Clone(recv.service)
	recv.mu.Unlock()
	if !slices.Contains(service, "strategist") {
		t.Errorf("resource service names = %v", service)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		recv.mu.Lock()
		ok := slices.Contains(recv.metrics, "strategist.turns") && slices.Contains(recv.metrics, "strategist.tool_call.duration")
		metrics := slices.Clone(recv.metrics)
		recv.mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics received: %v", metrics)
		}
	}
	if !strings.Contains(p.Logs.String(), "trace_id="+traceID) {
		t.Errorf("no log line carries the turn's trace id %s:\n%s", traceID, p.Logs.String())
	}
}

// TestMetricsOfADelegation runs a delegation with tracing off and reads
// /metrics: turns by status, turn duration, tokens by model, tool-call
// latency by tool and scope, sub-agent attempts by outcome, open streams
// and the event log's batches are there beside the HTTP metrics, from the
// one registry; the turn_start event names no trace.
func TestMetricsOfADelegation(t *testing.T) {
	t.Parallel()
	a, _, recs := runDelegation(t, "delegation4.json", nil)
	if start := payload(t, find(recs, "turn_start")[0]); start["traceId"] != nil || start["spanId"] != nil {
		t.Errorf("turn_start names a trace with tracing off: %v", start)
	}
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rec := httptest.NewRecorder()
		a.app.server.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		body = rec.Body.String()
		// The turn is counted just after its turn_end is published.
		if strings.Contains(body, "strategist_turns_total{") || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{
		`strategist_turns_total{mode="execute",status="completed"} 1`,
		`strategist_turn_duration_seconds_count{mode="execute",status="completed"} 1`,
		`strategist_tool_call_duration_seconds_count{outcome="ok",scope="main",tool="delegate_strategy_subtasks"} 1`,
		`strategist_tool_call_duration_seconds_count{outcome="ok",scope="subagent",tool="create_step"} 4`,
		`strategist_tool_call_duration_seconds_count{outcome="ok",scope="subagent",tool="finish_subtask"} 4`,
		`strategist_subagent_attempts_total{kind="task",outcome="done"} 4`,
		`strategist_subagent_attempts_total{kind="combine",outcome="done"} 3`,
		`strategist_streams_open`,
		`strategist_eventlog_batch_size_count`,
		`strategist_eventlog_lag_seconds_bucket`,
		`strategist_http_requests_total`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if !regexp.MustCompile(`strategist_model_tokens_total\{model="[^"]+",type="input"\} [1-9]`).MatchString(body) {
		t.Errorf("/metrics has no input tokens by model:\n%s", grepLines(body, "strategist_model"))
	}
	if t.Failed() {
		t.Logf("strategist metrics:\n%s", grepLines(body, "strategist_"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
