package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The delivery benchmarks' shape: 1,000 streams, twenty on each of 50
// conversations, each conversation running one turn.
const deliveryConversations, deliveryPerConversation = 50, 20

// pacedDeltas and pacedInterval make a paced turn: 150 text deltas 33 ms
// apart, a model streaming 30 events a second for five seconds.
const (
	pacedDeltas   = 150
	pacedInterval = 33 * time.Millisecond
)

// BenchmarkDeliveryLatency opens 1,000 event streams over real HTTP (twenty
// on each of 50 conversations), starts 50 turns at once, and reports the
// time from an event's append transaction (created_at) to its arrival on
// each stream, p50 and p99 over every (stream, event) pair.
//
// "saturated" runs the offline engine, whose turns append as fast as the
// server takes them; "paced" runs a scripted model that streams 30 text
// deltas a second per turn, as a hosted model does.
//
// Each run then measures its floor: a bare net/http handler that writes
// and flushes (once per burst) the same frames (same conversations, ids, event names and
// sizes, replayed on the same schedule) to 1,000 clients of the same kind,
// and reports p50/p99 of the floor and the ratios. Set
// STRATEGIST_BENCH_NO_FLOOR=1 to skip the floor (for profiles of the
// server alone).
func BenchmarkDeliveryLatency(b *testing.B) {
	b.Run("saturated", func(b *testing.B) { benchmarkDeliveryLatency(b, false) })
	b.Run("paced", func(b *testing.B) { benchmarkDeliveryLatency(b, true) })
}

// frameSpec is one event as the floor replays it.
type frameSpec struct {
	at   time.Duration // after the conversation's first event
	seq  int64
	typ  string
	size int // payload bytes
}

