package eventlog_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"strategist/internal/event"
	"strategist/internal/eventlog"
	"strategist/internal/store"
)

// tableStore is an in-memory StreamStore over one conversation's log: the
// test decides what is "committed" and publishes to the broker itself.
type tableStore struct {
	owner string

	mu     sync.Mutex
	rows   []store.EventRow
	reads  []int64           // the after of each read
	onRead func(after int64) // called (without mu) before each read
}

func (s *tableStore) add(conv string, seqs ...int64) []event.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	var recs []event.Record
	for _, seq := range seqs {
		row := store.EventRow{ConversationID: conv, Seq: seq, Type: "usage", Payload: []byte(fmt.Sprintf(`{"n":%d}`, seq))}
		s.rows = append(s.rows, row)
		recs = append(recs, eventlog.FromRow(row))
	}
	return recs
}

func (s *tableStore) EventsAfter(ctx context.Context, userID, conversationID string, after int64, limit int) ([]store.EventRow, error) {
	if s.onRead != nil {
		s.onRead(after)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if userID != s.owner {
		return nil, fmt.Errorf("store: events after: %w", store.ErrNotFound)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads = append(s.reads, after)
	var out []store.EventRow
	for _, r := range s.rows {
		if r.Seq > after && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

func (s *tableStore) readAfters() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.reads...)
}

func seqs(n int64, from int64) []int64 {
	var out []int64
	for i := range n {
		out = append(out, from+i)
	}
	return out
}

// collect ranges over a stream until it has n records or ends.
func collect(t *testing.T, it func(yield func(event.Record, error) bool), n int) ([]int64, error) {
	t.Helper()
	var got []int64
	var err error
	for r, e := range it {
		if e != nil {
			err = e
			break
		}
		got = append(got, r.Seq)
		if len(got) == n {
			break
		}
	}
	return got, err
}

func newStreamer(t *testing.T, st eventlog.StreamStore, br *eventlog.Broker, page int) *eventlog.Streamer {
	t.Helper()
	s, err := eventlog.NewStreamer(eventlog.StreamerConfig{Store: st, Broker: br, PageSize: page})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStreamReplaysThenFollows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &tableStore{owner: "ada"}
		br := eventlog.NewBroker(0)
		st.add(convA, seqs(5, 1)...)
		s := newStreamer(t, st, br, 100)

		var got []int64
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			got, err = collect(t, s.Stream(context.Background(), "ada", convA, 2), 6)
		}()
		synctest.Wait() // replayed 3..5, waiting for live records
		// Live: 5 again (already replayed), then 6..8.
		br.Publish(eventlog.FromRow(store.EventRow{ConversationID: convA, Seq: 5}))
		br.Publish(st.add(convA, 6, 7, 8)...)
		<-done
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int64{3, 4, 5, 6, 7, 8}, got); diff != "" {
			t.Errorf("stream mismatch (-want +got):\n%s", diff)
		}
		if br.Watching(convA) {
			t.Error("the stream's subscription outlived the stream")
		}
	})
}

// TestStreamAppendDuringReplay: events committed and published while the
// replay reads are neither lost nor repeated.
func TestStreamAppendDuringReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &tableStore{owner: "ada"}
		br := eventlog.NewBroker(0)
		st.add(convA, 1, 2, 3)
		appended := false
		st.onRead = func(after int64) {
			if !appended { // while the first read runs, 4 and 5 commit and are published
				appended = true
				br.Publish(st.add(convA, 4, 5)...)
			}
		}
		s := newStreamer(t, st, br, 100)
		got, err := collect(t, s.Stream(context.Background(), "ada", convA, 0), 5)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int64{1, 2, 3, 4, 5}, got); diff != "" {
			t.Errorf("stream mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestStreamFillsGaps: a live record that arrives before its predecessors
// (another process's events late, a lost notification) makes the stream
// read the missing range from the log first.
func TestStreamFillsGaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &tableStore{owner: "ada"}
		br := eventlog.NewBroker(0)
		st.add(convA, 1, 2)
		s := newStreamer(t, st, br, 2)
		var got []int64
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			got, err = collect(t, s.Stream(context.Background(), "ada", convA, 0), 7)
		}()
		synctest.Wait()
		st.add(convA, 3, 4, 5, 6)       // committed, notifications lost
		br.Publish(st.add(convA, 7)...) // the next one arrives
		<-done
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int64{1, 2, 3, 4, 5, 6, 7}, got); diff != "" {
			t.Errorf("stream mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestStreamLongHistory replays pages without holding a subscription, then
// subscribes and reads once more before going live.
func TestStreamLongHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &tableStore{owner: "ada"}
		br := eventlog.NewBroker(1) // a subscription held during the replay would overflow
		st.add(convA, seqs(10, 1)...)
		watchedDuringReplay := false
		st.onRead = func(after int64) {
			if after > 0 && after < 9 && br.Watching(convA) {
				watchedDuringReplay = true
			}
			br.Publish(eventlog.FromRow(store.EventRow{ConversationID: convA, Seq: 1000 + after})) // live traffic meanwhile
		}
		s := newStreamer(t, st, br, 3)
		got, err := collect(t, s.Stream(context.Background(), "ada", convA, 0), 10)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(seqs(10, 1), got); diff != "" {
			t.Errorf("stream mismatch (-want +got):\n%s", diff)
		}
		if watchedDuringReplay {
			t.Error("the stream held a subscription while replaying a long history")
		}
		if diff := cmp.Diff([]int64{0, 3, 6, 9}, st.readAfters()); diff != "" {
			t.Errorf("replay reads (after) mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestStreamEnds(t *testing.T) {
	t.Run("another user's conversation", func(t *testing.T) {
		st := &tableStore{owner: "ada"}
		s := newStreamer(t, st, eventlog.NewBroker(0), 10)
		got, err := collect(t, s.Stream(context.Background(), "bob", convA, 0), 1)
		if !errors.Is(err, store.ErrNotFound) || len(got) != 0 {
			t.Errorf("Stream(bob) = %v, %v; want ErrNotFound and nothing", got, err)
		}
	})
	t.Run("slow subscriber", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			st := &tableStore{owner: "ada"}
			br := eventlog.NewBroker(2)
			s := newStreamer(t, st, br, 10)
			var got []int64
			var err error
			block, done := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(done)
				for r, e := range s.Stream(context.Background(), "ada", convA, 0) {
					if e != nil {
						err = e
						return
					}
					got = append(got, r.Seq)
					<-block // a client that cannot keep up
				}
			}()
			synctest.Wait()
			br.Publish(st.add(convA, 1, 2, 3, 4)...) // 1 taken, 2 and 3 buffered, 4 overflows
			close(block)
			<-done
			if !errors.Is(err, eventlog.ErrSlowSubscriber) {
				t.Errorf("stream error = %v, want ErrSlowSubscriber", err)
			}
			if diff := cmp.Diff([]int64{1, 2, 3}, got); diff != "" {
				t.Errorf("records before the drop mismatch (-want +got):\n%s", diff)
			}
		})
	})
	t.Run("context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			st := &tableStore{owner: "ada"}
			br := eventlog.NewBroker(0)
			s := newStreamer(t, st, br, 10)
			ctx, cancel := context.WithCancel(context.Background())
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, err = collect(t, s.Stream(ctx, "ada", convA, 0), 100)
			}()
			synctest.Wait()
			cancel()
			<-done
			if err != nil {
				t.Errorf("stream ended with %v after its context, want no error", err)
			}
			if br.Watching(convA) {
				t.Error("subscription left behind")
			}
		})
	})
}

