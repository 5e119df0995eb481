package eventlog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"strategist/internal/eventlog"
	"strategist/internal/pgtest"
)

// latencies collects durations from many goroutines.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d ...time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d...)
	l.mu.Unlock()
}

// report adds p50 and p99 (in ms) to the benchmark.
func (l *latencies) report(b *testing.B, prefix string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return
	}
	slices.Sort(l.d)
	q := func(p float64) float64 {
		return float64(l.d[min(len(l.d)-1, int(p*float64(len(l.d))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), prefix+"p50-ms")
	b.ReportMetric(q(0.99), prefix+"p99-ms")
}

// BenchmarkAppend measures Append: one op is one event appended (one
// Append call) and returned durable and published. "single" is one
// appender; "turns=50" is 50 concurrent appenders on their own
// conversations, like 50 running turns. Window 0 is the default writer;
// window=2ms waits that long for more appends before each transaction.
//
// The floor is a bare one-row commit on the same pool: "single" takes one
// sample after each append, with the timer stopped, so both see the same
// machine; turns=50 samples it before and after its appends. ratio-p50 and
// ratio-p99 are the Append latency over it (for turns=50, the latency of an
// append among 50 against a lone commit).
func BenchmarkAppend(b *testing.B) {
	url := pgtest.NewURL(b)
	for _, window := range []time.Duration{0, 2 * time.Millisecond} {
		for _, appenders := range []int{1, 50} {
			name := fmt.Sprintf("window=%s/single", window)
			if appenders > 1 {
				name = fmt.Sprintf("window=%s/turns=%d", window, appenders)
			}
			b.Run(name, func(b *testing.B) {
				counter := &countingStore{}
				p := startProcess(b, url, "bench", processOptions{window: window, wrap: func(s eventlog.LogStore) eventlog.LogStore {
					counter.LogStore = s
					return counter
				}})
				_, convs := seed(b, p.db, appenders)
				floor := pgtest.NewFloor(b, p.db.Pool())
				floor.Sample(b, 100)
				lat := &latencies{}
				b.ResetTimer()
				var wg sync.WaitGroup
				for a := range appenders {
					n := b.N / appenders
					if a < b.N%appenders {
						n++
					}
					wg.Go(func() {
						turn := newUUID()
						own := make([]time.Duration, 0, n)
						for range n {
							start := time.Now()
							if _, err := p.log.Append(context.Background(), convs[a], delta(turn, "a few words of streamed text")); err != nil {
								b.Error(err)
								return
							}
							own = append(own, time.Since(start))
							if appenders == 1 {
								b.StopTimer()
								floor.Sample(b, 1)
								b.StartTimer()
							}
						}
						lat.add(own...)
					})
				}
				wg.Wait()
				b.StopTimer()
				floor.Sample(b, 100)
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
				if txs := len(counter.transactions()); txs > 0 {
					b.ReportMetric(float64(b.N)/float64(txs), "events/tx")
				}
				lat.mu.Lock()
				floor.Report(b, lat.d)
				lat.mu.Unlock()
			})
		}
	}
}

// BenchmarkDelivery measures append-to-delivery latency: 1,000 open
// streams (20 on each of 50 conversations, through Streamer as the SSE
// endpoint uses it) while 50 goroutines append, one per conversation. One
// op is one event appended; each is delivered to 20 streams. The latency
// runs from the Append call to the stream yielding the record.
// "saturated" appends as fast as the log takes them; "paced" paces each
// appender like a model streaming 30 events a second.
func BenchmarkDelivery(b *testing.B) {
	url := pgtest.NewURL(b)
	for _, pace := range []time.Duration{0, 33 * time.Millisecond} {
		name := "saturated"
		if pace > 0 {
			name = "paced"
		}
		b.Run(name, func(b *testing.B) { benchmarkDelivery(b, url, pace) })
	}
}

func benchmarkDelivery(b *testing.B, url string, pace time.Duration) {
	const conversations, perConversation = 50, 20
	p := startProcess(b, url, "bench", processOptions{})
	userID, convs := seed(b, p.db, conversations)
	turn := newUUID()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lat := &latencies{}
	var delivered atomic.Int64
	var streams, ready sync.WaitGroup
	for _, conv := range convs {
		for range perConversation {
			ready.Add(1)
			streams.Go(func() {
				var own []time.Duration
				defer func() { lat.add(own...) }()
				first := true
				for r, err := range p.streamer.Stream(ctx, userID, conv, 0) {
					if err != nil {
						b.Errorf("stream: %v", err)
						return
					}
					if first { // the marker appended before the clock starts
						first = false
						ready.Done()
						continue
					}
					var d struct{ Delta string }
					if err := json.Unmarshal(r.Payload, &d); err != nil {
						b.Error(err)
						return
					}
					sent, _ := strconv.ParseInt(d.Delta, 10, 64)
					own = append(own, time.Since(time.Unix(0, sent)))
					delivered.Add(1)
				}
			})
		}
	}
	for _, conv := range convs {
		if _, err := p.log.Append(ctx, conv, delta(turn, "0")); err != nil {
			b.Fatal(err)
		}
	}
	ready.Wait() // every stream is live

	b.ResetTimer()
	var wg sync.WaitGroup
	for a := range conversations {
		n := b.N / conversations
		if a < b.N%conversations {
			n++
		}
		wg.Go(func() {
			for range n {
				if _, err := p.log.Append(ctx, convs[a], delta(turn, strconv.FormatInt(time.Now().UnixNano(), 10))); err != nil {
					b.Error(err)
					return
				}
				if pace > 0 {
					time.Sleep(pace)
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	// Let the streams take the last records, then close them.
	want := int64(b.N * perConversation)
	for deadline := time.Now().Add(30 * time.Second); delivered.Load() < want && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	streams.Wait()
	if got := delivered.Load(); got != want {
		b.Errorf("%d deliveries, want %d", got, want)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	lat.report(b, "")
}