func benchmarkDeliveryLatency(b *testing.B, paced bool) {
	raiseFileLimit(b, 4*deliveryConversations*deliveryPerConversation+1000)
	var env map[string]string
	message, mode := "tRNA genes or rRNA genes, excluding chromosome 1", "execute"
	if paced {
		env = pacedScript(b)
		message, mode = "tell me about kinases", "plan"
	}
	for b.Loop() {
		b.StopTimer()
		a := startBenchApp(b, env)
		convs := make([]string, deliveryConversations)
		for i := range convs {
			convs[i] = a.newConversation()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		published := probePublish(ctx, a, convs)
		arrivals, drops := followAll(ctx, len(convs), deliveryPerConversation,
			func(i int) string { return a.streamURL(convs[i]) }, a.Token,
			func(_ int, rec streamRecord) bool { return rec.Type == "turn_end" })
		// Streams yield nothing before the first event; give them time to
		// connect, then start the turns (their turn_start opens them).
		time.Sleep(2 * time.Second)
		start, cpu0 := time.Now(), cpuTime()
		b.StartTimer()
		for _, conv := range convs {
			a.startTurn(conv, mode, message)
		}
		got := arrivals.wait()
		b.StopTimer()
		elapsed, cpu := time.Since(start), cpuTime()-cpu0
		cancel()

		schedule := make([][]frameSpec, len(convs))
		created := make([]map[int64]time.Time, len(convs))
		events := 0
		for i, conv := range convs {
			rows, err := a.app.db.EventsAfter(context.Background(), a.UserID, conv, 0, 100000)
			if err != nil {
				b.Fatal(err)
			}
			created[i] = map[int64]time.Time{}
			for _, r := range rows {
				created[i][r.Seq] = r.CreatedAt
				schedule[i] = append(schedule[i], frameSpec{at: r.CreatedAt.Sub(rows[0].CreatedAt), seq: r.Seq, typ: r.Type, size: len(r.Payload)})
			}
			events += len(rows)
		}
		var lat, fromPublish, toPublish []time.Duration
		pub := published.wait()
		for _, ar := range got {
			conv := ar.stream / deliveryPerConversation
			lat = append(lat, ar.at.Sub(created[conv][ar.seq]))
			if at, ok := pub[conv][ar.seq]; ok {
				fromPublish = append(fromPublish, ar.at.Sub(at))
			}
		}
		for conv, m := range pub {
			for seq, at := range m {
				toPublish = append(toPublish, at.Sub(created[conv][seq]))
			}
		}
		a.Stop()
		p50, p99 := quantiles(lat)
		b.ReportMetric(ms(p50), "p50-ms")
		b.ReportMetric(ms(p99), "p99-ms")
		// The two halves: the append transaction until the broker has the
		// record (the write path), and the broker until the client has it.
		w50, w99 := quantiles(toPublish)
		b.ReportMetric(ms(w50), "publish-p50-ms")
		b.ReportMetric(ms(w99), "publish-p99-ms")
		d50, d99 := quantiles(fromPublish)
		b.ReportMetric(ms(d50), "from-publish-p50-ms")
		b.ReportMetric(ms(d99), "from-publish-p99-ms")
		b.ReportMetric(float64(len(lat)), "deliveries")
		b.ReportMetric(float64(drops.Load()), "slow-drops")
		b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
		// The whole process's CPU (server, turns and clients; not
		// PostgreSQL's) per delivery: steadier than latency on a shared
		// machine.
		b.ReportMetric(float64(cpu.Microseconds())/float64(len(lat)), "cpu-µs/delivery")
		if os.Getenv("STRATEGIST_BENCH_NO_FLOOR") == "" {
			f50, f99, fcpu := deliveryFloor(b, schedule)
			b.ReportMetric(fcpu, "floor-cpu-µs/delivery")
			b.ReportMetric(ms(f50), "floor-p50-ms")
			b.ReportMetric(ms(f99), "floor-p99-ms")
			b.ReportMetric(float64(p50)/float64(max(f50, time.Microsecond)), "ratio-p50")
			b.ReportMetric(float64(p99)/float64(max(f99, time.Microsecond)), "ratio-p99")
		}
		b.StartTimer()
	}
}

// pacedScript writes a scripted model whose planner answers each of the 50
// turns with pacedDeltas deltas pacedInterval apart, and returns the
// environment that makes it the default model.
func pacedScript(b *testing.B) map[string]string {
	dir := b.TempDir()
	text := strings.Repeat("kinase genes ", pacedDeltas) // one delta per 13 bytes
	var responses []map[string]any
	for range deliveryConversations {
		responses = append(responses, map[string]any{"text": text})
	}
	script := map[string]any{
		"deltaIntervalMs": pacedInterval.Milliseconds(),
		"roles":           map[string]any{"planner": responses},
	}
	raw, err := json.Marshal(script)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "paced.json"), raw, 0o644); err != nil {
		b.Fatal(err)
	}
	return map[string]string{"STRATEGIST_SCRIPTS_DIR": dir, "STRATEGIST_MODEL": "scripted:paced.json"}
}

// publishLog is when each record of each conversation reached the broker.
type publishLog struct {
	done chan struct{}
	at   []map[int64]time.Time
}

func (l *publishLog) wait() []map[int64]time.Time {
	<-l.done
	return l.at
}

// probePublish subscribes to the app's broker for each conversation (one
// more subscriber beside the streams) and notes when each record is
// published, until ctx ends or the turn ends.
func probePublish(ctx context.Context, a *testApp, convs []string) *publishLog {
	l := &publishLog{done: make(chan struct{}), at: make([]map[int64]time.Time, len(convs))}
	var wg sync.WaitGroup
	for i, conv := range convs {
		l.at[i] = map[int64]time.Time{}
		sub := a.app.broker.Subscribe(conv)
		wg.Go(func() {
			defer sub.Close()
			for {
				select {
				case <-ctx.Done():
					return
				case p, ok := <-sub.Records():
					if !ok {
						return
					}
					l.at[i][p.Seq] = time.Now()
					if p.Type == "turn_end" {
						return
					}
				}
			}
		})
	}
	go func() { wg.Wait(); close(l.done) }()
	return l
}

// streamRecord is what the benchmarks' clients see of a record.
type streamRecord struct {
	Seq     int64
	Type    string
	Payload []byte
}

type arrival struct {
	stream int // conversation index × perConversation + stream index
	seq    int64
	at     time.Time
	sent   int64 // the floor's send time (unix ns) from the payload; 0 for the server
}

// arrivalLog collects arrivals until every stream has finished; each stream
// keeps its own list, so clients do not contend for a lock.
type arrivalLog struct {
	mu      sync.Mutex
	list    []arrival
	streams sync.WaitGroup
}