// TestBatchesBurstAndHeartbeat: what was published while the consumer was
// busy comes as one batch of the broker's shared records, whose frame is
// built once; a silent stream yields an empty batch every heartbeat.
func TestBatchesBurstAndHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &tableStore{owner: "ada"}
		br := eventlog.NewBroker(0)
		st.add(convA, 1)
		s := newStreamer(t, st, br, 100)
		other := br.Subscribe(convA) // another stream of the same conversation
		defer other.Close()

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		type batch struct {
			seqs   []int64
			frames []string
			at     time.Duration
		}
		var got []batch
		var sent []*eventlog.Published
		start := time.Now()
		release := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for b, err := range s.Batches(ctx, "ada", convA, 0, time.Second) {
				if err != nil {
					t.Error(err)
					return
				}
				var bt batch
				for _, p := range b {
					bt.seqs = append(bt.seqs, p.Seq)
					bt.frames = append(bt.frames, string(p.SSE()))
					sent = append(sent, p)
				}
				bt.at = time.Since(start)
				got = append(got, bt)
				if len(got) == 1 {
					<-release // busy writing the replay while 2..4 are published
				}
				if len(got) == 4 {
					cancel()
				}
			}
		}()
		synctest.Wait()
		published := st.add(convA, 2, 3, 4)
		br.Publish(published...)
		close(release)
		<-done

		want := []batch{
			{seqs: []int64{1}, frames: []string{"id: 1\nevent: usage\ndata: {\"n\":1}\n\n"}},
			{seqs: []int64{2, 3, 4}, frames: []string{
				"id: 2\nevent: usage\ndata: {\"n\":2}\n\n",
				"id: 3\nevent: usage\ndata: {\"n\":3}\n\n",
				"id: 4\nevent: usage\ndata: {\"n\":4}\n\n",
			}},
			{at: time.Second},     // silence: a heartbeat
			{at: 2 * time.Second}, // and another
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(batch{})); diff != "" {
			t.Errorf("batches mismatch (-want +got):\n%s", diff)
		}
		// The other subscriber holds the very records (and frames) the
		// stream sent live; the replayed one was read from the log.
		for i := range 3 {
			if p := <-other.Records(); p != sent[i+1] || &p.SSE()[0] != &sent[i+1].SSE()[0] {
				t.Errorf("live record %d is not shared with the other subscriber", p.Seq)
			}
		}
	})
}

// TestIdleStreamHoldsNoReplayedRecords: once a stream has handed over its
// replay and waits for live records, the replayed records are garbage. A
// stream kept them alive in its reused batch slice, so every idle stream
// of a long conversation held a page of records (up to PageSize, each with
// its SSE bytes) for as long as it stayed open.
func TestIdleStreamHoldsNoReplayedRecords(t *testing.T) {
	const n = 200
	st := &tableStore{owner: "ada"}
	br := eventlog.NewBroker(0)
	st.add(convA, seqs(n, 1)...)
	s := newStreamer(t, st, br, 500)
	var freed sync.WaitGroup
	freed.Add(n)
	ctx, cancel := context.WithCancel(context.Background())
	idle := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b, err := range s.Batches(ctx, "ada", convA, 0, 0) {
			if err != nil {
				t.Error(err)
				return
			}
			for _, p := range b {
				runtime.AddCleanup(p, func(*sync.WaitGroup) { freed.Done() }, &freed)
			}
			close(idle) // the next batch would be live records: none come
		}
	}()
	defer func() { cancel(); <-done }()
	<-idle
	all := make(chan struct{})
	go func() { freed.Wait(); close(all) }()
	for deadline := time.Now().Add(10 * time.Second); ; {
		runtime.GC()
		select {
		case <-all:
			return
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("an idle stream still holds the records it replayed")
		}
	}
}
