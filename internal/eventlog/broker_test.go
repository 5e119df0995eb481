package eventlog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/eventlog"
)

func rec(conv string, seq int64) event.Record {
	return event.Record{ConversationID: conv, Seq: seq, Type: "usage"}
}

// received drains what a subscription holds without blocking.
func received(s *eventlog.Subscription) []int64 {
	var seqs []int64
	for {
		select {
		case r, ok := <-s.Records():
			if !ok {
				return seqs
			}
			seqs = append(seqs, r.Seq)
		default:
			return seqs
		}
	}
}

func TestBrokerDeliversByConversation(t *testing.T) {
	const a, b = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002"
	br := eventlog.NewBroker(10)
	sa1, sa2, sb := br.Subscribe(a), br.Subscribe(strings.ToUpper(a)), br.Subscribe(b)
	defer sa1.Close()
	defer sa2.Close()
	defer sb.Close()
	br.Publish(rec(a, 1), rec(b, 1), rec(a, 2))
	br.Publish(rec(a, 3))
	br.Publish(rec(a, 2), rec(a, 3)) // not above what was published: dropped
	for name, tt := range map[string]struct {
		sub  *eventlog.Subscription
		want []int64
	}{"a": {sa1, []int64{1, 2, 3}}, "A (upper-case id)": {sa2, []int64{1, 2, 3}}, "b": {sb, []int64{1}}} {
		if diff := cmp.Diff(tt.want, received(tt.sub)); diff != "" {
			t.Errorf("subscriber %s received mismatch (-want +got):\n%s", name, diff)
		}
	}
	if diff := cmp.Diff(map[string]int64{a: 3, b: 1}, br.Watched()); diff != "" {
		t.Errorf("Watched() mismatch (-want +got):\n%s", diff)
	}
}

func TestBrokerDropsSlowSubscriber(t *testing.T) {
	const a = "aaaaaaaa-0000-4000-8000-000000000001"
	br := eventlog.NewBroker(2)
	slow, fast := br.Subscribe(a), br.Subscribe(a)
	defer slow.Close()
	defer fast.Close()
	var fastGot []int64
	for seq := int64(1); seq <= 5; seq++ {
		br.Publish(rec(a, seq)) // never blocks, though slow never reads
		fastGot = append(fastGot, received(fast)...)
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 4, 5}, fastGot); diff != "" {
		t.Errorf("fast subscriber received mismatch (-want +got):\n%s", diff)
	}
	// The slow one got what fit in its buffer, then its channel closed.
	if diff := cmp.Diff([]int64{1, 2}, received(slow)); diff != "" {
		t.Errorf("slow subscriber received mismatch (-want +got):\n%s", diff)
	}
	if _, open := <-slow.Records(); open {
		t.Error("slow subscriber's channel still open")
	}
	if err := slow.Err(); !errors.Is(err, eventlog.ErrSlowSubscriber) {
		t.Errorf("slow.Err() = %v, want ErrSlowSubscriber", err)
	}
	if err := fast.Err(); err != nil {
		t.Errorf("fast.Err() = %v, want nil", err)
	}
}

func TestBrokerClose(t *testing.T) {
	const a = "aaaaaaaa-0000-4000-8000-000000000001"
	br := eventlog.NewBroker(0)
	s := br.Subscribe(a)
	if !br.Watching(a) {
		t.Fatal("Watching() = false with a subscriber")
	}
	s.Close()
	s.Close() // idempotent
	if _, open := <-s.Records(); open || s.Err() != nil {
		t.Errorf("after Close: channel open %v, Err %v; want closed, nil", open, s.Err())
	}
	if br.Watching(a) || len(br.Watched()) != 0 {
		t.Error("conversation still watched after its last subscriber closed")
	}
	br.Publish(rec(a, 1)) // no subscriber: nothing happens
}