func (l *arrivalLog) add(own []arrival) {
	l.mu.Lock()
	l.list = append(l.list, own...)
	l.mu.Unlock()
}

func (l *arrivalLog) wait() []arrival {
	l.streams.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.list
}

// followAll opens perConv streams on each of convs conversations and
// records every arrival until last says a stream has its final record.
// The clients are bare SSE readers (readStream), so that the clients, which
// share the machine with the server, take as little of its CPU as a client
// can. A client the server drops for being slow reconnects and resumes
// from its last id, as browsers do; drops are counted.
func followAll(ctx context.Context, convs, perConv int, url func(int) string, token string, last func(conv int, rec streamRecord) bool) (*arrivalLog, *atomic.Int64) {
	log := &arrivalLog{}
	drops := &atomic.Int64{}
	hc := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for c := range convs {
		for s := range perConv {
			id := c*perConv + s
			log.streams.Go(func() {
				var own []arrival
				defer func() { log.add(own) }()
				n := readStream(ctx, hc, url(c), token, func(rec streamRecord) bool {
					own = append(own, arrival{stream: id, seq: rec.Seq, at: time.Now(), sent: floorSent(rec.Payload)})
					return last(c, rec)
				})
				drops.Add(int64(n))
			})
		}
	}
	return log, drops
}

// readStream follows an event stream with a bare SSE reader: it calls
// record for each complete frame with an id and event name (comments are
// skipped) until record returns true or ctx ends, reconnecting with
// Last-Event-ID after a dropped connection. It returns how many
// connections dropped.
func readStream(ctx context.Context, hc *http.Client, url, token string, record func(streamRecord) bool) (drops int) {
	var last int64
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return drops
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if last > 0 {
			req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
		}
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return drops
			}
			drops++
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return drops
		}
		br := bufio.NewReaderSize(resp.Body, 64<<10)
		var rec streamRecord
		var long []byte
		for {
			line, err := br.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				long = append(long, line...)
				continue
			}
			if err != nil {
				break
			}
			if long != nil {
				line, long = append(long, line...), nil
			}
			line = line[:len(line)-1]
			switch {
			case len(line) == 0:
				if rec.Type != "" && rec.Seq > last {
					last = rec.Seq
					if record(rec) {
						resp.Body.Close()
						return drops
					}
				}
				rec = streamRecord{}
			case line[0] == ':':
			case bytes.HasPrefix(line, []byte("id: ")):
				rec.Seq, _ = strconv.ParseInt(string(line[4:]), 10, 64)
			case bytes.HasPrefix(line, []byte("event: ")):
				rec.Type = string(line[7:])
			case bytes.HasPrefix(line, []byte("data: ")):
				rec.Payload = append(rec.Payload, line[6:]...)
			}
		}
		resp.Body.Close()
		if ctx.Err() != nil {
			return drops
		}
		drops++
	}
}

// deliveryFloor replays schedule through a bare net/http server: one
// handler per client that writes the frames waiting for it and flushes,
// each frame encoded once per conversation and handed to its twenty
// handlers. It returns p50 and p99 of send-to-arrival.
func deliveryFloor(b *testing.B, schedule [][]frameSpec) (p50, p99 time.Duration, cpuPerDelivery float64) {
	hub := &floorHub{subs: make([][]chan []byte, len(schedule))}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: hub}
	go srv.Serve(ln) //nolint:errcheck // ends with Close below
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lastSeq := make([]int64, len(schedule))
	for i, s := range schedule {
		if len(s) > 0 {
			lastSeq[i] = s[len(s)-1].seq
		}
	}
	arrivals, _ := followAll(ctx, len(schedule), deliveryPerConversation,
		func(i int) string { return fmt.Sprintf("%s/api/v1/conversations/%d/events", base, i) }, "",
		func(c int, rec streamRecord) bool { return rec.Seq >= lastSeq[c] })
	for hub.count() < len(schedule)*deliveryPerConversation {
		time.Sleep(10 * time.Millisecond)
	}
	var pubs sync.WaitGroup
	start, cpu0 := time.Now(), cpuTime()
	for i, frames := range schedule {
		pubs.Go(func() {
			subs := hub.conversation(i)
			for _, f := range frames {
				time.Sleep(time.Until(start.Add(f.at)))
				frame := floorFrame(f, time.Now().UnixNano())
				for _, ch := range subs {
					ch <- frame
				}
			}
		})
	}
	pubs.Wait()
	got := arrivals.wait()
	cpu := cpuTime() - cpu0
	var lat []time.Duration
	for _, ar := range got {
		lat = append(lat, ar.at.Sub(time.Unix(0, ar.sent)))
	}
	p50, p99 = quantiles(lat)
	return p50, p99, float64(cpu.Microseconds()) / float64(max(1, len(lat)))
}

