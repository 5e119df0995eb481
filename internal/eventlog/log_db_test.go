package eventlog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/pgtest"
)

// checkLog reads every conversation's log and checks that it holds exactly
// the appended events: seq 1..n, and each writer's events in the order it
// appended them ("w<writer>-<i>").
func checkLog(t *testing.T, p *process, userID string, conversations []string, wantPerConversation int) {
	t.Helper()
	for _, conv := range conversations {
		rows, err := p.db.EventsAfter(context.Background(), userID, conv, 0, 100000)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != wantPerConversation {
			t.Errorf("conversation %s holds %d events, want %d", conv, len(rows), wantPerConversation)
		}
		next := map[string]int{}
		for i, r := range rows {
			if r.Seq != int64(i+1) {
				t.Fatalf("conversation %s: event %d has seq %d: not contiguous", conv, i, r.Seq)
			}
			writer, n := splitText(t, deltaText(t, eventlog.FromRow(r)))
			if n != next[writer] {
				t.Fatalf("conversation %s: writer %s's event %d stored where %d was due", conv, writer, n, next[writer])
			}
			next[writer]++
		}
	}
}

func splitText(t *testing.T, text string) (string, int) {
	t.Helper()
	w, n, ok := strings.Cut(text, "-")
	i, err := strconv.Atoi(n)
	if !ok || err != nil {
		t.Fatalf("unexpected delta %q", text)
	}
	return w, i
}

// TestLogConcurrentAppends: 20 goroutines append 50 events each, one at a
// time, across 5 conversations. The sequences are contiguous, nothing is
// lost, each goroutine's order is kept, a subscriber only ever sees
// records the table already has, and the writes were group-committed.
func TestLogConcurrentAppends(t *testing.T) {
	t.Parallel()
	const writers, perWriter, conversations = 20, 50, 5
	url := pgtest.NewURL(t)
	counter := &countingStore{}
	p := startProcess(t, url, "p1", processOptions{wrap: func(s eventlog.LogStore) eventlog.LogStore {
		counter.LogStore = s
		return counter
	}, buffer: writers * perWriter})
	userID, convs := seed(t, p.db, conversations)

	// One subscriber per conversation checks each record against the table
	// as it arrives: published implies committed.
	var checkers sync.WaitGroup
	subs := make([]*eventlog.Subscription, conversations)
	for i, conv := range convs {
		subs[i] = p.broker.Subscribe(conv)
		checkers.Go(func() {
			want := int64(1)
			for r := range subs[i].Records() {
				if r.Seq != want {
					t.Errorf("conversation %d: published seq %d, want %d", i, r.Seq, want)
				}
				want = r.Seq + 1
				rows, err := p.db.EventsRange(context.Background(), conv, r.Seq, r.Seq)
				if err != nil || len(rows) != 1 {
					t.Errorf("published seq %d of conversation %d is not in the table (%v)", r.Seq, i, err)
				}
				if r.Seq == writers*perWriter/conversations {
					return
				}
			}
		})
	}

	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			conv := convs[w%conversations]
			turn := newUUID()
			last := int64(0)
			for i := range perWriter {
				recs, err := p.log.Append(context.Background(), conv, delta(turn, fmt.Sprintf("w%d-%d", w, i)))
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				if recs[0].Seq <= last {
					t.Errorf("writer %d: seq %d after %d", w, recs[0].Seq, last)
				}
				last = recs[0].Seq
			}
		})
	}
	wg.Wait()
	checkers.Wait()
	for _, s := range subs {
		s.Close()
	}
	checkLog(t, p, userID, convs, writers*perWriter/conversations)

	txs := counter.transactions()
	total := 0
	for _, n := range txs {
		total += n
	}
	if total != writers*perWriter {
		t.Errorf("transactions wrote %d events, want %d", total, writers*perWriter)
	}
	if len(txs) >= writers*perWriter {
		t.Errorf("%d transactions for %d appends: no group commit", len(txs), writers*perWriter)
	}
	t.Logf("%d appends in %d transactions (%.1f events per transaction)", writers*perWriter, len(txs), float64(total)/float64(len(txs)))
}

// TestLogTwoProcesses: two logs with their own pools (two server
// processes) append to the same conversations at once; the sequences stay
// contiguous and each writer's order is kept.
func TestLogTwoProcesses(t *testing.T) {
	t.Parallel()
	const writers, perWriter = 8, 25
	url := pgtest.NewURL(t)
	procs := []*process{startProcess(t, url, "p1", processOptions{}), startProcess(t, url, "p2", processOptions{})}
	userID, convs := seed(t, procs[0].db, 2)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			p := procs[w%2]
			turn := newUUID()
			for i := range perWriter {
				conv := convs[(w/2)%2]
				if _, err := p.log.Append(context.Background(), conv, delta(turn, fmt.Sprintf("w%d-%d", w, i))); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	checkLog(t, procs[1], userID, convs, writers*perWriter/2)
}

// TestLogScrubsJSONForPostgres appends the payloads jsonb would refuse, all
// in one batch: every one is stored.
func TestLogScrubsJSONForPostgres(t *testing.T) {
	t.Parallel()
	p := startProcess(t, pgtest.NewURL(t), "p1", processOptions{})
	_, convs := seed(t, p.db, 1)
	var evs []event.Event
	for _, tt := range scrubCases {
		evs = append(evs, &event.ToolCallStart{Base: event.Base{TurnID: newUUID()}, CallID: "c", Name: "n", Args: json.RawMessage(tt.args)})
	}
	recs, err := p.log.Append(context.Background(), convs[0], evs...)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range scrubCases {
		if got := storedQ(t, recs[i]); got != tt.wantValue {
			t.Errorf("%s: stored %q, want %q", tt.name, got, tt.wantValue)
		}
	}
}
