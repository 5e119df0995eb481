package subagent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/pgtest"
	"strategist/internal/store"
)

// makespanCase is a plan whose critical path is k model calls.
type makespanCase struct {
	name        string
	plan        string
	tasks       []string // task node ids
	transforms  []string // those among them that transform their input
	k           int
	concurrency int
}

func makespanCases() []makespanCase {
	wide, wideTasks := balancedPlan(16)
	return []makespanCase{
		// Four parallel tasks of two calls, three combines.
		{name: "tree-4x3", plan: treePlan, tasks: []string{"n1", "n2", "n4", "n5"}, k: 2, concurrency: 4},
		// n3 transforms n2 which transforms n1; n5 and n6 in parallel:
		// the chain is the critical path, three tasks of two calls.
		{name: "chain-3+2", plan: `{"type":"combine","operator":"AND",
			"left":{"type":"task","task":"Step three","input":{"type":"task","task":"Step two","input":{"type":"task","task":"Step one"}}},
			"right":{"type":"combine","operator":"OR","left":` + task1 + `,"right":` + task2 + `}}`,
			tasks: []string{"n1", "n2", "n3", "n4", "n5"}, transforms: []string{"n2", "n3"}, k: 6, concurrency: 4},
		// Sixteen parallel tasks with enough slots.
		{name: "wide-16", plan: wide, tasks: wideTasks, k: 2, concurrency: 16},
	}
}

// makespanScript gives every task two calls of latency l: create (or
// transform its input), then finish.
func makespanScript(tb testing.TB, c makespanCase, l time.Duration) *resolving {
	var responses []string
	ms := int(l / time.Millisecond)
	for _, n := range c.tasks {
		first := createCall("GenesByText")
		for _, tr := range c.transforms {
			if tr == n {
				first = transformCall(inputStep)
			}
		}
		responses = append(responses, reply(n, ms, first), reply(n, ms, finishCall(createdStep)))
	}
	return &resolving{script(tb, responses...)}
}

// BenchmarkMakespan measures a delegation's wall-clock time against its
// critical-path bound k·L, with scripted latency L per model call: the
// metric makespan/kL is the ratio (bar: makespan ≤ 1.1·k·L + 50 ms), and
// overhead-ms the time above k·L. "memory" keeps rows and events in
// memory; "postgres" writes the delegation rows to a real database and the
// events through the server's event log (eventlog.Log: group commit,
// published once durable), as a turn does.
func BenchmarkMakespan(b *testing.B) {
	for _, l := range []time.Duration{20 * time.Millisecond, 50 * time.Millisecond} {
		for _, c := range makespanCases() {
			for _, backend := range []string{"memory", "postgres"} {
				b.Run(fmt.Sprintf("%s/L=%s/%s", c.name, l, backend), func(b *testing.B) {
					benchMakespan(b, c, l, backend)
				})
			}
		}
	}
}

func benchMakespan(b *testing.B, c makespanCase, l time.Duration, backend string) {
	var (
		rows   Store
		events Emitter
	)
	userID, conversationID, turnID := "user-1", "conv-1", "turn-1"
	if backend == "postgres" {
		turnID = "" // no turn row to refer to
		db, err := store.New(pgtest.New(b))
		if err != nil {
			b.Fatal(err)
		}
		userID, conversationID = newConversation(b, db)
		rows = db
		events = logEmitter{log: newEventLog(b, db), conversationID: conversationID}
	}
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := newHarness(b, makespanScript(b, c, l), Config{Concurrency: c.concurrency})
		if rows != nil {
			h.sched.cfg.Store = rows
		}
		d := h.delegation(b, c.plan)
		d.UserID, d.ConversationID, d.TurnID = userID, conversationID, turnID
		if events != nil {
			d.Emitter = events
		}
		b.StartTimer()
		start := time.Now()
		res, err := h.sched.Run(context.Background(), d)
		elapsed := time.Since(start)
		if err != nil {
			b.Fatalf("Run: %v", err)
		}
		if res.Status != DelegationCompleted {
			b.Fatalf("Run = %s: %+v", res.Status, res.Nodes)
		}
		total += elapsed
	}
	bound := time.Duration(c.k) * l
	avg := total / time.Duration(b.N)
	b.ReportMetric(float64(avg)/float64(bound), "makespan/kL")
	b.ReportMetric(float64(avg-bound)/float64(time.Millisecond), "overhead-ms")
	if limit := bound*11/10 + 50*time.Millisecond; avg > limit {
		b.Logf("makespan %v is above the bar %v", avg, limit)
	}
}

// newConversation makes a user and a conversation to hang delegations on.
func newConversation(tb testing.TB, db *store.DB) (userID, conversationID string) {
	tb.Helper()
	ctx := context.Background()
	u, err := db.CreateUser(ctx, strings.ToLower(strings.ReplaceAll(tb.Name(), "/", "-"))+"@example.org", "$argon2id$test")
	if err != nil {
		tb.Fatal(err)
	}
	conv, err := db.CreateConversation(ctx, u.ID, testSite, "Delegation", "scripted")
	if err != nil {
		tb.Fatal(err)
	}
	return u.ID, conv.ID
}

// logEmitter appends a delegation's events to the server's event log
// (group commit, published once durable).
type logEmitter struct {
	log            *eventlog.Log
	conversationID string
}

func (e logEmitter) Emit(ctx context.Context, events ...event.Event) error {
	_, err := e.log.Append(ctx, e.conversationID, events...)
	return err
}

// newEventLog runs an event log over db until the benchmark ends.
func newEventLog(b *testing.B, db *store.DB) *eventlog.Log {
	l, err := eventlog.NewLog(eventlog.LogConfig{Store: db, Broker: eventlog.NewBroker(0), Origin: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("event log: %v", err)
		}
	})
	return l
}