// floorFrame is an SSE frame with f's id, event name and payload size,
// whose payload carries the send time.
func floorFrame(f frameSpec, sent int64) []byte {
	payload := `{"sent":` + strconv.FormatInt(sent, 10) + `,"pad":"`
	pad := max(0, f.size-len(payload)-2)
	payload += strings.Repeat("x", pad) + `"}`
	return []byte("id: " + strconv.FormatInt(f.seq, 10) + "\nevent: " + f.typ + "\ndata: " + payload + "\n\n")
}

// floorSent reads the send time out of a floor frame's payload (0 for the
// server's events).
func floorSent(payload []byte) int64 {
	const key = `{"sent":`
	s := string(payload)
	if !strings.HasPrefix(s, key) {
		return 0
	}
	s = s[len(key):]
	n, _ := strconv.ParseInt(s[:strings.IndexByte(s, ',')], 10, 64)
	return n
}

// floorHub is the floor's server: handlers register a channel under their
// conversation (the number in the path) and write what arrives on it.
type floorHub struct {
	mu   sync.Mutex
	subs [][]chan []byte
	n    int
}

func (h *floorHub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

func (h *floorHub) conversation(i int) []chan []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.subs[i])
}

func (h *floorHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(r.URL.Path, "/")
	i, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil || i < 0 || i >= len(h.subs) {
		http.NotFound(w, r)
		return
	}
	ch := make(chan []byte, 1024)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if _, err := w.Write([]byte(": floor\n\n")); err != nil {
		return
	}
	if rc.Flush() != nil {
		return
	}
	h.mu.Lock()
	h.subs[i] = append(h.subs[i], ch)
	h.n++
	h.mu.Unlock()
	for {
		select {
		case <-r.Context().Done():
			return
		case f := <-ch:
			// Write what is waiting, then flush once: the server's rule.
			for more := true; more; {
				if _, err := w.Write(f); err != nil {
					return
				}
				select {
				case f = <-ch:
				default:
					more = false
				}
			}
			if rc.Flush() != nil {
				return
			}
		}
	}
}

func quantiles(d []time.Duration) (p50, p99 time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	slices.Sort(d)
	return d[len(d)/2], d[min(len(d)-1, len(d)*99/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// raiseFileLimit raises the soft limit on open files to want (or as far as
// the hard limit allows) and returns the limit in force.
func raiseFileLimit(tb testing.TB, want uint64) uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		tb.Fatal(err)
	}
	if lim.Cur >= want {
		return lim.Cur
	}
	if lim.Max < want {
		try := syscall.Rlimit{Cur: want, Max: want} // allowed when privileged
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &try) == nil {
			return want
		}
	}
	lim.Cur = min(want, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		tb.Logf("raising the open-file limit: %v", err)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	return lim.Cur
}

// BenchmarkIdleStreamMemory measures what an open, idle event stream costs
// the server: n real HTTP streams (spread over 50 conversations) are opened
// by a child process, so that the clients' memory is not counted, and the
// server process's resident memory (VmRSS) and Go heap (after a
// collection) are compared with and without them.
func BenchmarkIdleStreamMemory(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			if got := raiseFileLimit(b, uint64(n)+2000); got < uint64(n)+2000 {
				b.Skipf("skipping %d idle streams: the open-file limit is %d and the machine refuses more", n, got)
			}
			for b.Loop() {
				b.StopTimer()
				a := startBenchApp(b, nil)
				convs := make([]string, deliveryConversations)
				for i := range convs {
					convs[i] = a.newConversation()
				}
				rss0, heap0, stack0 := memoryNow()
				child := openIdleStreams(b, a, convs, n)
				rss1, heap1, stack1 := memoryNow()
				if path := os.Getenv("STRATEGIST_BENCH_HEAPPROFILE"); path != "" {
					writeHeapProfile(b, fmt.Sprintf("%s.%d", path, n))
				}
				child.stop()
				a.Stop()
				b.ReportMetric(float64(rss1-rss0)/1024/float64(n), "KB/stream")
				b.ReportMetric(float64(heap1-heap0)/1024/float64(n), "heap-KB/stream")
				b.ReportMetric(float64(stack1-stack0)/1024/float64(n), "stack-KB/stream")
				b.StartTimer()
			}
		})
	}
}

// memoryNow collects garbage and returns the process's resident memory,
// live heap and goroutine stacks, in bytes.
func memoryNow() (rss, heap, stack int64) {
	runtime.GC()
	debug.FreeOSMemory() // so that the resident figure is not last collection's garbage
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	raw, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for line := range strings.SplitSeq(string(raw), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				rss = kb * 1024
			}
		}
	}
	return rss, int64(ms.HeapAlloc), int64(ms.StackInuse)
}

// writeHeapProfile writes the live heap to path (the idle streams' share
// of it is what BenchmarkIdleStreamMemory divides).
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

type idleChild struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
}

func (c *idleChild) stop() {
	_ = c.stdin.Close()
	_ = c.cmd.Wait()
}

// openIdleStreams starts this test binary as TestIdleStreamClients, which
// opens n streams and holds them until its standard input closes; it
// returns once every stream has its first frame.
func openIdleStreams(b *testing.B, a *testApp, convs []string, n int) *idleChild {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestIdleStreamClients$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		"STRATEGIST_IDLE_CLIENTS="+strconv.Itoa(n),
		"STRATEGIST_IDLE_ADDR="+strings.TrimPrefix(a.URL, "http://"),
		"STRATEGIST_IDLE_TOKEN="+a.Token,
		"STRATEGIST_IDLE_CONVERSATIONS="+strings.Join(convs, ","))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	child := &idleChild{cmd: cmd, stdin: stdin}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "READY") {
			go func() { // drain the rest so the child never blocks on output
				for sc.Scan() {
				}
			}()
			return child
		}
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "ERROR") {
			child.stop()
			b.Fatalf("idle clients: %s", line)
		}
	}
	child.stop()
	b.Fatal("idle clients ended before opening their streams")
	return nil
}

// TestIdleStreamClients is BenchmarkIdleStreamMemory's client process; it
// does nothing unless STRATEGIST_IDLE_CLIENTS is set. It opens the streams
// with bare connections (a request, then the response header and the first
// comment frame), prints READY, and holds them until standard input closes.
func TestIdleStreamClients(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("STRATEGIST_IDLE_CLIENTS"))
	if n == 0 {
		t.Skip("the idle-stream benchmark's client process")
	}
	raiseFileLimit(t, uint64(n)+1000)
	addr, token := os.Getenv("STRATEGIST_IDLE_ADDR"), os.Getenv("STRATEGIST_IDLE_TOKEN")
	convs := strings.Split(os.Getenv("STRATEGIST_IDLE_CONVERSATIONS"), ",")
	conns := make([]net.Conn, n)
	var failed atomic.Value
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				failed.Store(err.Error())
				return
			}
			conns[i] = c
			req := "GET /api/v1/conversations/" + convs[i%len(convs)] + "/events HTTP/1.1\r\nHost: " + addr +
				"\r\nAuthorization: Bearer " + token + "\r\nAccept: text/event-stream\r\n\r\n"
			if _, err := c.Write([]byte(req)); err != nil {
				failed.Store(err.Error())
				return
			}
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil || resp.StatusCode != http.StatusOK {
				failed.Store(fmt.Sprintf("stream %d: %v %v", i, err, resp))
				return
			}
			br := bufio.NewReader(resp.Body)
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					failed.Store(err.Error())
					return
				}
				if line == "\n" || line == "\r\n" {
					break
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f != nil {
		fmt.Println("ERROR", f)
		return
	}
	fmt.Println("READY", n)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the benchmark closes it
	for _, c := range conns {
		_ = c.Close()
	}
}
